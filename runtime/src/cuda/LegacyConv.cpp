//===- LegacyConv.cpp - convolutions through cuDNN's legacy API -----------===//
//
// cuDNN's legacy convolution API needs one data type for x, w and y. Low
// outputs use its pseudo-half configuration (16-bit tensors, f32 compute).
// f32 outputs widen the 16-bit inputs to f32 first and run in f32 with
// tensor-op math: on sm_80+ that is TF32, which represents every f16 and
// bf16 value exactly, so the products are exact and accumulate in f32. f32
// inputs run with CUDNN_FMA_MATH. Filters in a layout cuDNN lacks are
// permuted into the workspace first.
//
//===----------------------------------------------------------------------===//

#include "LegacyConv.h"

#include "Kernels.h"

#include <algorithm>
#include <climits>
#include <vector>

namespace amp {
namespace rt {
namespace cuda {

namespace {

Strided4 contiguous(int64_t n) {
  Strided4 s{};
  s.sizes[0] = s.sizes[1] = s.sizes[2] = 1;
  s.sizes[3] = n;
  s.src[3] = s.dst[3] = 1;
  return s;
}

/// RAII holders for cuDNN descriptors.
struct TensorDesc {
  cudnnTensorDescriptor_t d = nullptr;
  ~TensorDesc() {
    if (d)
      cudnnDestroyTensorDescriptor(d);
  }
};
struct FilterDesc {
  cudnnFilterDescriptor_t d = nullptr;
  ~FilterDesc() {
    if (d)
      cudnnDestroyFilterDescriptor(d);
  }
};
struct ConvDesc {
  cudnnConvolutionDescriptor_t d = nullptr;
  ~ConvDesc() {
    if (d)
      cudnnDestroyConvolutionDescriptor(d);
  }
};

/// cuDNN's legacy API takes int sizes.
amp_rt_status checkIntRange(const ConvProblem &p) {
  const amp_rt_conv2d_desc &d = p.desc;
  const int64_t xN = d.N * d.C * d.H * d.W, yN = d.N * d.K * p.P * p.Q,
                wN = filterCount(d);
  for (int64_t n :
       {xN, yN, wN, d.N, d.C, d.H, d.W, d.K, d.R, d.S, p.P, p.Q, d.pad_h,
        d.pad_w, d.stride_h, d.stride_w, d.dil_h, d.dil_w, groupCount(d)})
    if (n > INT_MAX)
      return fail(AMP_RT_ERROR_UNSUPPORTED,
                  "cuDNN convolution: a size or tensor of more than 2^31-1 "
                  "elements");
  return AMP_RT_SUCCESS;
}

/// Which operand (in0, in1, out) of a direction is what: its size in
/// elements and whether it is the filter.
struct Operands {
  int64_t sizes[3];
  bool isFilter[3];
};

Operands describeOperands(ConvDirection dir, const ConvProblem &p) {
  const amp_rt_conv2d_desc &d = p.desc;
  const int64_t xN = d.N * d.C * d.H * d.W, yN = d.N * d.K * p.P * p.Q,
                wN = filterCount(d);
  switch (dir) {
  case ConvDirection::Forward:
    return {{xN, wN, yN}, {false, true, false}};
  case ConvDirection::BackwardData:
    return {{yN, wN, xN}, {false, true, false}};
  case ConvDirection::BackwardFilter:
    break;
  }
  return {{xN, yN, wN}, {false, false, true}};
}

/// The filter's layout against the one cuDNN takes for the data layout
/// (KRSC for NHWC, KCRS for NCHW), and the strided copies between them. Its
/// c dimension is the filter's C / groups input channels.
struct FilterPermutation {
  int64_t sizes[4];
  std::array<int64_t, 4> user, native;
  bool permute;

  static FilterPermutation of(const amp_rt_conv2d_desc &d) {
    const amp_rt_filter_layout native =
        d.layout == AMP_RT_NHWC ? AMP_RT_FILTER_KRSC : AMP_RT_FILTER_KCRS;
    return {{d.K, filterChannels(d), d.R, d.S},
            filterStrides(d.filter_layout, d),
            filterStrides(native, d),
            d.filter_layout != native};
  }
  Strided4 toNative() const { return copy(user, native); }
  Strided4 toUser() const { return copy(native, user); }

private:
  Strided4 copy(const std::array<int64_t, 4> &src,
                const std::array<int64_t, 4> &dst) const {
    return Strided4{{sizes[0], sizes[1], sizes[2], sizes[3]},
                    {src[0], src[1], src[2], src[3]},
                    {dst[0], dst[1], dst[2], dst[3]}};
  }
};

/// Where the workspace holds what: converted / permuted inputs, a temporary
/// output when the result cannot be written in place, then cuDNN's own.
struct StagingPlan {
  bool stageIn[2], stageOut;
  size_t offIn[2], offOut, offAlgo;

  static StagingPlan of(const Operands &ops, amp_rt_dtype compute,
                        amp_rt_dtype inType, amp_rt_dtype outType,
                        bool permuteFilter) {
    auto align = [](size_t v) { return (v + 255) & ~size_t(255); };
    const size_t es = dtypeSize(compute);
    StagingPlan plan;
    size_t total = 0;
    for (int i = 0; i < 2; ++i) {
      plan.stageIn[i] = compute != inType || (ops.isFilter[i] && permuteFilter);
      plan.offIn[i] = total;
      total += plan.stageIn[i] ? align(size_t(ops.sizes[i]) * es) : 0;
    }
    plan.stageOut = compute != outType || (ops.isFilter[2] && permuteFilter);
    plan.offOut = total;
    total += plan.stageOut ? align(size_t(ops.sizes[2]) * es) : 0;
    plan.offAlgo = total;
    return plan;
  }
};

/// The four descriptors of one configuration.
struct Descriptors {
  TensorDesc x, y;
  FilterDesc w;
  ConvDesc conv;
};

amp_rt_status makeDescriptors(const ConvProblem &p, cudnnDataType_t type,
                              bool exactF32, Descriptors &out) {
  const amp_rt_conv2d_desc &d = p.desc;
  cudnnTensorFormat_t format =
      d.layout == AMP_RT_NHWC ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW;
  CUDNN_CHECK(cudnnCreateTensorDescriptor(&out.x.d),
              "cudnnCreateTensorDescriptor");
  CUDNN_CHECK(cudnnCreateTensorDescriptor(&out.y.d),
              "cudnnCreateTensorDescriptor");
  CUDNN_CHECK(cudnnCreateFilterDescriptor(&out.w.d),
              "cudnnCreateFilterDescriptor");
  CUDNN_CHECK(cudnnCreateConvolutionDescriptor(&out.conv.d),
              "cudnnCreateConvolutionDescriptor");
  CUDNN_CHECK(cudnnSetTensor4dDescriptor(out.x.d, format, type, int(d.N),
                                         int(d.C), int(d.H), int(d.W)),
              "cudnnSetTensor4dDescriptor(x)");
  CUDNN_CHECK(cudnnSetTensor4dDescriptor(out.y.d, format, type, int(d.N),
                                         int(d.K), int(p.P), int(p.Q)),
              "cudnnSetTensor4dDescriptor(y)");
  // Grouped: the filter has C / groups input channels, and the convolution
  // descriptor carries the group count.
  CUDNN_CHECK(cudnnSetFilter4dDescriptor(out.w.d, type, format, int(d.K),
                                         int(filterChannels(d)), int(d.R),
                                         int(d.S)),
              "cudnnSetFilter4dDescriptor");
  CUDNN_CHECK(cudnnSetConvolution2dDescriptor(
                  out.conv.d, int(d.pad_h), int(d.pad_w), int(d.stride_h),
                  int(d.stride_w), int(d.dil_h), int(d.dil_w),
                  CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT),
              "cudnnSetConvolution2dDescriptor");
  CUDNN_CHECK(cudnnSetConvolutionGroupCount(out.conv.d, int(groupCount(d))),
              "cudnnSetConvolutionGroupCount");
  CUDNN_CHECK(cudnnSetConvolutionMathType(
                  out.conv.d, exactF32 ? CUDNN_FMA_MATH : CUDNN_TENSOR_OP_MATH),
              "cudnnSetConvolutionMathType");
  return AMP_RT_SUCCESS;
}

/// The cuDNN call of `dir`; `*call` names it for the error message.
cudnnStatus_t callConvolution(cudnnHandle_t cudnn, ConvDirection dir,
                              const Descriptors &descs,
                              const void *const operand[2], int algo,
                              void *algoWs, size_t algoWsSize, float a, float b,
                              void *result, const char **call) {
  switch (dir) {
  case ConvDirection::Forward:
    *call = "cudnnConvolutionForward";
    return cudnnConvolutionForward(cudnn, &a, descs.x.d, operand[0], descs.w.d,
                                   operand[1], descs.conv.d,
                                   cudnnConvolutionFwdAlgo_t(algo), algoWs,
                                   algoWsSize, &b, descs.y.d, result);
  case ConvDirection::BackwardData:
    *call = "cudnnConvolutionBackwardData";
    return cudnnConvolutionBackwardData(
        cudnn, &a, descs.w.d, operand[1], descs.y.d, operand[0], descs.conv.d,
        cudnnConvolutionBwdDataAlgo_t(algo), algoWs, algoWsSize, &b, descs.x.d,
        result);
  case ConvDirection::BackwardFilter:
    break;
  }
  *call = "cudnnConvolutionBackwardFilter";
  return cudnnConvolutionBackwardFilter(
      cudnn, &a, descs.x.d, operand[0], descs.y.d, operand[1], descs.conv.d,
      cudnnConvolutionBwdFilterAlgo_t(algo), algoWs, algoWsSize, &b, descs.w.d,
      result);
}

} // namespace

amp_rt_status LegacyConv::chooseAlgo(cudnnHandle_t cudnn, ConvDirection dir,
                                     const ConvProblem &p, cudnnDataType_t type,
                                     bool exactF32, cudnnTensorDescriptor_t x,
                                     cudnnFilterDescriptor_t w,
                                     cudnnConvolutionDescriptor_t conv,
                                     cudnnTensorDescriptor_t y, Algo &out) {
  const amp_rt_conv2d_desc &d = p.desc;
  std::array<int64_t, 18> key = {
      int64_t(dir), int64_t(type), d.layout, d.N,     d.H,           d.W,
      d.C,          d.K,           d.R,      d.S,     d.pad_h,       d.pad_w,
      d.stride_h,   d.stride_w,    d.dil_h,  d.dil_w, groupCount(d), 0};
  key[17] = exactF32; // same cuDNN type, different math
  auto it = algoCache.find(key);
  if (it != algoCache.end()) {
    out = it->second;
    return AMP_RT_SUCCESS;
  }
  // cuDNN's heuristics rank the algorithms; take the first that works
  // within the workspace limit, preferring tensor-op ones. (Timing them all
  // with cudnnFind* chose no faster ones on an H200.)
  struct Candidate {
    int algo;
    cudnnStatus_t status;
    size_t memory;
    cudnnMathType_t math;
  };
  std::vector<Candidate> candidates;
  int returned = 0;
  auto collect = [&](const auto *perf) {
    for (int i = 0; i < returned; ++i)
      candidates.push_back({int(perf[i].algo), perf[i].status, perf[i].memory,
                            perf[i].mathType});
  };
  if (dir == ConvDirection::Forward) {
    cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
    const int n = CUDNN_CONVOLUTION_FWD_ALGO_COUNT;
    CUDNN_CHECK(cudnnGetConvolutionForwardAlgorithm_v7(cudnn, x, w, conv, y, n,
                                                       &returned, perf),
                "cudnnGetConvolutionForwardAlgorithm_v7");
    collect(perf);
  } else if (dir == ConvDirection::BackwardData) {
    cudnnConvolutionBwdDataAlgoPerf_t
        perf[CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT];
    const int n = CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT;
    CUDNN_CHECK(cudnnGetConvolutionBackwardDataAlgorithm_v7(
                    cudnn, w, y, conv, x, n, &returned, perf),
                "cudnnGetConvolutionBackwardDataAlgorithm_v7");
    collect(perf);
  } else {
    cudnnConvolutionBwdFilterAlgoPerf_t
        perf[CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT];
    const int n = CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT;
    CUDNN_CHECK(cudnnGetConvolutionBackwardFilterAlgorithm_v7(
                    cudnn, x, y, conv, w, n, &returned, perf),
                "cudnnGetConvolutionBackwardFilterAlgorithm_v7");
    collect(perf);
  }
  for (bool tensorOpsOnly : {!exactF32, false})
    for (const Candidate &c : candidates)
      if (c.status == CUDNN_STATUS_SUCCESS && c.memory <= kMaxConvWorkspace &&
          (!tensorOpsOnly || c.math != CUDNN_DEFAULT_MATH) &&
          // f32 data must not be rounded to f16 (bf16 values do not fit),
          // nor f32 inputs to TF32.
          c.math != CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION &&
          (!exactF32 || c.math == CUDNN_FMA_MATH ||
           c.math == CUDNN_DEFAULT_MATH)) {
        // DEFAULT_MATH may use TF32 on sm_80+: run exact f32 as FMA_MATH.
        out = {c.algo, exactF32 ? CUDNN_FMA_MATH : c.math, c.memory};
        algoCache[key] = out;
        return AMP_RT_SUCCESS;
      }
  return fail(AMP_RT_ERROR_UNSUPPORTED,
              "cuDNN has no algorithm for this convolution (%s, %d "
              "candidates, workspace limit %zu bytes)",
              type == CUDNN_DATA_FLOAT ? "f32" : "16-bit", returned,
              kMaxConvWorkspace);
}

/// Stages the inputs the plan names in the workspace `ws`, widened to the
/// compute type and/or with the filter permuted; `operand` gets what the
/// convolution reads.
static amp_rt_status stageInputs(const Operands &ops, const StagingPlan &plan,
                                 const FilterPermutation &filter,
                                 amp_rt_dtype inType, amp_rt_dtype compute,
                                 const void *const inputs[2], char *ws,
                                 cudaStream_t stream, const void *operand[2]) {
  const size_t es = dtypeSize(compute);
  for (int i = 0; i < 2; ++i) {
    operand[i] = inputs[i];
    if (!plan.stageIn[i])
      continue;
    void *dst = ws + plan.offIn[i];
    Strided4 s = ops.isFilter[i] ? filter.toNative() : contiguous(ops.sizes[i]);
    if (compute == inType)
      CUDA_CHECK(cuda::launchStridedCopy(inputs[i], dst, es, s, stream));
    else
      CUDA_CHECK(cuda::launchAxpby(inputs[i], inType, dst, compute, s, 1.0f,
                                   0.0f, stream));
    operand[i] = dst;
  }
  return AMP_RT_SUCCESS;
}

amp_rt_status LegacyConv::run(cudnnHandle_t cudnn, cudaStream_t stream,
                              ConvDirection dir, const ConvProblem &p,
                              amp_rt_dtype inType, amp_rt_dtype outType,
                              float alpha, const void *in0, const void *in1,
                              float beta, void *out,
                              const WorkspaceFn &workspace) {
  AMP_RT_TRY(checkIntRange(p));
  const Operands ops = describeOperands(dir, p);
  const FilterPermutation filter = FilterPermutation::of(p.desc);
  const void *inputs[2] = {in0, in1};

  // Try the 16-bit configuration for 16-bit outputs, f32 otherwise (or when
  // cuDNN does not support the 16-bit one, e.g. some bf16 layouts). A call
  // that accumulates (beta != 0) into a 16-bit output goes to f32 at once:
  // cuDNN's 16-bit backward-filter kernels blend beta * out after rounding
  // the product, which missed the contract of one rounding by up to 0.9 ulp
  // on an H200 (ConvTest.VariedGeometriesWithAlphaBeta).
  std::vector<amp_rt_dtype> attempts;
  if (outType == AMP_RT_F32 || beta == 0.0f)
    attempts.push_back(outType);
  if (outType != AMP_RT_F32)
    attempts.push_back(AMP_RT_F32);
  amp_rt_status last = AMP_RT_SUCCESS;
  for (amp_rt_dtype compute : attempts) {
    const StagingPlan plan =
        StagingPlan::of(ops, compute, inType, outType, filter.permute);
    const bool exactF32 = inType == AMP_RT_F32;
    Descriptors descs;
    AMP_RT_TRY(makeDescriptors(p, cudnnType(compute), exactF32, descs));
    Algo algo;
    last = chooseAlgo(cudnn, dir, p, cudnnType(compute), exactF32, descs.x.d,
                      descs.w.d, descs.conv.d, descs.y.d, algo);
    if (last == AMP_RT_ERROR_UNSUPPORTED)
      continue;
    AMP_RT_TRY(last);
    CUDNN_CHECK(cudnnSetConvolutionMathType(descs.conv.d, algo.math),
                "cudnnSetConvolutionMathType");
    void *base = nullptr;
    AMP_RT_TRY(
        workspace(std::max<size_t>(plan.offAlgo + algo.workspace, 1), &base));
    char *ws = static_cast<char *>(base);

    const void *operand[2];
    AMP_RT_TRY(stageInputs(ops, plan, filter, inType, compute, inputs, ws,
                           stream, operand));
    void *result = plan.stageOut ? ws + plan.offOut : out;
    const float a = plan.stageOut ? 1.0f : alpha;
    const float b = plan.stageOut ? 0.0f : beta;
    void *algoWs = algo.workspace ? ws + plan.offAlgo : nullptr;
    const char *call;
    cudnnStatus_t s =
        callConvolution(cudnn, dir, descs, operand, algo.algo, algoWs,
                        algo.workspace, a, b, result, &call);
    if (s == CUDNN_STATUS_NOT_SUPPORTED && compute != AMP_RT_F32) {
      last = cudnnFailure(call, s);
      continue;
    }
    CUDNN_CHECK(s, call);
    if (plan.stageOut) {
      // out = alpha * result + beta * out, narrowing and/or un-permuting.
      Strided4 o = ops.isFilter[2] ? filter.toUser() : contiguous(ops.sizes[2]);
      CUDA_CHECK(cuda::launchAxpby(result, compute, out, outType, o, alpha,
                                   beta, stream));
    }
    return AMP_RT_SUCCESS;
  }
  return last; // every attempt was unsupported; the message says why
}

} // namespace cuda
} // namespace rt
} // namespace amp
