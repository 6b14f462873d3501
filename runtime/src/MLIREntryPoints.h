//===- MLIREntryPoints.h - Shared by the _mlir_ciface_ entry points -*- C++
//-*-===//
//
// The descriptor checks and the ops behind the memref entry points of
// MLIREntryPoints.cpp (rank 2-4: matmuls, NCHW / NHWC and depthwise
// convolutions) and MLIRBlockedEntryPoints.cpp (rank 5: grouped convolutions
// and activations blocked by 16 channels).
//
//===----------------------------------------------------------------------===//

#ifndef AMP_RT_MLIRENTRYPOINTS_H
#define AMP_RT_MLIRENTRYPOINTS_H

#include "Frontend.h"

namespace amp::rt::entry {

/// Fails unless `m` is a usable rank-R memref descriptor: non-null,
/// non-negative sizes, strides and offset, a pointer unless it is empty.
template <typename Desc, int R>
amp_rt_status checkDescriptor(const char *fn, const char *name, const Desc *m) {
  if (!m)
    return fail(AMP_RT_ERROR_INVALID_ARGUMENT, "%s: memref %s is NULL", fn,
                name);
  int64_t n = 1;
  for (int i = 0; i < R; ++i) {
    if (m->sizes[i] < 0)
      return fail(AMP_RT_ERROR_INVALID_ARGUMENT,
                  "%s: memref %s has negative size %lld in dimension %d", fn,
                  name, (long long)m->sizes[i], i);
    if (m->strides[i] < 0)
      return fail(AMP_RT_ERROR_UNSUPPORTED,
                  "%s: memref %s has negative stride %lld in dimension %d", fn,
                  name, (long long)m->strides[i], i);
    n *= m->sizes[i];
  }
  if (m->offset < 0)
    return fail(AMP_RT_ERROR_UNSUPPORTED, "%s: memref %s has offset %lld < 0",
                fn, name, (long long)m->offset);
  if (n > 0 && !m->aligned)
    return fail(AMP_RT_ERROR_INVALID_ARGUMENT,
                "%s: memref %s has a NULL aligned pointer", fn, name);
  return AMP_RT_SUCCESS;
}

/// Builds a view of a rank-R memref descriptor, or fails with a message.
template <typename Desc, int R>
amp_rt_status viewOf(const char *fn, const char *name, const Desc *m,
                     amp_rt_dtype t, TensorView &v) {
  if (amp_rt_status s = checkDescriptor<Desc, R>(fn, name, m))
    return s;
  v = TensorView{};
  v.dtype = t;
  v.rank = R;
  for (int i = 0; i < R; ++i) {
    v.sizes[i] = m->sizes[i];
    v.strides[i] = m->strides[i];
  }
  v.data = m->aligned ? static_cast<char *>(m->aligned) +
                            m->offset * int64_t(dtypeSize(t))
                      : nullptr;
  return AMP_RT_SUCCESS;
}

/// The input rows and columns (needH x needW) an OH x OW output of a
/// KH x KW window with strides (sh, sw) and dilations (dh, dw) reads;
/// fails if a stride or dilation is below 1 or the H x W input is smaller.
amp_rt_status convWindow(const char *fn, int64_t OH, int64_t OW, int64_t KH,
                         int64_t KW, int64_t H, int64_t W, int64_t sh,
                         int64_t sw, int64_t dh, int64_t dw, int64_t &needH,
                         int64_t &needW);

/// Reports a failure of an entry point according to the error mode.
void report(amp_rt_status status);

amp_rt_status matmul(const char *fn, amp_rt_dtype in, amp_rt_dtype out,
                     const amp_rt_memref_2d *A, const amp_rt_memref_2d *B,
                     const amp_rt_memref_2d *C, int32_t transA, int32_t transB,
                     float beta);
amp_rt_status batchMatmul(const char *fn, amp_rt_dtype in, amp_rt_dtype out,
                          const amp_rt_memref_3d *A, const amp_rt_memref_3d *B,
                          const amp_rt_memref_3d *C, int32_t transA,
                          int32_t transB, float beta);
amp_rt_status conv2d(const char *fn, bool nhwc, amp_rt_dtype in,
                     amp_rt_dtype out, const amp_rt_memref_4d *I,
                     const amp_rt_memref_4d *F, const amp_rt_memref_4d *O,
                     int64_t sh, int64_t sw, int64_t dh, int64_t dw, float beta,
                     int64_t groups = 1);
amp_rt_status depthwiseConv2d(const char *fn, bool nhwc, amp_rt_dtype in,
                              amp_rt_dtype out, const amp_rt_memref_4d *I,
                              const amp_rt_memref_3d *F,
                              const amp_rt_memref_4d *O, int64_t sh, int64_t sw,
                              int64_t dh, int64_t dw, float beta);

// Rank 5 (MLIRBlockedEntryPoints.cpp).
amp_rt_status groupedConv2d(const char *fn, amp_rt_dtype in, amp_rt_dtype out,
                            const amp_rt_memref_5d *I,
                            const amp_rt_memref_5d *F,
                            const amp_rt_memref_5d *O, int64_t sh, int64_t sw,
                            int64_t dh, int64_t dw, float beta);
amp_rt_status conv2dBlocked(const char *fn, amp_rt_dtype in, amp_rt_dtype out,
                            const amp_rt_memref_5d *I,
                            const amp_rt_memref_4d *F,
                            const amp_rt_memref_5d *O, int64_t sh, int64_t sw,
                            int64_t dh, int64_t dw, float beta,
                            int64_t groups = 1);
amp_rt_status conv2dToBlocked(const char *fn, amp_rt_dtype in, amp_rt_dtype out,
                              const amp_rt_memref_4d *I,
                              const amp_rt_memref_4d *F,
                              const amp_rt_memref_5d *O, int64_t sh, int64_t sw,
                              int64_t dh, int64_t dw, float beta);
amp_rt_status
depthwiseConv2dBlocked(const char *fn, amp_rt_dtype in, amp_rt_dtype out,
                       const amp_rt_memref_5d *I, const amp_rt_memref_3d *F,
                       const amp_rt_memref_5d *O, int64_t sh, int64_t sw,
                       int64_t dh, int64_t dw, float beta);

amp_rt_status conv2dBackwardFilterBlocked(const char *fn, amp_rt_dtype in,
                                          amp_rt_dtype out,
                                          const amp_rt_memref_5d *X,
                                          const amp_rt_memref_5d *DY,
                                          const amp_rt_memref_4d *O, int64_t sh,
                                          int64_t sw, int64_t dh, int64_t dw,
                                          float beta);
amp_rt_status conv2dBackwardFilterPlainInput(const char *fn, amp_rt_dtype in,
                                             amp_rt_dtype out,
                                             const amp_rt_memref_4d *X,
                                             const amp_rt_memref_5d *DY,
                                             const amp_rt_memref_4d *O,
                                             int64_t sh, int64_t sw, int64_t dh,
                                             int64_t dw, float beta);
} // namespace amp::rt::entry

#endif // AMP_RT_MLIRENTRYPOINTS_H
