//===- conv_variants.h - the convolutions amp-bench-conv-cpu times --------===//
//
// The variants of bench/conv_cpu.cpp that are not libamp_rt's plain entry
// points: oneDNN's own convolution in the layouts it prefers (the reference
// a library taking plain tensors cannot beat), and the blocked MLIR entry
// points that amp-block-convs' code calls.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_BENCH_CONV_VARIANTS_H
#define AMP_BENCH_CONV_VARIANTS_H

#include "bench_util.h"

#include <functional>
#include <memory>
#include <unordered_map>
#include <utility>

namespace ampbench {

enum Dir { Fwd = 0, BwdData = 1, BwdFilter = 2 };

/// One oneDNN convolution primitive in one direction, with every operand in
/// the layout the primitive prefers (format_tag::any, usually blocked): the
/// plain inputs are reordered into it once at setup, so run() times
/// oneDNN's kernel alone, an upper bound for a library that takes plain
/// tensors. check() reorders the output back into the caller's plain
/// tensor (outside the timed loop).
struct DnnlConv {
  dnnl::engine eng{dnnl::engine::kind::cpu, 0};
  dnnl::stream strm{eng};
  dnnl::primitive prim;
  std::unordered_map<int, dnnl::memory> args;
  dnnl::memory outInner, outUser;
  std::string impl;

  /// in/out pointers: x, w, y for forward; dy, w, dx for backward data;
  /// x, dy, dw for backward filter (outputs f32). Returns why there is no
  /// fast oneDNN convolution, or "".
  std::string init(const amp_rt_conv2d_desc &d, int64_t P, int64_t Q, Dir dir,
                   bool bf16, void *p0, void *p1, float *out) {
    Operands ops;
    try {
      createPrimitive(d, P, Q, dir, bf16, ops);
      if (impl.rfind("ref", 0) == 0)
        return "only oneDNN's reference convolution (" + impl + ")";
      void *ptr[3] = {p0, p1, out};
      bindOperands(ops, ptr);
    } catch (const dnnl::error &e) {
      return std::string("no oneDNN convolution for this type on this CPU (") +
             e.what() + ")";
    }
    return "";
  }
  void run() {
    prim.execute(strm, args);
    strm.wait();
  }
  /// The output in the caller's plain layout (for the result check).
  void check() {
    if (outInner != outUser) {
      dnnl::reorder(outInner, outUser).execute(strm, outInner, outUser);
      strm.wait();
    }
  }

private:
  /// Operand i (0, 1: the inputs, 2: the output): the caller's plain
  /// layout, the primitive's, and its oneDNN argument.
  struct Operands {
    dnnl::memory::desc user[3], inner[3];
    int arg[3];
  };

  /// The primitive of `dir` with every operand in the layout it prefers;
  /// throws dnnl::error where oneDNN has none.
  void createPrimitive(const amp_rt_conv2d_desc &d, int64_t P, int64_t Q,
                       Dir dir, bool bf16, Operands &ops) {
    using dt = dnnl::memory::data_type;
    using tag = dnnl::memory::format_tag;
    using dnnl::memory;
    dt in = bf16 ? dt::bf16 : dt::f32;
    bool nhwc = d.layout == AMP_RT_NHWC;
    tag act = nhwc ? tag::nhwc : tag::nchw;
    tag wt = nhwc ? tag::hwio : tag::oihw;
    memory::dims xd = {d.N, d.C, d.H, d.W}, wd = {d.K, d.C, d.R, d.S},
                 yd = {d.N, d.K, P, Q}, strides = {d.stride_h, d.stride_w},
                 pl = {d.pad_h, d.pad_w};
    if (d.groups > 1) { // (G, K/G, C/G, R, S); the caller's KCRS / RSCK
      wd = {d.groups, d.K / d.groups, d.C / d.groups, d.R, d.S};
      wt = nhwc ? tag::hwigo : tag::goihw;
    }
    // Right padding as oneDNN wants it: what makes the output P x Q.
    memory::dims pr = {(P - 1) * d.stride_h + d.R - d.H - d.pad_h,
                       (Q - 1) * d.stride_w + d.S - d.W - d.pad_w};
    auto algo = dnnl::algorithm::convolution_direct;
    memory::desc xIn(xd, in, tag::any), wIn(wd, in, tag::any),
        yIn(yd, in, tag::any);
    memory::desc xOut(xd, dt::f32, tag::any), wOut(wd, dt::f32, tag::any);
    memory::desc xU(xd, in, act), wU(wd, in, wt), yU(yd, in, act);
    auto fwdDesc = [&](const memory::desc &y) {
      return dnnl::convolution_forward::desc(dnnl::prop_kind::forward_training,
                                             algo, xIn, wIn, y, strides, pl,
                                             pr);
    };
    auto set = [&](const memory::desc(&user)[3], const memory::desc(&inner)[3],
                   const int(&arg)[3]) {
      for (int i = 0; i < 3; ++i)
        ops.user[i] = user[i], ops.inner[i] = inner[i], ops.arg[i] = arg[i];
    };
    if (dir == Fwd) {
      dnnl::convolution_forward::primitive_desc pd(
          fwdDesc(memory::desc(yd, dt::f32, tag::any)), eng);
      impl = pd.impl_info_str();
      prim = dnnl::convolution_forward(pd);
      set({xU, wU, memory::desc(yd, dt::f32, act)},
          {pd.src_desc(), pd.weights_desc(), pd.dst_desc()},
          {DNNL_ARG_SRC, DNNL_ARG_WEIGHTS, DNNL_ARG_DST});
      return;
    }
    dnnl::convolution_forward::primitive_desc hint(fwdDesc(yIn), eng);
    if (dir == BwdData) {
      dnnl::convolution_backward_data::primitive_desc pd(
          dnnl::convolution_backward_data::desc(algo, xOut, wIn, yIn, strides,
                                                pl, pr),
          eng, hint);
      impl = pd.impl_info_str();
      prim = dnnl::convolution_backward_data(pd);
      set({yU, wU, memory::desc(xd, dt::f32, act)},
          {pd.diff_dst_desc(), pd.weights_desc(), pd.diff_src_desc()},
          {DNNL_ARG_DIFF_DST, DNNL_ARG_WEIGHTS, DNNL_ARG_DIFF_SRC});
      return;
    }
    dnnl::convolution_backward_weights::primitive_desc pd(
        dnnl::convolution_backward_weights::desc(algo, xIn, wOut, yIn, strides,
                                                 pl, pr),
        eng, hint);
    impl = pd.impl_info_str();
    prim = dnnl::convolution_backward_weights(pd);
    set({xU, yU, memory::desc(wd, dt::f32, wt)},
        {pd.src_desc(), pd.diff_dst_desc(), pd.diff_weights_desc()},
        {DNNL_ARG_SRC, DNNL_ARG_DIFF_DST, DNNL_ARG_DIFF_WEIGHTS});
  }

  /// The primitive's arguments: the plain inputs reordered into its layouts
  /// once, here; the output's inner and plain memory kept for check().
  void bindOperands(const Operands &ops, void *const (&ptr)[3]) {
    for (int i = 0; i < 3; ++i) {
      dnnl::memory u(ops.user[i], eng, ptr[i]);
      dnnl::memory m =
          ops.inner[i] == ops.user[i] ? u : dnnl::memory(ops.inner[i], eng);
      if (i < 2 && m != u)
        dnnl::reorder(u, m).execute(strm, u, m);
      args[ops.arg[i]] = m;
      if (i == 2)
        outInner = m, outUser = u;
    }
    strm.wait();
  }
};

/// The forward convolution `d` through the blocked MLIR entry point: the
/// NCHW input `x` (f32, exact in bf16) padded and blocked by 16 channels
/// once, in bf16 or f32. Returns the timed call and a function that unblocks
/// its result into the NCHW tensor `out`.
inline std::pair<std::function<void()>, std::function<void()>>
blockedForward(const amp_rt_conv2d_desc &d, int64_t P, int64_t Q, bool bf16,
               const std::vector<float> &x, float *out) {
  const int64_t N = d.N, CB = d.C / 16, KB = d.K / 16, H = d.H + 2 * d.pad_h,
                W = d.W + 2 * d.pad_w;
  auto xs = std::make_shared<std::vector<float>>(size_t(N * CB * H * W * 16));
  for (int64_t n = 0; n < N; ++n)
    for (int64_t c = 0; c < d.C; ++c)
      for (int64_t h = 0; h < d.H; ++h)
        for (int64_t w = 0; w < d.W; ++w)
          (*xs)[size_t(
              ((((n * CB + c / 16) * H + h + d.pad_h) * W) + w + d.pad_w) * 16 +
              c % 16)] = x[size_t(((n * d.C + c) * d.H + h) * d.W + w)];
  auto xb = std::make_shared<std::vector<uint16_t>>(xs->size());
  amp_rt_convert(AMP_RT_BF16, xb->data(), AMP_RT_F32, xs->data(), xs->size());
  auto y = std::make_shared<std::vector<float>>(size_t(N * KB * P * Q * 16));
  const int64_t G = d.groups > 1 ? d.groups : 1, CG = d.C / G;
  auto wf = std::make_shared<std::vector<float>>(size_t(d.K * CG * d.R * d.S));
  fillExact(*wf, 4); // the filter the other variants use (KCRS)
  auto wb = std::make_shared<std::vector<uint16_t>>(wf->size());
  amp_rt_convert(AMP_RT_BF16, wb->data(), AMP_RT_F32, wf->data(), wf->size());
  auto run = [=]() {
    void *xp = bf16 ? (void *)xb->data() : (void *)xs->data();
    void *wp = bf16 ? (void *)wb->data() : (void *)wf->data();
    amp_rt_memref_5d mi{xp,
                        xp,
                        0,
                        {N, CB, H, W, 16},
                        {CB * H * W * 16, H * W * 16, W * 16, 16, 1}};
    amp_rt_memref_4d mf{
        wp, wp, 0, {d.K, CG, d.R, d.S}, {CG * d.R * d.S, d.R * d.S, d.S, 1}};
    // Depthwise: the C x R x S filter of the depthwise entry points.
    amp_rt_memref_3d md{wp, wp, 0, {d.C, d.R, d.S}, {d.R * d.S, d.S, 1}};
    amp_rt_memref_5d mo{y->data(),
                        y->data(),
                        0,
                        {N, KB, P, Q, 16},
                        {KB * P * Q * 16, P * Q * 16, Q * 16, 16, 1}};
    if (G > 1 && bf16)
      _mlir_ciface_amp_rt_depthwise_conv2d_nchw16c_chw_bf16_f32_overwrite(
          &mi, &md, &mo, d.stride_h, d.stride_w, 1, 1);
    else if (G > 1)
      _mlir_ciface_amp_rt_depthwise_conv2d_nchw16c_chw_f32_f32_overwrite(
          &mi, &md, &mo, d.stride_h, d.stride_w, 1, 1);
    else if (bf16)
      _mlir_ciface_amp_rt_conv2d_nchw16c_fchw_bf16_f32_overwrite(
          &mi, &mf, &mo, d.stride_h, d.stride_w, 1, 1);
    else
      _mlir_ciface_amp_rt_conv2d_nchw16c_fchw_f32_f32_overwrite(
          &mi, &mf, &mo, d.stride_h, d.stride_w, 1, 1);
  };
  auto unblock = [=]() {
    for (int64_t n = 0; n < N; ++n)
      for (int64_t k = 0; k < d.K; ++k)
        for (int64_t p = 0; p < P; ++p)
          for (int64_t q = 0; q < Q; ++q)
            out[((n * d.K + k) * P + p) * Q + q] = (*y)[size_t(
                (((n * KB + k / 16) * P + p) * Q + q) * 16 + k % 16)];
  };
  return {run, unblock};
}

} // namespace ampbench

#endif // AMP_BENCH_CONV_VARIANTS_H
