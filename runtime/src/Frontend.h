//===- Frontend.h - backend-independent core of libamp_rt -------*- C++ -*-===//
//
// The C API and the MLIR entry points both describe their operands as
// TensorViews (pointer + sizes + element strides, possibly host memory on
// the cuda backend, possibly non-contiguous) and hand them to these
// functions, which stage and pack them for the active backend.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_RT_FRONTEND_H
#define AMP_RT_FRONTEND_H

#include "Backend.h"

namespace amp {
namespace rt {

struct TensorView {
  void *data = nullptr; // address of element 0 (offset already applied)
  amp_rt_dtype dtype = AMP_RT_F32;
  int rank = 0;
  int64_t sizes[4] = {0, 0, 0, 0};
  int64_t strides[4] = {0, 0, 0, 0}; // in elements, >= 0
};

int64_t numElements(const TensorView &v);

/// C[b] = alpha * op(A[b]) op(B[b]) + beta * C[b] over rank-3 views
/// (batch, rows, cols) of any non-negative strides; shapes are checked.
amp_rt_status gemmViews(const char *fn, const TensorView &A, bool transA,
                        const TensorView &B, bool transB, const TensorView &C,
                        float alpha, float beta);

/// One convolution direction over rank-4 views in the problem's layouts
/// (packed to dense when needed). Shapes must already match the problem.
amp_rt_status convViews(const char *fn, ConvDirection dir,
                        const ConvProblem &problem, amp_rt_dtype inType,
                        amp_rt_dtype outType, float alpha,
                        const TensorView &in0, const TensorView &in1,
                        float beta, const TensorView &out);

/// Checks `desc`, resolves FILTER_DEFAULT and computes P, Q.
/// A forward convolution of a `blocked16` problem on dense host tensors x
/// and y (nChw16c) and the filter view w, run by the active backend if it
/// reads that layout in place (the cpu backend through oneDNN);
/// AMP_RT_ERROR_UNSUPPORTED, with no error recorded, if it does not.
amp_rt_status convBlockedOnHost(const char *fn, const ConvProblem &problem,
                                amp_rt_dtype inType, amp_rt_dtype outType,
                                const void *x, const TensorView &w, float beta,
                                void *y);
/// The backward-filter (weight gradient) of a `blocked16` problem from
/// dense host tensors x and dy (nChw16c) into the filter view dw, with the
/// same contract as convBlockedOnHost.
amp_rt_status convBlockedFilterGradOnHost(const char *fn,
                                          const ConvProblem &problem,
                                          amp_rt_dtype inType,
                                          amp_rt_dtype outType, const void *x,
                                          const void *dy, const TensorView &dw,
                                          float beta);
amp_rt_status makeConvProblem(const char *fn, const amp_rt_conv2d_desc *desc,
                              ConvProblem &problem);

/// Dense views of the three conv tensors of `problem` in its layouts.
void convTensorShapes(const ConvProblem &problem, int64_t x[4], int64_t w[4],
                      int64_t y[4]);

/// Copies a strided tensor on the host (pack / unpack).
void hostStridedCopy(const StridedCopy &copy);

/// Error mode of the MLIR entry points.
amp_rt_error_mode mlirErrorMode();

} // namespace rt
} // namespace amp

#endif // AMP_RT_FRONTEND_H
