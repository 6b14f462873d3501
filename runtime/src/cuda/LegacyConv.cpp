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

} // namespace

amp_rt_status LegacyConv::chooseAlgo(cudnnHandle_t cudnn, ConvDirection dir,
                                     const ConvProblem &p, cudnnDataType_t type,
                                     bool exactF32, cudnnTensorDescriptor_t x,
                                     cudnnFilterDescriptor_t w,
                                     cudnnConvolutionDescriptor_t conv,
                                     cudnnTensorDescriptor_t y, Algo &out) {
  const amp_rt_conv2d_desc &d = p.desc;
  std::array<int64_t, 17> key = {
      int64_t(dir), int64_t(type), d.layout, d.N,     d.H,     d.W,
      d.C,          d.K,           d.R,      d.S,     d.pad_h, d.pad_w,
      d.stride_h,   d.stride_w,    d.dil_h,  d.dil_w, 0};
  key[16] = exactF32; // same cuDNN type, different math
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

amp_rt_status LegacyConv::run(cudnnHandle_t cudnn, cudaStream_t stream,
                              ConvDirection dir, const ConvProblem &p,
                              amp_rt_dtype inType, amp_rt_dtype outType,
                              float alpha, const void *in0, const void *in1,
                              float beta, void *out,
                              const WorkspaceFn &workspace) {
  const amp_rt_conv2d_desc &d = p.desc;
  const bool nhwc = d.layout == AMP_RT_NHWC;
  const int64_t xN = d.N * d.C * d.H * d.W, yN = d.N * d.K * p.P * p.Q,
                wN = d.K * d.C * d.R * d.S;
  for (int64_t n : {xN, yN, wN, d.N, d.C, d.H, d.W, d.K, d.R, d.S, p.P, p.Q,
                    d.pad_h, d.pad_w, d.stride_h, d.stride_w, d.dil_h, d.dil_w})
    if (n > INT_MAX)
      return fail(AMP_RT_ERROR_UNSUPPORTED,
                  "cuDNN convolution: a size or tensor of more than 2^31-1 "
                  "elements");
  const amp_rt_filter_layout native =
      nhwc ? AMP_RT_FILTER_KRSC : AMP_RT_FILTER_KCRS;
  const bool permuteFilter = d.filter_layout != native;
  std::array<int64_t, 4> userW = filterStrides(d.filter_layout, d),
                         nativeW = filterStrides(native, d);

  // Which operand is what: sizes (elements) and whether it is the filter.
  const void *inputs[2] = {in0, in1};
  bool isFilter[3] = {false, dir != ConvDirection::BackwardFilter,
                      dir == ConvDirection::BackwardFilter};
  int64_t sizes[3];
  switch (dir) {
  case ConvDirection::Forward:
    sizes[0] = xN, sizes[1] = wN, sizes[2] = yN;
    break;
  case ConvDirection::BackwardData:
    sizes[0] = yN, sizes[1] = wN, sizes[2] = xN;
    break;
  case ConvDirection::BackwardFilter:
    sizes[0] = xN, sizes[1] = yN, sizes[2] = wN;
    break;
  }

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
    size_t es = dtypeSize(compute);
    // Staging plan inside the workspace: converted / permuted inputs, a
    // temporary output when it cannot be written in place, then cuDNN's.
    bool stageIn[2], stageOut;
    for (int i = 0; i < 2; ++i)
      stageIn[i] = compute != inType || (isFilter[i] && permuteFilter);
    stageOut = compute != outType || (isFilter[2] && permuteFilter);
    auto align = [](size_t v) { return (v + 255) & ~size_t(255); };
    size_t offIn[2], offOut, offAlgo, total = 0;
    for (int i = 0; i < 2; ++i) {
      offIn[i] = total;
      total += stageIn[i] ? align(size_t(sizes[i]) * es) : 0;
    }
    offOut = total;
    total += stageOut ? align(size_t(sizes[2]) * es) : 0;
    offAlgo = total;

    cudnnDataType_t type = cudnnType(compute);
    cudnnTensorFormat_t format = nhwc ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW;
    TensorDesc xd, yd;
    FilterDesc wd;
    ConvDesc cd;
    CUDNN_CHECK(cudnnCreateTensorDescriptor(&xd.d),
                "cudnnCreateTensorDescriptor");
    CUDNN_CHECK(cudnnCreateTensorDescriptor(&yd.d),
                "cudnnCreateTensorDescriptor");
    CUDNN_CHECK(cudnnCreateFilterDescriptor(&wd.d),
                "cudnnCreateFilterDescriptor");
    CUDNN_CHECK(cudnnCreateConvolutionDescriptor(&cd.d),
                "cudnnCreateConvolutionDescriptor");
    CUDNN_CHECK(cudnnSetTensor4dDescriptor(xd.d, format, type, int(d.N),
                                           int(d.C), int(d.H), int(d.W)),
                "cudnnSetTensor4dDescriptor(x)");
    CUDNN_CHECK(cudnnSetTensor4dDescriptor(yd.d, format, type, int(d.N),
                                           int(d.K), int(p.P), int(p.Q)),
                "cudnnSetTensor4dDescriptor(y)");
    CUDNN_CHECK(cudnnSetFilter4dDescriptor(wd.d, type, format, int(d.K),
                                           int(d.C), int(d.R), int(d.S)),
                "cudnnSetFilter4dDescriptor");
    CUDNN_CHECK(cudnnSetConvolution2dDescriptor(
                    cd.d, int(d.pad_h), int(d.pad_w), int(d.stride_h),
                    int(d.stride_w), int(d.dil_h), int(d.dil_w),
                    CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT),
                "cudnnSetConvolution2dDescriptor");
    const bool exactF32 = inType == AMP_RT_F32;
    CUDNN_CHECK(cudnnSetConvolutionMathType(
                    cd.d, exactF32 ? CUDNN_FMA_MATH : CUDNN_TENSOR_OP_MATH),
                "cudnnSetConvolutionMathType");
    Algo algo;
    last =
        chooseAlgo(cudnn, dir, p, type, exactF32, xd.d, wd.d, cd.d, yd.d, algo);
    if (last == AMP_RT_ERROR_UNSUPPORTED)
      continue;
    AMP_RT_TRY(last);
    CUDNN_CHECK(cudnnSetConvolutionMathType(cd.d, algo.math),
                "cudnnSetConvolutionMathType");
    void *base = nullptr;
    AMP_RT_TRY(workspace(std::max<size_t>(offAlgo + algo.workspace, 1), &base));
    char *ws = static_cast<char *>(base);

    // Stage inputs: widen to the compute type and/or permute the filter.
    const void *operand[2];
    for (int i = 0; i < 2; ++i) {
      operand[i] = inputs[i];
      if (!stageIn[i])
        continue;
      void *dst = ws + offIn[i];
      Strided4 s = contiguous(sizes[i]);
      if (isFilter[i]) {
        s = Strided4{{d.K, d.C, d.R, d.S},
                     {userW[0], userW[1], userW[2], userW[3]},
                     {nativeW[0], nativeW[1], nativeW[2], nativeW[3]}};
      }
      if (compute == inType)
        CUDA_CHECK(cuda::launchStridedCopy(inputs[i], dst, es, s, stream));
      else
        CUDA_CHECK(cuda::launchAxpby(inputs[i], inType, dst, compute, s, 1.0f,
                                     0.0f, stream));
      operand[i] = dst;
    }
    void *result = stageOut ? ws + offOut : out;
    float a = stageOut ? 1.0f : alpha, b = stageOut ? 0.0f : beta;
    void *algoWs = algo.workspace ? ws + offAlgo : nullptr;
    cudnnStatus_t s;
    const char *call;
    switch (dir) {
    case ConvDirection::Forward:
      call = "cudnnConvolutionForward";
      s = cudnnConvolutionForward(cudnn, &a, xd.d, operand[0], wd.d, operand[1],
                                  cd.d, cudnnConvolutionFwdAlgo_t(algo.algo),
                                  algoWs, algo.workspace, &b, yd.d, result);
      break;
    case ConvDirection::BackwardData:
      call = "cudnnConvolutionBackwardData";
      s = cudnnConvolutionBackwardData(
          cudnn, &a, wd.d, operand[1], yd.d, operand[0], cd.d,
          cudnnConvolutionBwdDataAlgo_t(algo.algo), algoWs, algo.workspace, &b,
          xd.d, result);
      break;
    default:
      call = "cudnnConvolutionBackwardFilter";
      s = cudnnConvolutionBackwardFilter(
          cudnn, &a, xd.d, operand[0], yd.d, operand[1], cd.d,
          cudnnConvolutionBwdFilterAlgo_t(algo.algo), algoWs, algo.workspace,
          &b, wd.d, result);
      break;
    }
    if (s == CUDNN_STATUS_NOT_SUPPORTED && compute != AMP_RT_F32) {
      last = cudnnFailure(call, s);
      continue;
    }
    CUDNN_CHECK(s, call);
    if (stageOut) {
      // out = alpha * result + beta * out, narrowing and/or un-permuting.
      Strided4 o = contiguous(sizes[2]);
      if (isFilter[2])
        o = Strided4{{d.K, d.C, d.R, d.S},
                     {nativeW[0], nativeW[1], nativeW[2], nativeW[3]},
                     {userW[0], userW[1], userW[2], userW[3]}};
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
