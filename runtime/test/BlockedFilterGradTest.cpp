//===- BlockedFilterGradTest.cpp - backward-filter on blocked activations -===//
//
// _mlir_ciface_amp_rt_conv2d_backward_filter_nchw16c_*: the weight gradient
// that amp-block-convs makes of autodiff's transposed convolutions, against
// a direct loop on every backend and type pair: in place on oneDNN (native
// and widened bf16), through NCHW copies (strided views, an input longer
// than a stride past the window), into a strided output view.
//
//===----------------------------------------------------------------------===//

#include "MemrefView.h"

#include <type_traits>

using namespace amp_rt_test;

namespace {

class BlockedFilterGradTest : public BackendTest {};

/// O (K x C x R x S view) += (or, with `overwrite`, =) the weight gradient
/// of X (R = 5: blocked, N x C/16 x H x W x 16, the nchw16c entry points;
/// R = 4: NCHW, the nchw_nchw16c ones) and the blocked DY (N x K/16 x P x
/// Q x 16) for the forward strides (sh, sw) and dilations (dh, dw).
template <int R_>
void checkFilterGrad(amp_rt_dtype in, amp_rt_dtype out, const View<R_> &X,
                     const View<5> &DY, const View<4> &O, int64_t sh,
                     int64_t sw, int64_t dh, int64_t dw, bool overwrite) {
  static_assert(R_ == 4 || R_ == 5, "a plain or a blocked input");
  auto xAt = [&](int64_t n, int64_t c, int64_t h, int64_t w) {
    if constexpr (R_ == 5)
      return X.get({n, c / 16, h, w, c % 16});
    else
      return X.get({n, c, h, w});
  };
  const int64_t N = X.sizes[0], C = R_ == 5 ? X.sizes[1] * 16 : X.sizes[1],
                K = DY.sizes[1] * 16, P = DY.sizes[2], Q = DY.sizes[3],
                R = O.sizes[2], S = O.sizes[3];
  if (overwrite)
    for (int64_t k = 0; k < K; ++k)
      for (int64_t c = 0; c < C; ++c)
        for (int64_t r = 0; r < R; ++r)
          for (int64_t s = 0; s < S; ++s)
            O.t->set(O.at({k, c, r, s}), std::nan(""));
  Tensor before = *O.t;
  using XDesc = std::conditional_t<R_ == 5, amp_rt_memref_5d, amp_rt_memref_4d>;
  XDesc dx = X.template desc<XDesc>();
  amp_rt_memref_5d ddy = DY.desc<amp_rt_memref_5d>();
  amp_rt_memref_4d dout = O.desc<amp_rt_memref_4d>();
  amp_rt_clear_error();
#define AMP_CALL_AS(NAME, IN, OUT)                                             \
  (overwrite ? _mlir_ciface_amp_rt_##NAME##_##IN##_##OUT##_overwrite(          \
                   &dx, &ddy, &dout, sh, sw, dh, dw)                           \
             : _mlir_ciface_amp_rt_##NAME##_##IN##_##OUT(&dx, &ddy, &dout, sh, \
                                                         sw, dh, dw))
#define AMP_CALL(IN, OUT)                                                      \
  do {                                                                         \
    if constexpr (R_ == 5)                                                     \
      AMP_CALL_AS(conv2d_backward_filter_nchw16c, IN, OUT);                    \
    else                                                                       \
      AMP_CALL_AS(conv2d_backward_filter_nchw_nchw16c, IN, OUT);               \
  } while (false)
  if (in == AMP_RT_F32)
    AMP_CALL(f32, f32);
  else if (in == AMP_RT_F16 && out == AMP_RT_F32)
    AMP_CALL(f16, f32);
  else if (in == AMP_RT_F16)
    AMP_CALL(f16, f16);
  else if (out == AMP_RT_F32)
    AMP_CALL(bf16, f32);
  else
    AMP_CALL(bf16, bf16);
#undef AMP_CALL
#undef AMP_CALL_AS
  ASSERT_EQ(amp_rt_last_status(), AMP_RT_SUCCESS) << amp_rt_last_error();
  for (int64_t k = 0; k < K; ++k)
    for (int64_t c = 0; c < C; ++c)
      for (int64_t r = 0; r < R; ++r)
        for (int64_t s = 0; s < S; ++s) {
          Ref ref;
          for (int64_t n = 0; n < N; ++n)
            for (int64_t p = 0; p < P; ++p)
              for (int64_t q = 0; q < Q; ++q) {
                double x = xAt(n, c, p * sh + r * dh, q * sw + s * dw);
                double g = DY.get({n, k / 16, p, q, k % 16});
                ref.value += x * g;
                ref.magnitude += std::fabs(x * g);
              }
          size_t idx = O.at({k, c, r, s});
          double old = overwrite ? 0.0 : before.get(idx);
          ASSERT_NEAR(O.t->get(idx), ref.value + old,
                      tolerance(ref, N * P * Q, out, 1.0, old))
              << "O at k=" << k << " c=" << c << " r=" << r << " s=" << s;
        }
}

TEST_P(BlockedFilterGradTest, AgainstDirectLoops) {
  std::mt19937 rng(61);
  struct Case {
    int64_t H, W, P, Q, R, S, sh, sw, dh, dw;
  } cases[] = {
      {10, 10, 8, 8, 3, 3, 1, 1, 1, 1}, // a padded 3x3 stride-1 layer
      {9, 9, 4, 4, 3, 3, 2, 2, 1, 1},   // stride 2: the slice-trimmed form
      {10, 10, 4, 4, 3, 3, 2, 2, 1, 1}, // ... and the row past it kept
      {8, 8, 4, 4, 1, 1, 2, 2, 1, 1},   // a 1x1 stride-2 projection
      {9, 9, 5, 5, 3, 3, 1, 1, 2, 2},   // dilation 2
      {12, 12, 4, 4, 3, 3, 2, 2, 1, 1}, // rows past a stride: NCHW copies
  };
  const int64_t N = 2, C = 32, K = 16;
  for (const Case &c : cases)
    for (bool overwrite : {false, true})
      for (TypePair tp : contractionTypes()) {
        SCOPED_TRACE(testing::Message()
                     << c.H << "x" << c.W << " -> " << c.P << "x" << c.Q
                     << " filter " << c.R << "x" << c.S << " stride " << c.sh
                     << " dilation " << c.dh << " in " << tp.in << " out "
                     << tp.out << " overwrite " << overwrite);
        Tensor x = buffer(tp.in, N * C * c.H * c.W, rng);
        Tensor dy = buffer(tp.in, N * K * c.P * c.Q, rng);
        Tensor o = buffer(tp.out, K * C * c.R * c.S, rng);
        ASSERT_NO_FATAL_FAILURE(checkFilterGrad(
            tp.in, tp.out, dense5(&x, N, C / 16, c.H, c.W),
            dense5(&dy, N, K / 16, c.P, c.Q), dense4(&o, K, C, c.R, c.S), c.sh,
            c.sw, c.dh, c.dw, overwrite));
      }
}

// A small padded image (a zero border as wide as half the window, stride
// 1): oneDNN gets the interior and pads it itself; a non-zero border
// element keeps the padded input as it is.
TEST_P(BlockedFilterGradTest, ZeroBorder) {
  std::mt19937 rng(89);
  const int64_t N = 2, C = 32, K = 16, P = 7, H = 9;
  for (bool spoil : {false, true})
    for (TypePair tp : contractionTypes()) {
      SCOPED_TRACE(testing::Message() << "spoiled " << spoil << " in " << tp.in
                                      << " out " << tp.out);
      Tensor x = buffer(tp.in, N * C * H * H, rng);
      View<5> X = dense5(&x, N, C / 16, H, H);
      zeroBorder(X, 1);
      if (spoil)
        x.set(X.at({0, 1, 0, 4, 2}), -0.75);
      Tensor dy = buffer(tp.in, N * K * P * P, rng);
      Tensor o = buffer(tp.out, K * C * 3 * 3, rng);
      ASSERT_NO_FATAL_FAILURE(checkFilterGrad(
          tp.in, tp.out, X, dense5(&dy, N, K / 16, P, P),
          dense4(&o, K, C, 3, 3), 1, 1, 1, 1, /*overwrite=*/false));
    }
}

// A stem's weight gradient: the image's 3 (and 24) channels stay NCHW,
// oneDNN's first-layer backward-weights reads them in place.
TEST_P(BlockedFilterGradTest, PlainInput) {
  std::mt19937 rng(73);
  struct Case {
    int64_t C, H, W, P, Q, R, S, s;
  } cases[] = {{3, 11, 11, 5, 5, 3, 3, 2}, {24, 8, 8, 6, 6, 3, 3, 1}};
  const int64_t N = 2, K = 32;
  for (const Case &c : cases)
    for (bool overwrite : {false, true})
      for (TypePair tp : contractionTypes()) {
        SCOPED_TRACE(testing::Message()
                     << "C " << c.C << " in " << tp.in << " out " << tp.out
                     << " overwrite " << overwrite);
        Tensor x = buffer(tp.in, N * c.C * c.H * c.W, rng);
        Tensor dy = buffer(tp.in, N * K * c.P * c.Q, rng);
        Tensor o = buffer(tp.out, K * c.C * c.R * c.S, rng);
        ASSERT_NO_FATAL_FAILURE(checkFilterGrad(
            tp.in, tp.out, dense4(&x, N, c.C, c.H, c.W),
            dense5(&dy, N, K / 16, c.P, c.Q), dense4(&o, K, c.C, c.R, c.S), c.s,
            c.s, 1, 1, overwrite));
      }
  // Every other channel of a larger image: the NCHW-copy path.
  Tensor big = buffer(AMP_RT_BF16, N * 6 * 11 * 11, rng);
  View<4> X{&big, 0, {N, 3, 11, 11}, {6 * 121, 2 * 121, 11, 1}};
  Tensor dy = buffer(AMP_RT_BF16, N * K * 25, rng);
  Tensor o = buffer(AMP_RT_F32, K * 3 * 9, rng);
  ASSERT_NO_FATAL_FAILURE(
      checkFilterGrad(AMP_RT_BF16, AMP_RT_F32, X, dense5(&dy, N, 2, 5, 5),
                      dense4(&o, K, 3, 3, 3), 2, 2, 1, 1, false));
}

TEST_P(BlockedFilterGradTest, StridedViews) {
  std::mt19937 rng(67);
  const int64_t N = 2, H = 6, W = 6, P = 4, Q = 4, K = 16;
  // X: every other channel block of a larger tensor; O: every other column.
  Tensor big = buffer(AMP_RT_BF16, N * 4 * H * W * 16 + 16, rng);
  View<5> X{&big,
            16,
            {N, 2, H, W, 16},
            {4 * H * W * 16, 2 * H * W * 16, W * 16, 16, 1}};
  Tensor dy = buffer(AMP_RT_BF16, N * K * P * Q, rng);
  Tensor o = buffer(AMP_RT_F32, K * 32 * 3 * 3 * 2, rng);
  View<4> O{&o, 1, {K, 32, 3, 3}, {32 * 9 * 2, 9 * 2, 3 * 2, 2}};
  ASSERT_NO_FATAL_FAILURE(checkFilterGrad(AMP_RT_BF16, AMP_RT_F32, X,
                                          dense5(&dy, N, 1, P, Q), O, 1, 1, 1,
                                          1, false));
  // A dense X and DY into the strided O: in place, O staged.
  Tensor x = buffer(AMP_RT_F16, N * 32 * H * W, rng);
  Tensor dy16 = buffer(AMP_RT_F16, N * K * P * Q, rng);
  ASSERT_NO_FATAL_FAILURE(
      checkFilterGrad(AMP_RT_F16, AMP_RT_F32, dense5(&x, N, 2, H, W),
                      dense5(&dy16, N, 1, P, Q), O, 1, 1, 1, 1, true));
}

TEST_P(BlockedFilterGradTest, EmptySumAndBadShapes) {
  std::mt19937 rng(71);
  amp_rt_set_error_mode(AMP_RT_ERRORS_RECORD);
  Tensor x = buffer(AMP_RT_F32, 2 * 16 * 6 * 6, rng);
  Tensor dy = buffer(AMP_RT_F32, 2 * 16 * 4 * 4, rng);
  Tensor o = buffer(AMP_RT_F32, 16 * 16 * 3 * 3, rng);
  amp_rt_memref_5d dx = dense5(&x, 2, 1, 6, 6).desc<amp_rt_memref_5d>();
  amp_rt_memref_5d ddy = dense5(&dy, 2, 1, 4, 4).desc<amp_rt_memref_5d>();
  amp_rt_memref_4d dout = dense4(&o, 16, 16, 3, 3).desc<amp_rt_memref_4d>();
  // No batch: the overwritten gradient is zero.
  amp_rt_memref_5d noBatch = dx, noBatchDy = ddy;
  noBatch.sizes[0] = noBatchDy.sizes[0] = 0;
  amp_rt_clear_error();
  _mlir_ciface_amp_rt_conv2d_backward_filter_nchw16c_f32_f32_overwrite(
      &noBatch, &noBatchDy, &dout, 1, 1, 1, 1);
  EXPECT_EQ(amp_rt_last_status(), AMP_RT_SUCCESS) << amp_rt_last_error();
  for (size_t i = 0; i < o.size(); ++i)
    ASSERT_EQ(o.get(i), 0.0) << i;
  // A window larger than X: 4 rows at stride 2 with a 3x3 filter need 9.
  amp_rt_clear_error();
  _mlir_ciface_amp_rt_conv2d_backward_filter_nchw16c_f32_f32(&dx, &ddy, &dout,
                                                             2, 2, 1, 1);
  EXPECT_EQ(amp_rt_last_status(), AMP_RT_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(amp_rt_last_error()).find("needs a 9x9 input"),
            std::string::npos)
      << amp_rt_last_error();
  // Channels that do not match the gradient's.
  amp_rt_memref_4d wrong = dout;
  wrong.sizes[1] = 32;
  amp_rt_clear_error();
  _mlir_ciface_amp_rt_conv2d_backward_filter_nchw16c_f32_f32(&dx, &ddy, &wrong,
                                                             1, 1, 1, 1);
  EXPECT_EQ(amp_rt_last_status(), AMP_RT_ERROR_INVALID_ARGUMENT);
  amp_rt_set_error_mode(AMP_RT_ERRORS_ABORT);
}

AMP_RT_INSTANTIATE_BACKENDS(BlockedFilterGradTest);

} // namespace
