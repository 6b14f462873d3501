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
// take the legacy API (LegacyConv.h).
//
//===----------------------------------------------------------------------===//

#include "../Backend.h"
#include "CudaCommon.h"
#include "GraphConv.h"
#include "Kernels.h"
#include "LegacyConv.h"

#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <cudnn.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace amp {
namespace rt {
namespace {

using cuda::cudaType;
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
  cuda::LegacyConv legacyConv;
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

amp_rt_status CUDABackend::conv(ConvDirection dir, const ConvProblem &p,
                                amp_rt_dtype inType, amp_rt_dtype outType,
                                float alpha, const void *in0, const void *in1,
                                float beta, void *out) {
  cuda::WorkspaceFn grow = [this](size_t bytes, void **ptr) {
    AMP_RT_TRY(reserveWorkspace(bytes));
    *ptr = workspace;
    return AMP_RT_SUCCESS;
  };
  if (inType != AMP_RT_F32 && cudnnApi != CudnnApi::Legacy) {
    amp_rt_status s = graphConv.run(cudnn, stream, dir, p, inType, outType,
                                    alpha, in0, in1, beta, out, grow);
    if (s != AMP_RT_ERROR_UNSUPPORTED)
      return s;
    if (cudnnApi == CudnnApi::Graph)
      return fail(AMP_RT_ERROR_UNSUPPORTED, "%s (AMP_RT_CUDNN_API=graph)",
                  graphConv.whyUnsupported().c_str());
  }
  return legacyConv.run(cudnn, stream, dir, p, inType, outType, alpha, in0, in1,
                        beta, out, grow);
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
