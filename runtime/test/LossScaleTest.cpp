//===- LossScaleTest.cpp - fused unscale/check and the scale update -------===//

#include "TestUtil.h"

#include <limits>

using namespace amp_rt_test;

namespace {

class LossScaleTest : public BackendTest {};

/// Builds tensors of every dtype, injects `poison` (or nothing) into one of
/// them, unscales, and checks the flag and every unscaled value.
void runUnscale(double poison, int poisoned, bool expectInf) {
  std::mt19937 rng(17);
  const amp_rt_dtype types[] = {AMP_RT_F32, AMP_RT_F16, AMP_RT_BF16, AMP_RT_F16,
                                AMP_RT_F32};
  const int64_t counts[] = {1000, 4099, 17, 70000, 1};
  const int n = 5;
  const float scale = 1024.0f, inv = 1.0f / scale;
  std::vector<Tensor> ts, before;
  for (int i = 0; i < n; ++i) {
    ts.emplace_back(types[i], size_t(counts[i]));
    ts.back().fillRandom(rng, -60000.0, 60000.0);
  }
  if (poisoned >= 0)
    ts[poisoned].set(size_t(counts[poisoned] / 2), poison);
  before = ts;
  std::vector<void *> ptrs;
  std::vector<amp_rt_dtype> dtypes(types, types + n);
  for (Tensor &t : ts)
    ptrs.push_back(t.data());
  int32_t found = -1;
  AMP_RT_ASSERT_OK(amp_rt_unscale_and_check(ptrs.data(), dtypes.data(), counts,
                                            n, inv, &found));
  EXPECT_EQ(found, expectInf ? 1 : 0);
  for (int i = 0; i < n; ++i)
    for (size_t j = 0; j < ts[i].size(); ++j) {
      double x = before[i].get(j);
      Tensor expected(types[i], 1);
      expected.set(0, double(float(x) * inv)); // f32 product, rounded once
      double got = ts[i].get(j);
      if (std::isnan(x)) {
        ASSERT_TRUE(std::isnan(got)) << "tensor " << i << " [" << j << "]";
        continue;
      }
      ASSERT_EQ(got, expected.get(0)) << "tensor " << i << " [" << j << "]";
    }
}

TEST_P(LossScaleTest, UnscaleFiniteTensors) { runUnscale(0.0, -1, false); }

TEST_P(LossScaleTest, InfInOneTensorSetsTheFlagAndUnscalesTheRest) {
  runUnscale(std::numeric_limits<double>::infinity(), 1, true);
  runUnscale(-std::numeric_limits<double>::infinity(), 4, true);
}

TEST_P(LossScaleTest, NaNInOneTensorSetsTheFlag) {
  runUnscale(std::numeric_limits<double>::quiet_NaN(), 3, true);
  runUnscale(std::numeric_limits<double>::quiet_NaN(), 2, true);
  runUnscale(std::numeric_limits<double>::quiet_NaN(), 0, true);
}

TEST_P(LossScaleTest, OverflowWhileUnscalingIsReported) {
  // inv_scale > 1 (scale < 1) can push f16 values past 65504.
  Tensor t(AMP_RT_F16, 3);
  t.set(0, 1.0);
  t.set(1, 40000.0);
  t.set(2, -2.0);
  void *p = t.data();
  amp_rt_dtype d = AMP_RT_F16;
  int64_t c = 3;
  int32_t found = 0;
  AMP_RT_ASSERT_OK(amp_rt_unscale_and_check(&p, &d, &c, 1, 2.0f, &found));
  EXPECT_EQ(found, 1);
  EXPECT_EQ(t.get(0), 2.0);
  EXPECT_TRUE(std::isinf(t.get(1)));
}

TEST_P(LossScaleTest, NoTensorsClearsTheFlag) {
  int32_t found = 1;
  AMP_RT_ASSERT_OK(
      amp_rt_unscale_and_check(nullptr, nullptr, nullptr, 0, 0.5f, &found));
  EXPECT_EQ(found, 0);
}

/// The rule as PyTorch's GradScaler states it, transcribed independently.
void referenceUpdate(float &scale, int32_t &tracker, bool inf, float growth,
                     float backoff, int32_t interval, float lo, float hi) {
  if (inf) {
    scale = scale * backoff;
    tracker = 0;
  } else {
    tracker += 1;
    if (tracker == interval) {
      float candidate = scale * growth;
      if (std::isfinite(candidate))
        scale = candidate;
      tracker = 0;
    }
  }
  scale = std::min(std::max(scale, lo), hi);
}

TEST_P(LossScaleTest, UpdateScaleFollowsGradScaler) {
  const float inf = std::numeric_limits<float>::infinity();
  struct Config {
    float init, growth, backoff;
    int32_t interval;
    float lo, hi;
  } configs[] = {
      {65536.0f, 2.0f, 0.5f, 3, 0.0f, inf},
      // Growing past FLT_MAX is refused (the scale stays).
      {std::numeric_limits<float>::max() / 1.5f, 2.0f, 0.5f, 2, 0.0f, inf},
      // Clamps at both ends.
      {8.0f, 4.0f, 0.25f, 1, 1.0f, 64.0f},
      {1.0f, 3.0f, 0.1f, 2, 0.5f, 1e6f},
  };
  // Overflow pattern: a mix of runs long enough to reach the interval.
  const int pattern[] = {0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1,
                         0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0};
  for (const Config &c : configs) {
    float scale = c.init, refScale = c.init;
    int32_t steps = 0, refSteps = 0;
    bool sawRefusal = false;
    for (int step = 0; step < 32; ++step) {
      bool inf = pattern[step] != 0;
      float beforeScale = refScale;
      referenceUpdate(refScale, refSteps, inf, c.growth, c.backoff, c.interval,
                      c.lo, c.hi);
      sawRefusal |= !inf && refSteps == 0 && refScale == beforeScale &&
                    !std::isfinite(beforeScale * c.growth);
      AMP_RT_ASSERT_OK(amp_rt_update_scale(&scale, &steps, inf, c.growth,
                                           c.backoff, c.interval, c.lo, c.hi));
      ASSERT_EQ(scale, refScale) << "step " << step;
      ASSERT_EQ(steps, refSteps) << "step " << step;
      // The device-flag variant agrees with the value variant.
      float s2 = scale;
      int32_t g2 = steps, flag = inf;
      float s1 = scale;
      int32_t g1 = steps;
      AMP_RT_ASSERT_OK(amp_rt_update_scale_from_flag(
          &s2, &g2, &flag, c.growth, c.backoff, c.interval, c.lo, c.hi));
      AMP_RT_ASSERT_OK(amp_rt_update_scale(&s1, &g1, inf, c.growth, c.backoff,
                                           c.interval, c.lo, c.hi));
      ASSERT_EQ(s1, s2);
      ASSERT_EQ(g1, g2);
    }
    if (&c == &configs[1]) {
      EXPECT_TRUE(sawRefusal) << "the growth-to-inf refusal was not exercised";
    }
  }
}

TEST_P(LossScaleTest, ClampsApplyOnBothEnds) {
  float scale = 2.0f;
  int32_t steps = 0;
  AMP_RT_ASSERT_OK(
      amp_rt_update_scale(&scale, &steps, 1, 2.0f, 0.125f, 10, 1.0f, 8.0f));
  EXPECT_EQ(scale, 1.0f); // 0.25 clamped up to min
  scale = 8.0f;
  AMP_RT_ASSERT_OK(
      amp_rt_update_scale(&scale, &steps, 0, 2.0f, 0.5f, 1, 1.0f, 8.0f));
  EXPECT_EQ(scale, 8.0f); // 16 clamped down to max
  EXPECT_EQ(steps, 0);
}

TEST_P(LossScaleTest, ResidentStateAndFlagStayOnTheBackend) {
  // The training-loop pattern: gradients, flag, scale and counter all in
  // runtime buffers; nothing but the final download touches the host.
  const int64_t n = 5000;
  Tensor g(AMP_RT_F16, n);
  std::mt19937 rng(23);
  g.fillRandom(rng, -100.0, 100.0);
  g.set(77, std::numeric_limits<double>::infinity());
  void *dg, *dflag, *dscale, *dsteps;
  AMP_RT_ASSERT_OK(amp_rt_buffer_create(n * 2, &dg));
  AMP_RT_ASSERT_OK(amp_rt_buffer_create(4, &dflag));
  AMP_RT_ASSERT_OK(amp_rt_buffer_create(4, &dscale));
  AMP_RT_ASSERT_OK(amp_rt_buffer_create(4, &dsteps));
  float scale = 256.0f;
  int32_t steps = 5;
  AMP_RT_ASSERT_OK(amp_rt_buffer_upload(dg, g.data(), n * 2));
  AMP_RT_ASSERT_OK(amp_rt_buffer_upload(dscale, &scale, 4));
  AMP_RT_ASSERT_OK(amp_rt_buffer_upload(dsteps, &steps, 4));
  amp_rt_dtype t = AMP_RT_F16;
  AMP_RT_ASSERT_OK(amp_rt_unscale_and_check(&dg, &t, &n, 1, 1.0f / scale,
                                            static_cast<int32_t *>(dflag)));
  AMP_RT_ASSERT_OK(amp_rt_update_scale_from_flag(
      static_cast<float *>(dscale), static_cast<int32_t *>(dsteps),
      static_cast<int32_t *>(dflag), 2.0f, 0.5f, 2000, 0.0f, 1e30f));
  int32_t flag = 0;
  AMP_RT_ASSERT_OK(amp_rt_buffer_download(&flag, dflag, 4));
  AMP_RT_ASSERT_OK(amp_rt_buffer_download(&scale, dscale, 4));
  AMP_RT_ASSERT_OK(amp_rt_buffer_download(&steps, dsteps, 4));
  EXPECT_EQ(flag, 1);
  EXPECT_EQ(scale, 128.0f);
  EXPECT_EQ(steps, 0);
  Tensor back(AMP_RT_F16, n);
  AMP_RT_ASSERT_OK(amp_rt_buffer_download(back.data(), dg, n * 2));
  EXPECT_EQ(back.get(0), double(float(g.get(0)) / 256.0f));
  for (void *p : {dg, dflag, dscale, dsteps})
    AMP_RT_ASSERT_OK(amp_rt_buffer_free(p));
}

AMP_RT_INSTANTIATE_BACKENDS(LossScaleTest);

} // namespace
