//===- CUDABackend.cpp - the cuda backend (libamp_rt_cuda.so) -------------===//
//
// GEMMs go to cublasGemmStridedBatchedEx with CUBLAS_COMPUTE_32F (f16/bf16
// inputs on tensor cores, f32 accumulation; f32 inputs in plain f32, never
// TF32); convolutions to cuDNN; loss scaling to the kernels of Kernels.cu.
// All work is issued on one stream owned by the backend, in call order.
//
// Convolutions with 16-bit inputs first try cuDNN's graph API (GraphConv.h),
// which takes the tensors as stored, with their real types. f32 inputs,
// problems the graph API has no engine for, and AMP_RT_CUDNN_API=legacy
// take the legacy API below, which needs one data type for x, w and y. Low
// outputs use its pseudo-half configuration (16-bit tensors, f32 compute).
// f32 outputs widen the 16-bit inputs to f32 first and run in f32 with
// tensor-op math: on sm_80+ that is TF32, which represents every f16 and
// bf16 value exactly, so the products are exact and accumulate in f32. f32
// inputs run with CUDNN_FMA_MATH.
//
//===----------------------------------------------------------------------===//

#include "../Backend.h"
#include "CudaCommon.h"
#include "GraphConv.h"
#include "Kernels.h"

#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <cudnn.h>

#include <algorithm>
#include <array>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

namespace amp {
namespace rt {
namespace {

using cuda::cudaType;
using cuda::cudnnFailure;
using cuda::cudnnType;
using cuda::filterStrides;
using cuda::kMaxConvWorkspace;
using cuda::Strided4;

const char *cublasName(cublasStatus_t s) { return cublasGetStatusName(s); }

#define CUBLAS_CHECK(call, what)                                               \
  do {                                                                         \
    cublasStatus_t s_ = (call);                                                \
    if (s_ != CUBLAS_STATUS_SUCCESS)                                           \
      return fail(AMP_RT_ERROR_BACKEND, "%s failed: %s", what,                 \
                  cublasName(s_));                                             \
  } while (false)

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

/// Which cuDNN API runs convolutions with 16-bit inputs (AMP_RT_CUDNN_API):
/// unset, the graph API and, where it has no engine, the legacy one;
/// "legacy", the legacy API only; "graph", the graph API only (a problem it
/// has no engine for is an error: for checking its coverage).
enum class CudnnApi { GraphThenLegacy, Legacy, Graph };

class CUDABackend final : public Backend {
public:
  ~CUDABackend() override {
    graphConv.clear(); // plans go before the handle they were built with
    if (workspace)
      cudaFree(workspace);
    if (table)
      cudaFree(table);
    if (pinnedTable)
      cudaFreeHost(pinnedTable);
    if (tableCopied)
      cudaEventDestroy(tableCopied);
    if (cudnn)
      cudnnDestroy(cudnn);
    if (cublas)
      cublasDestroy(cublas);
    if (stream)
      cudaStreamDestroy(stream);
  }

  /// Sets up device, stream and library handles; on failure returns the
  /// reason in `why`.
  bool init(std::string &why);

  const char *name() const override { return "cuda"; }
  bool usesHostMemory() const override { return false; }

  amp_rt_status allocate(size_t bytes, void **ptr) override {
    CUDA_CHECK(cudaMalloc(ptr, bytes));
    return AMP_RT_SUCCESS;
  }
  amp_rt_status deallocate(void *ptr) override {
    CUDA_CHECK(cudaFree(ptr));
    return AMP_RT_SUCCESS;
  }
  amp_rt_status copyToDevice(void *dst, const void *src,
                             size_t bytes) override {
    CUDA_CHECK(
        cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, stream));
    return AMP_RT_SUCCESS;
  }
  amp_rt_status copyToHost(void *dst, const void *src, size_t bytes) override {
    CUDA_CHECK(
        cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, stream));
    return synchronize();
  }
  amp_rt_status fillZero(void *dst, size_t bytes) override {
    CUDA_CHECK(cudaMemsetAsync(dst, 0, bytes, stream));
    return AMP_RT_SUCCESS;
  }
  amp_rt_status copyStrided(const StridedCopy &c) override {
    Strided4 s{};
    int off = 4 - c.rank;
    for (int i = 0; i < 4; ++i) {
      s.sizes[i] = i < off ? 1 : c.sizes[i - off];
      s.src[i] = i < off ? 0 : c.srcStrides[i - off];
      s.dst[i] = i < off ? 0 : c.dstStrides[i - off];
    }
    CUDA_CHECK(cuda::launchStridedCopy(c.src, c.dst, c.elemSize, s, stream));
    return AMP_RT_SUCCESS;
  }
  amp_rt_status synchronize() override {
    CUDA_CHECK(cudaStreamSynchronize(stream));
    CUDA_CHECK(cudaGetLastError());
    return AMP_RT_SUCCESS;
  }

  amp_rt_status gemm(const GemmArgs &g) override;
  amp_rt_status conv(ConvDirection dir, const ConvProblem &p,
                     amp_rt_dtype inType, amp_rt_dtype outType, float alpha,
                     const void *in0, const void *in1, float beta,
                     void *out) override;
  amp_rt_status unscaleAndCheck(void *const *tensors,
                                const amp_rt_dtype *dtypes,
                                const int64_t *counts, int64_t n,
                                float invScale, int32_t *foundInf) override;
  amp_rt_status updateScale(float *scale, int32_t *goodSteps,
                            const int32_t *foundInf,
                            const ScaleParams &p) override {
    CUDA_CHECK(cuda::launchUpdateScale(scale, goodSteps, foundInf, p.growth,
                                       p.backoff, p.interval, p.minScale,
                                       p.maxScale, stream));
    return AMP_RT_SUCCESS;
  }

private:
  /// The convolution on cuDNN's legacy API.
  amp_rt_status legacyConv(ConvDirection dir, const ConvProblem &p,
                           amp_rt_dtype inType, amp_rt_dtype outType,
                           float alpha, const void *in0, const void *in1,
                           float beta, void *out);

  /// Grows the backend's scratch buffer to at least `bytes`.
  amp_rt_status reserveWorkspace(size_t bytes) {
    if (bytes <= workspaceSize)
      return AMP_RT_SUCCESS;
    size_t size = std::max(bytes, workspaceSize + workspaceSize / 2);
    if (workspace) {
      // Queued work may still read the old buffer.
      CUDA_CHECK(cudaStreamSynchronize(stream));
      CUDA_CHECK(cudaFree(workspace));
      workspace = nullptr;
      workspaceSize = 0;
    }
    CUDA_CHECK(cudaMalloc(&workspace, size));
    workspaceSize = size;
    return AMP_RT_SUCCESS;
  }

  struct Algo {
    int algo;
    cudnnMathType_t math;
    size_t workspace;
  };
  /// `exactF32`: f32 inputs, which must not be rounded to TF32, so only
  /// FMA-math algorithms qualify.
  amp_rt_status chooseAlgo(ConvDirection dir, const ConvProblem &p,
                           cudnnDataType_t type, bool exactF32,
                           cudnnTensorDescriptor_t x, cudnnFilterDescriptor_t w,
                           cudnnConvolutionDescriptor_t conv,
                           cudnnTensorDescriptor_t y, Algo &out);

  int device = 0;
  cudaStream_t stream = nullptr;
  cublasHandle_t cublas = nullptr;
  cudnnHandle_t cudnn = nullptr;
  void *workspace = nullptr;
  size_t workspaceSize = 0;
  // Chunk table of the fused unscale: filled in pinned host memory, copied
  // asynchronously; the event says when the pinned copy may be rewritten.
  cuda::UnscaleEntry *pinnedTable = nullptr, *table = nullptr;
  int64_t tableCapacity = 0;
  cudaEvent_t tableCopied = nullptr;
  std::map<std::array<int64_t, 17>, Algo> algoCache;
  CudnnApi cudnnApi = CudnnApi::GraphThenLegacy;
  cuda::GraphConvPlans graphConv{kMaxConvWorkspace};
};

bool CUDABackend::init(std::string &why) {
  char buf[512];
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) {
    why = std::string("no CUDA device: cudaGetDeviceCount failed: ") +
          cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")";
    return false;
  }
  if (count == 0) {
    why = "no CUDA device: cudaGetDeviceCount found 0 devices";
    return false;
  }
  if (const char *env = std::getenv("AMP_RT_CUDA_DEVICE"))
    device = std::atoi(env);
  if (device < 0 || device >= count) {
    std::snprintf(buf, sizeof(buf),
                  "AMP_RT_CUDA_DEVICE=%d but only %d device(s) exist", device,
                  count);
    why = buf;
    return false;
  }
  cudaDeviceProp prop;
  if ((e = cudaGetDeviceProperties(&prop, device)) != cudaSuccess ||
      (e = cudaSetDevice(device)) != cudaSuccess) {
    why = std::string("cannot use CUDA device: ") + cudaGetErrorString(e);
    return false;
  }
  if (prop.major < 8) {
    std::snprintf(buf, sizeof(buf),
                  "CUDA device %d (%s) has compute capability %d.%d; "
                  "libamp_rt_cuda is built for sm_80 and sm_90 (8.0+)",
                  device, prop.name, prop.major, prop.minor);
    why = buf;
    return false;
  }
  if ((e = cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking)) !=
          cudaSuccess ||
      (e = cudaEventCreateWithFlags(&tableCopied, cudaEventDisableTiming)) !=
          cudaSuccess) {
    why = std::string("cannot create a CUDA stream: ") + cudaGetErrorString(e);
    return false;
  }
  cublasStatus_t bs = cublasCreate(&cublas);
  if (bs == CUBLAS_STATUS_SUCCESS)
    bs = cublasSetStream(cublas, stream);
  if (bs != CUBLAS_STATUS_SUCCESS) {
    why = std::string("cublasCreate failed: ") + cublasName(bs);
    return false;
  }
  cudnnStatus_t ds = cudnnCreate(&cudnn);
  if (ds == CUDNN_STATUS_SUCCESS)
    ds = cudnnSetStream(cudnn, stream);
  if (ds != CUDNN_STATUS_SUCCESS) {
    why = std::string("cudnnCreate failed: ") + cudnnGetErrorString(ds);
    return false;
  }
  if (const char *env = std::getenv("AMP_RT_CUDNN_API"))
    cudnnApi = std::strcmp(env, "legacy") == 0  ? CudnnApi::Legacy
               : std::strcmp(env, "graph") == 0 ? CudnnApi::Graph
                                                : CudnnApi::GraphThenLegacy;
  const char *verbose = std::getenv("AMP_RT_VERBOSE");
  graphConv.setVerbose(verbose && std::atoi(verbose) > 0);
  return true;
}

amp_rt_status CUDABackend::gemm(const GemmArgs &g) {
  // Row-major C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T: swap
  // the operands and keep each one's transpose flag.
  cublasOperation_t opA = g.transA ? CUBLAS_OP_T : CUBLAS_OP_N;
  cublasOperation_t opB = g.transB ? CUBLAS_OP_T : CUBLAS_OP_N;
  float alpha = g.alpha, beta = g.beta;
  // f32 inputs: CUBLAS_COMPUTE_32F with the handle's default math mode is
  // true f32 (TF32 needs CUBLAS_COMPUTE_32F_FAST_TF32 or the TF32 math mode).
  cublasGemmAlgo_t algo = g.abType == AMP_RT_F32
                              ? CUBLAS_GEMM_DEFAULT
                              : CUBLAS_GEMM_DEFAULT_TENSOR_OP;
  CUBLAS_CHECK(cublasGemmStridedBatchedEx_64(
                   cublas, opB, opA, g.N, g.M, g.K, &alpha, g.B,
                   cudaType(g.abType), g.ldb, g.strideB, g.A,
                   cudaType(g.abType), g.lda, g.strideA, &beta, g.C,
                   cudaType(g.cType), g.ldc, g.strideC, g.batch,
                   CUBLAS_COMPUTE_32F, algo),
               "cublasGemmStridedBatchedEx");
  return AMP_RT_SUCCESS;
}

amp_rt_status CUDABackend::chooseAlgo(ConvDirection dir, const ConvProblem &p,
                                      cudnnDataType_t type, bool exactF32,
                                      cudnnTensorDescriptor_t x,
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

amp_rt_status CUDABackend::conv(ConvDirection dir, const ConvProblem &p,
                                amp_rt_dtype inType, amp_rt_dtype outType,
                                float alpha, const void *in0, const void *in1,
                                float beta, void *out) {
  if (inType != AMP_RT_F32 && cudnnApi != CudnnApi::Legacy) {
    cuda::WorkspaceFn grow = [this](size_t bytes, void **ptr) {
      AMP_RT_TRY(reserveWorkspace(bytes));
      *ptr = workspace;
      return AMP_RT_SUCCESS;
    };
    amp_rt_status s = graphConv.run(cudnn, stream, dir, p, inType, outType,
                                    alpha, in0, in1, beta, out, grow);
    if (s != AMP_RT_ERROR_UNSUPPORTED)
      return s;
    if (cudnnApi == CudnnApi::Graph)
      return fail(AMP_RT_ERROR_UNSUPPORTED, "%s (AMP_RT_CUDNN_API=graph)",
                  graphConv.whyUnsupported().c_str());
  }
  return legacyConv(dir, p, inType, outType, alpha, in0, in1, beta, out);
}

amp_rt_status CUDABackend::legacyConv(ConvDirection dir, const ConvProblem &p,
                                      amp_rt_dtype inType, amp_rt_dtype outType,
                                      float alpha, const void *in0,
                                      const void *in1, float beta, void *out) {
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
    last = chooseAlgo(dir, p, type, exactF32, xd.d, wd.d, cd.d, yd.d, algo);
    if (last == AMP_RT_ERROR_UNSUPPORTED)
      continue;
    AMP_RT_TRY(last);
    CUDNN_CHECK(cudnnSetConvolutionMathType(cd.d, algo.math),
                "cudnnSetConvolutionMathType");
    AMP_RT_TRY(reserveWorkspace(std::max<size_t>(offAlgo + algo.workspace, 1)));
    char *ws = static_cast<char *>(workspace);

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

amp_rt_status CUDABackend::unscaleAndCheck(void *const *tensors,
                                           const amp_rt_dtype *dtypes,
                                           const int64_t *counts, int64_t n,
                                           float invScale, int32_t *foundInf) {
  CUDA_CHECK(cudaMemsetAsync(foundInf, 0, sizeof(int32_t), stream));
  int64_t chunks = 0;
  for (int64_t t = 0; t < n; ++t)
    chunks += (counts[t] + cuda::kUnscaleChunk - 1) / cuda::kUnscaleChunk;
  if (chunks == 0)
    return AMP_RT_SUCCESS;
  if (chunks > tableCapacity) {
    CUDA_CHECK(cudaStreamSynchronize(stream));
    if (table)
      CUDA_CHECK(cudaFree(table));
    if (pinnedTable)
      CUDA_CHECK(cudaFreeHost(pinnedTable));
    table = pinnedTable = nullptr;
    tableCapacity = 0;
    int64_t capacity = std::max<int64_t>(chunks, 1024);
    CUDA_CHECK(cudaMalloc(reinterpret_cast<void **>(&table),
                          size_t(capacity) * sizeof(*table)));
    CUDA_CHECK(cudaMallocHost(reinterpret_cast<void **>(&pinnedTable),
                              size_t(capacity) * sizeof(*table)));
    tableCapacity = capacity;
  } else {
    // The previous call's copy may still be reading the pinned table.
    CUDA_CHECK(cudaEventSynchronize(tableCopied));
  }
  int64_t c = 0;
  for (int64_t t = 0; t < n; ++t) {
    char *base = static_cast<char *>(tensors[t]);
    size_t es = dtypeSize(dtypes[t]);
    for (int64_t i = 0; i < counts[t]; i += cuda::kUnscaleChunk)
      pinnedTable[c++] = {base + i * es,
                          std::min(cuda::kUnscaleChunk, counts[t] - i),
                          int32_t(dtypes[t])};
  }
  CUDA_CHECK(cudaMemcpyAsync(table, pinnedTable,
                             size_t(chunks) * sizeof(*table),
                             cudaMemcpyHostToDevice, stream));
  CUDA_CHECK(cudaEventRecord(tableCopied, stream));
  CUDA_CHECK(cuda::launchUnscale(table, chunks, invScale, foundInf, stream));
  return AMP_RT_SUCCESS;
}

} // namespace
} // namespace rt
} // namespace amp

extern "C" AMP_RT_API amp::rt::Backend *
amp_rt_cuda_create_backend(int abiVersion, char *why, size_t whyLen) {
  using namespace amp::rt;
  if (abiVersion != kBackendAbiVersion) {
    std::snprintf(why, whyLen,
                  "libamp_rt_cuda.so is from another build (backend ABI %d, "
                  "libamp_rt expects %d)",
                  kBackendAbiVersion, abiVersion);
    return nullptr;
  }
  auto *be = new CUDABackend();
  std::string reason;
  if (!be->init(reason)) {
    std::snprintf(why, whyLen, "%s", reason.c_str());
    delete be;
    return nullptr;
  }
  return be;
}
