//===- Convert.h - f32 <-> f16 / bf16 conversions ---------------*- C++ -*-===//
//
// Scalar reference conversions (portable, round to nearest even, inf/NaN/
// subnormal exact) and bulk conversions that use F16C/AVX2 when the CPU has
// them (chosen once at run time) and the scalar code otherwise. Both paths
// give bit-identical results; the unit tests check that.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_RT_CONVERT_H
#define AMP_RT_CONVERT_H

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace amp {
namespace rt {

inline uint32_t bitsOf(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
inline float floatOf(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

inline float f16ToF32Scalar(uint16_t h) {
  uint32_t sign = uint32_t(h & 0x8000) << 16;
  uint32_t exp = (h >> 10) & 0x1f;
  uint32_t mant = h & 0x3ff;
  if (exp == 0x1f) // inf, or NaN: payload kept, made quiet (as VCVTPH2PS)
    return floatOf(sign | 0x7f800000u | (mant << 13) | (mant ? 0x400000u : 0u));
  if (exp == 0) {
    // Zero or subnormal: mant * 2^-24 is exact in f32.
    float v = float(mant) * (1.0f / 16777216.0f);
    return floatOf(sign | bitsOf(v));
  }
  return floatOf(sign | ((exp + 112) << 23) | (mant << 13));
}

inline uint16_t f32ToF16Scalar(float f) {
  uint32_t x = bitsOf(f);
  uint16_t sign = uint16_t((x >> 16) & 0x8000);
  x &= 0x7fffffffu;
  if (x >= 0x7f800000u) // inf stays inf; NaN becomes a quiet NaN (as F16C)
    return sign | 0x7c00 | (x > 0x7f800000u ? 0x200 | ((x >> 13) & 0x3ff) : 0);
  if (x >= 0x477ff000u) // >= 65520 rounds (ties to even) past 65504
    return sign | 0x7c00;
  if (x >= 0x38800000u) { // normal f16: add the rounding bias, then rebias
    uint32_t r = (x + 0x0fffu + ((x >> 13) & 1)) >> 13;
    return sign | uint16_t(r - (112u << 10));
  }
  // Subnormal f16 (or zero): count units of 2^-24, rounded to nearest even.
  uint32_t exp = x >> 23;
  if (exp < 101) // below 2^-26: rounds to zero
    return sign;
  uint32_t mant = (x & 0x7fffffu) | 0x800000u;
  uint32_t shift = 126 - exp; // 14..25
  uint32_t q = mant >> shift;
  uint32_t rem = mant & ((1u << shift) - 1);
  uint32_t half = 1u << (shift - 1);
  if (rem > half || (rem == half && (q & 1)))
    ++q; // may carry into the smallest normal, which is the right encoding
  return sign | uint16_t(q);
}

inline float bf16ToF32Scalar(uint16_t h) { return floatOf(uint32_t(h) << 16); }

inline uint16_t f32ToBf16Scalar(float f) {
  uint32_t x = bitsOf(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) // NaN: keep sign/payload, make quiet
    return uint16_t((x >> 16) | 0x40);
  return uint16_t((x + 0x7fffu + ((x >> 16) & 1)) >> 16);
}

/// Bulk conversions (dispatch to F16C/AVX2 when available).
void convertF16ToF32(const uint16_t *src, float *dst, size_t n);
void convertF32ToF16(const float *src, uint16_t *dst, size_t n);
void convertBf16ToF32(const uint16_t *src, float *dst, size_t n);
void convertF32ToBf16(const float *src, uint16_t *dst, size_t n);

/// Converts n values of 16-bit type `isBf16 ? bf16 : f16` to f32.
inline void convertLowToF32(bool isBf16, const uint16_t *src, float *dst,
                            size_t n) {
  isBf16 ? convertBf16ToF32(src, dst, n) : convertF16ToF32(src, dst, n);
}
inline void convertF32ToLow(bool isBf16, const float *src, uint16_t *dst,
                            size_t n) {
  isBf16 ? convertF32ToBf16(src, dst, n) : convertF32ToF16(src, dst, n);
}

/// True when the bulk conversions use the F16C/AVX2 kernels.
bool hasF16CKernels();

namespace detail {
// The two implementations, exposed for the tests that compare them.
void convertF16ToF32Portable(const uint16_t *src, float *dst, size_t n);
void convertF32ToF16Portable(const float *src, uint16_t *dst, size_t n);
void convertBf16ToF32Portable(const uint16_t *src, float *dst, size_t n);
void convertF32ToBf16Portable(const float *src, uint16_t *dst, size_t n);
void convertF16ToF32F16C(const uint16_t *src, float *dst, size_t n);
void convertF32ToF16F16C(const float *src, uint16_t *dst, size_t n);
void convertBf16ToF32AVX2(const uint16_t *src, float *dst, size_t n);
void convertF32ToBf16AVX2(const float *src, uint16_t *dst, size_t n);
} // namespace detail

} // namespace rt
} // namespace amp

#endif // AMP_RT_CONVERT_H
