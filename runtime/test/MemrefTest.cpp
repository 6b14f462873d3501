//===- MemrefTest.cpp - the _mlir_ciface_ entry points --------------------===//
//
// Calls the entry points exactly as lowered MLIR does: pointers to strided
// memref descriptors, here views with offsets, padded rows, transposed and
// non-unit innermost strides into larger buffers. Outputs accumulate.
//
//===----------------------------------------------------------------------===//

#include "MemrefView.h"

#include <type_traits>

using namespace amp_rt_test;

namespace {

class MemrefTest : public BackendTest {};

/// C (MxN view) += op(A) op(B) through _mlir_ciface_amp_rt_matmul_*, or
/// C = op(A) op(B) through the _overwrite twins, which must never read C:
/// its view is filled with NaN first.
void checkMatmul(amp_rt_dtype in, amp_rt_dtype out, bool ta, bool tb,
                 const View<2> &A, const View<2> &B, const View<2> &C,
                 bool overwrite = false) {
  if (overwrite)
    for (int64_t i = 0; i < C.sizes[0]; ++i)
      for (int64_t j = 0; j < C.sizes[1]; ++j)
        C.t->set(C.at({i, j}), std::nan(""));
  Tensor before = *C.t;
  amp_rt_memref_2d a = A.desc<amp_rt_memref_2d>(),
                   b = B.desc<amp_rt_memref_2d>(),
                   c = C.desc<amp_rt_memref_2d>();
  amp_rt_clear_error();
#define AMP_CALL_MATMUL(IN, OUT)                                               \
  (overwrite ? _mlir_ciface_amp_rt_matmul_##IN##_##OUT##_overwrite(&a, &b, &c, \
                                                                   ta, tb)     \
             : _mlir_ciface_amp_rt_matmul_##IN##_##OUT(&a, &b, &c, ta, tb))
  if (in == AMP_RT_F32)
    AMP_CALL_MATMUL(f32, f32);
  else if (in == AMP_RT_F16 && out == AMP_RT_F32)
    AMP_CALL_MATMUL(f16, f32);
  else if (in == AMP_RT_F16)
    AMP_CALL_MATMUL(f16, f16);
  else if (out == AMP_RT_F32)
    AMP_CALL_MATMUL(bf16, f32);
  else
    AMP_CALL_MATMUL(bf16, bf16);
#undef AMP_CALL_MATMUL
  ASSERT_EQ(amp_rt_last_status(), AMP_RT_SUCCESS) << amp_rt_last_error();
  int64_t M = C.sizes[0], N = C.sizes[1], K = ta ? A.sizes[0] : A.sizes[1];
  std::vector<bool> inView(C.t->size(), false);
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      Ref r;
      for (int64_t k = 0; k < K; ++k) {
        double p = (ta ? A.get({k, i}) : A.get({i, k})) *
                   (tb ? B.get({j, k}) : B.get({k, j}));
        r.value += p;
        r.magnitude += std::fabs(p);
      }
      size_t idx = C.at({i, j});
      inView[idx] = true;
      double old = overwrite ? 0.0 : before.get(idx);
      ASSERT_NEAR(C.t->get(idx), r.value + old, tolerance(r, K, out, 1.0, old))
          << "C[" << i << "][" << j << "]";
    }
  for (size_t i = 0; i < inView.size(); ++i) {
    if (!inView[i]) {
      ASSERT_EQ(C.t->get(i), before.get(i))
          << "element " << i << " outside the view was written";
    }
  }
}

// Accumulating, and through the _overwrite twins (which must not read C).
TEST_P(MemrefTest, MatmulWithStridedViews) {
  std::mt19937 rng(31);
  const int64_t M = 13, N = 11, K = 9;
  for (bool ow : {false, true})
    for (TypePair tp : contractionTypes()) {
      const amp_rt_dtype in = tp.in, out = tp.out;
      SCOPED_TRACE(testing::Message()
                   << "in " << in << " out " << out << " overwrite " << ow);
      // Row-major with padded rows and an offset.
      Tensor a = buffer(in, 5 + M * (K + 3), rng);
      Tensor b = buffer(in, 2 + K * (N + 1), rng);
      Tensor c = buffer(out, 7 + M * (N + 4), rng);
      View<2> A{&a, 5, {M, K}, {K + 3, 1}}, B{&b, 2, {K, N}, {N + 1, 1}};
      View<2> C{&c, 7, {M, N}, {N + 4, 1}};
      ASSERT_NO_FATAL_FAILURE(checkMatmul(in, out, false, false, A, B, C, ow));
      // Column-major views (a transposed memref) for A, B and C.
      View<2> At{&a, 1, {M, K}, {1, M + 2}}, Bt{&b, 0, {K, N}, {1, K}};
      View<2> Ct{&c, 3, {M, N}, {1, M + 1}};
      ASSERT_NO_FATAL_FAILURE(
          checkMatmul(in, out, false, false, At, Bt, Ct, ow));
      // Innermost stride 2 everywhere: every operand must be packed.
      Tensor a2 = buffer(in, 2 * M * K + 2 * K, rng);
      Tensor b2 = buffer(in, 2 * K * N + 2 * N, rng);
      Tensor c2 = buffer(out, 3 * M * N + 3 * N, rng);
      View<2> A2{&a2, 1, {K, M}, {2 * M + 1, 2}}; // KxM, used with transA
      View<2> B2{&b2, 0, {N, K}, {2 * K + 1, 2}}; // NxK, used with transB
      View<2> C2{&c2, 2, {M, N}, {3 * N, 3}};
      ASSERT_NO_FATAL_FAILURE(checkMatmul(in, out, true, true, A2, B2, C2, ow));
    }
}

TEST_P(MemrefTest, MatmulSingleRowAndColumnAndEmpty) {
  std::mt19937 rng(37);
  Tensor a = buffer(AMP_RT_F16, 64, rng), b = buffer(AMP_RT_F16, 64, rng);
  Tensor c = buffer(AMP_RT_F32, 64, rng);
  // 1xK times Kx1 with arbitrary strides on the size-1 dimensions.
  View<2> A{&a, 0, {1, 7}, {1000, 1}}, B{&b, 3, {7, 1}, {1, 1000}};
  View<2> C{&c, 0, {1, 1}, {77, 99}};
  ASSERT_NO_FATAL_FAILURE(
      checkMatmul(AMP_RT_F16, AMP_RT_F32, false, false, A, B, C));
  // K == 0: C is unchanged (C += nothing).
  Tensor before = c;
  View<2> A0{&a, 0, {4, 0}, {1, 1}}, B0{&b, 0, {0, 5}, {5, 1}};
  View<2> C0{&c, 0, {4, 5}, {5, 1}};
  amp_rt_memref_2d da = A0.desc<amp_rt_memref_2d>(),
                   db = B0.desc<amp_rt_memref_2d>(),
                   dc = C0.desc<amp_rt_memref_2d>();
  amp_rt_clear_error();
  _mlir_ciface_amp_rt_matmul_f16_f32(&da, &db, &dc, 0, 0);
  ASSERT_EQ(amp_rt_last_status(), AMP_RT_SUCCESS) << amp_rt_last_error();
  for (size_t i = 0; i < c.size(); ++i)
    ASSERT_EQ(c.get(i), before.get(i));
}

TEST_P(MemrefTest, BatchMatmul) {
  std::mt19937 rng(41);
  const int64_t Bn = 3, M = 5, N = 6, K = 7;
  for (TypePair tp : contractionTypes()) {
    const amp_rt_dtype in = tp.in, out = tp.out;
    // t & 4: the _overwrite entry point, on a C full of NaN.
    for (int t = 0; t < 8; ++t) {
      bool ta = t & 1, tb = t & 2, overwrite = t & 4;
      SCOPED_TRACE(testing::Message()
                   << "in " << in << " out " << out << " ta " << ta << " tb "
                   << tb << " overwrite " << overwrite);
      int64_t ar = ta ? K : M, ac = ta ? M : K;
      int64_t br = tb ? N : K, bc = tb ? K : N;
      // A batch-broadcast (stride 0), B with a padded batch stride and a
      // transposed inner layout, C batch-minor (batch stride 1).
      Tensor a = buffer(in, ar * ac, rng);
      Tensor b = buffer(in, Bn * (br * bc + 4), rng);
      Tensor c = buffer(out, Bn * M * N, rng);
      if (overwrite)
        for (size_t e = 0; e < c.size(); ++e)
          c.set(e, std::nan(""));
      Tensor before = c;
      amp_rt_memref_3d da{a.data(), a.data(), 0, {Bn, ar, ac}, {0, ac, 1}};
      amp_rt_memref_3d db{
          b.data(), b.data(), 0, {Bn, br, bc}, {br * bc + 4, 1, br}};
      amp_rt_memref_3d dc{c.data(), c.data(), 0, {Bn, M, N}, {1, N * Bn, Bn}};
      amp_rt_clear_error();
#define AMP_CALL_BMM(IN, OUT)                                                  \
  (overwrite                                                                   \
       ? _mlir_ciface_amp_rt_batch_matmul_##IN##_##OUT##_overwrite(            \
             &da, &db, &dc, ta, tb)                                            \
       : _mlir_ciface_amp_rt_batch_matmul_##IN##_##OUT(&da, &db, &dc, ta, tb))
      if (in == AMP_RT_F32)
        AMP_CALL_BMM(f32, f32);
      else if (in == AMP_RT_F16 && out == AMP_RT_F32)
        AMP_CALL_BMM(f16, f32);
      else if (in == AMP_RT_F16)
        AMP_CALL_BMM(f16, f16);
      else if (out == AMP_RT_F32)
        AMP_CALL_BMM(bf16, f32);
      else
        AMP_CALL_BMM(bf16, bf16);
#undef AMP_CALL_BMM
      ASSERT_EQ(amp_rt_last_status(), AMP_RT_SUCCESS) << amp_rt_last_error();
      for (int64_t n = 0; n < Bn; ++n)
        for (int64_t i = 0; i < M; ++i)
          for (int64_t j = 0; j < N; ++j) {
            Ref r;
            for (int64_t k = 0; k < K; ++k) {
              double x = ta ? a.get(k * ac + i) : a.get(i * ac + k);
              int64_t bo = n * (br * bc + 4);
              double y = tb ? b.get(bo + j + k * br) : b.get(bo + k + j * br);
              r.value += x * y;
              r.magnitude += std::fabs(x * y);
            }
            size_t idx = size_t(n + i * N * Bn + j * Bn);
            double old = overwrite ? 0.0 : before.get(idx);
            ASSERT_NEAR(c.get(idx), r.value + old,
                        tolerance(r, K, out, 1.0, old));
          }
    }
  }
}

/// O += conv(I, F) with linalg semantics, checked against a direct loop;
/// with `overwrite`, O = conv(I, F) through the _overwrite twins, with O
/// filled with NaN first.
void checkConv(bool nhwc, amp_rt_dtype in, amp_rt_dtype out, const View<4> &I,
               const View<4> &F, const View<4> &O, int64_t sh, int64_t sw,
               int64_t dh, int64_t dw, bool overwrite = false) {
  if (overwrite)
    for (int64_t a = 0; a < O.sizes[0]; ++a)
      for (int64_t b = 0; b < O.sizes[1]; ++b)
        for (int64_t c = 0; c < O.sizes[2]; ++c)
          for (int64_t d = 0; d < O.sizes[3]; ++d)
            O.t->set(O.at({a, b, c, d}), std::nan(""));
  Tensor before = *O.t;
  amp_rt_memref_4d di = I.desc<amp_rt_memref_4d>(),
                   df = F.desc<amp_rt_memref_4d>(),
                   dout = O.desc<amp_rt_memref_4d>();
  amp_rt_clear_error();
#define AMP_CALL_CONV(LAYOUT, IN, OUT)                                         \
  (overwrite ? _mlir_ciface_amp_rt_conv2d_##LAYOUT##_##IN##_##OUT##_overwrite( \
                   &di, &df, &dout, sh, sw, dh, dw)                            \
             : _mlir_ciface_amp_rt_conv2d_##LAYOUT##_##IN##_##OUT(             \
                   &di, &df, &dout, sh, sw, dh, dw))
  if (nhwc) {
    if (in == AMP_RT_F32)
      AMP_CALL_CONV(nhwc_hwcf, f32, f32);
    else if (in == AMP_RT_F16 && out == AMP_RT_F32)
      AMP_CALL_CONV(nhwc_hwcf, f16, f32);
    else if (in == AMP_RT_F16)
      AMP_CALL_CONV(nhwc_hwcf, f16, f16);
    else if (out == AMP_RT_F32)
      AMP_CALL_CONV(nhwc_hwcf, bf16, f32);
    else
      AMP_CALL_CONV(nhwc_hwcf, bf16, bf16);
  } else {
    if (in == AMP_RT_F32)
      AMP_CALL_CONV(nchw_fchw, f32, f32);
    else if (in == AMP_RT_F16 && out == AMP_RT_F32)
      AMP_CALL_CONV(nchw_fchw, f16, f32);
    else if (in == AMP_RT_F16)
      AMP_CALL_CONV(nchw_fchw, f16, f16);
    else if (out == AMP_RT_F32)
      AMP_CALL_CONV(nchw_fchw, bf16, f32);
    else
      AMP_CALL_CONV(nchw_fchw, bf16, bf16);
  }
#undef AMP_CALL_CONV
  ASSERT_EQ(amp_rt_last_status(), AMP_RT_SUCCESS) << amp_rt_last_error();
  int64_t N = O.sizes[0], OH = O.sizes[nhwc ? 1 : 2],
          OW = O.sizes[nhwc ? 2 : 3], K = O.sizes[nhwc ? 3 : 1];
  int64_t C = I.sizes[nhwc ? 3 : 1], KH = F.sizes[nhwc ? 0 : 2],
          KW = F.sizes[nhwc ? 1 : 3];
  for (int64_t n = 0; n < N; ++n)
    for (int64_t k = 0; k < K; ++k)
      for (int64_t p = 0; p < OH; ++p)
        for (int64_t q = 0; q < OW; ++q) {
          Ref r;
          for (int64_t c = 0; c < C; ++c)
            for (int64_t kh = 0; kh < KH; ++kh)
              for (int64_t kw = 0; kw < KW; ++kw) {
                int64_t h = p * sh + kh * dh, w = q * sw + kw * dw;
                double x = nhwc ? I.get({n, h, w, c}) : I.get({n, c, h, w});
                double f = nhwc ? F.get({kh, kw, c, k}) : F.get({k, c, kh, kw});
                r.value += x * f;
                r.magnitude += std::fabs(x * f);
              }
          size_t idx = nhwc ? O.at({n, p, q, k}) : O.at({n, k, p, q});
          double old = overwrite ? 0.0 : before.get(idx);
          ASSERT_NEAR(O.t->get(idx), r.value + old,
                      tolerance(r, C * KH * KW, out, 1.0, old))
              << "O at n=" << n << " k=" << k << " p=" << p << " q=" << q;
        }
}

// Both layouts, accumulating and through the _overwrite twins.
TEST_P(MemrefTest, Conv2DBothLayouts) {
  std::mt19937 rng(43);
  for (bool overwrite : {false, true})
    for (bool nhwc : {true, false})
      for (TypePair tp : contractionTypes()) {
        const amp_rt_dtype in = tp.in, out = tp.out;
        SCOPED_TRACE(testing::Message()
                     << "nhwc " << nhwc << " in " << in << " out " << out
                     << " overwrite " << overwrite);
        const int64_t N = 2, H = 10, W = 9, C = 3, K = 4, KH = 3, KW = 2;
        // stride 2 x 1, dilation 1 x 2: OH = 4, OW = 7.
        const int64_t sh = 2, sw = 1, dh = 1, dw = 2, OH = 4, OW = 7;
        Tensor i = buffer(in, N * H * W * C, rng);
        Tensor f = buffer(in, KH * KW * C * K, rng);
        Tensor o = buffer(out, N * OH * OW * K, rng);
        View<4> I = nhwc ? dense4(&i, N, H, W, C) : dense4(&i, N, C, H, W);
        View<4> F = nhwc ? dense4(&f, KH, KW, C, K) : dense4(&f, K, C, KH, KW);
        View<4> O = nhwc ? dense4(&o, N, OH, OW, K) : dense4(&o, N, K, OH, OW);
        ASSERT_NO_FATAL_FAILURE(
            checkConv(nhwc, in, out, I, F, O, sh, sw, dh, dw, overwrite));
      }
}

TEST_P(MemrefTest, Conv2DStridedViewsAndSmallerOutput) {
  std::mt19937 rng(47);
  for (bool nhwc : {true, false}) {
    // I is a window of a larger tensor; O has fewer rows than would fit
    // (linalg allows it); F is stored transposed.
    const int64_t N = 2, H = 9, W = 8, C = 5, K = 3, KH = 2, KW = 3;
    const int64_t OH = 3, OW = 3; // with stride 2: up to 4 x 3 would fit
    Tensor big = buffer(AMP_RT_F16, N * (H + 2) * (W + 3) * C + 64, rng);
    View<4> I =
        nhwc ? View<4>{&big,
                       7,
                       {N, H, W, C},
                       {(H + 2) * (W + 3) * C, (W + 3) * C, C, 1}}
             : View<4>{&big,
                       7,
                       {N, C, H, W},
                       {C * (H + 2) * (W + 3), (H + 2) * (W + 3), W + 3, 1}};
    Tensor f = buffer(AMP_RT_F16, KH * KW * C * K, rng);
    // Filter dims permuted in memory: innermost stride is not 1.
    View<4> F =
        nhwc ? View<4>{&f, 0, {KH, KW, C, K}, {KW, 1, KH * KW * K, KH * KW}}
             : View<4>{&f, 0, {K, C, KH, KW}, {1, K, C * K * KW, C * K}};
    Tensor o = buffer(AMP_RT_F32, N * OH * OW * K * 2, rng);
    View<4> O = nhwc ? View<4>{&o,
                               0,
                               {N, OH, OW, K},
                               {OH * OW * K * 2, OW * K * 2, K * 2, 2}}
                     : View<4>{&o,
                               1,
                               {N, K, OH, OW},
                               {K * OH * OW * 2, OH * OW * 2, OW * 2, 2}};
    ASSERT_NO_FATAL_FAILURE(
        checkConv(nhwc, AMP_RT_F16, AMP_RT_F32, I, F, O, 2, 2, 2, 1));
  }
}

/// O += conv(I, F) (or O = conv(I, F) with `overwrite`) through
/// _mlir_ciface_amp_rt_conv2d_nchw16c_fchw_* (R = 5: I is N x C/16 x H x W
/// x 16) or _mlir_ciface_amp_rt_conv2d_nchw_fchw_nchw16c_* (R = 4: I is
/// plain NCHW); O (N x K/16 x OH x OW x 16) is a blocked view, F dense FCHW;
/// checked against a direct loop on the unblocked values.
template <int R>
void checkBlockedConv(amp_rt_dtype in, amp_rt_dtype out, const View<R> &I,
                      Tensor &f, const View<5> &O, int64_t KH, int64_t KW,
                      int64_t sh, int64_t sw, int64_t dh, int64_t dw,
                      bool overwrite) {
  static_assert(R == 4 || R == 5, "a plain or a blocked input");
  const int64_t N = I.sizes[0], C = R == 5 ? I.sizes[1] * 16 : I.sizes[1],
                K = O.sizes[1] * 16, OH = O.sizes[2], OW = O.sizes[3];
  auto xAt = [&](int64_t n, int64_t c, int64_t h, int64_t w) {
    if constexpr (R == 5)
      return I.get({n, c / 16, h, w, c % 16});
    else
      return I.get({n, c, h, w});
  };
  auto oAt = [&](int64_t n, int64_t k, int64_t p, int64_t q) {
    return O.at({n, k / 16, p, q, k % 16});
  };
  if (overwrite)
    for (int64_t n = 0; n < N; ++n)
      for (int64_t k = 0; k < K; ++k)
        for (int64_t p = 0; p < OH; ++p)
          for (int64_t q = 0; q < OW; ++q)
            O.t->set(oAt(n, k, p, q), std::nan(""));
  Tensor before = *O.t;
  using InDesc = std::conditional_t<R == 5, amp_rt_memref_5d, amp_rt_memref_4d>;
  InDesc di = I.template desc<InDesc>();
  amp_rt_memref_5d dout = O.template desc<amp_rt_memref_5d>();
  amp_rt_memref_4d df{
      f.data(), f.data(), 0, {K, C, KH, KW}, {C * KH * KW, KH * KW, KW, 1}};
  amp_rt_clear_error();
#define AMP_CALL(NAME, IN, OUT)                                                \
  (overwrite ? _mlir_ciface_amp_rt_##NAME##_##IN##_##OUT##_overwrite(          \
                   &di, &df, &dout, sh, sw, dh, dw)                            \
             : _mlir_ciface_amp_rt_##NAME##_##IN##_##OUT(&di, &df, &dout, sh,  \
                                                         sw, dh, dw))
#define AMP_CALL_CONV(IN, OUT)                                                 \
  do {                                                                         \
    if constexpr (R == 5)                                                      \
      AMP_CALL(conv2d_nchw16c_fchw, IN, OUT);                                  \
    else                                                                       \
      AMP_CALL(conv2d_nchw_fchw_nchw16c, IN, OUT);                             \
  } while (false)
  if (in == AMP_RT_F32)
    AMP_CALL_CONV(f32, f32);
  else if (in == AMP_RT_F16 && out == AMP_RT_F32)
    AMP_CALL_CONV(f16, f32);
  else if (in == AMP_RT_F16)
    AMP_CALL_CONV(f16, f16);
  else if (out == AMP_RT_F32)
    AMP_CALL_CONV(bf16, f32);
  else
    AMP_CALL_CONV(bf16, bf16);
#undef AMP_CALL_CONV
#undef AMP_CALL
  ASSERT_EQ(amp_rt_last_status(), AMP_RT_SUCCESS) << amp_rt_last_error();
  for (int64_t n = 0; n < N; ++n)
    for (int64_t k = 0; k < K; ++k)
      for (int64_t p = 0; p < OH; ++p)
        for (int64_t q = 0; q < OW; ++q) {
          Ref r;
          for (int64_t c = 0; c < C; ++c)
            for (int64_t kh = 0; kh < KH; ++kh)
              for (int64_t kw = 0; kw < KW; ++kw) {
                double x = xAt(n, c, p * sh + kh * dh, q * sw + kw * dw);
                double wv = f.get(size_t(((k * C + c) * KH + kh) * KW + kw));
                r.value += x * wv;
                r.magnitude += std::fabs(x * wv);
              }
          size_t idx = oAt(n, k, p, q);
          double old = overwrite ? 0.0 : before.get(idx);
          ASSERT_NEAR(O.t->get(idx), r.value + old,
                      tolerance(r, C * KH * KW, out, 1.0, old))
              << "O at n=" << n << " k=" << k << " p=" << p << " q=" << q;
        }
}

// Blocked activations: in place on oneDNN (cpu backend: bf16 where the CPU
// has it, f32, and f16 / bf16 on their widened f32 copies), through NCHW
// copies elsewhere (the cuda backend, strided views, an output smaller than
// the input allows).
TEST_P(MemrefTest, Conv2DBlockedChannels) {
  std::mt19937 rng(53);
  struct Case {
    int64_t H, W, KH, KW, sh, sw, dh, dw, OH, OW;
  } cases[] = {{7, 7, 3, 3, 1, 1, 1, 1, 5, 5},
               {9, 8, 3, 1, 2, 2, 1, 1, 4, 4},
               {9, 9, 3, 3, 1, 1, 2, 2, 5, 5},
               {9, 9, 3, 3, 2, 2, 1, 1, 3, 3}}; // smaller than the 4 x 4 fit
  const int64_t N = 2, C = 32, K = 16;
  for (int native : {1, 0})
    for (const Case &c : cases)
      for (bool overwrite : {false, true})
        for (TypePair tp : contractionTypes()) {
          SCOPED_TRACE(testing::Message()
                       << "native bf16 " << native << " " << c.H << "x" << c.W
                       << " filter " << c.KH << "x" << c.KW << " stride "
                       << c.sh << " dilation " << c.dh << " in " << tp.in
                       << " out " << tp.out << " overwrite " << overwrite);
          amp_rt_cpu_set_native_bf16(native);
          Tensor i = buffer(tp.in, N * C * c.H * c.W, rng);
          Tensor f = buffer(tp.in, K * C * c.KH * c.KW, rng);
          Tensor o = buffer(tp.out, N * K * c.OH * c.OW, rng);
          ASSERT_NO_FATAL_FAILURE(
              checkBlockedConv(tp.in, tp.out, dense5(&i, N, C / 16, c.H, c.W),
                               f, dense5(&o, N, K / 16, c.OH, c.OW), c.KH, c.KW,
                               c.sh, c.sw, c.dh, c.dw, overwrite));
        }
  amp_rt_cpu_set_native_bf16(1);
  // A strided input view (every other block row) and a strided output.
  const int64_t H = 6, W = 5, OH = 4, OW = 3;
  Tensor big = buffer(AMP_RT_BF16, N * 2 * H * W * 16 * 2, rng);
  View<5> I{&big,
            16,
            {N, 2, H, W, 16},
            {4 * H * W * 16, 2 * H * W * 16, W * 16, 16, 1}};
  Tensor f = buffer(AMP_RT_BF16, K * C * 3 * 3, rng);
  Tensor o = buffer(AMP_RT_F32, N * OH * OW * 16 * 2, rng);
  View<5> O{&o, 0, {N, 1, OH, OW, 16}, {OH * OW * 32, 0, OW * 32, 32, 1}};
  ASSERT_NO_FATAL_FAILURE(checkBlockedConv(AMP_RT_BF16, AMP_RT_F32, I, f, O, 3,
                                           3, 1, 1, 1, 1, false));
}

// A small image padded in the blocked layout (a zero border as wide as half
// the window, stride 1): the runtime hands oneDNN the interior and lets it
// pad. A border with one non-zero element, or zero only for a narrower
// window than the filter's, runs as it is. Each against the direct loop,
// which reads the border: a wrong crop drops its products.
TEST_P(MemrefTest, Conv2DBlockedZeroBorder) {
  std::mt19937 rng(83);
  struct Case {
    int64_t K, OH, border;
    bool spoil;
  } cases[] = {{3, 7, 1, false},  // 3x3 on 7x7, padded by 1: cropped
               {5, 6, 2, false},  // 5x5 on 6x6, padded by 2: cropped
               {3, 7, 1, true},   // one non-zero border element
               {5, 6, 1, false}}; // zero only 1 wide for a 5x5 window
  const int64_t N = 2, C = 32, K = 16;
  for (int native : {1, 0})
    for (const Case &c : cases)
      for (TypePair tp : contractionTypes()) {
        SCOPED_TRACE(testing::Message()
                     << "native bf16 " << native << " filter " << c.K
                     << " output " << c.OH << " zero border " << c.border
                     << " spoiled " << c.spoil << " in " << tp.in << " out "
                     << tp.out);
        amp_rt_cpu_set_native_bf16(native);
        const int64_t H = c.OH + c.K - 1;
        Tensor i = buffer(tp.in, N * C * H * H, rng);
        View<5> I = dense5(&i, N, C / 16, H, H);
        zeroBorder(I, c.border);
        if (c.spoil)
          i.set(I.at({1, 1, H - 1, 3, 5}), 0.5);
        Tensor f = buffer(tp.in, K * C * c.K * c.K, rng);
        Tensor o = buffer(tp.out, N * K * c.OH * c.OH, rng);
        ASSERT_NO_FATAL_FAILURE(checkBlockedConv(
            tp.in, tp.out, I, f, dense5(&o, N, K / 16, c.OH, c.OH), c.K, c.K, 1,
            1, 1, 1, /*overwrite=*/true));
      }
  amp_rt_cpu_set_native_bf16(1);
}

TEST_P(MemrefTest, Conv2DPlainInputBlockedOutput) {
  // A stem on RGB (3 channels, stride 2) and a 24-channel input.
  std::mt19937 rng(59);
  const int64_t N = 2, K = 32;
  struct Case {
    int64_t C, H, W, KH, KW, s, OH, OW;
  } cases[] = {{3, 9, 9, 3, 3, 2, 4, 4}, {24, 6, 7, 1, 1, 1, 6, 7}};
  for (int native : {1, 0})
    for (const Case &c : cases)
      for (bool overwrite : {false, true})
        for (TypePair tp : contractionTypes()) {
          SCOPED_TRACE(testing::Message()
                       << "native bf16 " << native << " C " << c.C << " in "
                       << tp.in << " out " << tp.out << " overwrite "
                       << overwrite);
          amp_rt_cpu_set_native_bf16(native);
          Tensor i = buffer(tp.in, N * c.C * c.H * c.W, rng);
          Tensor f = buffer(tp.in, K * c.C * c.KH * c.KW, rng);
          Tensor o = buffer(tp.out, N * K * c.OH * c.OW, rng);
          ASSERT_NO_FATAL_FAILURE(
              checkBlockedConv(tp.in, tp.out, dense4(&i, N, c.C, c.H, c.W), f,
                               dense5(&o, N, K / 16, c.OH, c.OW), c.KH, c.KW,
                               c.s, c.s, 1, 1, overwrite));
        }
  amp_rt_cpu_set_native_bf16(1);
  // A strided input view (every other channel): the NCHW-copy path.
  Tensor big = buffer(AMP_RT_BF16, N * 6 * 9 * 9, rng);
  View<4> I{&big, 0, {N, 3, 9, 9}, {6 * 81, 2 * 81, 9, 1}};
  Tensor f = buffer(AMP_RT_BF16, K * 3 * 3 * 3, rng);
  Tensor o = buffer(AMP_RT_F32, N * K * 4 * 4, rng);
  ASSERT_NO_FATAL_FAILURE(checkBlockedConv(AMP_RT_BF16, AMP_RT_F32, I, f,
                                           dense5(&o, N, K / 16, 4, 4), 3, 3, 2,
                                           2, 1, 1, false));
}

TEST_P(MemrefTest, ErrorsAreRecordedInRecordMode) {
  amp_rt_set_error_mode(AMP_RT_ERRORS_RECORD);
  std::mt19937 rng(53);
  Tensor a = buffer(AMP_RT_F16, 64, rng), b = buffer(AMP_RT_F16, 64, rng);
  Tensor c = buffer(AMP_RT_F32, 64, rng);
  Tensor before = c;
  amp_rt_memref_2d da{a.data(), a.data(), 0, {4, 5}, {5, 1}};
  amp_rt_memref_2d db{b.data(), b.data(), 0, {6, 3}, {3, 1}}; // K mismatch
  amp_rt_memref_2d dc{c.data(), c.data(), 0, {4, 3}, {3, 1}};
  amp_rt_clear_error();
  _mlir_ciface_amp_rt_matmul_f16_f32(&da, &db, &dc, 0, 0);
  EXPECT_EQ(amp_rt_last_status(), AMP_RT_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(amp_rt_last_error()).find("amp_rt_matmul_f16_f32"),
            std::string::npos)
      << amp_rt_last_error();
  for (size_t i = 0; i < c.size(); ++i)
    ASSERT_EQ(c.get(i), before.get(i));
  amp_rt_clear_error();
  _mlir_ciface_amp_rt_matmul_f16_f32(nullptr, &db, &dc, 0, 0);
  EXPECT_EQ(amp_rt_last_status(), AMP_RT_ERROR_INVALID_ARGUMENT);
  amp_rt_memref_2d neg{a.data(), a.data(), 0, {-1, 5}, {5, 1}};
  amp_rt_clear_error();
  _mlir_ciface_amp_rt_matmul_f16_f32(&neg, &db, &dc, 0, 0);
  EXPECT_EQ(amp_rt_last_status(), AMP_RT_ERROR_INVALID_ARGUMENT);
  // A conv whose output needs more input than I has.
  amp_rt_memref_4d di{a.data(), a.data(), 0, {1, 3, 3, 1}, {9, 3, 1, 1}};
  amp_rt_memref_4d df{b.data(), b.data(), 0, {2, 2, 1, 1}, {2, 1, 1, 1}};
  amp_rt_memref_4d dout{c.data(), c.data(), 0, {1, 3, 3, 1}, {9, 3, 1, 1}};
  amp_rt_clear_error();
  _mlir_ciface_amp_rt_conv2d_nhwc_hwcf_f16_f32(&di, &df, &dout, 1, 1, 1, 1);
  EXPECT_EQ(amp_rt_last_status(), AMP_RT_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(amp_rt_last_error()).find("needs a 4x4 input"),
            std::string::npos)
      << amp_rt_last_error();
  amp_rt_clear_error();
  _mlir_ciface_amp_rt_conv2d_nhwc_hwcf_f16_f32(&di, &df, &dout, 0, 1, 1, 1);
  EXPECT_EQ(amp_rt_last_status(), AMP_RT_ERROR_INVALID_ARGUMENT);
  amp_rt_set_error_mode(AMP_RT_ERRORS_ABORT);
}

using MemrefDeathTest = MemrefTest;

TEST_P(MemrefDeathTest, ErrorsAbortByDefault) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  Tensor a(AMP_RT_F16, 64), b(AMP_RT_F16, 64), c(AMP_RT_F32, 64);
  amp_rt_memref_2d da{a.data(), a.data(), 0, {4, 5}, {5, 1}};
  amp_rt_memref_2d db{b.data(), b.data(), 0, {6, 3}, {3, 1}};
  amp_rt_memref_2d dc{c.data(), c.data(), 0, {4, 3}, {3, 1}};
  EXPECT_DEATH(_mlir_ciface_amp_rt_matmul_f16_f32(&da, &db, &dc, 0, 0),
               "amp_rt: amp_rt_matmul_f16_f32: shapes do not match");
}

AMP_RT_INSTANTIATE_BACKENDS(MemrefTest);
AMP_RT_INSTANTIATE_BACKENDS(MemrefDeathTest);

} // namespace
