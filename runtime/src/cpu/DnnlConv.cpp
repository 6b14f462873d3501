//===- DnnlConv.cpp - conv2d as oneDNN convolution primitives -------------===//
//
// The three directions are oneDNN convolution_forward, _backward_data and
// _backward_weights. Filters are always handed to the primitive in the
// layout it asks for (format_tag::any, one small reorder per call, kept
// across calls while the filter's bytes stay the same: PackedFilters.h). NHWC
// activations are passed as they are (the brgemm kernels read nhwc), NCHW
// ones are reordered into and out of the blocked layout the primitive
// prefers: docs/runtime.md has the measurements behind both choices.
// Activations already in that layout (nChw16c, ConvProblem::blocked16)
// are passed as they are, like NHWC ones (with plainInput, an NCHW input
// and a blocked output: oneDNN's first-layer kernels read that directly).
//
// A forward convolution whose filter is larger than its output (a weight
// gradient that autodiff wrote as a convolution) runs as oneDNN's
// backward-weights primitive on the same memory (weightGradientInDisguise).
//
// Forward fuses beta as a sum post-op when the output needs no reorder and
// alpha is 1. Otherwise (and for the backward directions, which take no
// attributes) the primitive writes an f32 temporary and the reorder into
// the caller's tensor applies alpha (a run-time scale) and beta (a sum
// post-op); beta == 0 never reads the output.
//
//===----------------------------------------------------------------------===//

#include "DnnlState.h"

#include <cstring>

namespace amp {
namespace rt {

namespace {

using dnnl::memory;
using Tag = memory::format_tag;

Tag filterTag(amp_rt_filter_layout l) {
  return l == AMP_RT_FILTER_KCRS   ? Tag::oihw
         : l == AMP_RT_FILTER_RSCK ? Tag::hwio
                                   : Tag::ohwi;
}

/// Whether activations of this layout go to the primitive unreordered:
/// NHWC, and the blocked layout the primitive would reorder NCHW into.
bool plainActivations(const ConvProblem &p) {
  return p.desc.layout == AMP_RT_NHWC || p.blocked16;
}

/// oneDNN's view of a problem; operand 0, 1 are the inputs, 2 the output.
/// The caller's memory is `tags[i]`, or `userStrides[i]` when those are set.
struct Geometry {
  memory::dims x, w, y, strides, dilates, padL, padR;
  memory::dims dims[3];
  bool isFilter[3];
  Tag tags[3];
  memory::dims userStrides[3];
  /// The direction of the oneDNN primitive (see weightGradientInDisguise).
  ConvDirection kernel = ConvDirection::Forward;
};

/// Element strides of the caller's activation tensor, in the order (N, C,
/// H, W) of the dims `n, c, h, w`.
memory::dims activationStrides(amp_rt_layout l, int64_t c, int64_t h,
                               int64_t w) {
  if (l == AMP_RT_NHWC)
    return {h * w * c, 1, w * c, c};
  return {c * h * w, h * w, w, 1};
}

/// Element strides of the caller's filter, in the order (K, C, R, S).
memory::dims filterStrides(amp_rt_filter_layout l, int64_t k, int64_t c,
                           int64_t r, int64_t s) {
  switch (l) {
  case AMP_RT_FILTER_KCRS:
    return {c * r * s, r * s, s, 1};
  case AMP_RT_FILTER_RSCK:
    return {1, k, s * c * k, c * k};
  default: // KRSC
    return {r * s * c, 1, s * c, c};
  }
}

/// A forward convolution (no padding) whose filter is larger than its
/// output is a weight gradient written as a convolution: what autodiff
/// makes of dW[r,s,c,k] = sum x[n,p*sh+r*dh,q*sw+s*dw,c] dy[n,p,q,k] with
/// transposes, batch and channels swapped, the forward stride as the
/// dilation and the forward dilation as the stride (amp-gen-model's CNN
/// step: a 26x26 "filter", a 3x3 "output"; amp-ungroup-summed-convs's
/// form of torch-mlir's strided ones: a 7x7 "filter" dilated by 2). oneDNN's
/// forward kernels run that shape at half the rate of its backward-weights
/// kernels in f32 (conv3 of the CNN step: 109 ms against 60 ms), so it runs
/// as the weight gradient it is, on the caller's memory read through
/// strides.
bool weightGradientInDisguise(ConvDirection dir, const ConvProblem &p) {
  const amp_rt_conv2d_desc &d = p.desc;
  return dir == ConvDirection::Forward && !p.blocked16 && d.groups == 1 &&
         d.pad_h == 0 && d.pad_w == 0 && d.R * d.S > p.P * p.Q;
}

/// The weight-gradient view of such a forward convolution O = conv(I, F)
/// with stride (sh, sw) and dilation (dh, dw):
/// x[n', c', h, w] = I[c', h, w, n'] (batch and channels swapped),
/// dy[n', k, p', q'] = F[p', q', n', k] (the filter is the output gradient)
/// and dW[k, c', r', s'] = O[c', r', s', k], for the convolution of stride
/// (dh, dw) and dilation (sh, sw). x keeps only the rows and columns the
/// output reads (linalg allows more, oneDNN wants the sizes to agree).
Geometry disguisedGeometry(const ConvProblem &p) {
  const amp_rt_conv2d_desc &d = p.desc;
  memory::dims in = activationStrides(d.layout, d.C, d.H, d.W);
  memory::dims f = filterStrides(d.filter_layout, d.K, d.C, d.R, d.S);
  memory::dims out = activationStrides(d.layout, d.K, p.P, p.Q);
  Geometry g;
  g.kernel = ConvDirection::BackwardFilter;
  g.x = {d.C, d.N, (d.R - 1) * d.dil_h + (p.P - 1) * d.stride_h + 1,
         (d.S - 1) * d.dil_w + (p.Q - 1) * d.stride_w + 1};
  g.y = {d.C, d.K, d.R, d.S};
  g.w = {d.K, d.N, p.P, p.Q};
  g.strides = {d.dil_h, d.dil_w};
  g.dilates = {d.stride_h - 1, d.stride_w - 1};
  g.padL = g.padR = {0, 0};
  g.dims[0] = g.x, g.dims[1] = g.y, g.dims[2] = g.w;
  g.userStrides[0] = {in[1], in[0], in[2], in[3]};
  g.userStrides[1] = {f[1], f[0], f[2], f[3]};
  g.userStrides[2] = {out[1], out[0], out[2], out[3]};
  g.isFilter[0] = g.isFilter[1] = false;
  g.isFilter[2] = true;
  g.tags[0] = g.tags[1] = g.tags[2] = Tag::undef;
  return g;
}

/// oneDNN's grouped filter (G, K/G, C/G, R, S) over the caller's K x C/G x
/// R x S filter: output channel k = g * K/G + o, so g strides K/G filters.
void groupFilter(const amp_rt_conv2d_desc &d, memory::dims &dims, Tag &tag,
                 memory::dims &userStrides) {
  const int64_t G = d.groups, kg = d.K / G, cg = d.C / G;
  memory::dims f = filterStrides(d.filter_layout, d.K, cg, d.R, d.S);
  dims = {G, kg, cg, d.R, d.S};
  userStrides = {f[0] * kg, f[0], f[1], f[2], f[3]};
  tag = Tag::undef;
}

Geometry geometryOf(ConvDirection dir, const ConvProblem &p) {
  if (weightGradientInDisguise(dir, p))
    return disguisedGeometry(p);
  const amp_rt_conv2d_desc &d = p.desc;
  Geometry g;
  g.kernel = dir;
  g.x = {d.N, d.C, d.H, d.W};
  g.w = {d.K, d.C, d.R, d.S};
  g.y = {d.N, d.K, p.P, p.Q};
  g.strides = {d.stride_h, d.stride_w};
  g.dilates = {d.dil_h - 1, d.dil_w - 1};
  // Right padding as on the left: the output size formula floors it away.
  g.padL = g.padR = {d.pad_h, d.pad_w};
  Tag act = d.layout == AMP_RT_NHWC ? Tag::nhwc
            : p.blocked16           ? Tag::nChw16c
                                    : Tag::nchw;
  Tag filter = filterTag(d.filter_layout);
  const memory::dims *order[3];
  if (dir == ConvDirection::Forward)
    order[0] = &g.x, order[1] = &g.w, order[2] = &g.y;
  else if (dir == ConvDirection::BackwardData)
    order[0] = &g.y, order[1] = &g.w, order[2] = &g.x;
  else
    order[0] = &g.x, order[1] = &g.y, order[2] = &g.w;
  for (int i = 0; i < 3; ++i) {
    g.dims[i] = *order[i];
    g.isFilter[i] = order[i] == &g.w;
    g.tags[i] = g.isFilter[i] ? filter : act;
    if (g.isFilter[i] && d.groups > 1)
      groupFilter(d, g.dims[i], g.tags[i], g.userStrides[i]);
  }
  if (p.plainInput) // forward: operand 0 is x
    g.tags[0] = Tag::nchw;
  return g;
}

uint32_t floatBits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

PlanKey keyOf(ConvDirection dir, const ConvProblem &p, amp_rt_dtype in,
              amp_rt_dtype out, float alpha, float beta) {
  const amp_rt_conv2d_desc &d = p.desc;
  return {1,           int64_t(dir),  in,
          out,         d.layout,      d.filter_layout,
          d.N,         d.H,           d.W,
          d.C,         d.K,           d.R,
          d.S,         d.pad_h,       d.pad_w,
          d.stride_h,  d.stride_w,    d.dil_h,
          d.dil_w,     alpha != 1.0f, int64_t(floatBits(beta)),
          p.blocked16, d.groups,      p.plainInput};
}

/// What the primitive is asked for: per operand a data type and a tag
/// (Tag::any lets it choose).
struct Request {
  memory::data_type type[3];
  Tag tag[3];
  memory::desc md(const Geometry &g, int i) const {
    return memory::desc(g.dims[i], type[i], tag[i]);
  }
  /// Operand i as the input type (for the forward hint).
  memory::desc asInput(const Geometry &g, int i, amp_rt_dtype in) const {
    return memory::desc(g.dims[i], dnnlType(in), tag[i]);
  }
};

/// Creates the primitive descriptor; the backward directions need a
/// forward one as a hint (built from the same operands in the input type).
dnnl::primitive_desc createPd(DnnlKernels::State &st, ConvDirection dir,
                              const Geometry &g, const Request &r,
                              amp_rt_dtype in,
                              const dnnl::primitive_attr &attr) {
  using namespace dnnl;
  const auto algo = algorithm::convolution_direct;
  const auto prop = prop_kind::forward_training;
  if (dir == ConvDirection::Forward)
    return convolution_forward::primitive_desc(
        {prop, algo, r.md(g, 0), r.md(g, 1), r.md(g, 2), g.strides, g.dilates,
         g.padL, g.padR},
        attr, st.engine);
  if (dir == ConvDirection::BackwardData) {
    convolution_forward::primitive_desc hint({prop, algo, r.asInput(g, 2, in),
                                              r.md(g, 1), r.md(g, 0), g.strides,
                                              g.dilates, g.padL, g.padR},
                                             st.engine);
    return convolution_backward_data::primitive_desc(
        {algo, r.md(g, 2), r.md(g, 1), r.md(g, 0), g.strides, g.dilates, g.padL,
         g.padR},
        attr, st.engine, hint);
  }
  convolution_forward::primitive_desc hint(
      {prop, algo, r.md(g, 0), r.asInput(g, 2, in), r.md(g, 1), g.strides,
       g.dilates, g.padL, g.padR},
      st.engine);
  return convolution_backward_weights::primitive_desc(
      {algo, r.md(g, 0), r.md(g, 2), r.md(g, 1), g.strides, g.dilates, g.padL,
       g.padR},
      attr, st.engine, hint);
}

/// The primitive's descs and argument ids of operands 0, 1, 2.
void innerOperands(ConvDirection dir, const dnnl::primitive_desc &pd,
                   ConvPlan &plan) {
  if (dir == ConvDirection::Forward) {
    plan.inner[0] = pd.src_desc(), plan.args[0] = DNNL_ARG_SRC;
    plan.inner[1] = pd.weights_desc(), plan.args[1] = DNNL_ARG_WEIGHTS;
    plan.inner[2] = pd.dst_desc(), plan.args[2] = DNNL_ARG_DST;
  } else if (dir == ConvDirection::BackwardData) {
    plan.inner[0] = pd.diff_dst_desc(), plan.args[0] = DNNL_ARG_DIFF_DST;
    plan.inner[1] = pd.weights_desc(), plan.args[1] = DNNL_ARG_WEIGHTS;
    plan.inner[2] = pd.diff_src_desc(), plan.args[2] = DNNL_ARG_DIFF_SRC;
  } else {
    plan.inner[0] = pd.src_desc(), plan.args[0] = DNNL_ARG_SRC;
    plan.inner[1] = pd.diff_dst_desc(), plan.args[1] = DNNL_ARG_DIFF_DST;
    plan.inner[2] = pd.diff_weights_desc(),
    plan.args[2] = DNNL_ARG_DIFF_WEIGHTS;
  }
}

/// The reorder from the primitive's f32 output into the caller's tensor:
/// out = alpha * result + beta * out.
dnnl::reorder::primitive_desc outputReorder(DnnlKernels::State &st,
                                            const ConvPlan &plan, float alpha,
                                            float beta) {
  dnnl::primitive_attr attr = st.attr();
  if (alpha != 1.0f)
    attr.set_output_scales(0, {DNNL_RUNTIME_F32_VAL});
  if (beta != 0.0f) {
    dnnl::post_ops ops;
    ops.append_sum(beta);
    attr.set_post_ops(ops);
  }
  return dnnl::reorder::primitive_desc(st.engine, plan.inner[2], st.engine,
                                       plan.user[2], attr);
}

/// Whether oneDNN fell back to its reference convolution (naive loops),
/// which it does for a layout its kernels on this CPU do not read.
bool isReference(const dnnl::primitive_desc &pd) {
  return std::strncmp(pd.impl_info_str(), "ref", 3) == 0;
}

ConvPlan makePlan(DnnlKernels::State &st, ConvDirection dir,
                  const ConvProblem &p, amp_rt_dtype in, amp_rt_dtype out,
                  float alpha, float beta, bool callerLayout = true) {
  const Geometry g = geometryOf(dir, p);
  const ConvDirection requested = dir;
  dir = g.kernel;
  // Strided (disguised) operands always go through the primitive's layouts.
  const bool plain =
      callerLayout && plainActivations(p) && g.userStrides[0].empty();
  ConvPlan plan;
  Request r;
  for (int i = 0; i < 3; ++i) {
    memory::data_type t = dnnlType(i == 2 ? out : in);
    plan.user[i] = g.userStrides[i].empty()
                       ? memory::desc(g.dims[i], t, g.tags[i])
                       : memory::desc(g.dims[i], t, g.userStrides[i]);
    r.type[i] = t;
    r.tag[i] = g.isFilter[i] || !plain ? Tag::any : g.tags[i];
  }
  // Write the caller's output directly when no reorder and no epilogue is
  // needed: forward can fuse beta, the backward directions fuse nothing.
  bool direct = r.tag[2] != Tag::any && alpha == 1.0f &&
                (dir == ConvDirection::Forward || beta == 0.0f);
  dnnl::primitive_attr attr = st.attr();
  if (direct && beta != 0.0f) {
    dnnl::post_ops ops;
    ops.append_sum(beta);
    attr.set_post_ops(ops);
  }
  if (!direct)
    r.type[2] = memory::data_type::f32;
  dnnl::primitive_desc pd = createPd(st, dir, g, r, in, attr);
  // The caller's layout only where a real kernel reads it: on an AVX2 CPU
  // oneDNN's kernels read nChw8c, and nChw16c activations would get the
  // reference convolution; they are reordered into its layout instead.
  if (plain && isReference(pd))
    return makePlan(st, requested, p, in, out, alpha, beta,
                    /*callerLayout=*/false);
  innerOperands(dir, pd, plan);
  plan.prim = dnnl::primitive(pd);
  plan.scratchpadBytes = pd.scratchpad_desc().get_size();
  for (int i = 0; i < 2; ++i) {
    plan.reorderIn[i] = plan.inner[i] != plan.user[i];
    if (!plan.reorderIn[i])
      continue;
    // A disguised weight gradient's "filter" is an output gradient.
    plan.filterIn[i] = g.isFilter[i] && dir == requested;
    dnnl::reorder::primitive_desc rpd(st.engine, plan.user[i], st.engine,
                                      plan.inner[i], st.attr());
    plan.toInner[i] = dnnl::reorder(rpd);
    plan.scratchpadBytes =
        std::max(plan.scratchpadBytes, rpd.scratchpad_desc().get_size());
  }
  plan.outDirect = direct; // a plain request is honoured: inner == user
  if (!direct) {
    dnnl::reorder::primitive_desc rpd = outputReorder(st, plan, alpha, beta);
    plan.toUser = dnnl::reorder(rpd);
    plan.runtimeAlpha = alpha != 1.0f;
    plan.scratchpadBytes =
        std::max(plan.scratchpadBytes, rpd.scratchpad_desc().get_size());
  }
  plan.supported = true;
  st.trace("convolution", pd);
  return plan;
}

ConvPlan &planFor(DnnlKernels::State &st, const PlanKey &key, ConvDirection dir,
                  const ConvProblem &p, amp_rt_dtype in, amp_rt_dtype out,
                  float alpha, float beta) {
  if (ConvPlan *plan = st.convs.find(key))
    return *plan;
  try {
    return st.convs.insert(key, makePlan(st, dir, p, in, out, alpha, beta));
  } catch (const dnnl::error &e) {
    if (e.status != dnnl_unimplemented)
      throw;
    ConvPlan refused;
    refused.refusal = e.what();
    return st.convs.insert(key, std::move(refused));
  }
}

} // namespace

amp_rt_status DnnlKernels::conv(ConvDirection dir, const ConvProblem &p,
                                amp_rt_dtype inType, amp_rt_dtype outType,
                                float alpha, const void *in0, const void *in1,
                                float beta, void *out) {
  State &st = *state;
  std::lock_guard<std::mutex> lock(st.mutex);
  return guarded(st, "oneDNN convolution", [&] {
    st.pinThreads();
    const PlanKey key = keyOf(dir, p, inType, outType, alpha, beta);
    ConvPlan &plan = planFor(st, key, dir, p, inType, outType, alpha, beta);
    if (!plan.supported) {
      st.why = "oneDNN convolution: " + plan.refusal;
      return AMP_RT_ERROR_UNSUPPORTED;
    }
    memory pad = st.scratchpad(plan.scratchpadBytes);
    const void *inputs[2] = {in0, in1};
    memory operand[3];
    for (int i = 0; i < 2; ++i) {
      memory user(plan.user[i], st.engine, const_cast<void *>(inputs[i]));
      operand[i] = user;
      if (!plan.reorderIn[i])
        continue;
      PackedFilters::Entry *kept = nullptr;
      if (plan.filterIn[i] && st.filters.enabled() &&
          plan.filterReuse[i].tryCache()) {
        const size_t bytes = plan.user[i].get_size();
        const int threads = st.threads > 0 ? st.threads : cpuThreadCount();
        if (PackedFilters::Entry *e =
                st.filters.find(key, i, inputs[i], bytes, threads)) {
          plan.filterReuse[i].hit();
          operand[i] = e->packed;
          continue;
        }
        if (plan.filterReuse[i].miss())
          kept = st.filters.store(key, i, inputs[i], bytes, plan.inner[i],
                                  st.engine, threads);
      }
      operand[i] =
          kept ? kept->packed : st.staged(st.staging[i], plan.inner[i]);
      plan.toInner[i].execute(st.stream, {{DNNL_ARG_FROM, user},
                                          {DNNL_ARG_TO, operand[i]},
                                          {DNNL_ARG_SCRATCHPAD, pad}});
    }
    memory result(plan.user[2], st.engine, out);
    operand[2] =
        plan.outDirect ? result : st.staged(st.staging[2], plan.inner[2]);
    plan.prim.execute(st.stream, {{plan.args[0], operand[0]},
                                  {plan.args[1], operand[1]},
                                  {plan.args[2], operand[2]},
                                  {DNNL_ARG_SCRATCHPAD, pad}});
    if (!plan.outDirect) {
      memory scale({{1}, memory::data_type::f32, memory::format_tag::x},
                   st.engine, &alpha);
      std::unordered_map<int, memory> args = {{DNNL_ARG_FROM, operand[2]},
                                              {DNNL_ARG_TO, result},
                                              {DNNL_ARG_SCRATCHPAD, pad}};
      if (plan.runtimeAlpha)
        args.insert({DNNL_ARG_ATTR_OUTPUT_SCALES, scale});
      plan.toUser.execute(st.stream, args);
    }
    st.stream.wait();
    return AMP_RT_SUCCESS;
  });
}

void DnnlKernels::setFilterCacheBudget(size_t bytes) {
  std::lock_guard<std::mutex> lock(state->mutex);
  state->filters.setBudget(bytes);
}

void DnnlKernels::filterCacheStats(int64_t &hits, int64_t &misses,
                                   size_t &bytes) {
  std::lock_guard<std::mutex> lock(state->mutex);
  hits = state->filters.hits;
  misses = state->filters.misses;
  bytes = state->filters.used;
}

} // namespace rt
} // namespace amp
