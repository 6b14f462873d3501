//===- Kernels.h - the cuda backend's own kernels ---------------*- C++ -*-===//
//
// Launchers for the kernels in Kernels.cu. Each enqueues on `stream` and
// returns the launch error (cudaGetLastError), without synchronizing.
// dtype values are amp_rt_dtype (0 f32, 1 f16, 2 bf16).
//
//===----------------------------------------------------------------------===//

#ifndef AMP_RT_CUDA_KERNELS_H
#define AMP_RT_CUDA_KERNELS_H

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace amp {
namespace rt {
namespace cuda {

/// A chunk of a fused unscale: `count` elements of `dtype` at `ptr`.
struct UnscaleEntry {
  void *ptr;
  int64_t count;
  int32_t dtype;
};

/// Rank-4 index space (lower ranks are padded with leading size-1 dims)
/// with element strides for a source and a destination.
struct Strided4 {
  int64_t sizes[4];
  int64_t src[4];
  int64_t dst[4];
};

/// dst[i] = src[i] for every index, elements of `elemSize` bytes (2 or 4).
cudaError_t launchStridedCopy(const void *src, void *dst, size_t elemSize,
                              const Strided4 &shape, cudaStream_t stream);

/// dst[i] = alpha * src[i] + beta * dst[i] in f32, converted between dtypes
/// (round to nearest even); beta == 0 does not read dst.
cudaError_t launchAxpby(const void *src, int srcType, void *dst, int dstType,
                        const Strided4 &shape, float alpha, float beta,
                        cudaStream_t stream);

/// Elements per chunk of a fused unscale (one thread block each).
constexpr int64_t kUnscaleChunk = 16384;

/// In place x *= invScale over the `n` chunks in the device array `chunks`
/// (each at most kUnscaleChunk elements of one tensor); sets *foundInf = 1
/// if any stored result is inf or NaN (the caller zeroes it first). One
/// launch for all tensors.
cudaError_t launchUnscale(const UnscaleEntry *chunks, int64_t n, float invScale,
                          int32_t *foundInf, cudaStream_t stream);

/// GradScaler's update on device-resident state (one thread).
cudaError_t launchUpdateScale(float *scale, int32_t *goodSteps,
                              const int32_t *foundInf, float growth,
                              float backoff, int32_t interval, float minScale,
                              float maxScale, cudaStream_t stream);

} // namespace cuda
} // namespace rt
} // namespace amp

#endif // AMP_RT_CUDA_KERNELS_H
