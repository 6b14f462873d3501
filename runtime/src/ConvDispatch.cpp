//===- ConvDispatch.cpp - 2-D convolutions over views and their C API -----===//
//
// Validates a convolution descriptor into a ConvProblem, derives the dense
// shapes of its three tensors, stages them for the backend (packed to
// dense), and provides amp_rt_conv2d_output_size / _forward /
// _backward_data / _backward_filter on top.
//
//===----------------------------------------------------------------------===//

#include "Profile.h"
#include "RuntimeInternal.h"

#include <algorithm>
#include <cstring>

namespace amp {
namespace rt {

void convTensorShapes(const ConvProblem &p, int64_t x[4], int64_t w[4],
                      int64_t y[4]) {
  const amp_rt_conv2d_desc &d = p.desc;
  bool nhwc = d.layout == AMP_RT_NHWC;
  int64_t xs[4] = {d.N, d.H, d.W, d.C}, xc[4] = {d.N, d.C, d.H, d.W};
  int64_t ys[4] = {d.N, p.P, p.Q, d.K}, yc[4] = {d.N, d.K, p.P, p.Q};
  std::copy(nhwc ? xs : xc, (nhwc ? xs : xc) + 4, x);
  std::copy(nhwc ? ys : yc, (nhwc ? ys : yc) + 4, y);
  const int64_t cg = d.C / d.groups; // input channels per group
  int64_t krsc[4] = {d.K, d.R, d.S, cg}, kcrs[4] = {d.K, cg, d.R, d.S},
          rsck[4] = {d.R, d.S, cg, d.K};
  const int64_t *f = d.filter_layout == AMP_RT_FILTER_KRSC   ? krsc
                     : d.filter_layout == AMP_RT_FILTER_KCRS ? kcrs
                                                             : rsck;
  std::copy(f, f + 4, w);
}

amp_rt_status makeConvProblem(const char *fn, const amp_rt_conv2d_desc *desc,
                              ConvProblem &p) {
  if (!desc)
    return fail(AMP_RT_ERROR_INVALID_ARGUMENT, "%s: desc is NULL", fn);
  p.desc = *desc;
  amp_rt_conv2d_desc &d = p.desc;
  if (d.layout != AMP_RT_NHWC && d.layout != AMP_RT_NCHW)
    return fail(AMP_RT_ERROR_INVALID_ARGUMENT,
                "%s: layout %d is neither AMP_RT_NHWC nor AMP_RT_NCHW", fn,
                int(d.layout));
  if (d.filter_layout < AMP_RT_FILTER_DEFAULT ||
      d.filter_layout > AMP_RT_FILTER_RSCK)
    return fail(AMP_RT_ERROR_INVALID_ARGUMENT, "%s: invalid filter_layout %d",
                fn, int(d.filter_layout));
  if (d.filter_layout == AMP_RT_FILTER_DEFAULT)
    d.filter_layout =
        d.layout == AMP_RT_NHWC ? AMP_RT_FILTER_KRSC : AMP_RT_FILTER_KCRS;
  struct {
    const char *name;
    int64_t value, min;
  } fields[] = {{"N", d.N, 1},
                {"H", d.H, 1},
                {"W", d.W, 1},
                {"C", d.C, 1},
                {"K", d.K, 1},
                {"R", d.R, 1},
                {"S", d.S, 1},
                {"pad_h", d.pad_h, 0},
                {"pad_w", d.pad_w, 0},
                {"stride_h", d.stride_h, 1},
                {"stride_w", d.stride_w, 1},
                {"dil_h", d.dil_h, 1},
                {"dil_w", d.dil_w, 1}};
  for (const auto &f : fields) {
    if (f.value < f.min)
      return fail(AMP_RT_ERROR_INVALID_ARGUMENT,
                  "%s: %s = %lld must be >= %lld", fn, f.name,
                  (long long)f.value, (long long)f.min);
    if (f.value > (int64_t(1) << 31))
      return fail(AMP_RT_ERROR_INVALID_ARGUMENT, "%s: %s = %lld is too large",
                  fn, f.name, (long long)f.value);
  }
  if (d.groups < 0 || d.groups > (int64_t(1) << 31))
    return fail(AMP_RT_ERROR_INVALID_ARGUMENT, "%s: groups = %lld is invalid",
                fn, (long long)d.groups);
  if (d.groups == 0)
    d.groups = 1;
  if (d.C % d.groups || d.K % d.groups)
    return fail(AMP_RT_ERROR_INVALID_ARGUMENT,
                "%s: groups = %lld must divide C = %lld and K = %lld", fn,
                (long long)d.groups, (long long)d.C, (long long)d.K);
  int64_t effR = (d.R - 1) * d.dil_h + 1, effS = (d.S - 1) * d.dil_w + 1;
  int64_t padH = d.H + 2 * d.pad_h, padW = d.W + 2 * d.pad_w;
  if (effR > padH || effS > padW)
    return fail(AMP_RT_ERROR_INVALID_ARGUMENT,
                "%s: the dilated %lldx%lld filter does not fit the padded "
                "%lldx%lld input",
                fn, (long long)effR, (long long)effS, (long long)padH,
                (long long)padW);
  p.P = (padH - effR) / d.stride_h + 1;
  p.Q = (padW - effS) / d.stride_w + 1;
  // Every tensor's element count must be representable.
  int64_t x[4], w[4], y[4];
  convTensorShapes(p, x, w, y);
  for (const int64_t *s : {x, w, y}) {
    int64_t n = 1;
    for (int i = 0; i < 4; ++i)
      if (!mulAdd(n, s[i], 0, n) || n > (int64_t(1) << 40))
        return fail(AMP_RT_ERROR_INVALID_ARGUMENT,
                    "%s: tensor of %lldx%lldx%lldx%lld elements is too large",
                    fn, (long long)s[0], (long long)s[1], (long long)s[2],
                    (long long)s[3]);
  }
  return AMP_RT_SUCCESS;
}

static amp_rt_status convViewsImpl(const char *fn, ConvDirection dir,
                                   const ConvProblem &problem,
                                   amp_rt_dtype inType, amp_rt_dtype outType,
                                   float alpha, const TensorView &in0,
                                   const TensorView &in1, float beta,
                                   const TensorView &out) {
  std::lock_guard<std::recursive_mutex> lock(runtime().mutex);
  Slot *slot = nullptr;
  AMP_RT_TRY(activeSlot(fn, slot));
  CallContext ctx(fn, *slot);
  TensorView a, b, c;
  AMP_RT_TRY(ctx.input(in0, true, a, &out));
  AMP_RT_TRY(ctx.input(in1, true, b, &out));
  AMP_RT_TRY(ctx.output(out, beta != 0.0f, true, c));
  AMP_RT_TRY(ctx.backend().conv(dir, problem, inType, outType, alpha, a.data,
                                b.data, beta, c.data));
  return ctx.finish();
}

amp_rt_status convViews(const char *fn, ConvDirection dir,
                        const ConvProblem &problem, amp_rt_dtype inType,
                        amp_rt_dtype outType, float alpha,
                        const TensorView &in0, const TensorView &in1,
                        float beta, const TensorView &out) {
  ProfileScope profile([&](double &flops) {
    return convProfileKey(dir, problem, inType, outType, flops);
  });
  return named(fn, convViewsImpl(fn, dir, problem, inType, outType, alpha, in0,
                                 in1, beta, out));
}

/// Runs `run(ctx)`, one direction of a `blocked16` problem on host memory,
/// where the active backend reads oneDNN's layouts in place: only the cpu
/// backend does (AMP_RT_ERROR_UNSUPPORTED, nothing recorded, elsewhere).
template <typename Run>
static amp_rt_status
blockedOnHost(const char *fn, ConvDirection dir, const ConvProblem &problem,
              amp_rt_dtype inType, amp_rt_dtype outType, Run run) {
  ProfileScope profile([&](double &flops) {
    return convProfileKey(dir, problem, inType, outType, flops);
  });
  std::lock_guard<std::recursive_mutex> lock(runtime().mutex);
  Slot *slot = nullptr;
  AMP_RT_TRY(activeSlot(fn, slot));
  CallContext ctx(fn, *slot);
  if (std::strcmp(ctx.backend().name(), "cpu") != 0) {
    profile.discard();
    return AMP_RT_ERROR_UNSUPPORTED;
  }
  amp_rt_status s = run(ctx);
  if (s == AMP_RT_ERROR_UNSUPPORTED)
    profile.discard();
  if (s != AMP_RT_SUCCESS)
    return s;
  return ctx.finish();
}

amp_rt_status convBlockedOnHost(const char *fn, const ConvProblem &problem,
                                amp_rt_dtype inType, amp_rt_dtype outType,
                                const void *x, const TensorView &w, float beta,
                                void *y) {
  return blockedOnHost(fn, ConvDirection::Forward, problem, inType, outType,
                       [&](CallContext &ctx) {
                         TensorView filter;
                         AMP_RT_TRY(ctx.input(w, true, filter));
                         return ctx.backend().conv(
                             ConvDirection::Forward, problem, inType, outType,
                             1.0f, x, filter.data, beta, y);
                       });
}

amp_rt_status convBlockedFilterGradOnHost(const char *fn,
                                          const ConvProblem &problem,
                                          amp_rt_dtype inType,
                                          amp_rt_dtype outType, const void *x,
                                          const void *dy, const TensorView &dw,
                                          float beta) {
  return blockedOnHost(fn, ConvDirection::BackwardFilter, problem, inType,
                       outType, [&](CallContext &ctx) {
                         TensorView filter;
                         AMP_RT_TRY(ctx.output(dw, beta != 0.0f, true, filter));
                         return ctx.backend().conv(
                             ConvDirection::BackwardFilter, problem, inType,
                             outType, 1.0f, x, dy, beta, filter.data);
                       });
}

} // namespace rt
} // namespace amp

//===----------------------------------------------------------------------===//
// C API
//===----------------------------------------------------------------------===//

using namespace amp::rt;

static amp_rt_status convCall(const char *fn, ConvDirection dir,
                              const amp_rt_conv2d_desc *desc,
                              amp_rt_dtype in_type, amp_rt_dtype out_type,
                              float alpha, const void *in0, const void *in1,
                              float beta, void *out) {
  AMP_RT_TRY(
      checkContractionTypes(fn, "in_type", "out_type", in_type, out_type));
  ConvProblem p;
  AMP_RT_TRY(makeConvProblem(fn, desc, p));
  int64_t x[4], w[4], y[4];
  convTensorShapes(p, x, w, y);
  const int64_t *shapes[3];
  const char *names[3];
  switch (dir) {
  case ConvDirection::Forward:
    shapes[0] = x, shapes[1] = w, shapes[2] = y;
    names[0] = "x", names[1] = "w", names[2] = "y";
    break;
  case ConvDirection::BackwardData:
    shapes[0] = y, shapes[1] = w, shapes[2] = x;
    names[0] = "dy", names[1] = "w", names[2] = "dx";
    break;
  case ConvDirection::BackwardFilter:
    shapes[0] = x, shapes[1] = y, shapes[2] = w;
    names[0] = "x", names[1] = "dy", names[2] = "dw";
    break;
  }
  const void *ptrs[3] = {in0, in1, out};
  TensorView views[3];
  for (int i = 0; i < 3; ++i) {
    if (!ptrs[i])
      return fail(AMP_RT_ERROR_INVALID_ARGUMENT, "%s: %s is NULL", fn,
                  names[i]);
    TensorView &v = views[i];
    v.data = const_cast<void *>(ptrs[i]);
    v.dtype = i == 2 ? out_type : in_type;
    v.rank = 4;
    std::copy(shapes[i], shapes[i] + 4, v.sizes);
    denseStrides(v, v.strides);
  }
  return convViews(fn, dir, p, in_type, out_type, alpha, views[0], views[1],
                   beta, views[2]);
}

extern "C" {

amp_rt_status amp_rt_conv2d_output_size(const amp_rt_conv2d_desc *desc,
                                        int64_t *P, int64_t *Q) {
  ConvProblem p;
  AMP_RT_TRY(makeConvProblem("amp_rt_conv2d_output_size", desc, p));
  if (!P || !Q)
    return fail(AMP_RT_ERROR_INVALID_ARGUMENT,
                "amp_rt_conv2d_output_size: P or Q is NULL");
  *P = p.P;
  *Q = p.Q;
  return AMP_RT_SUCCESS;
}

amp_rt_status amp_rt_conv2d_forward(const amp_rt_conv2d_desc *desc,
                                    amp_rt_dtype in_type, amp_rt_dtype out_type,
                                    float alpha, const void *x, const void *w,
                                    float beta, void *y) {
  return convCall("amp_rt_conv2d_forward", ConvDirection::Forward, desc,
                  in_type, out_type, alpha, x, w, beta, y);
}

amp_rt_status amp_rt_conv2d_backward_data(const amp_rt_conv2d_desc *desc,
                                          amp_rt_dtype in_type,
                                          amp_rt_dtype out_type, float alpha,
                                          const void *dy, const void *w,
                                          float beta, void *dx) {
  return convCall("amp_rt_conv2d_backward_data", ConvDirection::BackwardData,
                  desc, in_type, out_type, alpha, dy, w, beta, dx);
}

amp_rt_status amp_rt_conv2d_backward_filter(const amp_rt_conv2d_desc *desc,
                                            amp_rt_dtype in_type,
                                            amp_rt_dtype out_type, float alpha,
                                            const void *x, const void *dy,
                                            float beta, void *dw) {
  return convCall("amp_rt_conv2d_backward_filter",
                  ConvDirection::BackwardFilter, desc, in_type, out_type, alpha,
                  x, dy, beta, dw);
}

} // extern "C"
