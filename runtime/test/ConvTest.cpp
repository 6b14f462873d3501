//===- ConvTest.cpp - conv2d forward / backward vs a f64 reference --------===//
//
// The reference forward loop is direct; the two backward references are its
// adjoints (the same loop, scattering instead of gathering), and a separate
// test checks <conv(x,w), dy> = <x, bwd_data(dy,w)> = <w, bwd_filter(x,dy)>
// on the runtime's own results.
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include <iterator>
#include <limits>

using namespace amp_rt_test;

namespace {

struct Shape {
  amp_rt_conv2d_desc d;
  int64_t P, Q;

  int64_t groups() const { return d.groups > 1 ? d.groups : 1; }
  /// Input channels per group: the filter's C dimension.
  int64_t cg() const { return d.C / groups(); }

  size_t x(int64_t n, int64_t c, int64_t h, int64_t w) const {
    return size_t(d.layout == AMP_RT_NHWC
                      ? ((n * d.H + h) * d.W + w) * d.C + c
                      : ((n * d.C + c) * d.H + h) * d.W + w);
  }
  size_t y(int64_t n, int64_t k, int64_t p, int64_t q) const {
    return size_t(d.layout == AMP_RT_NHWC ? ((n * P + p) * Q + q) * d.K + k
                                          : ((n * d.K + k) * P + p) * Q + q);
  }
  /// Filter element of output channel k and in-group input channel c.
  size_t w(int64_t k, int64_t c, int64_t r, int64_t s) const {
    amp_rt_filter_layout l = d.filter_layout;
    if (l == AMP_RT_FILTER_DEFAULT)
      l = d.layout == AMP_RT_NHWC ? AMP_RT_FILTER_KRSC : AMP_RT_FILTER_KCRS;
    const int64_t C = cg();
    switch (l) {
    case AMP_RT_FILTER_KCRS:
      return size_t(((k * C + c) * d.R + r) * d.S + s);
    case AMP_RT_FILTER_RSCK:
      return size_t(((r * d.S + s) * C + c) * d.K + k);
    default:
      return size_t(((k * d.R + r) * d.S + s) * C + c);
    }
  }
  size_t xSize() const { return size_t(d.N * d.C * d.H * d.W); }
  size_t ySize() const { return size_t(d.N * d.K * P * Q); }
  size_t wSize() const { return size_t(d.K * cg() * d.R * d.S); }

  /// Calls f(xIndex, wIndex, yIndex) for every product of the convolution:
  /// output channel k reads the cg() input channels of its group.
  template <typename F> void forEachProduct(F f) const {
    const int64_t kg = d.K / groups();
    for (int64_t n = 0; n < d.N; ++n)
      for (int64_t k = 0; k < d.K; ++k)
        for (int64_t p = 0; p < P; ++p)
          for (int64_t q = 0; q < Q; ++q)
            for (int64_t c = 0; c < cg(); ++c)
              for (int64_t r = 0; r < d.R; ++r)
                for (int64_t s = 0; s < d.S; ++s) {
                  int64_t h = p * d.stride_h - d.pad_h + r * d.dil_h;
                  int64_t ww = q * d.stride_w - d.pad_w + s * d.dil_w;
                  if (h >= 0 && h < d.H && ww >= 0 && ww < d.W)
                    f(x(n, k / kg * cg() + c, h, ww), w(k, c, r, s),
                      y(n, k, p, q));
                }
  }
};

Shape makeShape(amp_rt_conv2d_desc d) {
  Shape s{d, 0, 0};
  amp_rt_status st = amp_rt_conv2d_output_size(&d, &s.P, &s.Q);
  EXPECT_EQ(st, AMP_RT_SUCCESS) << statusText(st);
  return s;
}

amp_rt_conv2d_desc desc(amp_rt_layout l, amp_rt_filter_layout f, int64_t N,
                        int64_t H, int64_t W, int64_t C, int64_t K, int64_t R,
                        int64_t S, int64_t ph, int64_t pw, int64_t sh,
                        int64_t sw, int64_t dh, int64_t dw) {
  amp_rt_conv2d_desc d{};
  d.layout = l;
  d.filter_layout = f;
  d.N = N, d.H = H, d.W = W, d.C = C, d.K = K, d.R = R, d.S = S;
  d.pad_h = ph, d.pad_w = pw, d.stride_h = sh, d.stride_w = sw;
  d.dil_h = dh, d.dil_w = dw;
  return d;
}

void checkAgainst(const Tensor &out, const Tensor &old,
                  const std::vector<Ref> &ref, int64_t terms, float alpha,
                  float beta, const char *what) {
  for (size_t i = 0; i < ref.size(); ++i) {
    double o = beta == 0.0f ? 0.0 : double(beta) * old.get(i);
    ASSERT_NEAR(out.get(i), alpha * ref[i].value + o,
                tolerance(ref[i], terms, out.dtype(), alpha, o))
        << what << " element " << i;
  }
}

/// Runs the three directions of `d` and checks them element-wise.
void runAllDirections(amp_rt_conv2d_desc d, amp_rt_dtype in, amp_rt_dtype out,
                      float alpha, float beta, std::mt19937 &rng) {
  Shape s = makeShape(d);
  Tensor x(in, s.xSize()), w(in, s.wSize()), dy(in, s.ySize());
  x.fillRandom(rng);
  w.fillRandom(rng);
  dy.fillRandom(rng);

  std::vector<Ref> y(s.ySize()), dx(s.xSize()), dw(s.wSize());
  s.forEachProduct([&](size_t xi, size_t wi, size_t yi) {
    double f = x.get(xi) * w.get(wi);
    y[yi].value += f;
    y[yi].magnitude += std::fabs(f);
    // Adjoints: the transposed loop scatters instead of gathering.
    double bd = dy.get(yi) * w.get(wi);
    dx[xi].value += bd;
    dx[xi].magnitude += std::fabs(bd);
    double bf = dy.get(yi) * x.get(xi);
    dw[wi].value += bf;
    dw[wi].magnitude += std::fabs(bf);
  });

  Tensor yOut(out, s.ySize()), dxOut(out, s.xSize()), dwOut(out, s.wSize());
  yOut.fillRandom(rng);
  dxOut.fillRandom(rng);
  dwOut.fillRandom(rng);
  Tensor y0 = yOut, dx0 = dxOut, dw0 = dwOut;
  AMP_RT_ASSERT_OK(amp_rt_conv2d_forward(&d, in, out, alpha, x.data(), w.data(),
                                         beta, yOut.data()));
  ASSERT_NO_FATAL_FAILURE(
      checkAgainst(yOut, y0, y, s.cg() * d.R * d.S, alpha, beta, "forward"));
  AMP_RT_ASSERT_OK(amp_rt_conv2d_backward_data(&d, in, out, alpha, dy.data(),
                                               w.data(), beta, dxOut.data()));
  ASSERT_NO_FATAL_FAILURE(checkAgainst(dxOut, dx0, dx,
                                       d.K / s.groups() * d.R * d.S, alpha,
                                       beta, "backward data"));
  AMP_RT_ASSERT_OK(amp_rt_conv2d_backward_filter(
      &d, in, out, alpha, x.data(), dy.data(), beta, dwOut.data()));
  ASSERT_NO_FATAL_FAILURE(checkAgainst(dwOut, dw0, dw, d.N * s.P * s.Q, alpha,
                                       beta, "backward filter"));
}

class ConvTest : public BackendTest {};

TEST_P(ConvTest, StridePaddingDilationAllLayouts) {
  std::mt19937 rng(1);
  for (auto layout : {AMP_RT_NHWC, AMP_RT_NCHW})
    for (auto filter : {AMP_RT_FILTER_DEFAULT, AMP_RT_FILTER_KRSC,
                        AMP_RT_FILTER_KCRS, AMP_RT_FILTER_RSCK})
      for (TypePair tp : contractionTypes()) {
        SCOPED_TRACE(testing::Message()
                     << "layout " << layout << " filter " << filter << " in "
                     << tp.in << " out " << tp.out);
        // stride 2, asymmetric padding, dilation 2 in H.
        ASSERT_NO_FATAL_FAILURE(runAllDirections(
            desc(layout, filter, 2, 9, 8, 3, 4, 3, 2, 1, 2, 2, 2, 2, 1), tp.in,
            tp.out, 1.0f, 0.0f, rng));
      }
}

TEST_P(ConvTest, VariedGeometriesWithAlphaBeta) {
  std::mt19937 rng(2);
  const amp_rt_conv2d_desc cases[] = {
      // 1x1, stride 1, no padding (the im2col-free path on the cpu).
      desc(AMP_RT_NHWC, AMP_RT_FILTER_DEFAULT, 2, 5, 4, 6, 5, 1, 1, 0, 0, 1, 1,
           1, 1),
      desc(AMP_RT_NCHW, AMP_RT_FILTER_DEFAULT, 2, 5, 4, 6, 5, 1, 1, 0, 0, 1, 1,
           1, 1),
      // 3x3 "same" convolution.
      desc(AMP_RT_NHWC, AMP_RT_FILTER_RSCK, 1, 6, 7, 5, 3, 3, 3, 1, 1, 1, 1, 1,
           1),
      desc(AMP_RT_NCHW, AMP_RT_FILTER_KCRS, 1, 6, 7, 5, 3, 3, 3, 1, 1, 1, 1, 1,
           1),
      // Dilation 2 in both dimensions, stride 1, no padding; stride 3.
      desc(AMP_RT_NHWC, AMP_RT_FILTER_KRSC, 2, 10, 9, 4, 6, 3, 3, 0, 0, 1, 1, 2,
           2),
      desc(AMP_RT_NCHW, AMP_RT_FILTER_RSCK, 1, 11, 12, 2, 3, 2, 3, 1, 0, 3, 2,
           2, 2),
      // Odd channel counts around oneDNN's blocks of 16: 1x1 with stride 2,
      // 5x5 with dilation, 3x3 "same".
      desc(AMP_RT_NHWC, AMP_RT_FILTER_DEFAULT, 3, 7, 6, 7, 33, 1, 1, 0, 0, 2, 2,
           1, 1),
      desc(AMP_RT_NCHW, AMP_RT_FILTER_KRSC, 2, 12, 11, 7, 33, 5, 5, 2, 2, 2, 2,
           2, 1),
      desc(AMP_RT_NHWC, AMP_RT_FILTER_KCRS, 1, 9, 9, 16, 17, 3, 3, 1, 1, 1, 1,
           1, 1),
      // Filters larger than the output (7x6 on 9x8: a 3x3 output), the
      // shape of a weight gradient written as a forward convolution, which
      // oneDNN runs as one; in every filter layout.
      desc(AMP_RT_NHWC, AMP_RT_FILTER_RSCK, 3, 9, 8, 5, 6, 7, 6, 0, 0, 1, 1, 1,
           1),
      desc(AMP_RT_NHWC, AMP_RT_FILTER_KRSC, 2, 9, 8, 17, 3, 7, 6, 0, 0, 1, 1, 1,
           1),
      desc(AMP_RT_NCHW, AMP_RT_FILTER_KCRS, 3, 8, 9, 5, 18, 6, 8, 0, 0, 1, 1, 1,
           1),
      // ... of a strided convolution: the forward stride as the dilation
      // (torch-mlir's, ungrouped by amp-ungroup-summed-convs), also with a
      // stride (a dilated forward convolution) and a row the output does
      // not read.
      desc(AMP_RT_NCHW, AMP_RT_FILTER_KCRS, 4, 15, 14, 3, 18, 6, 6, 0, 0, 1, 1,
           2, 2),
      desc(AMP_RT_NHWC, AMP_RT_FILTER_RSCK, 4, 15, 14, 3, 18, 6, 6, 0, 0, 1, 1,
           2, 2),
      desc(AMP_RT_NCHW, AMP_RT_FILTER_KCRS, 2, 20, 8, 4, 5, 5, 4, 0, 0, 2, 1, 3,
           2),
  };
  for (size_t i = 0; i < std::size(cases); ++i)
    for (TypePair tp : contractionTypes()) {
      SCOPED_TRACE(testing::Message()
                   << "case " << i << " in " << tp.in << " out " << tp.out);
      ASSERT_NO_FATAL_FAILURE(
          runAllDirections(cases[i], tp.in, tp.out, 1.5f, 0.5f, rng));
    }
}

TEST_P(ConvTest, GroupedAndDepthwise) {
  std::mt19937 rng(6);
  auto grouped = [](amp_rt_conv2d_desc d, int64_t groups) {
    d.groups = groups;
    return d;
  };
  const amp_rt_conv2d_desc cases[] = {
      // Depthwise 3x3 "same" (MobileNet), every filter layout: C x 3 x 3 is
      // KCRS, 3 x 3 x C is RSCK.
      grouped(desc(AMP_RT_NCHW, AMP_RT_FILTER_KCRS, 2, 9, 8, 32, 32, 3, 3, 1, 1,
                   1, 1, 1, 1),
              32),
      grouped(desc(AMP_RT_NHWC, AMP_RT_FILTER_RSCK, 2, 9, 8, 32, 32, 3, 3, 1, 1,
                   1, 1, 1, 1),
              32),
      grouped(desc(AMP_RT_NCHW, AMP_RT_FILTER_KRSC, 1, 8, 8, 16, 16, 3, 3, 1, 1,
                   1, 1, 1, 1),
              16),
      // Depthwise with stride 2, odd channels and a channel multiplier of 2.
      grouped(desc(AMP_RT_NCHW, AMP_RT_FILTER_KCRS, 2, 11, 10, 7, 14, 3, 3, 1,
                   1, 2, 2, 1, 1),
              7),
      grouped(desc(AMP_RT_NHWC, AMP_RT_FILTER_RSCK, 1, 11, 10, 5, 10, 5, 5, 2,
                   2, 2, 1, 1, 1),
              5),
      // Depthwise with dilation 2 and no padding.
      grouped(desc(AMP_RT_NHWC, AMP_RT_FILTER_KRSC, 2, 10, 9, 16, 16, 3, 3, 0,
                   0, 1, 1, 2, 2),
              16),
      // Grouped, 4 groups of 4 -> 6 channels and 2 groups of 8 -> 2.
      grouped(desc(AMP_RT_NCHW, AMP_RT_FILTER_KCRS, 2, 8, 7, 16, 24, 3, 3, 1, 1,
                   1, 1, 1, 1),
              4),
      grouped(desc(AMP_RT_NHWC, AMP_RT_FILTER_RSCK, 1, 7, 8, 16, 4, 1, 1, 0, 0,
                   2, 2, 1, 1),
              2),
  };
  for (size_t i = 0; i < std::size(cases); ++i)
    for (TypePair tp : contractionTypes()) {
      SCOPED_TRACE(testing::Message()
                   << "case " << i << " in " << tp.in << " out " << tp.out);
      ASSERT_NO_FATAL_FAILURE(
          runAllDirections(cases[i], tp.in, tp.out, 1.5f, 0.5f, rng));
    }
}

TEST_P(ConvTest, GroupsMustDivideTheChannels) {
  amp_rt_conv2d_desc d = desc(AMP_RT_NCHW, AMP_RT_FILTER_KCRS, 1, 4, 4, 6, 4, 3,
                              3, 1, 1, 1, 1, 1, 1);
  int64_t P, Q;
  d.groups = 4; // divides K = 4, not C = 6
  EXPECT_EQ(amp_rt_conv2d_output_size(&d, &P, &Q),
            AMP_RT_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(amp_rt_last_error()).find("groups = 4 must divide"),
            std::string::npos)
      << amp_rt_last_error();
  d.groups = -2;
  EXPECT_EQ(amp_rt_conv2d_output_size(&d, &P, &Q),
            AMP_RT_ERROR_INVALID_ARGUMENT);
  d.groups = 2; // divides both
  AMP_RT_ASSERT_OK(amp_rt_conv2d_output_size(&d, &P, &Q));
}

TEST_P(ConvTest, LargeEnoughToBeChunked) {
  // More im2col rows than one cpu chunk holds (4M floats / (C*R*S)).
  std::mt19937 rng(3);
  ASSERT_NO_FATAL_FAILURE(
      runAllDirections(desc(AMP_RT_NHWC, AMP_RT_FILTER_DEFAULT, 2, 64, 64, 64,
                            4, 3, 3, 1, 1, 1, 1, 1, 1),
                       AMP_RT_F16, AMP_RT_F32, 1.0f, 0.0f, rng));
  ASSERT_NO_FATAL_FAILURE(
      runAllDirections(desc(AMP_RT_NCHW, AMP_RT_FILTER_DEFAULT, 1, 96, 96, 64,
                            2, 3, 3, 1, 1, 1, 1, 1, 1),
                       AMP_RT_BF16, AMP_RT_F32, 1.0f, 0.0f, rng));
  // 16-bit outputs of long reductions (2048 terms per filter element):
  // accumulating in the 16-bit type instead of f32 would miss by far.
  for (amp_rt_dtype t : {AMP_RT_F16, AMP_RT_BF16}) {
    SCOPED_TRACE(testing::Message() << "16-bit output " << t);
    ASSERT_NO_FATAL_FAILURE(
        runAllDirections(desc(AMP_RT_NHWC, AMP_RT_FILTER_DEFAULT, 2, 32, 32, 16,
                              8, 3, 3, 1, 1, 1, 1, 1, 1),
                         t, t, 1.0f, 0.0f, rng));
  }
}

TEST_P(ConvTest, AdjointIdentities) {
  std::mt19937 rng(4);
  for (auto layout : {AMP_RT_NHWC, AMP_RT_NCHW}) {
    amp_rt_conv2d_desc d = desc(layout, AMP_RT_FILTER_DEFAULT, 2, 7, 9, 3, 5, 3,
                                3, 1, 2, 2, 1, 1, 2);
    Shape s = makeShape(d);
    Tensor x(AMP_RT_F16, s.xSize()), w(AMP_RT_F16, s.wSize()),
        dy(AMP_RT_F16, s.ySize());
    x.fillRandom(rng);
    w.fillRandom(rng);
    dy.fillRandom(rng);
    Tensor y(AMP_RT_F32, s.ySize()), dx(AMP_RT_F32, s.xSize()),
        dw(AMP_RT_F32, s.wSize());
    AMP_RT_ASSERT_OK(amp_rt_conv2d_forward(&d, AMP_RT_F16, AMP_RT_F32, 1.0f,
                                           x.data(), w.data(), 0.0f, y.data()));
    AMP_RT_ASSERT_OK(amp_rt_conv2d_backward_data(&d, AMP_RT_F16, AMP_RT_F32,
                                                 1.0f, dy.data(), w.data(),
                                                 0.0f, dx.data()));
    AMP_RT_ASSERT_OK(amp_rt_conv2d_backward_filter(&d, AMP_RT_F16, AMP_RT_F32,
                                                   1.0f, x.data(), dy.data(),
                                                   0.0f, dw.data()));
    double a = 0, b = 0, c = 0, mag = 0;
    for (size_t i = 0; i < s.ySize(); ++i)
      a += y.get(i) * dy.get(i), mag += std::fabs(y.get(i) * dy.get(i));
    for (size_t i = 0; i < s.xSize(); ++i)
      b += x.get(i) * dx.get(i);
    for (size_t i = 0; i < s.wSize(); ++i)
      c += w.get(i) * dw.get(i);
    double tol = 1e-5 * (mag + 1.0);
    EXPECT_NEAR(a, b, tol) << "<conv(x,w),dy> vs <x,bwd_data(dy,w)>";
    EXPECT_NEAR(a, c, tol) << "<conv(x,w),dy> vs <w,bwd_filter(x,dy)>";
  }
}

TEST_P(ConvTest, NaNPropagatesAndBetaZeroIgnoresNaNInOutput) {
  // One NaN input element makes exactly the outputs that read it NaN; the
  // outputs start as NaN, which beta == 0 must ignore.
  std::mt19937 rng(5);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (auto layout : {AMP_RT_NHWC, AMP_RT_NCHW})
    for (TypePair tp : contractionTypes()) {
      SCOPED_TRACE(testing::Message() << "layout " << layout << " in " << tp.in
                                      << " out " << tp.out);
      Shape s = makeShape(desc(layout, AMP_RT_FILTER_DEFAULT, 2, 7, 6, 3, 5, 3,
                               3, 1, 1, 2, 1, 1, 1));
      Tensor x(tp.in, s.xSize()), w(tp.in, s.wSize()), dy(tp.in, s.ySize());
      x.fillRandom(rng);
      w.fillRandom(rng);
      dy.fillRandom(rng);
      const size_t badX = s.x(1, 2, 3, 4), badY = s.y(0, 3, 1, 2);
      x.set(badX, nan);
      dy.set(badY, nan);
      std::vector<bool> yBad(s.ySize()), dxBad(s.xSize()), dwBad(s.wSize());
      s.forEachProduct([&](size_t xi, size_t wi, size_t yi) {
        if (xi == badX)
          yBad[yi] = dwBad[wi] = true;
        if (yi == badY)
          dxBad[xi] = dwBad[wi] = true;
      });
      Tensor y(tp.out, s.ySize()), dx(tp.out, s.xSize()), dw(tp.out, s.wSize());
      for (Tensor *t : {&y, &dx, &dw})
        t->fill(nan);
      AMP_RT_ASSERT_OK(amp_rt_conv2d_forward(
          &s.d, tp.in, tp.out, 1.0f, x.data(), w.data(), 0.0f, y.data()));
      AMP_RT_ASSERT_OK(amp_rt_conv2d_backward_data(
          &s.d, tp.in, tp.out, 1.0f, dy.data(), w.data(), 0.0f, dx.data()));
      AMP_RT_ASSERT_OK(amp_rt_conv2d_backward_filter(
          &s.d, tp.in, tp.out, 1.0f, x.data(), dy.data(), 0.0f, dw.data()));
      // oneDNN's native bf16 kernels also multiply a NaN by zero weights,
      // which spreads it to neighbouring outputs: with blocked (NCHW)
      // activations on AVX512_BF16, and in both layouts on the AMX CPU of
      // an H200 machine. There, every affected output must be NaN, others
      // may be (a NaN anywhere skips the training step all the same).
      const bool spreads = std::string(GetParam()) == "cpu" &&
                           cpuNativeBf16() && tp.in == AMP_RT_BF16;
      auto check = [&](const Tensor &t, const std::vector<bool> &bad,
                       const char *what) {
        for (size_t i = 0; i < t.size(); ++i) {
          bool isNaN = std::isnan(t.get(i));
          ASSERT_TRUE(bad[i] ? isNaN : (spreads || !isNaN)) << what << " " << i;
          ASSERT_FALSE(std::isinf(t.get(i))) << what << " " << i;
        }
      };
      ASSERT_NO_FATAL_FAILURE(check(y, yBad, "y"));
      ASSERT_NO_FATAL_FAILURE(check(dx, dxBad, "dx"));
      ASSERT_NO_FATAL_FAILURE(check(dw, dwBad, "dw"));
    }
}

TEST_P(ConvTest, KeptFilterPackingsFollowTheFiltersBytes) {
  // The cpu backend keeps filters packed in the kernels' layouts across
  // calls (PackedFilters.h). A packing is reused only for the same bytes:
  // the filter rewritten in place (one element, the last one compared) must
  // give the new result, and an equal filter elsewhere reuses the packing.
  if (std::string(GetParam()).compare(0, 3, "cpu") != 0)
    GTEST_SKIP() << "the filter cache is the cpu backend's";
  std::mt19937 rng(7);
  AMP_RT_ASSERT_OK(amp_rt_cpu_set_filter_cache(size_t(64) << 20));
  for (auto layout : {AMP_RT_NHWC, AMP_RT_NCHW})
    for (TypePair tp : contractionTypes()) {
      SCOPED_TRACE(testing::Message() << "layout " << layout << " in " << tp.in
                                      << " out " << tp.out);
      Shape s = makeShape(desc(layout, AMP_RT_FILTER_DEFAULT, 2, 9, 7, 16, 32,
                               3, 3, 1, 1, 1, 1, 1, 1));
      Tensor x(tp.in, s.xSize()), w(tp.in, s.wSize()), dy(tp.in, s.ySize());
      x.fillRandom(rng);
      w.fillRandom(rng);
      dy.fillRandom(rng);
      // The forward (backward data: false) with `filter`, checked.
      auto isRight = [&](bool forward, const Tensor &filter, const char *what) {
        const Tensor &in = forward ? x : dy;
        std::vector<Ref> ref(forward ? s.ySize() : s.xSize());
        s.forEachProduct([&](size_t xi, size_t wi, size_t yi) {
          double f = in.get(forward ? xi : yi) * filter.get(wi);
          Ref &r = ref[forward ? yi : xi];
          r.value += f;
          r.magnitude += std::fabs(f);
        });
        Tensor out(tp.out, ref.size());
        AMP_RT_ASSERT_OK(
            (forward ? amp_rt_conv2d_forward : amp_rt_conv2d_backward_data)(
                &s.d, tp.in, tp.out, 1.0f, in.data(), filter.data(), 0.0f,
                out.data()));
        checkAgainst(out, out, ref, (forward ? s.cg() : s.d.K) * 9, 1.0f, 0.0f,
                     what);
      };
      auto forwardIsRight = [&](const Tensor &filter, const char *what) {
        isRight(true, filter, what);
      };
      auto dataGradientIsRight = [&](const Tensor &filter, const char *what) {
        isRight(false, filter, what);
      };
      int64_t hits0, hits1, misses;
      size_t bytes;
      AMP_RT_ASSERT_OK(amp_rt_cpu_filter_cache_stats(&hits0, &misses, &bytes));
      ASSERT_NO_FATAL_FAILURE(forwardIsRight(w, "first call"));
      ASSERT_NO_FATAL_FAILURE(forwardIsRight(w, "same filter again"));
      ASSERT_NO_FATAL_FAILURE(dataGradientIsRight(w, "backward data"));
      ASSERT_NO_FATAL_FAILURE(dataGradientIsRight(w, "backward data again"));
      AMP_RT_ASSERT_OK(amp_rt_cpu_filter_cache_stats(&hits1, &misses, &bytes));
      EXPECT_EQ(hits1 - hits0, 2) << "the repeated calls reuse the packing";
      EXPECT_GT(bytes, 0u);

      const size_t last = s.wSize() - 1;
      w.set(last, w.get(last) + 3.0);
      ASSERT_NO_FATAL_FAILURE(forwardIsRight(w, "last element rewritten"));
      ASSERT_NO_FATAL_FAILURE(dataGradientIsRight(w, "last element rewritten"));
      Tensor elsewhere = w;
      ASSERT_NO_FATAL_FAILURE(forwardIsRight(elsewhere, "equal copy"));
      AMP_RT_ASSERT_OK(amp_rt_cpu_filter_cache_stats(&hits0, &misses, &bytes));
      EXPECT_EQ(hits0 - hits1, 1) << "an equal filter elsewhere is a hit";
    }
  AMP_RT_ASSERT_OK(amp_rt_cpu_set_filter_cache(0));
  int64_t hits, misses;
  size_t bytes;
  AMP_RT_ASSERT_OK(amp_rt_cpu_filter_cache_stats(&hits, &misses, &bytes));
  EXPECT_EQ(bytes, 0u) << "budget 0 drops every packing";
  Shape s = makeShape(desc(AMP_RT_NCHW, AMP_RT_FILTER_DEFAULT, 1, 5, 5, 8, 8, 3,
                           3, 1, 1, 1, 1, 1, 1));
  Tensor x(AMP_RT_F32, s.xSize()), w(AMP_RT_F32, s.wSize()),
      y(AMP_RT_F32, s.ySize());
  x.fillRandom(rng);
  w.fillRandom(rng);
  for (int i = 0; i < 2; ++i)
    AMP_RT_ASSERT_OK(amp_rt_conv2d_forward(&s.d, AMP_RT_F32, AMP_RT_F32, 1.0f,
                                           x.data(), w.data(), 0.0f, y.data()));
  int64_t hitsAfter;
  AMP_RT_ASSERT_OK(amp_rt_cpu_filter_cache_stats(&hitsAfter, &misses, &bytes));
  EXPECT_EQ(hitsAfter, hits) << "nothing kept with the cache off";
  EXPECT_EQ(bytes, 0u);
  AMP_RT_ASSERT_OK(amp_rt_cpu_set_filter_cache(size_t(256) << 20));
}

AMP_RT_INSTANTIATE_BACKENDS(ConvTest);

} // namespace
