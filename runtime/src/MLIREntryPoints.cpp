//===- MLIREntryPoints.cpp - _mlir_ciface_amp_rt_* ------------------------===//
//
// The functions that code lowered by amp-lower-to-runtime calls. They turn
// memref descriptors into TensorViews and run the linalg semantics
// (accumulate into the output, no padding) through the common core.
//
//===----------------------------------------------------------------------===//

#include "MLIREntryPoints.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <vector>

using namespace amp::rt;

using namespace amp::rt::entry;

namespace amp::rt::entry {

/// The input rows and columns (needH x needW) an OH x OW output of a
/// KH x KW window with strides (sh, sw) and dilations (dh, dw) reads;
/// fails if a stride or dilation is below 1 or the H x W input is smaller.
amp_rt_status convWindow(const char *fn, int64_t OH, int64_t OW, int64_t KH,
                         int64_t KW, int64_t H, int64_t W, int64_t sh,
                         int64_t sw, int64_t dh, int64_t dw, int64_t &needH,
                         int64_t &needW) {
  if (sh < 1 || sw < 1 || dh < 1 || dw < 1)
    return fail(AMP_RT_ERROR_INVALID_ARGUMENT,
                "%s: strides (%lld, %lld) and dilations (%lld, %lld) must be "
                ">= 1",
                fn, (long long)sh, (long long)sw, (long long)dh, (long long)dw);
  needH = (OH - 1) * sh + (KH - 1) * dh + 1;
  needW = (OW - 1) * sw + (KW - 1) * dw + 1;
  if (needH > H || needW > W)
    return fail(AMP_RT_ERROR_INVALID_ARGUMENT,
                "%s: an %lldx%lld output with a %lldx%lld filter, strides "
                "(%lld, %lld) and dilations (%lld, %lld) needs a %lldx%lld "
                "input, but I is %lldx%lld",
                fn, (long long)OH, (long long)OW, (long long)KH, (long long)KW,
                (long long)sh, (long long)sw, (long long)dh, (long long)dw,
                (long long)needH, (long long)needW, (long long)H, (long long)W);
  return AMP_RT_SUCCESS;
}

/// Reports a failure of an entry point according to the error mode.
void report(amp_rt_status status) {
  if (status == AMP_RT_SUCCESS || mlirErrorMode() == AMP_RT_ERRORS_RECORD)
    return;
  std::fprintf(stderr, "amp_rt: %s\n", amp_rt_last_error());
  std::fflush(stderr);
  std::abort();
}

amp_rt_status matmul(const char *fn, amp_rt_dtype in, amp_rt_dtype out,
                     const amp_rt_memref_2d *A, const amp_rt_memref_2d *B,
                     const amp_rt_memref_2d *C, int32_t transA, int32_t transB,
                     float beta) {
  TensorView a2, b2, c2;
  amp_rt_status s;
  if ((s = viewOf<amp_rt_memref_2d, 2>(fn, "A", A, in, a2)) ||
      (s = viewOf<amp_rt_memref_2d, 2>(fn, "B", B, in, b2)) ||
      (s = viewOf<amp_rt_memref_2d, 2>(fn, "C", C, out, c2)))
    return s;
  // Rank 2 -> rank 3 with a batch of 1.
  auto lift = [](const TensorView &v) {
    TensorView r = v;
    r.rank = 3;
    r.sizes[0] = 1;
    r.strides[0] = 0;
    for (int i = 0; i < 2; ++i) {
      r.sizes[i + 1] = v.sizes[i];
      r.strides[i + 1] = v.strides[i];
    }
    return r;
  };
  return gemmViews(fn, lift(a2), transA != 0, lift(b2), transB != 0, lift(c2),
                   1.0f, beta);
}

amp_rt_status batchMatmul(const char *fn, amp_rt_dtype in, amp_rt_dtype out,
                          const amp_rt_memref_3d *A, const amp_rt_memref_3d *B,
                          const amp_rt_memref_3d *C, int32_t transA,
                          int32_t transB, float beta) {
  TensorView a, b, c;
  amp_rt_status s;
  if ((s = viewOf<amp_rt_memref_3d, 3>(fn, "A", A, in, a)) ||
      (s = viewOf<amp_rt_memref_3d, 3>(fn, "B", B, in, b)) ||
      (s = viewOf<amp_rt_memref_3d, 3>(fn, "C", C, out, c)))
    return s;
  return gemmViews(fn, a, transA != 0, b, transB != 0, c, 1.0f, beta);
}

/// linalg.conv_2d_nhwc_hwcf (nhwc = true) or linalg.conv_2d_nchw_fchw:
/// O += conv(I, F) without padding, output shape taken from O. With
/// `groups` > 1, F has C / groups input channels (the depthwise entry
/// points pass their 3-D filters as such 4-D views).
amp_rt_status conv2d(const char *fn, bool nhwc, amp_rt_dtype in,
                     amp_rt_dtype out, const amp_rt_memref_4d *I,
                     const amp_rt_memref_4d *F, const amp_rt_memref_4d *O,
                     int64_t sh, int64_t sw, int64_t dh, int64_t dw, float beta,
                     int64_t groups) {
  TensorView vi, vf, vo;
  amp_rt_status s;
  if ((s = viewOf<amp_rt_memref_4d, 4>(fn, "I", I, in, vi)) ||
      (s = viewOf<amp_rt_memref_4d, 4>(fn, "F", F, in, vf)) ||
      (s = viewOf<amp_rt_memref_4d, 4>(fn, "O", O, out, vo)))
    return s;
  // Dimension positions: I (n, h, w, c), F (kh, kw, c, f), O (n, oh, ow, f).
  const int iN = 0, iH = nhwc ? 1 : 2, iW = nhwc ? 2 : 3, iC = nhwc ? 3 : 1;
  const int fKH = nhwc ? 0 : 2, fKW = nhwc ? 1 : 3, fC = nhwc ? 2 : 1,
            fF = nhwc ? 3 : 0;
  const int oH = nhwc ? 1 : 2, oW = nhwc ? 2 : 3, oF = nhwc ? 3 : 1;
  int64_t N = vi.sizes[iN], H = vi.sizes[iH], W = vi.sizes[iW],
          C = vi.sizes[iC];
  int64_t KH = vf.sizes[fKH], KW = vf.sizes[fKW], FC = vf.sizes[fC],
          K = vf.sizes[fF];
  int64_t ON = vo.sizes[0], OH = vo.sizes[oH], OW = vo.sizes[oW],
          OK = vo.sizes[oF];
  if (ON != N || FC * groups != C || OK != K)
    return fail(AMP_RT_ERROR_INVALID_ARGUMENT,
                "%s: shapes do not match: I has batch %lld and %lld channels, "
                "F has %lld input and %lld output channels, O has batch %lld "
                "and %lld channels",
                fn, (long long)N, (long long)C, (long long)FC, (long long)K,
                (long long)ON, (long long)OK);
  int64_t needH, needW;
  if (N == 0 || K == 0 || OH == 0 || OW == 0 || C == 0 || KH == 0 || KW == 0)
    // Empty output or empty sum: O += 0 (the strides are still checked).
    return convWindow(fn, 1, 1, 1, 1, 1, 1, sh, sw, dh, dw, needH, needW);
  if ((s = convWindow(fn, OH, OW, KH, KW, H, W, sh, sw, dh, dw, needH, needW)))
    return s;
  // The runtime derives the output size from the input; when the IR keeps
  // fewer output rows/columns than fit, use only the input they read.
  if ((H - (KH - 1) * dh - 1) / sh + 1 != OH) {
    H = needH;
    vi.sizes[iH] = H;
  }
  if ((W - (KW - 1) * dw - 1) / sw + 1 != OW) {
    W = needW;
    vi.sizes[iW] = W;
  }
  amp_rt_conv2d_desc d{};
  d.layout = nhwc ? AMP_RT_NHWC : AMP_RT_NCHW;
  d.filter_layout = nhwc ? AMP_RT_FILTER_RSCK : AMP_RT_FILTER_KCRS;
  d.N = N;
  d.H = H;
  d.W = W;
  d.C = C;
  d.K = K;
  d.R = KH;
  d.S = KW;
  d.stride_h = sh;
  d.stride_w = sw;
  d.dil_h = dh;
  d.dil_w = dw;
  d.groups = groups;
  ConvProblem p;
  if ((s = makeConvProblem(fn, &d, p)))
    return s;
  if (p.P != OH || p.Q != OW)
    return fail(AMP_RT_ERROR_INTERNAL, "%s: output size mismatch", fn);
  return convViews(fn, ConvDirection::Forward, p, in, out, 1.0f, vi, vf, beta,
                   vo);
}

/// linalg.depthwise_conv_2d_nhwc_hwc (nhwc = true, F: KH x KW x C) or
/// linalg.depthwise_conv_2d_nchw_chw (F: C x KH x KW): O += the convolution
/// of each channel with its own filter, a grouped convolution with groups =
/// C whose filter is the 4-D view KH x KW x 1 x C (RSCK) or C x 1 x KH x KW
/// (KCRS) of F.
amp_rt_status depthwiseConv2d(const char *fn, bool nhwc, amp_rt_dtype in,
                              amp_rt_dtype out, const amp_rt_memref_4d *I,
                              const amp_rt_memref_3d *F,
                              const amp_rt_memref_4d *O, int64_t sh, int64_t sw,
                              int64_t dh, int64_t dw, float beta) {
  if (!I || !F || !O)
    return fail(AMP_RT_ERROR_INVALID_ARGUMENT, "%s: a memref is NULL", fn);
  const int fC = nhwc ? 2 : 0, iC = nhwc ? 3 : 1;
  if (F->sizes[fC] != I->sizes[iC])
    return fail(AMP_RT_ERROR_INVALID_ARGUMENT,
                "%s: shapes do not match: I has %lld channels, F %lld", fn,
                (long long)I->sizes[iC], (long long)F->sizes[fC]);
  amp_rt_memref_4d f4{F->allocated, F->aligned, F->offset, {}, {}};
  // The unit input-channel dimension goes where RSCK / KCRS have C.
  const int unit = nhwc ? 2 : 1;
  for (int i = 0, j = 0; i < 4; ++i) {
    f4.sizes[i] = i == unit ? 1 : F->sizes[j];
    f4.strides[i] = i == unit ? 0 : F->strides[j++];
  }
  return conv2d(fn, nhwc, in, out, I, &f4, O, sh, sw, dh, dw, beta,
                std::max<int64_t>(1, I->sizes[iC]));
}

} // namespace amp::rt::entry

// Each op has two entry points: `..._IN_OUT` accumulates into the output
// (C += A B, what the linalg op does), `..._IN_OUT_overwrite` overwrites it
// (C = A B): amp-lower-to-runtime calls it instead of zero-filling C first.
#define AMP_RT_DEFINE_MLIR_ENTRY_POINT_PAIR(IN, OUT, IN_T, OUT_T)                       \
  void _mlir_ciface_amp_rt_matmul_##IN##_##OUT(                                         \
      amp_rt_memref_2d *A, amp_rt_memref_2d *B, amp_rt_memref_2d *C,                    \
      int32_t transA, int32_t transB) {                                                 \
    report(matmul("amp_rt_matmul_" #IN "_" #OUT, IN_T, OUT_T, A, B, C, transA,          \
                  transB, 1.0f));                                                       \
  }                                                                                     \
  void _mlir_ciface_amp_rt_matmul_##IN##_##OUT##_overwrite(                             \
      amp_rt_memref_2d *A, amp_rt_memref_2d *B, amp_rt_memref_2d *C,                    \
      int32_t transA, int32_t transB) {                                                 \
    report(matmul("amp_rt_matmul_" #IN "_" #OUT "_overwrite", IN_T, OUT_T, A,           \
                  B, C, transA, transB, 0.0f));                                         \
  }                                                                                     \
  void _mlir_ciface_amp_rt_batch_matmul_##IN##_##OUT(                                   \
      amp_rt_memref_3d *A, amp_rt_memref_3d *B, amp_rt_memref_3d *C,                    \
      int32_t transA, int32_t transB) {                                                 \
    report(batchMatmul("amp_rt_batch_matmul_" #IN "_" #OUT, IN_T, OUT_T, A, B,          \
                       C, transA, transB, 1.0f));                                       \
  }                                                                                     \
  void _mlir_ciface_amp_rt_batch_matmul_##IN##_##OUT##_overwrite(                       \
      amp_rt_memref_3d *A, amp_rt_memref_3d *B, amp_rt_memref_3d *C,                    \
      int32_t transA, int32_t transB) {                                                 \
    report(batchMatmul("amp_rt_batch_matmul_" #IN "_" #OUT "_overwrite", IN_T,          \
                       OUT_T, A, B, C, transA, transB, 0.0f));                          \
  }                                                                                     \
  void _mlir_ciface_amp_rt_conv2d_nhwc_hwcf_##IN##_##OUT(                               \
      amp_rt_memref_4d *I, amp_rt_memref_4d *F, amp_rt_memref_4d *O,                    \
      int64_t strideH, int64_t strideW, int64_t dilH, int64_t dilW) {                   \
    report(conv2d("amp_rt_conv2d_nhwc_hwcf_" #IN "_" #OUT, true, IN_T, OUT_T,           \
                  I, F, O, strideH, strideW, dilH, dilW, 1.0f));                        \
  }                                                                                     \
  void _mlir_ciface_amp_rt_conv2d_nhwc_hwcf_##IN##_##OUT##_overwrite(                   \
      amp_rt_memref_4d *I, amp_rt_memref_4d *F, amp_rt_memref_4d *O,                    \
      int64_t strideH, int64_t strideW, int64_t dilH, int64_t dilW) {                   \
    report(conv2d("amp_rt_conv2d_nhwc_hwcf_" #IN "_" #OUT "_overwrite", true,           \
                  IN_T, OUT_T, I, F, O, strideH, strideW, dilH, dilW, 0.0f));           \
  }                                                                                     \
  void _mlir_ciface_amp_rt_conv2d_nchw_fchw_##IN##_##OUT(                               \
      amp_rt_memref_4d *I, amp_rt_memref_4d *F, amp_rt_memref_4d *O,                    \
      int64_t strideH, int64_t strideW, int64_t dilH, int64_t dilW) {                   \
    report(conv2d("amp_rt_conv2d_nchw_fchw_" #IN "_" #OUT, false, IN_T, OUT_T,          \
                  I, F, O, strideH, strideW, dilH, dilW, 1.0f));                        \
  }                                                                                     \
  void _mlir_ciface_amp_rt_conv2d_nchw_fchw_##IN##_##OUT##_overwrite(                   \
      amp_rt_memref_4d *I, amp_rt_memref_4d *F, amp_rt_memref_4d *O,                    \
      int64_t strideH, int64_t strideW, int64_t dilH, int64_t dilW) {                   \
    report(conv2d("amp_rt_conv2d_nchw_fchw_" #IN "_" #OUT "_overwrite", false,          \
                  IN_T, OUT_T, I, F, O, strideH, strideW, dilH, dilW, 0.0f));           \
  }                                                                                     \
  void _mlir_ciface_amp_rt_conv2d_ngchw_gfchw_##IN##_##OUT(                             \
      amp_rt_memref_5d *I, amp_rt_memref_5d *F, amp_rt_memref_5d *O,                    \
      int64_t strideH, int64_t strideW, int64_t dilH, int64_t dilW) {                   \
    report(groupedConv2d("amp_rt_conv2d_ngchw_gfchw_" #IN "_" #OUT, IN_T,               \
                         OUT_T, I, F, O, strideH, strideW, dilH, dilW, 1.0f));          \
  }                                                                                     \
  void _mlir_ciface_amp_rt_conv2d_ngchw_gfchw_##IN##_##OUT##_overwrite(                 \
      amp_rt_memref_5d *I, amp_rt_memref_5d *F, amp_rt_memref_5d *O,                    \
      int64_t strideH, int64_t strideW, int64_t dilH, int64_t dilW) {                   \
    report(groupedConv2d(                                                               \
        "amp_rt_conv2d_ngchw_gfchw_" #IN "_" #OUT "_overwrite", IN_T, OUT_T,            \
        I, F, O, strideH, strideW, dilH, dilW, 0.0f));                                  \
  }                                                                                     \
  void _mlir_ciface_amp_rt_depthwise_conv2d_nhwc_hwc_##IN##_##OUT(                      \
      amp_rt_memref_4d *I, amp_rt_memref_3d *F, amp_rt_memref_4d *O,                    \
      int64_t strideH, int64_t strideW, int64_t dilH, int64_t dilW) {                   \
    report(depthwiseConv2d("amp_rt_depthwise_conv2d_nhwc_hwc_" #IN "_" #OUT,            \
                           true, IN_T, OUT_T, I, F, O, strideH, strideW, dilH,          \
                           dilW, 1.0f));                                                \
  }                                                                                     \
  void _mlir_ciface_amp_rt_depthwise_conv2d_nhwc_hwc_##IN##_##OUT##_overwrite(          \
      amp_rt_memref_4d *I, amp_rt_memref_3d *F, amp_rt_memref_4d *O,                    \
      int64_t strideH, int64_t strideW, int64_t dilH, int64_t dilW) {                   \
    report(depthwiseConv2d(                                                             \
        "amp_rt_depthwise_conv2d_nhwc_hwc_" #IN "_" #OUT "_overwrite", true,            \
        IN_T, OUT_T, I, F, O, strideH, strideW, dilH, dilW, 0.0f));                     \
  }                                                                                     \
  void _mlir_ciface_amp_rt_depthwise_conv2d_nchw_chw_##IN##_##OUT(                      \
      amp_rt_memref_4d *I, amp_rt_memref_3d *F, amp_rt_memref_4d *O,                    \
      int64_t strideH, int64_t strideW, int64_t dilH, int64_t dilW) {                   \
    report(depthwiseConv2d("amp_rt_depthwise_conv2d_nchw_chw_" #IN "_" #OUT,            \
                           false, IN_T, OUT_T, I, F, O, strideH, strideW,               \
                           dilH, dilW, 1.0f));                                          \
  }                                                                                     \
  void _mlir_ciface_amp_rt_depthwise_conv2d_nchw_chw_##IN##_##OUT##_overwrite(          \
      amp_rt_memref_4d *I, amp_rt_memref_3d *F, amp_rt_memref_4d *O,                    \
      int64_t strideH, int64_t strideW, int64_t dilH, int64_t dilW) {                   \
    report(depthwiseConv2d(                                                             \
        "amp_rt_depthwise_conv2d_nchw_chw_" #IN "_" #OUT "_overwrite", false,           \
        IN_T, OUT_T, I, F, O, strideH, strideW, dilH, dilW, 0.0f));                     \
  }                                                                                     \
  void _mlir_ciface_amp_rt_depthwise_conv2d_nchw16c_chw_##IN##_##OUT(                   \
      amp_rt_memref_5d *I, amp_rt_memref_3d *F, amp_rt_memref_5d *O,                    \
      int64_t strideH, int64_t strideW, int64_t dilH, int64_t dilW) {                   \
    report(depthwiseConv2dBlocked(                                                      \
        "amp_rt_depthwise_conv2d_nchw16c_chw_" #IN "_" #OUT, IN_T, OUT_T, I,            \
        F, O, strideH, strideW, dilH, dilW, 1.0f));                                     \
  }                                                                                     \
  void                                                                                  \
      _mlir_ciface_amp_rt_depthwise_conv2d_nchw16c_chw_##IN##_##OUT##_overwrite(        \
          amp_rt_memref_5d *I, amp_rt_memref_3d *F, amp_rt_memref_5d *O,                \
          int64_t strideH, int64_t strideW, int64_t dilH, int64_t dilW) {               \
    report(depthwiseConv2dBlocked(                                                      \
        "amp_rt_depthwise_conv2d_nchw16c_chw_" #IN "_" #OUT "_overwrite",               \
        IN_T, OUT_T, I, F, O, strideH, strideW, dilH, dilW, 0.0f));                     \
  }                                                                                     \
  void _mlir_ciface_amp_rt_conv2d_nchw_fchw_nchw16c_##IN##_##OUT(                       \
      amp_rt_memref_4d *I, amp_rt_memref_4d *F, amp_rt_memref_5d *O,                    \
      int64_t strideH, int64_t strideW, int64_t dilH, int64_t dilW) {                   \
    report(conv2dToBlocked("amp_rt_conv2d_nchw_fchw_nchw16c_" #IN "_" #OUT,             \
                           IN_T, OUT_T, I, F, O, strideH, strideW, dilH, dilW,          \
                           1.0f));                                                      \
  }                                                                                     \
  void _mlir_ciface_amp_rt_conv2d_nchw_fchw_nchw16c_##IN##_##OUT##_overwrite(           \
      amp_rt_memref_4d *I, amp_rt_memref_4d *F, amp_rt_memref_5d *O,                    \
      int64_t strideH, int64_t strideW, int64_t dilH, int64_t dilW) {                   \
    report(conv2dToBlocked(                                                             \
        "amp_rt_conv2d_nchw_fchw_nchw16c_" #IN "_" #OUT "_overwrite", IN_T,             \
        OUT_T, I, F, O, strideH, strideW, dilH, dilW, 0.0f));                           \
  }                                                                                     \
  void _mlir_ciface_amp_rt_conv2d_nchw16c_fchw_##IN##_##OUT(                            \
      amp_rt_memref_5d *I, amp_rt_memref_4d *F, amp_rt_memref_5d *O,                    \
      int64_t strideH, int64_t strideW, int64_t dilH, int64_t dilW) {                   \
    report(conv2dBlocked("amp_rt_conv2d_nchw16c_fchw_" #IN "_" #OUT, IN_T,              \
                         OUT_T, I, F, O, strideH, strideW, dilH, dilW, 1.0f));          \
  }                                                                                     \
  void _mlir_ciface_amp_rt_conv2d_nchw16c_fchw_##IN##_##OUT##_overwrite(                \
      amp_rt_memref_5d *I, amp_rt_memref_4d *F, amp_rt_memref_5d *O,                    \
      int64_t strideH, int64_t strideW, int64_t dilH, int64_t dilW) {                   \
    report(conv2dBlocked(                                                               \
        "amp_rt_conv2d_nchw16c_fchw_" #IN "_" #OUT "_overwrite", IN_T, OUT_T,           \
        I, F, O, strideH, strideW, dilH, dilW, 0.0f));                                  \
  }                                                                                     \
  void _mlir_ciface_amp_rt_conv2d_backward_filter_nchw16c_##IN##_##OUT(                 \
      amp_rt_memref_5d *X, amp_rt_memref_5d *DY, amp_rt_memref_4d *O,                   \
      int64_t strideH, int64_t strideW, int64_t dilH, int64_t dilW) {                   \
    report(conv2dBackwardFilterBlocked(                                                 \
        "amp_rt_conv2d_backward_filter_nchw16c_" #IN "_" #OUT, IN_T, OUT_T, X,          \
        DY, O, strideH, strideW, dilH, dilW, 1.0f));                                    \
  }                                                                                     \
  void                                                                                  \
      _mlir_ciface_amp_rt_conv2d_backward_filter_nchw16c_##IN##_##OUT##_overwrite(      \
          amp_rt_memref_5d *X, amp_rt_memref_5d *DY, amp_rt_memref_4d *O,               \
          int64_t strideH, int64_t strideW, int64_t dilH, int64_t dilW) {               \
    report(conv2dBackwardFilterBlocked(                                                 \
        "amp_rt_conv2d_backward_filter_nchw16c_" #IN "_" #OUT "_overwrite",             \
        IN_T, OUT_T, X, DY, O, strideH, strideW, dilH, dilW, 0.0f));                    \
  }                                                                                     \
  void _mlir_ciface_amp_rt_conv2d_backward_filter_nchw_nchw16c_##IN##_##OUT(            \
      amp_rt_memref_4d *X, amp_rt_memref_5d *DY, amp_rt_memref_4d *O,                   \
      int64_t strideH, int64_t strideW, int64_t dilH, int64_t dilW) {                   \
    report(conv2dBackwardFilterPlainInput(                                              \
        "amp_rt_conv2d_backward_filter_nchw_nchw16c_" #IN "_" #OUT, IN_T,               \
        OUT_T, X, DY, O, strideH, strideW, dilH, dilW, 1.0f));                          \
  }                                                                                     \
  void                                                                                  \
      _mlir_ciface_amp_rt_conv2d_backward_filter_nchw_nchw16c_##IN##_##OUT##_overwrite( \
          amp_rt_memref_4d *X, amp_rt_memref_5d *DY, amp_rt_memref_4d *O,               \
          int64_t strideH, int64_t strideW, int64_t dilH, int64_t dilW) {               \
    report(conv2dBackwardFilterPlainInput(                                              \
        "amp_rt_conv2d_backward_filter_nchw_nchw16c_" #IN "_" #OUT                      \
        "_overwrite",                                                                   \
        IN_T, OUT_T, X, DY, O, strideH, strideW, dilH, dilW, 0.0f));                    \
  }

extern "C" {
AMP_RT_DEFINE_MLIR_ENTRY_POINT_PAIR(f16, f32, AMP_RT_F16, AMP_RT_F32)
AMP_RT_DEFINE_MLIR_ENTRY_POINT_PAIR(f16, f16, AMP_RT_F16, AMP_RT_F16)
AMP_RT_DEFINE_MLIR_ENTRY_POINT_PAIR(bf16, f32, AMP_RT_BF16, AMP_RT_F32)
AMP_RT_DEFINE_MLIR_ENTRY_POINT_PAIR(bf16, bf16, AMP_RT_BF16, AMP_RT_BF16)
AMP_RT_DEFINE_MLIR_ENTRY_POINT_PAIR(f32, f32, AMP_RT_F32, AMP_RT_F32)
}
