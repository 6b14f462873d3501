//===- MLIRBlockedEntryPoints.cpp - Rank-5 _mlir_ciface_ entry points ----===//
//
// The ops behind the entry points on rank-5 memrefs: linalg's grouped
// convolution (conv_2d_ngchw_gfchw, torch-mlir's form of a strided
// convolution's weight gradient) and the convolutions of amp-block-convs on
// activations blocked by 16 channels (nChw16c).
//
//===----------------------------------------------------------------------===//

#include "MLIREntryPoints.h"

#include <algorithm>
#include <cstring>
#include <initializer_list>
#include <vector>

using namespace amp::rt;

namespace amp::rt::entry {

/// The rank-4 view of a rank-5 memref with dimensions `d` and `d + 1`
/// merged into one, or false when they are not one strided run (a unit
/// dimension merges with anything).
bool mergeDims(const amp_rt_memref_5d *m, int d, amp_rt_memref_4d &out) {
  out = {m->allocated, m->aligned, m->offset, {}, {}};
  for (int i = 0, j = 0; i < 5; ++i, ++j) {
    if (i != d) {
      out.sizes[j] = m->sizes[i];
      out.strides[j] = m->strides[i];
      continue;
    }
    const int64_t outer = m->sizes[d], inner = m->sizes[d + 1];
    if (outer != 1 && inner != 1 && m->strides[d] != inner * m->strides[d + 1])
      return false;
    out.sizes[j] = outer * inner;
    out.strides[j] = inner == 1 ? m->strides[d] : m->strides[d + 1];
    ++i;
  }
  return true;
}

/// The view of rank-5 memref `m` (element type `t`) at index `at` of
/// dimension `fixed`, its other dimensions in the order `dims`.
TensorView viewOfSlice(const amp_rt_memref_5d *m, amp_rt_dtype t, int fixed,
                       int64_t at, std::initializer_list<int> dims) {
  TensorView v;
  v.dtype = t;
  v.rank = int(dims.size());
  int i = 0;
  for (int d : dims) {
    v.sizes[i] = m->sizes[d];
    v.strides[i++] = m->strides[d];
  }
  v.data = static_cast<char *>(m->aligned) +
           (m->offset + at * m->strides[fixed]) * int64_t(dtypeSize(t));
  return v;
}

/// conv_2d_ngchw_gfchw with one input channel per group, the form of
/// torch-mlir's weight gradient of a strided convolution, run per group as
/// what it is: O[n, g, f, r, s] = sum_pq I[n, g, 0, r*sh + p*dh,
/// s*sw + q*dw] F[g, f, 0, p, q] is the weight gradient (backward-filter)
/// of a convolution with minibatch 1, input I[:, g, 0] (N channels), output
/// gradient F[g, :, 0] (F channels, KH x KW), stride (dh, dw), dilation (sh,
/// sw) and an OH x OW filter. oneDNN's grouped forward kernel for these
/// shapes (one channel per group) runs thousands of tiny GEMMs: resnet18's
/// seven take 1.7-2.6x as long that way.
amp_rt_status groupedConv2dAsWeightGradients(const char *fn, amp_rt_dtype in,
                                             amp_rt_dtype out,
                                             const amp_rt_memref_5d *I,
                                             const amp_rt_memref_5d *F,
                                             const amp_rt_memref_5d *O,
                                             int64_t sh, int64_t sw, int64_t dh,
                                             int64_t dw, float beta) {
  amp_rt_status s;
  if ((s = checkDescriptor<amp_rt_memref_5d, 5>(fn, "I", I)) ||
      (s = checkDescriptor<amp_rt_memref_5d, 5>(fn, "F", F)) ||
      (s = checkDescriptor<amp_rt_memref_5d, 5>(fn, "O", O)))
    return s;
  const int64_t N = I->sizes[0], G = F->sizes[0], K = F->sizes[1],
                KH = F->sizes[3], KW = F->sizes[4], OH = O->sizes[3],
                OW = O->sizes[4];
  if (O->sizes[0] != N)
    return fail(AMP_RT_ERROR_INVALID_ARGUMENT,
                "%s: shapes do not match: I has batch %lld, O %lld", fn,
                (long long)N, (long long)O->sizes[0]);
  // The input rows and columns the output reads (linalg allows more).
  int64_t needH, needW;
  if (N == 0 || K == 0 || OH == 0 || OW == 0 || KH == 0 || KW == 0)
    // Empty output or empty sum: O += 0 (the strides are still checked).
    return convWindow(fn, 1, 1, 1, 1, 1, 1, sh, sw, dh, dw, needH, needW);
  if ((s = convWindow(fn, OH, OW, KH, KW, I->sizes[3], I->sizes[4], sh, sw, dh,
                      dw, needH, needW)))
    return s;
  amp_rt_conv2d_desc d{};
  d.layout = AMP_RT_NCHW;
  d.filter_layout = AMP_RT_FILTER_KCRS;
  d.N = 1, d.C = N, d.H = needH, d.W = needW, d.K = K, d.R = OH, d.S = OW;
  d.stride_h = dh, d.stride_w = dw, d.dil_h = sh, d.dil_w = sw;
  ConvProblem p;
  if ((s = makeConvProblem(fn, &d, p)))
    return s;
  if (p.P != KH || p.Q != KW)
    return fail(AMP_RT_ERROR_INTERNAL, "%s: output size mismatch", fn);
  for (int64_t g = 0; g < G; ++g) {
    // x: 1 x N x H x W (dimension 2, the unit channel, as the minibatch);
    // dy: 1 x F x KH x KW; dw: F x N x OH x OW, all views of the memrefs.
    TensorView x = viewOfSlice(I, in, 1, g, {2, 0, 3, 4});
    x.sizes[2] = needH, x.sizes[3] = needW;
    TensorView dy = viewOfSlice(F, in, 0, g, {2, 1, 3, 4});
    TensorView dwv = viewOfSlice(O, out, 1, g, {2, 0, 3, 4});
    if ((s = convViews(fn, ConvDirection::BackwardFilter, p, in, out, 1.0f, x,
                       dy, beta, dwv)))
      return s;
  }
  return AMP_RT_SUCCESS;
}

/// linalg.conv_2d_ngchw_gfchw: O (N x G x F x OH x OW) += the grouped
/// convolution of I (N x G x C x H x W) with F (G x F x C x KH x KW), which
/// is the NCHW convolution with groups = G of the views N x G*C x H x W,
/// G*F x C x KH x KW and N x G*F x OH x OW. torch-mlir writes the weight
/// gradient of a strided convolution this way (the batch as the groups).
amp_rt_status groupedConv2d(const char *fn, amp_rt_dtype in, amp_rt_dtype out,
                            const amp_rt_memref_5d *I,
                            const amp_rt_memref_5d *F,
                            const amp_rt_memref_5d *O, int64_t sh, int64_t sw,
                            int64_t dh, int64_t dw, float beta) {
  if (!I || !F || !O)
    return fail(AMP_RT_ERROR_INVALID_ARGUMENT, "%s: a memref is NULL", fn);
  const int64_t G = F->sizes[0];
  if (I->sizes[1] != G || O->sizes[1] != G || O->sizes[2] != F->sizes[1] ||
      I->sizes[2] != F->sizes[2])
    return fail(AMP_RT_ERROR_INVALID_ARGUMENT,
                "%s: shapes do not match: I has %lld groups of %lld channels, "
                "F %lld groups of %lld x %lld, O %lld groups of %lld",
                fn, (long long)I->sizes[1], (long long)I->sizes[2],
                (long long)G, (long long)F->sizes[1], (long long)F->sizes[2],
                (long long)O->sizes[1], (long long)O->sizes[2]);
  if (F->sizes[2] == 1 && G > 0)
    return groupedConv2dAsWeightGradients(fn, in, out, I, F, O, sh, sw, dh, dw,
                                          beta);
  amp_rt_memref_4d i4, f4, o4;
  if (!mergeDims(I, 1, i4) || !mergeDims(F, 0, f4) || !mergeDims(O, 1, o4))
    return fail(AMP_RT_ERROR_UNSUPPORTED,
                "%s: the group and channel dimensions of a memref are not "
                "one strided run",
                fn);
  if (G == 0)
    return AMP_RT_SUCCESS; // no channels: O += 0
  return conv2d(fn, /*nhwc=*/false, in, out, &i4, &f4, &o4, sh, sw, dh, dw,
                beta, G);
}

/// Copies between a blocked memref (N x C/16 x H x W x 16, any strides) and
/// a dense NCHW buffer of T elements; `toPlain` gives the direction.
template <typename T>
void copyBlockedAs(const amp_rt_memref_5d *m, T *plain, bool toPlain) {
  const int64_t *n = m->sizes, *st = m->strides;
  T *base = static_cast<T *>(m->aligned) + m->offset;
  const int64_t C = n[1] * 16, H = n[2], W = n[3];
  for (int64_t b = 0; b < n[0]; ++b)
    for (int64_t cb = 0; cb < n[1]; ++cb)
      for (int64_t ci = 0; ci < 16; ++ci) {
        T *dense = plain + ((b * C + cb * 16 + ci) * H) * W;
        T *blocked = base + b * st[0] + cb * st[1] + ci * st[4];
        for (int64_t h = 0; h < H; ++h)
          for (int64_t w = 0; w < W; ++w) {
            T &x = blocked[h * st[2] + w * st[3]];
            T &y = dense[h * W + w];
            if (toPlain)
              y = x;
            else
              x = y;
          }
      }
}

void copyBlocked(const amp_rt_memref_5d *m, size_t es, char *plain,
                 bool toPlain) {
  if (es == 4)
    copyBlockedAs(m, reinterpret_cast<uint32_t *>(plain), toPlain);
  else
    copyBlockedAs(m, reinterpret_cast<uint16_t *>(plain), toPlain);
}

bool isDense(const amp_rt_memref_5d *m) {
  int64_t stride = 1;
  for (int i = 4; i >= 0; --i) {
    if (m->sizes[i] != 1 && m->strides[i] != stride)
      return false;
    stride *= m->sizes[i];
  }
  return true;
}

/// Whether `m` is a dense row-major N x C x H x W memref (unit dimensions
/// may have any stride).
bool isDense(const amp_rt_memref_4d *m) {
  int64_t stride = 1;
  for (int i = 3; i >= 0; --i) {
    if (m->sizes[i] != 1 && m->strides[i] != stride)
      return false;
    stride *= m->sizes[i];
  }
  return true;
}

/// Fails unless `m` is a blocked memref (16 channels in its last dimension,
/// non-negative sizes and strides, a pointer).
amp_rt_status checkBlocked(const char *fn, const amp_rt_memref_5d *m) {
  if (!m)
    return fail(AMP_RT_ERROR_INVALID_ARGUMENT, "%s: a memref is NULL", fn);
  for (int i = 0; i < 5; ++i)
    if (m->sizes[i] < 0 || m->strides[i] < 0)
      return fail(AMP_RT_ERROR_INVALID_ARGUMENT,
                  "%s: a blocked memref has a negative size or stride", fn);
  if (m->sizes[4] != 16)
    return fail(AMP_RT_ERROR_INVALID_ARGUMENT,
                "%s: blocked memrefs have 16 channels in their last "
                "dimension, not %lld",
                fn, (long long)m->sizes[4]);
  if (m->offset < 0 || !m->aligned)
    return fail(AMP_RT_ERROR_INVALID_ARGUMENT,
                "%s: a blocked memref has a NULL pointer or offset < 0", fn);
  return AMP_RT_SUCCESS;
}

/// Whether an H x W input, F's window, the strides and the dilations give
/// exactly an OH x OW output (linalg also allows an input larger than the
/// output needs; the runtime derives the output size from the input).
bool fitsExactly(int64_t H, int64_t W, const amp_rt_memref_4d *F, int64_t sh,
                 int64_t sw, int64_t dh, int64_t dw, int64_t OH, int64_t OW) {
  const int64_t KH = F->sizes[2], KW = F->sizes[3];
  return sh >= 1 && sw >= 1 && dh >= 1 && dw >= 1 && KH >= 1 && KW >= 1 &&
         H >= (KH - 1) * dh + 1 && W >= (KW - 1) * dw + 1 &&
         (H - (KH - 1) * dh - 1) / sh + 1 == OH &&
         (W - (KW - 1) * dw - 1) / sw + 1 == OW;
}

/// The NCHW convolution of N x C x H x W into K channels with F's window
/// (KCRS), run in place on host memory in the blocked layout (the cpu
/// backend's oneDNN; x plain NCHW when `plainInput`).
/// AMP_RT_ERROR_UNSUPPORTED where the backend cannot.
amp_rt_status blockedInPlace(const char *fn, amp_rt_dtype in, amp_rt_dtype out,
                             const int64_t (&nchw)[4], int64_t K,
                             const amp_rt_memref_4d *F, int64_t sh, int64_t sw,
                             int64_t dh, int64_t dw, int64_t groups,
                             bool plainInput, const void *x, float beta,
                             void *y, int64_t pad) {
  amp_rt_conv2d_desc d{};
  d.layout = AMP_RT_NCHW;
  d.filter_layout = AMP_RT_FILTER_KCRS;
  d.N = nchw[0], d.C = nchw[1], d.H = nchw[2], d.W = nchw[3], d.K = K;
  d.R = F->sizes[2], d.S = F->sizes[3];
  d.stride_h = sh, d.stride_w = sw, d.dil_h = dh, d.dil_w = dw;
  d.pad_h = d.pad_w = pad;
  d.groups = groups;
  ConvProblem p;
  TensorView vf;
  amp_rt_status s;
  if ((s = makeConvProblem(fn, &d, p)) ||
      (s = viewOf<amp_rt_memref_4d, 4>(fn, "F", F, in, vf)))
    return s;
  p.blocked16 = true;
  p.plainInput = plainInput;
  return convBlockedOnHost(fn, p, in, out, x, vf, beta, y);
}

char *dataOf(const amp_rt_memref_5d *m, amp_rt_dtype t) {
  return static_cast<char *>(m->aligned) + m->offset * dtypeSize(t);
}

/// oneDNN's blocked kernels run small images more slowly on an input padded
/// beforehand than with their own padding (Zen 4, 2 threads, bf16, 512
/// channels at 7 x 7: forward 3.95 vs 3.27 ms, backward-weights 6.21 vs
/// 4.30 ms; 256 at 14 x 14: 4.14 vs 3.99 and 4.63 vs 3.93 ms; no difference
/// at 56 x 56). amp-block-convs pads in the blocked layout, so where a
/// stride-1 convolution with a square odd window and an output of at most
/// 14 x 14 reads a dense input whose border, as wide as half the window, is
/// all zero bytes, the library gets a dense copy of the interior (a few
/// hundred KB at these sizes) and pads it with zeros itself: the same sums.
/// Fills `interior` and returns the border's width, or 0 (nothing copied).
static int64_t cropZeroBorder(const amp_rt_memref_5d *X, amp_rt_dtype t,
                              int64_t KH, int64_t KW, int64_t sh, int64_t sw,
                              int64_t dh, int64_t dw, int64_t OH, int64_t OW,
                              std::vector<char> &interior) {
  constexpr int64_t kMaxOutput = 14 * 14;
  const int64_t b = (KH - 1) / 2;
  const int64_t N = X->sizes[0], CB = X->sizes[1], H = X->sizes[2],
                W = X->sizes[3];
  if (sh != 1 || sw != 1 || dh != 1 || dw != 1 || KH != KW || KH % 2 == 0 ||
      b == 0 || OH * OW > kMaxOutput || H != OH + 2 * b || W != OW + 2 * b ||
      !isDense(X))
    return 0;
  const size_t pixel = 16 * dtypeSize(t); // one (h, w) of a channel block
  const char *base = dataOf(X, t);
  auto isZero = [](const char *p, size_t n) {
    for (size_t i = 0; i < n; ++i)
      if (p[i])
        return false;
    return true;
  };
  for (int64_t image = 0; image < N * CB; ++image) {
    const char *plane = base + size_t(image * H * W) * pixel;
    for (int64_t h = 0; h < H; ++h) {
      const char *row = plane + size_t(h * W) * pixel;
      if (h < b || h >= H - b
              ? !isZero(row, size_t(W) * pixel)
              : !isZero(row, size_t(b) * pixel) ||
                    !isZero(row + size_t(W - b) * pixel, size_t(b) * pixel))
        return 0;
    }
  }
  interior.resize(size_t(N * CB * OH * OW) * pixel);
  char *to = interior.data();
  for (int64_t image = 0; image < N * CB; ++image)
    for (int64_t h = b; h < H - b; ++h) {
      std::memcpy(to, base + size_t((image * H + h) * W + b) * pixel,
                  size_t(OW) * pixel);
      to += size_t(OW) * pixel;
    }
  return b;
}

/// O (blocked) += conv(I (an NCHW view), F) through a dense NCHW copy of O:
/// the path of backends that do not read the blocked layout.
amp_rt_status intoBlockedCopy(const char *fn, amp_rt_dtype in, amp_rt_dtype out,
                              const amp_rt_memref_4d *I,
                              const amp_rt_memref_4d *F,
                              const amp_rt_memref_5d *O, int64_t sh, int64_t sw,
                              int64_t dh, int64_t dw, float beta,
                              int64_t groups) {
  const size_t outSize = dtypeSize(out);
  const int64_t N = O->sizes[0], K = O->sizes[1] * 16, OH = O->sizes[2],
                OW = O->sizes[3];
  std::vector<char> y(size_t(N * K * OH * OW) * outSize);
  if (beta != 0.0f)
    copyBlocked(O, outSize, y.data(), /*toPlain=*/true);
  amp_rt_memref_4d yo{
      y.data(), y.data(), 0, {N, K, OH, OW}, {K * OH * OW, OH * OW, OW, 1}};
  amp_rt_status s = conv2d(fn, /*nhwc=*/false, in, out, I, F, &yo, sh, sw, dh,
                           dw, beta, groups);
  if (s != AMP_RT_SUCCESS)
    return s;
  copyBlocked(O, outSize, y.data(), /*toPlain=*/false);
  return AMP_RT_SUCCESS;
}

/// linalg.conv_2d_nchw_fchw on activations blocked by 16 channels (what
/// amp-block-convs makes of it): O += conv(I, F), I and O in nChw16c. Runs
/// in place where the backend reads that layout (oneDNN on the cpu
/// backend, the f16 ones widened first); elsewhere (the cuda backend, a CPU
/// path without oneDNN) through NCHW copies and the nchw_fchw path.
amp_rt_status conv2dBlocked(const char *fn, amp_rt_dtype in, amp_rt_dtype out,
                            const amp_rt_memref_5d *I,
                            const amp_rt_memref_4d *F,
                            const amp_rt_memref_5d *O, int64_t sh, int64_t sw,
                            int64_t dh, int64_t dw, float beta,
                            int64_t groups) {
  amp_rt_status s;
  if (!F)
    return fail(AMP_RT_ERROR_INVALID_ARGUMENT, "%s: a memref is NULL", fn);
  if ((s = checkBlocked(fn, I)) || (s = checkBlocked(fn, O)))
    return s;
  const int64_t N = I->sizes[0], C = I->sizes[1] * 16, H = I->sizes[2],
                W = I->sizes[3], K = O->sizes[1] * 16;
  if (fitsExactly(H, W, F, sh, sw, dh, dw, O->sizes[2], O->sizes[3]) &&
      isDense(I) && isDense(O) && N == O->sizes[0] && F->sizes[0] == K &&
      F->sizes[1] * groups == C && N > 0 && O->sizes[2] > 0 &&
      O->sizes[3] > 0) {
    std::vector<char> interior;
    const int64_t b =
        cropZeroBorder(I, in, F->sizes[2], F->sizes[3], sh, sw, dh, dw,
                       O->sizes[2], O->sizes[3], interior);
    s = blockedInPlace(fn, in, out, {N, C, H - 2 * b, W - 2 * b}, K, F, sh, sw,
                       dh, dw, groups, /*plainInput=*/false,
                       b ? interior.data() : dataOf(I, in), beta,
                       dataOf(O, out), b);
    if (s != AMP_RT_ERROR_UNSUPPORTED)
      return s;
  }
  const size_t inSize = dtypeSize(in);
  std::vector<char> x(size_t(N * C * H * W) * inSize);
  copyBlocked(I, inSize, x.data(), /*toPlain=*/true);
  amp_rt_memref_4d xi{
      x.data(), x.data(), 0, {N, C, H, W}, {C * H * W, H * W, W, 1}};
  return intoBlockedCopy(fn, in, out, &xi, F, O, sh, sw, dh, dw, beta, groups);
}

/// linalg.conv_2d_nchw_fchw from a plain NCHW input into an output blocked
/// by 16 channels (amp-block-convs' form for a convolution whose input
/// channels 16 does not divide, such as a stem on RGB images): O += conv(I,
/// F), I NCHW, O in nChw16c. In place where oneDNN reads it (its first-layer
/// kernels do); elsewhere through an NCHW copy of the output.
amp_rt_status conv2dToBlocked(const char *fn, amp_rt_dtype in, amp_rt_dtype out,
                              const amp_rt_memref_4d *I,
                              const amp_rt_memref_4d *F,
                              const amp_rt_memref_5d *O, int64_t sh, int64_t sw,
                              int64_t dh, int64_t dw, float beta) {
  amp_rt_status s;
  if (!I || !F)
    return fail(AMP_RT_ERROR_INVALID_ARGUMENT, "%s: a memref is NULL", fn);
  if ((s = checkBlocked(fn, O)))
    return s;
  const int64_t N = I->sizes[0], C = I->sizes[1], H = I->sizes[2],
                W = I->sizes[3], K = O->sizes[1] * 16;
  bool dense = I->offset >= 0 && I->aligned && isDense(O) && isDense(I);
  if (fitsExactly(H, W, F, sh, sw, dh, dw, O->sizes[2], O->sizes[3]) && dense &&
      N == O->sizes[0] && F->sizes[0] == K && F->sizes[1] == C && N > 0 &&
      C > 0 && O->sizes[2] > 0 && O->sizes[3] > 0) {
    s = blockedInPlace(
        fn, in, out, {N, C, H, W}, K, F, sh, sw, dh, dw, /*groups=*/1,
        /*plainInput=*/true,
        static_cast<char *>(I->aligned) + I->offset * dtypeSize(in), beta,
        dataOf(O, out), /*pad=*/0);
    if (s != AMP_RT_ERROR_UNSUPPORTED)
      return s;
  }
  return intoBlockedCopy(fn, in, out, I, F, O, sh, sw, dh, dw, beta, 1);
}

/// The C x KH x KW filter of a depthwise convolution as the KCRS filter
/// C x 1 x KH x KW of a grouped one (groups = C).
amp_rt_memref_4d depthwiseFilterAsKcrs(const amp_rt_memref_3d *F) {
  return {F->allocated,
          F->aligned,
          F->offset,
          {F->sizes[0], 1, F->sizes[1], F->sizes[2]},
          {F->strides[0], 0, F->strides[1], F->strides[2]}};
}

/// linalg.depthwise_conv_2d_nchw_chw on activations blocked by 16 channels
/// (amp-block-convs): a grouped conv2dBlocked with groups = C.
amp_rt_status
depthwiseConv2dBlocked(const char *fn, amp_rt_dtype in, amp_rt_dtype out,
                       const amp_rt_memref_5d *I, const amp_rt_memref_3d *F,
                       const amp_rt_memref_5d *O, int64_t sh, int64_t sw,
                       int64_t dh, int64_t dw, float beta) {
  if (!I || !F || !O)
    return fail(AMP_RT_ERROR_INVALID_ARGUMENT, "%s: a memref is NULL", fn);
  if (F->sizes[0] != I->sizes[1] * 16)
    return fail(AMP_RT_ERROR_INVALID_ARGUMENT,
                "%s: shapes do not match: I has %lld channels, F %lld", fn,
                (long long)(I->sizes[1] * 16), (long long)F->sizes[0]);
  amp_rt_memref_4d f4 = depthwiseFilterAsKcrs(F);
  return conv2dBlocked(fn, in, out, I, &f4, O, sh, sw, dh, dw, beta,
                       std::max<int64_t>(1, F->sizes[0]));
}

/// O = beta * O over the 4-D view `v` (an empty sum into an output).
void scaleOutput(const TensorView &v, float beta) {
  const size_t es = dtypeSize(v.dtype);
  for (int64_t a = 0; a < v.sizes[0]; ++a)
    for (int64_t b = 0; b < v.sizes[1]; ++b)
      for (int64_t c = 0; c < v.sizes[2]; ++c)
        for (int64_t d = 0; d < v.sizes[3]; ++d) {
          char *e = static_cast<char *>(v.data) +
                    (a * v.strides[0] + b * v.strides[1] + c * v.strides[2] +
                     d * v.strides[3]) *
                        int64_t(es);
          if (beta == 0.0f)
            std::memset(e, 0, es);
          else if (v.dtype == AMP_RT_F32)
            *reinterpret_cast<float *>(e) *= beta;
        }
}

/// The weight gradient of an NCHW convolution on activations blocked by 16
/// channels (amp-block-convs' form of what autodiff writes as a convolution
/// of the transposed input by the transposed output gradient):
/// O[k, c, r, s] += sum over n, p, q of X[n, c, p*sh + r*dh, q*sw + s*dw] *
/// DY[n, k, p, q], DY blocked, X blocked (`X`) or NCHW (`plainX`, a stem's
/// image), O (K x C x R x S, the filter's FCHW) any strides. X may hold
/// more rows and columns than the window reads (a padded input the output
/// does not reach the end of). oneDNN's backward-weights in place where it
/// reads the tensors as they are; elsewhere through NCHW copies and the
/// plain backward-filter path.
static amp_rt_status backwardFilterOfBlocked(
    const char *fn, amp_rt_dtype in, amp_rt_dtype out,
    const amp_rt_memref_5d *X, const amp_rt_memref_4d *plainX,
    const amp_rt_memref_5d *DY, const amp_rt_memref_4d *O, int64_t sh,
    int64_t sw, int64_t dh, int64_t dw, float beta) {
  amp_rt_status s;
  TensorView vo, vx;
  if ((X ? (s = checkBlocked(fn, X))
         : (s = viewOf<amp_rt_memref_4d, 4>(fn, "X", plainX, in, vx))) ||
      (s = checkBlocked(fn, DY)) ||
      (s = viewOf<amp_rt_memref_4d, 4>(fn, "O", O, out, vo)))
    return s;
  const int64_t N = X ? X->sizes[0] : vx.sizes[0],
                C = X ? X->sizes[1] * 16 : vx.sizes[1],
                H = X ? X->sizes[2] : vx.sizes[2],
                W = X ? X->sizes[3] : vx.sizes[3], K = DY->sizes[1] * 16,
                P = DY->sizes[2], Q = DY->sizes[3], R = O->sizes[2],
                S = O->sizes[3];
  if (DY->sizes[0] != N || O->sizes[0] != K || O->sizes[1] != C)
    return fail(AMP_RT_ERROR_INVALID_ARGUMENT,
                "%s: shapes do not match: X has batch %lld and %lld channels, "
                "DY batch %lld and %lld channels, O is %lldx%lldx%lldx%lld",
                fn, (long long)N, (long long)C, (long long)DY->sizes[0],
                (long long)K, (long long)O->sizes[0], (long long)O->sizes[1],
                (long long)R, (long long)S);
  int64_t needH, needW;
  if (K == 0 || C == 0 || R == 0 || S == 0)
    return convWindow(fn, 1, 1, 1, 1, 1, 1, sh, sw, dh, dw, needH, needW);
  if (N == 0 || P == 0 || Q == 0) { // an empty sum: O = beta * O
    if ((s = convWindow(fn, 1, 1, 1, 1, 1, 1, sh, sw, dh, dw, needH, needW)))
      return s;
    scaleOutput(vo, beta);
    return AMP_RT_SUCCESS;
  }
  // The window of a P x Q output gradient over an R x S filter gradient.
  if ((s = convWindow(fn, P, Q, R, S, H, W, sh, sw, dh, dw, needH, needW)))
    return s;
  amp_rt_conv2d_desc d{};
  d.layout = AMP_RT_NCHW;
  d.filter_layout = AMP_RT_FILTER_KCRS;
  d.N = N, d.C = C, d.H = needH, d.W = needW, d.K = K, d.R = R, d.S = S;
  d.stride_h = sh, d.stride_w = sw, d.dil_h = dh, d.dil_w = dw;
  ConvProblem p;
  if ((s = makeConvProblem(fn, &d, p)))
    return s;
  if (p.P != P || p.Q != Q)
    return fail(AMP_RT_ERROR_INTERNAL, "%s: output size mismatch", fn);
  // In place when the rows and columns past the window are fewer than a
  // stride (oneDNN's output size formula floors them away), as they are in
  // a padded input that the forward convolution did not reach the end of.
  if ((X ? isDense(X) : isDense(plainX)) && isDense(DY) && H - needH < sh &&
      W - needW < sw) {
    ConvProblem whole = p;
    whole.desc.H = H, whole.desc.W = W;
    whole.blocked16 = true;
    whole.plainInput = !X;
    std::vector<char> interior;
    const int64_t b =
        X ? cropZeroBorder(X, in, R, S, sh, sw, dh, dw, P, Q, interior) : 0;
    if (b) {
      amp_rt_conv2d_desc cropped = d;
      cropped.H = H - 2 * b, cropped.W = W - 2 * b;
      cropped.pad_h = cropped.pad_w = b;
      if ((s = makeConvProblem(fn, &cropped, whole)))
        return s;
      whole.blocked16 = true;
    }
    s = convBlockedFilterGradOnHost(fn, whole, in, out,
                                    b   ? interior.data()
                                    : X ? dataOf(X, in)
                                        : vx.data,
                                    dataOf(DY, in), vo, beta);
    if (s != AMP_RT_ERROR_UNSUPPORTED)
      return s;
  }
  const size_t inSize = dtypeSize(in);
  std::vector<char> x, dy(size_t(N * K * P * Q) * inSize);
  if (X) {
    x.resize(size_t(N * C * H * W) * inSize);
    copyBlocked(X, inSize, x.data(), /*toPlain=*/true);
    vx.data = x.data(), vx.dtype = in, vx.rank = 4;
    const int64_t dense[4] = {C * H * W, H * W, W, 1};
    for (int i = 0; i < 4; ++i)
      vx.strides[i] = dense[i];
    vx.sizes[0] = N, vx.sizes[1] = C;
  }
  vx.sizes[2] = needH, vx.sizes[3] = needW;
  copyBlocked(DY, inSize, dy.data(), /*toPlain=*/true);
  TensorView vdy;
  vdy.data = dy.data(), vdy.dtype = in, vdy.rank = 4;
  const int64_t ys[4] = {N, K, P, Q}, yst[4] = {K * P * Q, P * Q, Q, 1};
  for (int i = 0; i < 4; ++i)
    vdy.sizes[i] = ys[i], vdy.strides[i] = yst[i];
  return convViews(fn, ConvDirection::BackwardFilter, p, in, out, 1.0f, vx, vdy,
                   beta, vo);
}

amp_rt_status conv2dBackwardFilterBlocked(const char *fn, amp_rt_dtype in,
                                          amp_rt_dtype out,
                                          const amp_rt_memref_5d *X,
                                          const amp_rt_memref_5d *DY,
                                          const amp_rt_memref_4d *O, int64_t sh,
                                          int64_t sw, int64_t dh, int64_t dw,
                                          float beta) {
  if (!X)
    return fail(AMP_RT_ERROR_INVALID_ARGUMENT, "%s: a memref is NULL", fn);
  return backwardFilterOfBlocked(fn, in, out, X, nullptr, DY, O, sh, sw, dh, dw,
                                 beta);
}

amp_rt_status conv2dBackwardFilterPlainInput(const char *fn, amp_rt_dtype in,
                                             amp_rt_dtype out,
                                             const amp_rt_memref_4d *X,
                                             const amp_rt_memref_5d *DY,
                                             const amp_rt_memref_4d *O,
                                             int64_t sh, int64_t sw, int64_t dh,
                                             int64_t dw, float beta) {
  if (!X)
    return fail(AMP_RT_ERROR_INVALID_ARGUMENT, "%s: a memref is NULL", fn);
  return backwardFilterOfBlocked(fn, in, out, nullptr, X, DY, O, sh, sw, dh, dw,
                                 beta);
}

} // namespace amp::rt::entry
