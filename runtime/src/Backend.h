//===- Backend.h - libamp_rt backend interface ------------------*- C++ -*-===//
//
// The interface between the backend-independent front end of libamp_rt
// (argument checking, memref handling, staging of host memory) and a backend
// (cpu, or cuda in libamp_rt_cuda.so). Both sides are built from this header
// in one project, so a C++ interface across the dlopen() boundary is safe;
// kBackendAbiVersion guards against mixing builds.
//
// Every pointer a backend receives is accessible to it (host memory for cpu,
// device memory for cuda) and every tensor is dense unless strides say
// otherwise. The front end has validated all arguments.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_RT_BACKEND_H
#define AMP_RT_BACKEND_H

#include "amp_rt.h"

#include <cstddef>
#include <cstdint>

namespace amp {
namespace rt {

// 4: gemm and conv also receive f32 inputs (abType / inType AMP_RT_F32).
// 5: amp_rt_conv2d_desc::groups (grouped and depthwise convolutions).
// 6: ConvProblem::plainInput.
constexpr int kBackendAbiVersion = 6;

/// Records `code` and a printf-style message as this thread's last error and
/// returns `code`. Exported from libamp_rt so that backends use it too.
AMP_RT_API amp_rt_status fail(amp_rt_status code, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/// Returns the status of `expr` from the enclosing function unless it is
/// AMP_RT_SUCCESS.
#define AMP_RT_TRY(expr)                                                       \
  do {                                                                         \
    amp_rt_status status_ = (expr);                                            \
    if (status_ != AMP_RT_SUCCESS)                                             \
      return status_;                                                          \
  } while (false)

inline size_t dtypeSize(amp_rt_dtype t) { return t == AMP_RT_F32 ? 4 : 2; }
AMP_RT_API const char *dtypeName(amp_rt_dtype t);

/// Row-major strided-batched GEMM, BLAS conventions:
///   C[b] = alpha * op(A[b]) * op(B[b]) + beta * C[b],   b < batch,
/// with M, N, K, batch >= 1 and leading dimensions valid for the transposes.
/// abType is F32, F16 or BF16; cType is F32 or abType. beta == 0 means C is
/// not read.
struct GemmArgs {
  amp_rt_dtype abType, cType;
  bool transA, transB;
  int64_t M, N, K, batch;
  float alpha, beta;
  const void *A;
  int64_t lda, strideA;
  const void *B;
  int64_t ldb, strideB;
  void *C;
  int64_t ldc, strideC;
};

/// A validated convolution: desc.filter_layout is never FILTER_DEFAULT,
/// desc.groups >= 1 divides C and K (the filter has C / groups input
/// channels), and P, Q are the output height and width.
struct ConvProblem {
  amp_rt_conv2d_desc desc;
  int64_t P, Q;
  /// NCHW activations blocked by 16 channels (oneDNN's nChw16c:
  /// x[n][c/16][h][w][c%16]; C and K multiples of 16), from the nchw16c MLIR
  /// entry points. A backend that cannot read that layout returns
  /// AMP_RT_ERROR_UNSUPPORTED, and the caller unblocks the operands.
  bool blocked16 = false;
  /// With blocked16, forward only: the input x is plain NCHW and only the
  /// output is blocked (a convolution whose input channels 16 does not
  /// divide, such as a stem on RGB images, starting a blocked chain).
  bool plainInput = false;
};

enum class ConvDirection { Forward, BackwardData, BackwardFilter };

/// Loss-scaling hyper-parameters (validated).
struct ScaleParams {
  float growth, backoff;
  int32_t interval;
  float minScale, maxScale;
};

/// Strided copy of a rank <= 4 tensor of `elemSize`-byte elements (2 or 4):
/// dst[i] = src[i] for every index i of `sizes`, addresses from the strides
/// (in elements). Used to pack and unpack non-contiguous operands.
struct StridedCopy {
  int rank;
  size_t elemSize;
  int64_t sizes[4];
  const void *src;
  int64_t srcStrides[4];
  void *dst;
  int64_t dstStrides[4];
};

class Backend {
public:
  virtual ~Backend() = default;
  virtual const char *name() const = 0;
  /// True when compute functions read and write host memory directly.
  virtual bool usesHostMemory() const = 0;

  // Memory (bytes > 0). copyToHost waits for all issued work.
  virtual amp_rt_status allocate(size_t bytes, void **ptr) = 0;
  virtual amp_rt_status deallocate(void *ptr) = 0;
  virtual amp_rt_status copyToDevice(void *dst, const void *src,
                                     size_t bytes) = 0;
  virtual amp_rt_status copyToHost(void *dst, const void *src,
                                   size_t bytes) = 0;
  virtual amp_rt_status fillZero(void *dst, size_t bytes) = 0;
  virtual amp_rt_status copyStrided(const StridedCopy &copy) = 0;
  virtual amp_rt_status synchronize() = 0;

  // Compute.
  virtual amp_rt_status gemm(const GemmArgs &args) = 0;
  /// forward: in0 = x, in1 = w, out = y; backward data: in0 = dy, in1 = w,
  /// out = dx; backward filter: in0 = x, in1 = dy, out = dw.
  virtual amp_rt_status conv(ConvDirection dir, const ConvProblem &problem,
                             amp_rt_dtype inType, amp_rt_dtype outType,
                             float alpha, const void *in0, const void *in1,
                             float beta, void *out) = 0;
  /// tensors/dtypes/counts are host arrays of n >= 1 entries; the tensors
  /// and foundInf point to backend memory. Sets *foundInf to 0 or 1.
  virtual amp_rt_status unscaleAndCheck(void *const *tensors,
                                        const amp_rt_dtype *dtypes,
                                        const int64_t *counts, int64_t n,
                                        float invScale, int32_t *foundInf) = 0;
  /// All three pointers are backend memory.
  virtual amp_rt_status updateScale(float *scale, int32_t *goodSteps,
                                    const int32_t *foundInf,
                                    const ScaleParams &params) = 0;
};

/// Factory exported by libamp_rt_cuda.so. Returns nullptr and fills `why`
/// when no usable device is present.
using CreateBackendFn = Backend *(*)(int abiVersion, char *why, size_t whyLen);
constexpr const char *kCudaFactorySymbol = "amp_rt_cuda_create_backend";

} // namespace rt
} // namespace amp

#endif // AMP_RT_BACKEND_H
