//===- ConvertApi.cpp - C API of the precision conversions ----------------===//
//
// amp_rt_convert between any two of f32, f16 and bf16 over host arrays, and
// the scalar amp_rt_*_to_* conversions; the kernels are in Convert.cpp.
//
//===----------------------------------------------------------------------===//

#include "RuntimeInternal.h"

#include "Convert.h"

#include <algorithm>
#include <cstring>

using namespace amp::rt;

extern "C" {

amp_rt_status amp_rt_convert(amp_rt_dtype dst_type, void *dst,
                             amp_rt_dtype src_type, const void *src,
                             int64_t count) {
  const char *fn = "amp_rt_convert";
  if (!validDtype(dst_type) || !validDtype(src_type))
    return fail(AMP_RT_ERROR_INVALID_ARGUMENT, "%s: invalid dtype (%d, %d)", fn,
                int(dst_type), int(src_type));
  if (count < 0)
    return fail(AMP_RT_ERROR_INVALID_ARGUMENT, "%s: count = %lld < 0", fn,
                (long long)count);
  if (count == 0)
    return AMP_RT_SUCCESS;
  if (!dst || !src)
    return fail(AMP_RT_ERROR_INVALID_ARGUMENT, "%s: %s is NULL", fn,
                dst ? "src" : "dst");
  size_t n = size_t(count);
  if (dst_type == src_type) {
    std::memmove(dst, src, n * dtypeSize(dst_type));
    return AMP_RT_SUCCESS;
  }
  if (src_type == AMP_RT_F32) {
    convertF32ToLow(dst_type == AMP_RT_BF16, static_cast<const float *>(src),
                    static_cast<uint16_t *>(dst), n);
    return AMP_RT_SUCCESS;
  }
  const uint16_t *in = static_cast<const uint16_t *>(src);
  if (dst_type == AMP_RT_F32) {
    convertLowToF32(src_type == AMP_RT_BF16, in, static_cast<float *>(dst), n);
    return AMP_RT_SUCCESS;
  }
  // f16 <-> bf16 through f32 (exact widening, one rounding), in blocks.
  uint16_t *out = static_cast<uint16_t *>(dst);
  float tmp[1024];
  for (size_t i = 0; i < n; i += 1024) {
    size_t m = std::min<size_t>(1024, n - i);
    convertLowToF32(src_type == AMP_RT_BF16, in + i, tmp, m);
    convertF32ToLow(dst_type == AMP_RT_BF16, tmp, out + i, m);
  }
  return AMP_RT_SUCCESS;
}

uint16_t amp_rt_f32_to_f16(float x) { return f32ToF16Scalar(x); }
float amp_rt_f16_to_f32(uint16_t x) { return f16ToF32Scalar(x); }
uint16_t amp_rt_f32_to_bf16(float x) { return f32ToBf16Scalar(x); }
float amp_rt_bf16_to_f32(uint16_t x) { return bf16ToF32Scalar(x); }

} // extern "C"
