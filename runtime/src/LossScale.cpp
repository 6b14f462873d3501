//===- LossScale.cpp - dynamic loss scaling entry points ------------------===//
//
// amp_rt_unscale_and_check multiplies gradients by 1/scale and flags
// non-finite values; amp_rt_update_scale and amp_rt_update_scale_from_flag
// apply the scale rule of ScaleRule.h, on the host when every operand is
// there, else on the backend.
//
//===----------------------------------------------------------------------===//

#include "RuntimeInternal.h"
#include "ScaleRule.h"

#include <vector>

using namespace amp::rt;

static amp_rt_status unscaleAndCheck(const char *fn, void *const *tensors,
                                     const amp_rt_dtype *dtypes,
                                     const int64_t *counts, int64_t n,
                                     float inv_scale, int32_t *found_inf) {
  if (n < 0)
    return fail(AMP_RT_ERROR_INVALID_ARGUMENT, "%s: n = %lld < 0", fn,
                (long long)n);
  if (!found_inf)
    return fail(AMP_RT_ERROR_INVALID_ARGUMENT, "%s: found_inf is NULL", fn);
  if (n > 0 && (!tensors || !dtypes || !counts))
    return fail(AMP_RT_ERROR_INVALID_ARGUMENT,
                "%s: tensors, dtypes and counts must not be NULL when n > 0",
                fn);
  if (!isFiniteF32(inv_scale))
    return fail(AMP_RT_ERROR_INVALID_ARGUMENT, "%s: inv_scale %g is not finite",
                fn, double(inv_scale));
  for (int64_t i = 0; i < n; ++i) {
    if (!validDtype(dtypes[i]))
      return fail(AMP_RT_ERROR_INVALID_ARGUMENT, "%s: dtypes[%lld] = %d", fn,
                  (long long)i, int(dtypes[i]));
    if (counts[i] < 0 || counts[i] > (int64_t(1) << 46))
      return fail(AMP_RT_ERROR_INVALID_ARGUMENT, "%s: counts[%lld] = %lld", fn,
                  (long long)i, (long long)counts[i]);
    if (counts[i] > 0 && !tensors[i])
      return fail(AMP_RT_ERROR_INVALID_ARGUMENT, "%s: tensors[%lld] is NULL",
                  fn, (long long)i);
  }
  std::lock_guard<std::recursive_mutex> lock(runtime().mutex);
  Slot *slot = nullptr;
  AMP_RT_TRY(activeSlot(fn, slot));
  CallContext ctx(fn, *slot);
  std::vector<void *> ptrs;
  std::vector<amp_rt_dtype> types;
  std::vector<int64_t> sizes;
  for (int64_t i = 0; i < n; ++i) {
    if (counts[i] == 0)
      continue;
    TensorView v, staged;
    v.data = tensors[i];
    v.dtype = dtypes[i];
    v.rank = 1;
    v.sizes[0] = counts[i];
    v.strides[0] = 1;
    AMP_RT_TRY(ctx.output(v, true, true, staged));
    ptrs.push_back(staged.data);
    types.push_back(dtypes[i]);
    sizes.push_back(counts[i]);
  }
  TensorView flag, stagedFlag;
  flag.data = found_inf;
  flag.dtype = AMP_RT_F32; // 4-byte element; only the size matters here
  flag.rank = 1;
  flag.sizes[0] = 1;
  flag.strides[0] = 1;
  AMP_RT_TRY(ctx.output(flag, false, true, stagedFlag));
  AMP_RT_TRY(ctx.backend().unscaleAndCheck(
      ptrs.data(), types.data(), sizes.data(), int64_t(ptrs.size()), inv_scale,
      static_cast<int32_t *>(stagedFlag.data)));
  return ctx.finish();
}

static amp_rt_status updateScale(const char *fn, float *scale,
                                 int32_t *good_steps, const int32_t *flagPtr,
                                 int flagValue, float growth, float backoff,
                                 int32_t interval, float min_scale,
                                 float max_scale) {
  if (!scale || !good_steps)
    return fail(AMP_RT_ERROR_INVALID_ARGUMENT, "%s: %s is NULL", fn,
                scale ? "good_steps" : "scale");
  if (!(isFiniteF32(growth) && growth > 0.0f))
    return fail(AMP_RT_ERROR_INVALID_ARGUMENT,
                "%s: growth %g must be finite and > 0", fn, double(growth));
  if (!(isFiniteF32(backoff) && backoff > 0.0f))
    return fail(AMP_RT_ERROR_INVALID_ARGUMENT,
                "%s: backoff %g must be finite and > 0", fn, double(backoff));
  if (interval < 1)
    return fail(AMP_RT_ERROR_INVALID_ARGUMENT, "%s: interval %d must be >= 1",
                fn, int(interval));
  if (!(min_scale >= 0.0f && isFiniteF32(min_scale) && max_scale >= min_scale))
    return fail(AMP_RT_ERROR_INVALID_ARGUMENT,
                "%s: need 0 <= min_scale (%g) <= max_scale (%g), min finite",
                fn, double(min_scale), double(max_scale));
  std::lock_guard<std::recursive_mutex> lock(runtime().mutex);
  Slot *slot = nullptr;
  AMP_RT_TRY(activeSlot(fn, slot));
  CallContext ctx(fn, *slot);
  ScaleParams params{growth, backoff, interval, min_scale, max_scale};
  TensorView vs, vg, vf;
  vs.dtype = vg.dtype = vf.dtype = AMP_RT_F32; // 4-byte elements
  vs.rank = vg.rank = vf.rank = 1;
  vs.sizes[0] = vg.sizes[0] = vf.sizes[0] = 1;
  vs.strides[0] = vg.strides[0] = vf.strides[0] = 1;
  vs.data = scale;
  vg.data = good_steps;
  vf.data = const_cast<int32_t *>(flagPtr);
  bool hostOnly = !ctx.isResident(vs) && !ctx.isResident(vg) &&
                  (!flagPtr || !ctx.isResident(vf));
  if (ctx.backend().usesHostMemory() || hostOnly) {
    bool found = flagPtr ? *flagPtr != 0 : flagValue != 0;
    applyScaleRule(*scale, *good_steps, found, growth, backoff, interval,
                   min_scale, max_scale);
    return AMP_RT_SUCCESS;
  }
  TensorView s, g, f;
  AMP_RT_TRY(ctx.output(vs, true, true, s));
  AMP_RT_TRY(ctx.output(vg, true, true, g));
  if (flagPtr) {
    AMP_RT_TRY(ctx.input(vf, true, f));
  } else {
    int32_t value = flagValue != 0;
    AMP_RT_TRY(ctx.scratch(sizeof(int32_t), &f.data));
    AMP_RT_TRY(ctx.backend().copyToDevice(f.data, &value, sizeof(value)));
    AMP_RT_TRY(ctx.backend().synchronize()); // `value` is on this stack
  }
  AMP_RT_TRY(ctx.backend().updateScale(
      static_cast<float *>(s.data), static_cast<int32_t *>(g.data),
      static_cast<const int32_t *>(f.data), params));
  return ctx.finish();
}

extern "C" {

amp_rt_status amp_rt_unscale_and_check(void *const *tensors,
                                       const amp_rt_dtype *dtypes,
                                       const int64_t *counts, int64_t n,
                                       float inv_scale, int32_t *found_inf) {
  const char *fn = "amp_rt_unscale_and_check";
  return named(fn, unscaleAndCheck(fn, tensors, dtypes, counts, n, inv_scale,
                                   found_inf));
}

amp_rt_status amp_rt_update_scale(float *scale, int32_t *good_steps,
                                  int found_inf, float growth, float backoff,
                                  int32_t interval, float min_scale,
                                  float max_scale) {
  return named("amp_rt_update_scale",
               updateScale("amp_rt_update_scale", scale, good_steps, nullptr,
                           found_inf, growth, backoff, interval, min_scale,
                           max_scale));
}

amp_rt_status amp_rt_update_scale_from_flag(float *scale, int32_t *good_steps,
                                            const int32_t *found_inf,
                                            float growth, float backoff,
                                            int32_t interval, float min_scale,
                                            float max_scale) {
  if (!found_inf)
    return fail(AMP_RT_ERROR_INVALID_ARGUMENT,
                "amp_rt_update_scale_from_flag: found_inf is NULL");
  return named("amp_rt_update_scale_from_flag",
               updateScale("amp_rt_update_scale_from_flag", scale, good_steps,
                           found_inf, 0, growth, backoff, interval, min_scale,
                           max_scale));
}

} // extern "C"
