//===- ConvertTest.cpp - f32 <-> f16 / bf16 conversions -------------------===//
//
// Checks the scalar conversions against values computed from the formats'
// definitions, and the F16C/AVX2 kernels against the scalar ones bit for bit
// (every f16 / bf16 pattern, and f32 patterns around every rounding case).
//
//===----------------------------------------------------------------------===//

#include "Convert.h"
#include "TestUtil.h"

#include <cstring>
#include <limits>

using namespace amp::rt;

namespace {

uint32_t bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
float fromBits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

/// f16 value from its definition: (-1)^s * 2^(e-15) * 1.m, or subnormal.
double f16Definition(uint16_t h) {
  int s = h >> 15, e = (h >> 10) & 31, m = h & 1023;
  double v;
  if (e == 31)
    v = m ? std::numeric_limits<double>::quiet_NaN()
          : std::numeric_limits<double>::infinity();
  else if (e == 0)
    v = std::ldexp(double(m), -24);
  else
    v = std::ldexp(1.0 + m / 1024.0, e - 15);
  return s ? -v : v;
}

TEST(ConvertTest, EveryF16DecodesToItsDefinition) {
  for (uint32_t h = 0; h < 65536; ++h) {
    float f = amp_rt_f16_to_f32(uint16_t(h));
    double ref = f16Definition(uint16_t(h));
    if (std::isnan(ref)) {
      ASSERT_TRUE(std::isnan(f)) << std::hex << h;
      continue;
    }
    ASSERT_EQ(double(f), ref) << std::hex << h;
    ASSERT_EQ(std::signbit(f), (h & 0x8000) != 0) << std::hex << h;
    // Round trip is the identity on non-NaN values.
    ASSERT_EQ(amp_rt_f32_to_f16(f), uint16_t(h)) << std::hex << h;
  }
}

TEST(ConvertTest, F16RoundsToNearestEven) {
  // Ties between 1 and 1 + 2^-10 go to the even mantissa.
  EXPECT_EQ(amp_rt_f32_to_f16(1.0f + std::ldexp(1.0f, -11)), 0x3c00);
  EXPECT_EQ(amp_rt_f32_to_f16(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3c02);
  EXPECT_EQ(
      amp_rt_f32_to_f16(1.0f + std::ldexp(1.0f, -11) + std::ldexp(1.0f, -20)),
      0x3c01); // just above the tie
  // Largest finite, the overflow threshold and infinity.
  EXPECT_EQ(amp_rt_f32_to_f16(65504.0f), 0x7bff);
  EXPECT_EQ(amp_rt_f32_to_f16(65519.0f), 0x7bff);
  EXPECT_EQ(amp_rt_f32_to_f16(65520.0f), 0x7c00); // tie rounds to even: inf
  EXPECT_EQ(amp_rt_f32_to_f16(-1e10f), 0xfc00);
  EXPECT_EQ(amp_rt_f32_to_f16(std::numeric_limits<float>::infinity()), 0x7c00);
  // Subnormals: 2^-24 is the smallest, 2^-25 ties to 0, 3 * 2^-25 to 2^-23.
  EXPECT_EQ(amp_rt_f32_to_f16(std::ldexp(1.0f, -24)), 0x0001);
  EXPECT_EQ(amp_rt_f32_to_f16(std::ldexp(1.0f, -25)), 0x0000);
  EXPECT_EQ(amp_rt_f32_to_f16(std::ldexp(1.0f, -25) * 1.0001f), 0x0001);
  EXPECT_EQ(amp_rt_f32_to_f16(3 * std::ldexp(1.0f, -25)), 0x0002);
  EXPECT_EQ(amp_rt_f32_to_f16(-6e-8f), 0x8001);
  EXPECT_EQ(amp_rt_f32_to_f16(std::ldexp(1023.5f, -24)), 0x0400); // to normal
  EXPECT_EQ(amp_rt_f32_to_f16(1e-30f), 0x0000);
  EXPECT_EQ(amp_rt_f32_to_f16(-0.0f), 0x8000);
  // NaN stays NaN (quiet), sign kept.
  uint16_t n = amp_rt_f32_to_f16(std::numeric_limits<float>::quiet_NaN());
  EXPECT_EQ(n & 0x7c00, 0x7c00);
  EXPECT_NE(n & 0x3ff, 0);
  uint16_t sn = amp_rt_f32_to_f16(fromBits(0xff800001u)); // signaling, -
  EXPECT_EQ(sn & 0xfe00, 0xfe00);
}

TEST(ConvertTest, Bf16RoundsToNearestEven) {
  EXPECT_EQ(amp_rt_f32_to_bf16(1.0f), 0x3f80);
  EXPECT_EQ(amp_rt_f32_to_bf16(fromBits(0x3f808000u)), 0x3f80); // tie, even
  EXPECT_EQ(amp_rt_f32_to_bf16(fromBits(0x3f818000u)), 0x3f82); // tie, up
  EXPECT_EQ(amp_rt_f32_to_bf16(fromBits(0x3f808001u)), 0x3f81);
  EXPECT_EQ(amp_rt_f32_to_bf16(std::numeric_limits<float>::max()), 0x7f80);
  EXPECT_EQ(amp_rt_f32_to_bf16(-std::numeric_limits<float>::infinity()),
            0xff80);
  EXPECT_EQ(amp_rt_f32_to_bf16(fromBits(0x00010000u)), 0x0001); // subnormal
  EXPECT_EQ(amp_rt_f32_to_bf16(fromBits(0x00018000u)), 0x0002); // tie, up
  uint16_t n = amp_rt_f32_to_bf16(fromBits(0x7f800001u)); // sNaN, low payload
  EXPECT_EQ(n & 0x7f80, 0x7f80);
  EXPECT_NE(n & 0x7f, 0) << "NaN must not become inf";
  for (uint32_t h = 0; h < 65536; ++h) {
    float f = amp_rt_bf16_to_f32(uint16_t(h));
    ASSERT_EQ(bits(f), h << 16);
    if (!std::isnan(f)) {
      ASSERT_EQ(amp_rt_f32_to_bf16(f), uint16_t(h)) << std::hex << h;
    }
  }
}

/// f32 patterns that hit every rounding situation of both formats: every
/// 16-bit value, shifted, with the bits below the kept mantissa set to
/// 0, the tie, just below / above the tie and all ones.
std::vector<float> interestingFloats() {
  std::vector<float> out;
  for (uint32_t hi = 0; hi < 65536; ++hi)
    for (uint32_t lo : {0x0000u, 0x0fffu, 0x1000u, 0x1001u, 0x1fffu, 0x7fffu,
                        0x8000u, 0x8001u, 0xffffu})
      out.push_back(fromBits((hi << 16) | lo));
  std::mt19937 rng(99);
  for (int i = 0; i < 100000; ++i)
    out.push_back(fromBits(uint32_t(rng())));
  return out;
}

TEST(ConvertTest, SimdKernelsMatchScalarBitForBit) {
  if (!hasF16CKernels())
    GTEST_SKIP() << "this CPU has no F16C/AVX2; only the scalar path exists";
  std::vector<float> f = interestingFloats();
  size_t n = f.size();
  std::vector<uint16_t> a(n), b(n);
  detail::convertF32ToF16F16C(f.data(), a.data(), n);
  detail::convertF32ToF16Portable(f.data(), b.data(), n);
  for (size_t i = 0; i < n; ++i)
    ASSERT_EQ(a[i], b[i]) << "f32->f16 of 0x" << std::hex << bits(f[i]);
  detail::convertF32ToBf16AVX2(f.data(), a.data(), n);
  detail::convertF32ToBf16Portable(f.data(), b.data(), n);
  for (size_t i = 0; i < n; ++i)
    ASSERT_EQ(a[i], b[i]) << "f32->bf16 of 0x" << std::hex << bits(f[i]);
  std::vector<uint16_t> all(65536 + 13); // odd length exercises the tails
  for (size_t i = 0; i < all.size(); ++i)
    all[i] = uint16_t(i);
  std::vector<float> x(all.size()), y(all.size());
  detail::convertF16ToF32F16C(all.data(), x.data(), all.size());
  detail::convertF16ToF32Portable(all.data(), y.data(), all.size());
  for (size_t i = 0; i < all.size(); ++i)
    ASSERT_EQ(bits(x[i]), bits(y[i])) << "f16->f32 of 0x" << std::hex << i;
  detail::convertBf16ToF32AVX2(all.data(), x.data(), all.size());
  detail::convertBf16ToF32Portable(all.data(), y.data(), all.size());
  for (size_t i = 0; i < all.size(); ++i)
    ASSERT_EQ(bits(x[i]), bits(y[i])) << "bf16->f32 of 0x" << std::hex << i;
}

TEST(ConvertTest, BulkApi) {
  std::vector<float> f = {1.0f, -2.5f, 65520.0f, std::ldexp(1.0f, -25), 0.1f};
  std::vector<uint16_t> h(f.size()), b(f.size());
  ASSERT_EQ(amp_rt_convert(AMP_RT_F16, h.data(), AMP_RT_F32, f.data(),
                           int64_t(f.size())),
            AMP_RT_SUCCESS);
  for (size_t i = 0; i < f.size(); ++i)
    EXPECT_EQ(h[i], amp_rt_f32_to_f16(f[i]));
  // f16 -> bf16 goes through f32 exactly and rounds once.
  ASSERT_EQ(amp_rt_convert(AMP_RT_BF16, b.data(), AMP_RT_F16, h.data(),
                           int64_t(h.size())),
            AMP_RT_SUCCESS);
  for (size_t i = 0; i < f.size(); ++i)
    EXPECT_EQ(b[i], amp_rt_f32_to_bf16(amp_rt_f16_to_f32(h[i])));
  std::vector<float> back(f.size());
  ASSERT_EQ(amp_rt_convert(AMP_RT_F32, back.data(), AMP_RT_BF16, b.data(),
                           int64_t(b.size())),
            AMP_RT_SUCCESS);
  EXPECT_EQ(back[0], 1.0f);
  EXPECT_EQ(amp_rt_convert(AMP_RT_F16, nullptr, AMP_RT_F32, f.data(), 3),
            AMP_RT_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(amp_rt_convert(amp_rt_dtype(7), h.data(), AMP_RT_F32, f.data(), 3),
            AMP_RT_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(amp_rt_convert(AMP_RT_F16, h.data(), AMP_RT_F32, f.data(), -1),
            AMP_RT_ERROR_INVALID_ARGUMENT);
}

} // namespace
