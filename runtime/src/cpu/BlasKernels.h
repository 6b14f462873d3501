//===- BlasKernels.h - the OpenBLAS path of the cpu backend -----*- C++ -*-===//
//
// The portable fallback: operands widened to f32 (exactly: every f16 and
// bf16 value is an f32 value) with the F16C/AVX2 kernels, split over the
// thread pool, and the products in OpenBLAS's cblas_sgemm, which
// accumulates in f32. Convolutions are im2col (or col2im) + the same sgemm.
// Used for f32 work when AMP_RT_CPU_F32=openblas, and whenever oneDNN cannot
// create a primitive.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_RT_CPU_BLASKERNELS_H
#define AMP_RT_CPU_BLASKERNELS_H

#include "../Backend.h"
#include "CpuCommon.h"

namespace amp {
namespace rt {

class BlasKernels {
public:
  explicit BlasKernels(ThreadPool &pool) : pool(pool) {}

  /// Any abType (F32, F16, BF16) with the GemmArgs contract.
  amp_rt_status gemm(const GemmArgs &g);
  /// Any inType; the Backend::conv contract.
  amp_rt_status conv(ConvDirection dir, const ConvProblem &p,
                     amp_rt_dtype inType, amp_rt_dtype outType, float alpha,
                     const void *in0, const void *in1, float beta, void *out);

private:
  /// f32 view of a dense input: `src` itself when it is f32, else widened
  /// into `buf`; nullptr when out of memory.
  const float *asF32(amp_rt_dtype type, const void *src, int64_t n,
                     Scratch &buf);
  /// f32 copy of a dense filter in the canonical order of `layout`: KRSC for
  /// NHWC, KCRS for NCHW (the order of the im2col columns).
  void canonicalFilter(const ConvProblem &p, amp_rt_dtype type, const void *w,
                       float *dst);
  void im2col(const ConvProblem &p, const float *x, int64_t n, int64_t begin,
              int64_t end, float *col);
  void col2im(const ConvProblem &p, const float *col, int64_t n, int64_t begin,
              int64_t end, float *dx);
  amp_rt_status forward(const ConvProblem &p, amp_rt_dtype inType,
                        amp_rt_dtype outType, float alpha, const void *x,
                        const void *w, float beta, void *y);
  amp_rt_status backwardData(const ConvProblem &p, amp_rt_dtype inType,
                             amp_rt_dtype outType, float alpha, const void *dy,
                             const void *w, float beta, void *dx);
  amp_rt_status backwardFilter(const ConvProblem &p, amp_rt_dtype inType,
                               amp_rt_dtype outType, float alpha, const void *x,
                               const void *dy, float beta, void *dw);

  ThreadPool &pool;
  Scratch bufA, bufB, bufC, bufX, bufW, bufCol, bufAcc;
};

} // namespace rt
} // namespace amp

#endif // AMP_RT_CPU_BLASKERNELS_H
