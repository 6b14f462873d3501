//===- GraphConv.cpp - convolutions through cuDNN's graph API -------------===//
//
// A call finds (or has GraphConvPlans::build, GraphConvBuild.cpp, make) the
// plan of its problem, then only builds a variant pack (the pointers) and
// executes, with a permuting copy of the filter before or after where its
// layout is not the activations' own, and a blend of an f32 result into a
// 16-bit output that accumulates.
//
//===----------------------------------------------------------------------===//

#include "GraphConv.h"

#include "Kernels.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <initializer_list>

namespace amp {
namespace rt {
namespace cuda {

namespace {

/// Elements of the operation's output (y, dx or dw).
int64_t outputCount(ConvDirection dir, const ConvProblem &p) {
  const amp_rt_conv2d_desc &d = p.desc;
  switch (dir) {
  case ConvDirection::Forward:
    return d.N * d.K * p.P * p.Q;
  case ConvDirection::BackwardData:
    return d.N * d.C * d.H * d.W;
  case ConvDirection::BackwardFilter:
    break;
  }
  return filterCount(d);
}

/// The largest power of two <= 16 that divides every pointer.
int64_t byteAlignment(std::initializer_list<const void *> pointers) {
  int64_t a = 16;
  for (const void *p : pointers)
    while (a > 1 && reinterpret_cast<uintptr_t>(p) % uintptr_t(a) != 0)
      a /= 2;
  return a;
}

int64_t floatBits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof(u));
  return int64_t(u);
}
const char *filterName(amp_rt_filter_layout l) {
  return l == AMP_RT_FILTER_KCRS   ? "KCRS"
         : l == AMP_RT_FILTER_RSCK ? "RSCK"
                                   : "KRSC";
}

/// The permutation of a [K,C/G,R,S] filter (G = groups) from layout `from`
/// to layout `to`, its dimensions ordered by decreasing destination stride,
/// so that the copy's consecutive threads write consecutive elements.
Strided4 filterPermutation(const amp_rt_conv2d_desc &d,
                           amp_rt_filter_layout from, amp_rt_filter_layout to) {
  const std::array<int64_t, 4> sizes = {d.K, filterChannels(d), d.R, d.S},
                               src = filterStrides(from, d),
                               dst = filterStrides(to, d);
  std::array<int, 4> order = {0, 1, 2, 3};
  std::stable_sort(order.begin(), order.end(),
                   [&](int a, int b) { return dst[a] > dst[b]; });
  Strided4 s{};
  for (int i = 0; i < 4; ++i) {
    s.sizes[i] = sizes[order[i]];
    s.src[i] = src[order[i]];
    s.dst[i] = dst[order[i]];
  }
  return s;
}

/// The problem as the caller gave it (its filter layout included).
std::string describe(ConvDirection dir, const ConvProblem &p,
                     amp_rt_dtype inType, amp_rt_dtype outType,
                     int64_t alignment) {
  const amp_rt_conv2d_desc &d = p.desc;
  const char *filter = filterName(d.filter_layout);
  char buf[352];
  std::snprintf(
      buf, sizeof(buf),
      "%s %s->%s %s/%s N=%lld C=%lld H=%lld W=%lld K=%lld R=%lld S=%lld "
      "groups=%lld pad=%lld,%lld stride=%lld,%lld dilation=%lld,%lld "
      "align=%lld",
      dir == ConvDirection::Forward        ? "forward"
      : dir == ConvDirection::BackwardData ? "backward-data"
                                           : "backward-filter",
      dtypeName(inType), dtypeName(outType),
      d.layout == AMP_RT_NHWC ? "NHWC" : "NCHW", filter, (long long)d.N,
      (long long)d.C, (long long)d.H, (long long)d.W, (long long)d.K,
      (long long)d.R, (long long)d.S, (long long)groupCount(d),
      (long long)d.pad_h, (long long)d.pad_w, (long long)d.stride_h,
      (long long)d.stride_w, (long long)d.dil_h, (long long)d.dil_w,
      (long long)alignment);
  return buf;
}
amp_rt_status executionFailure(const char *what, cudnnStatus_t s) {
  // Never AMP_RT_ERROR_UNSUPPORTED: to the caller that means "fall back".
  const bool oom = s == CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED ||
                   s == CUDNN_STATUS_INTERNAL_ERROR_DEVICE_ALLOCATION_FAILED;
  return fail(oom ? AMP_RT_ERROR_OUT_OF_MEMORY : AMP_RT_ERROR_BACKEND,
              "%s failed: %s", what, cudnnGetErrorString(s));
}

#define EXEC_CHECK(call, what)                                                 \
  do {                                                                         \
    cudnnStatus_t s_ = (call);                                                 \
    if (s_ != CUDNN_STATUS_SUCCESS)                                            \
      return executionFailure(what, s_);                                       \
  } while (false)

/// How a call's operands reach the graph, which always sees the filter in
/// the activations' own layout (KRSC with NHWC, KCRS with NCHW). A filter in
/// another layout (RSCK, linalg's HWCF, with NHWC; KCRS with NHWC; KRSC or
/// RSCK with NCHW) is permuted on the device instead of being described to
/// cuDNN by its strides: an H200's engines accepted RSCK strides with NHWC
/// activations and computed wrong results
/// (ConvTest.StridePaddingDilationAllLayouts, 2026-11-26). An input filter
/// is copied into the workspace in the native layout first; an output
/// filter (backward filter) is computed there and permuted into `out`
/// afterwards. The plan is the native layout's, shared by all.
///
/// A 16-bit output that accumulates (beta != 0) gets the f32 result in the
/// workspace, then one kernel adds beta * out and rounds once: cuDNN's
/// 16-bit kernels may round the product before they add beta * out (the
/// legacy path avoids them for the same reason). A permuted output filter
/// that accumulates takes the same way whatever its type (beta * out is
/// added where it is permuted). With beta == 0 a permuted output filter is
/// computed in the output type with alpha applied by cuDNN (its one
/// rounding), then only copied.
struct Staging {
  amp_rt_filter_layout native;
  bool permute, permuteIn, permuteOut, blendAfter, stageOut;
  amp_rt_dtype graphOut;
  float graphAlpha, graphBeta;
  int64_t outCount;
  /// Workspace parts before the engine's own, multiples of 256 bytes.
  size_t filterBytes, resultBytes;
};

Staging planStaging(ConvDirection dir, const ConvProblem &p,
                    amp_rt_dtype inType, amp_rt_dtype outType, float alpha,
                    float beta) {
  const amp_rt_conv2d_desc &d = p.desc;
  Staging st;
  st.native = d.layout == AMP_RT_NHWC ? AMP_RT_FILTER_KRSC : AMP_RT_FILTER_KCRS;
  st.permute =
      d.filter_layout != AMP_RT_FILTER_DEFAULT && d.filter_layout != st.native;
  st.permuteIn = st.permute && dir != ConvDirection::BackwardFilter;
  st.permuteOut = st.permute && dir == ConvDirection::BackwardFilter;
  st.blendAfter = beta != 0.0f && (outType != AMP_RT_F32 || st.permuteOut);
  st.stageOut = st.blendAfter || st.permuteOut;
  st.graphOut = st.blendAfter ? AMP_RT_F32 : outType;
  st.graphAlpha = st.blendAfter ? 1.0f : alpha;
  st.graphBeta = st.stageOut ? 0.0f : beta;
  st.outCount = outputCount(dir, p);
  auto align256 = [](size_t bytes) { return (bytes + 255) & ~size_t(255); };
  st.filterBytes =
      st.permuteIn ? align256(size_t(filterCount(d)) * dtypeSize(inType)) : 0;
  st.resultBytes =
      st.stageOut ? align256(size_t(st.outCount) * dtypeSize(st.graphOut)) : 0;
  return st;
}

/// The graph's tensors by role (x/dx, w/dw, y/dy) from the call's inputs
/// and the tensor the graph writes.
void graphPointers(ConvDirection dir, const void *in0, const void *in1,
                   void *result, void *pointers[3]) {
  void *in0p = const_cast<void *>(in0), *in1p = const_cast<void *>(in1);
  switch (dir) {
  case ConvDirection::Forward:
    pointers[0] = in0p, pointers[1] = in1p, pointers[2] = result;
    break;
  case ConvDirection::BackwardData:
    pointers[0] = result, pointers[1] = in1p, pointers[2] = in0p;
    break;
  case ConvDirection::BackwardFilter:
    pointers[0] = in0p, pointers[1] = result, pointers[2] = in1p;
    break;
  }
}

/// out = alpha * result + beta * out from the f32 result, rounding once,
/// and/or the permutation of the native-layout filter into the caller's.
amp_rt_status finishOutput(const Staging &st, const amp_rt_conv2d_desc &d,
                           const void *result, void *out, amp_rt_dtype outType,
                           float alpha, float beta, cudaStream_t stream) {
  Strided4 shape{};
  if (st.permuteOut) {
    shape = filterPermutation(d, st.native, d.filter_layout);
  } else {
    shape.sizes[0] = shape.sizes[1] = shape.sizes[2] = 1;
    shape.sizes[3] = st.outCount;
    shape.src[3] = shape.dst[3] = 1;
  }
  if (st.blendAfter)
    CUDA_CHECK(launchAxpby(result, AMP_RT_F32, out, outType, shape, alpha, beta,
                           stream));
  else if (st.permuteOut)
    CUDA_CHECK(
        launchStridedCopy(result, out, dtypeSize(outType), shape, stream));
  return AMP_RT_SUCCESS;
}

} // namespace

GraphConvPlans::Plan &
GraphConvPlans::planFor(cudnnHandle_t handle, ConvDirection dir,
                        const ConvProblem &graphProblem, amp_rt_dtype inType,
                        amp_rt_dtype graphOut, float graphAlpha,
                        float graphBeta, int64_t alignment) {
  const amp_rt_conv2d_desc &d = graphProblem.desc;
  const Key key = {int64_t(dir),
                   inType,
                   graphOut,
                   d.layout,
                   d.filter_layout,
                   d.N,
                   d.H,
                   d.W,
                   d.C,
                   d.K,
                   d.R,
                   d.S,
                   d.pad_h,
                   d.pad_w,
                   d.stride_h,
                   d.stride_w,
                   d.dil_h,
                   d.dil_w,
                   groupCount(d),
                   alignment,
                   floatBits(graphAlpha),
                   floatBits(graphBeta)};
  auto it = plans.find(key);
  if (it == plans.end())
    it = plans
             .emplace(key, build(handle, dir, graphProblem, inType, graphOut,
                                 graphAlpha, graphBeta, alignment))
             .first;
  return *it->second;
}

void GraphConvPlans::announce(Plan &plan, ConvDirection dir,
                              const ConvProblem &p, amp_rt_dtype inType,
                              amp_rt_dtype graphOut, int64_t alignment,
                              bool permuteIn, bool permuteOut, bool blendAfter,
                              amp_rt_filter_layout native) {
  // One line per plan and filter layout of the callers.
  const unsigned layoutBit = 1u << (unsigned(p.desc.filter_layout) & 31u);
  if (!verbose || (plan.announced & layoutBit))
    return;
  plan.announced |= layoutBit;
  if (!plan.plan) {
    std::fprintf(stderr, "amp_rt: %s\n", why.c_str());
    return;
  }
  std::string staging;
  if (permuteIn)
    staging = std::string("; filter permuted into ") + filterName(native) +
              " in the workspace first";
  else if (permuteOut)
    staging = std::string("; filter computed in ") + filterName(native) +
              " in the workspace, then permuted";
  if (blendAfter)
    staging += "; f32 result, then out = alpha * result + beta * out";
  std::fprintf(stderr,
               "amp_rt: cuDNN graph API, %s: engine %lld (configuration %zu "
               "of %zu), workspace %lld bytes%s\n",
               describe(dir, p, inType, graphOut, alignment).c_str(),
               (long long)plan.engine, plan.config, plan.configs,
               (long long)plan.workspace, staging.c_str());
}

amp_rt_status GraphConvPlans::execute(cudnnHandle_t handle, const Plan &plan,
                                      void *const pointers[3], void *engineWs) {
  const int64_t uids[3] = {kUidX, kUidW, kUidY};
  GraphDescriptor pack;
  EXEC_CHECK(pack.create(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR),
             "creating a cuDNN variant pack");
  EXEC_CHECK(cudnnBackendSetAttribute(pack.get(),
                                      CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS,
                                      CUDNN_TYPE_INT64, 3, uids),
             "setting CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS");
  EXEC_CHECK(cudnnBackendSetAttribute(pack.get(),
                                      CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS,
                                      CUDNN_TYPE_VOID_PTR, 3, pointers),
             "setting CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS");
  EXEC_CHECK(cudnnBackendSetAttribute(pack.get(),
                                      CUDNN_ATTR_VARIANT_PACK_WORKSPACE,
                                      CUDNN_TYPE_VOID_PTR, 1, &engineWs),
             "setting CUDNN_ATTR_VARIANT_PACK_WORKSPACE");
  EXEC_CHECK(cudnnBackendFinalize(pack.get()),
             "finalizing a cuDNN variant pack");
  EXEC_CHECK(cudnnBackendExecute(handle, plan.plan.get(), pack.get()),
             "cudnnBackendExecute");
  return AMP_RT_SUCCESS;
}

amp_rt_status GraphConvPlans::run(cudnnHandle_t handle, cudaStream_t stream,
                                  ConvDirection dir, const ConvProblem &p,
                                  amp_rt_dtype inType, amp_rt_dtype outType,
                                  float alpha, const void *in0, const void *in1,
                                  float beta, void *out,
                                  const WorkspaceFn &workspace) {
  if (inType == AMP_RT_F32) {
    why = "f32 inputs take the legacy path (exact f32 FMA math)";
    return AMP_RT_ERROR_UNSUPPORTED;
  }
  const amp_rt_conv2d_desc &d = p.desc;
  const Staging st = planStaging(dir, p, inType, outType, alpha, beta);
  ConvProblem graphProblem = p;
  graphProblem.desc.filter_layout = st.native;
  // The byte alignment of the pointers given to cuDNN. Staged tensors sit
  // at multiples of 256 bytes into the (cudaMalloc'ed, 256-byte aligned)
  // workspace, which is known only once the plan says how much the engine
  // needs: they count as aligned here (a null pointer is) and are checked
  // below.
  const int64_t alignment =
      byteAlignment({in0, st.permuteIn ? nullptr : in1,
                     st.stageOut ? nullptr : static_cast<const void *>(out)});
  Plan &plan = planFor(handle, dir, graphProblem, inType, st.graphOut,
                       st.graphAlpha, st.graphBeta, alignment);
  if (!plan.plan)
    why = "cuDNN graph API, " +
          describe(dir, p, inType, st.graphOut, alignment) + ": " + plan.why +
          (st.permute ? std::string(" (graph with the filter in ") +
                            filterName(st.native) + ")"
                      : std::string());
  announce(plan, dir, p, inType, st.graphOut, alignment, st.permuteIn,
           st.permuteOut, st.blendAfter, st.native);
  if (!plan.plan)
    return AMP_RT_ERROR_UNSUPPORTED;

  // Workspace: the permuted input filter, the graph's result, the engine's
  // workspace.
  const size_t total = st.filterBytes + st.resultBytes + size_t(plan.workspace);
  char *ws = nullptr;
  if (total > 0) {
    void *base = nullptr;
    AMP_RT_TRY(workspace(total, &base));
    ws = static_cast<char *>(base);
  }
  void *stagedFilter = st.permuteIn ? ws : nullptr;
  void *result = st.stageOut ? ws + st.filterBytes : out;
  void *engineWs =
      plan.workspace > 0 ? ws + st.filterBytes + st.resultBytes : nullptr;
  void *pointers[3];
  graphPointers(dir, in0, st.permuteIn ? stagedFilter : in1, result, pointers);
  if (byteAlignment({pointers[0], pointers[1], pointers[2]}) < alignment)
    return fail(AMP_RT_ERROR_BACKEND,
                "cuDNN graph API: the workspace is not 256-byte aligned");
  if (st.permuteIn)
    CUDA_CHECK(launchStridedCopy(
        in1, stagedFilter, dtypeSize(inType),
        filterPermutation(d, d.filter_layout, st.native), stream));
  AMP_RT_TRY(execute(handle, plan, pointers, engineWs));
  return finishOutput(st, d, result, out, outType, alpha, beta, stream);
}

} // namespace cuda
} // namespace rt
} // namespace amp
