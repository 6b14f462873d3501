//===- Convert.cpp - bulk conversions and their run-time dispatch ---------===//

#include "Convert.h"

namespace amp {
namespace rt {

namespace detail {
void convertF16ToF32Portable(const uint16_t *src, float *dst, size_t n) {
  for (size_t i = 0; i < n; ++i)
    dst[i] = f16ToF32Scalar(src[i]);
}
void convertF32ToF16Portable(const float *src, uint16_t *dst, size_t n) {
  for (size_t i = 0; i < n; ++i)
    dst[i] = f32ToF16Scalar(src[i]);
}
void convertBf16ToF32Portable(const uint16_t *src, float *dst, size_t n) {
  for (size_t i = 0; i < n; ++i)
    dst[i] = bf16ToF32Scalar(src[i]);
}
void convertF32ToBf16Portable(const float *src, uint16_t *dst, size_t n) {
  for (size_t i = 0; i < n; ++i)
    dst[i] = f32ToBf16Scalar(src[i]);
}
} // namespace detail

namespace {
struct Kernels {
  void (*f16ToF32)(const uint16_t *, float *, size_t);
  void (*f32ToF16)(const float *, uint16_t *, size_t);
  void (*bf16ToF32)(const uint16_t *, float *, size_t);
  void (*f32ToBf16)(const float *, uint16_t *, size_t);
  bool simd;
};

Kernels selectKernels() {
#if defined(__x86_64__) && defined(AMP_RT_HAVE_F16C_KERNELS)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("f16c") && __builtin_cpu_supports("avx2") &&
      __builtin_cpu_supports("fma"))
    return {detail::convertF16ToF32F16C, detail::convertF32ToF16F16C,
            detail::convertBf16ToF32AVX2, detail::convertF32ToBf16AVX2, true};
#endif
  return {detail::convertF16ToF32Portable, detail::convertF32ToF16Portable,
          detail::convertBf16ToF32Portable, detail::convertF32ToBf16Portable,
          false};
}

const Kernels &kernels() {
  static const Kernels k = selectKernels();
  return k;
}
} // namespace

void convertF16ToF32(const uint16_t *src, float *dst, size_t n) {
  kernels().f16ToF32(src, dst, n);
}
void convertF32ToF16(const float *src, uint16_t *dst, size_t n) {
  kernels().f32ToF16(src, dst, n);
}
void convertBf16ToF32(const uint16_t *src, float *dst, size_t n) {
  kernels().bf16ToF32(src, dst, n);
}
void convertF32ToBf16(const float *src, uint16_t *dst, size_t n) {
  kernels().f32ToBf16(src, dst, n);
}
bool hasF16CKernels() { return kernels().simd; }

} // namespace rt
} // namespace amp
