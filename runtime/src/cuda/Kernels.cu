//===- Kernels.cu - the cuda backend's own kernels ------------------------===//

#include "../ScaleRule.h"
#include "Kernels.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>

namespace amp {
namespace rt {
namespace cuda {
namespace {

constexpr int kThreads = 256;

__device__ inline float loadAsFloat(const void *p, int dtype, int64_t i) {
  if (dtype == 0)
    return static_cast<const float *>(p)[i];
  unsigned short bits = static_cast<const unsigned short *>(p)[i];
  return dtype == 1 ? __half2float(__ushort_as_half(bits))
                    : __bfloat162float(__ushort_as_bfloat16(bits));
}

__device__ inline void storeFloat(void *p, int dtype, int64_t i, float v) {
  if (dtype == 0)
    static_cast<float *>(p)[i] = v;
  else if (dtype == 1)
    static_cast<unsigned short *>(p)[i] = __half_as_ushort(__float2half_rn(v));
  else
    static_cast<unsigned short *>(p)[i] =
        __bfloat16_as_ushort(__float2bfloat16_rn(v));
}

__device__ inline void offsets(const Strided4 &s, int64_t linear,
                               int64_t &srcOff, int64_t &dstOff) {
  srcOff = dstOff = 0;
  for (int d = 3; d >= 0; --d) {
    int64_t i = linear % s.sizes[d];
    linear /= s.sizes[d];
    srcOff += i * s.src[d];
    dstOff += i * s.dst[d];
  }
}

template <typename T>
__global__ void stridedCopyKernel(const T *src, T *dst, Strided4 s,
                                  int64_t total) {
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < total;
       i += int64_t(gridDim.x) * blockDim.x) {
    int64_t so, d;
    offsets(s, i, so, d);
    dst[d] = src[so];
  }
}

__global__ void axpbyKernel(const void *src, int srcType, void *dst,
                            int dstType, Strided4 s, int64_t total, float alpha,
                            float beta) {
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < total;
       i += int64_t(gridDim.x) * blockDim.x) {
    int64_t so, d;
    offsets(s, i, so, d);
    float v = alpha * loadAsFloat(src, srcType, so);
    if (beta != 0.0f)
      v += beta * loadAsFloat(dst, dstType, d);
    storeFloat(dst, dstType, d, v);
  }
}

// One block per chunk of at most kUnscaleChunk elements of one tensor (the
// host splits the tensors), so a single launch covers any mix of sizes with
// no idle blocks.
__global__ void unscaleKernel(const UnscaleEntry *chunks, int64_t n,
                              float invScale, int32_t *foundInf) {
  for (int64_t c = blockIdx.x; c < n; c += gridDim.x) {
    UnscaleEntry e = chunks[c];
    bool bad = false;
    for (int64_t i = threadIdx.x; i < e.count; i += blockDim.x) {
      float v = loadAsFloat(e.ptr, e.dtype, i) * invScale;
      storeFloat(e.ptr, e.dtype, i, v);
      // Check what was stored: a finite product can round to inf in f16.
      bad |= !isFiniteF32(loadAsFloat(e.ptr, e.dtype, i));
    }
    // The loop over c is uniform within a block, so this barrier is safe.
    if (__syncthreads_or(bad) && threadIdx.x == 0)
      *foundInf = 1;
  }
}

__global__ void updateScaleKernel(float *scale, int32_t *goodSteps,
                                  const int32_t *foundInf, float growth,
                                  float backoff, int32_t interval,
                                  float minScale, float maxScale) {
  float s = *scale;
  int32_t g = *goodSteps;
  applyScaleRule(s, g, *foundInf != 0, growth, backoff, interval, minScale,
                 maxScale);
  *scale = s;
  *goodSteps = g;
}

int blocksFor(int64_t total) {
  return int(std::max<int64_t>(
      1, std::min<int64_t>((total + kThreads - 1) / kThreads, 8192)));
}

int64_t totalOf(const Strided4 &s) {
  return s.sizes[0] * s.sizes[1] * s.sizes[2] * s.sizes[3];
}

} // namespace

cudaError_t launchStridedCopy(const void *src, void *dst, size_t elemSize,
                              const Strided4 &shape, cudaStream_t stream) {
  int64_t total = totalOf(shape);
  if (total == 0)
    return cudaSuccess;
  if (elemSize == 2)
    stridedCopyKernel<<<blocksFor(total), kThreads, 0, stream>>>(
        static_cast<const unsigned short *>(src),
        static_cast<unsigned short *>(dst), shape, total);
  else
    stridedCopyKernel<<<blocksFor(total), kThreads, 0, stream>>>(
        static_cast<const unsigned int *>(src),
        static_cast<unsigned int *>(dst), shape, total);
  return cudaGetLastError();
}

cudaError_t launchAxpby(const void *src, int srcType, void *dst, int dstType,
                        const Strided4 &shape, float alpha, float beta,
                        cudaStream_t stream) {
  int64_t total = totalOf(shape);
  if (total == 0)
    return cudaSuccess;
  axpbyKernel<<<blocksFor(total), kThreads, 0, stream>>>(
      src, srcType, dst, dstType, shape, total, alpha, beta);
  return cudaGetLastError();
}

cudaError_t launchUnscale(const UnscaleEntry *chunks, int64_t n, float invScale,
                          int32_t *foundInf, cudaStream_t stream) {
  if (n == 0)
    return cudaSuccess;
  unsigned blocks = unsigned(std::min<int64_t>(n, 1 << 20));
  unscaleKernel<<<blocks, kThreads, 0, stream>>>(chunks, n, invScale, foundInf);
  return cudaGetLastError();
}

cudaError_t launchUpdateScale(float *scale, int32_t *goodSteps,
                              const int32_t *foundInf, float growth,
                              float backoff, int32_t interval, float minScale,
                              float maxScale, cudaStream_t stream) {
  updateScaleKernel<<<1, 1, 0, stream>>>(scale, goodSteps, foundInf, growth,
                                         backoff, interval, minScale, maxScale);
  return cudaGetLastError();
}

} // namespace cuda
} // namespace rt
} // namespace amp
