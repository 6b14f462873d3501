//===- ConvertF16C.cpp - F16C / AVX2 conversion kernels -------------------===//
//
// Compiled with -mf16c -mavx2 -mfma; only called after Convert.cpp checked
// the CPU at run time. Tails go through the scalar code, which rounds the
// same way (VCVTPS2PH with imm 0 = round to nearest even, quiet NaNs).
//
//===----------------------------------------------------------------------===//

#include "Convert.h"

#include <immintrin.h>

namespace amp {
namespace rt {
namespace detail {

void convertF16ToF32F16C(const uint16_t *src, float *dst, size_t n) {
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i *>(src + i));
    __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i *>(src + i + 8));
    _mm256_storeu_ps(dst + i, _mm256_cvtph_ps(a));
    _mm256_storeu_ps(dst + i + 8, _mm256_cvtph_ps(b));
  }
  for (; i < n; ++i)
    dst[i] = f16ToF32Scalar(src[i]);
}

void convertF32ToF16F16C(const float *src, uint16_t *dst, size_t n) {
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    __m128i a =
        _mm256_cvtps_ph(_mm256_loadu_ps(src + i), _MM_FROUND_TO_NEAREST_INT);
    __m128i b = _mm256_cvtps_ph(_mm256_loadu_ps(src + i + 8),
                                _MM_FROUND_TO_NEAREST_INT);
    _mm_storeu_si128(reinterpret_cast<__m128i *>(dst + i), a);
    _mm_storeu_si128(reinterpret_cast<__m128i *>(dst + i + 8), b);
  }
  for (; i < n; ++i)
    dst[i] = f32ToF16Scalar(src[i]);
}

void convertBf16ToF32AVX2(const uint16_t *src, float *dst, size_t n) {
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m256i v = _mm256_cvtepu16_epi32(
        _mm_loadu_si128(reinterpret_cast<const __m128i *>(src + i)));
    _mm256_storeu_si256(reinterpret_cast<__m256i *>(dst + i),
                        _mm256_slli_epi32(v, 16));
  }
  for (; i < n; ++i)
    dst[i] = bf16ToF32Scalar(src[i]);
}

void convertF32ToBf16AVX2(const float *src, uint16_t *dst, size_t n) {
  const __m256i bias = _mm256_set1_epi32(0x7fff);
  const __m256i one = _mm256_set1_epi32(1);
  const __m256i absMask = _mm256_set1_epi32(0x7fffffff);
  const __m256i infBits = _mm256_set1_epi32(0x7f800000);
  const __m256i quiet = _mm256_set1_epi32(0x400000);
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    __m256i r[2];
    for (int h = 0; h < 2; ++h) {
      __m256i x = _mm256_loadu_si256(
          reinterpret_cast<const __m256i *>(src + i + 8 * h));
      // Round to nearest even: x + 0x7fff + ((x >> 16) & 1).
      __m256i lsb = _mm256_and_si256(_mm256_srli_epi32(x, 16), one);
      __m256i rounded = _mm256_add_epi32(x, _mm256_add_epi32(bias, lsb));
      // NaNs are not rounded (that could carry into inf); set the quiet bit.
      __m256i isNan = _mm256_cmpgt_epi32(_mm256_and_si256(x, absMask), infBits);
      __m256i nan = _mm256_or_si256(x, quiet);
      r[h] = _mm256_srli_epi32(_mm256_blendv_epi8(rounded, nan, isNan), 16);
    }
    // packus works per 128-bit lane; permute the 64-bit blocks back in order.
    __m256i packed = _mm256_packus_epi32(r[0], r[1]);
    packed = _mm256_permute4x64_epi64(packed, 0xd8);
    _mm256_storeu_si256(reinterpret_cast<__m256i *>(dst + i), packed);
  }
  for (; i < n; ++i)
    dst[i] = f32ToBf16Scalar(src[i]);
}

} // namespace detail
} // namespace rt
} // namespace amp
