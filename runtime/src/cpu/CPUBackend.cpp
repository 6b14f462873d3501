//===- CPUBackend.cpp - the cpu backend: oneDNN, F16C, OpenBLAS -----------===//
//
// Host memory, loss scaling, and the dispatch of each contraction to the
// path CpuPaths.h chose: native bf16 on oneDNN; f16 (and bf16 without
// native support) widened to f32, then the f32 path; f32 on oneDNN or
// OpenBLAS. When oneDNN refuses a problem the OpenBLAS path (BlasKernels)
// runs it, or for a grouped convolution the direct loops of GroupedConv.
// docs/runtime.md has the measurements behind these choices.
//
//===----------------------------------------------------------------------===//

#include "../Backend.h"
#include "../Convert.h"
#include "../Frontend.h"
#include "../ScaleRule.h"
#include "BlasKernels.h"
#include "CpuCommon.h"
#include "CpuPaths.h"
#include "GroupedConv.h"
#include "ThreadPool.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>

namespace amp {
namespace rt {
namespace {

class CPUBackend final : public Backend {
public:
  CPUBackend()
      : pool(cpuThreadCount()), blas(pool), grouped(pool), paths(cpuPaths()),
        dnnl(dnnlKernels()) {}

  const char *name() const override { return "cpu"; }
  bool usesHostMemory() const override { return true; }

  amp_rt_status allocate(size_t bytes, void **ptr) override {
    *ptr = std::aligned_alloc(64, (bytes + 63) & ~size_t(63));
    if (!*ptr)
      return fail(AMP_RT_ERROR_OUT_OF_MEMORY,
                  "cpu backend: cannot allocate %zu bytes", bytes);
    return AMP_RT_SUCCESS;
  }
  amp_rt_status deallocate(void *ptr) override {
    std::free(ptr);
    return AMP_RT_SUCCESS;
  }
  amp_rt_status copyToDevice(void *dst, const void *src,
                             size_t bytes) override {
    std::memcpy(dst, src, bytes);
    return AMP_RT_SUCCESS;
  }
  amp_rt_status copyToHost(void *dst, const void *src, size_t bytes) override {
    std::memcpy(dst, src, bytes);
    return AMP_RT_SUCCESS;
  }
  amp_rt_status fillZero(void *dst, size_t bytes) override {
    std::memset(dst, 0, bytes);
    return AMP_RT_SUCCESS;
  }
  amp_rt_status copyStrided(const StridedCopy &copy) override {
    hostStridedCopy(copy);
    return AMP_RT_SUCCESS;
  }
  amp_rt_status synchronize() override { return AMP_RT_SUCCESS; }

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
    applyScaleRule(*scale, *goodSteps, *foundInf != 0, p.growth, p.backoff,
                   p.interval, p.minScale, p.maxScale);
    return AMP_RT_SUCCESS;
  }

private:
  /// A oneDNN refusal: the caller falls back; say so when verbose.
  void refused() const {
    if (paths.verbose)
      std::fprintf(stderr, "amp_rt: oneDNN refused a problem, falling back\n");
  }
  /// f16/bf16 inputs widened to f32, then oneDNN f32.
  amp_rt_status widenedGemm(const GemmArgs &g);
  /// The same for a batch of small matrices, one matrix at a time per
  /// thread.
  amp_rt_status widenedGemmPerMatrix(const GemmArgs &g);
  bool smallMatrices(const GemmArgs &g) const;
  amp_rt_status widenedConv(ConvDirection dir, const ConvProblem &p,
                            amp_rt_dtype inType, amp_rt_dtype outType,
                            float alpha, const void *in0, const void *in1,
                            float beta, void *out);
  /// The convolution path without oneDNN: im2col + OpenBLAS sgemm, or
  /// direct loops for a grouped one.
  amp_rt_status fallbackConv(ConvDirection dir, const ConvProblem &p,
                             amp_rt_dtype inType, amp_rt_dtype outType,
                             float alpha, const void *in0, const void *in1,
                             float beta, void *out) {
    if (p.desc.groups > 1)
      return grouped.run(dir, p, inType, outType, alpha, in0, in1, beta, out);
    return blas.conv(dir, p, inType, outType, alpha, in0, in1, beta, out);
  }

  ThreadPool pool;
  BlasKernels blas;
  GroupedConv grouped;
  CpuPaths &paths;
  DnnlKernels &dnnl;
  Scratch bufA, bufB, bufC;
};

/// oneDNN 2.6.3's AVX2 sgemm (column-major: our B is its A) takes its no-copy
/// kernel whenever 1/M + 1/N >= 0.0038 (M, N up to about 526), and that
/// kernel is 1.6x slower at 512^3 when B's rows are a multiple of 1 KiB
/// apart (2.2x at 4 KiB: cache-set conflicts; the copy-based kernels pack B
/// first). Measured on Zen 4 under DNNL_MAX_CPU_ISA=AVX2, docs/runtime.md.
/// Such an f32 GEMM runs on OpenBLAS, which always packs.
static bool avoidDnnlNoCopySgemm(const GemmArgs &g) {
  bool noCopy = 1.0 / double(g.M) + 1.0 / double(g.N) >= 0.0038;
  bool rowsAliased = !g.transB && g.K > 1 && g.ldb % 256 == 0;
  return noCopy && rowsAliased;
}

amp_rt_status CPUBackend::gemm(const GemmArgs &g) {
  paths.announce();
  bool viaDnnl = g.abType == AMP_RT_BF16
                     ? paths.nativeBf16.load()
                     : g.abType == AMP_RT_F32 && paths.f32OneDnn &&
                           !(paths.dnnlAvx2Sgemm && avoidDnnlNoCopySgemm(g));
  if (viaDnnl) {
    amp_rt_status s = dnnl.gemm(g);
    if (s != AMP_RT_ERROR_UNSUPPORTED)
      return s;
    refused();
  }
  if (g.abType == AMP_RT_F32 || !paths.f32OneDnn)
    return blas.gemm(g);
  return widenedGemm(g);
}

/// The f32 copies of one matrix of a batch (and its f32 result) that still
/// fit a core's second-level cache (1 MiB on the CPUs measured) with room
/// for the GEMM's own packing.
constexpr int64_t kCachedMatrixBytes = 512 << 10;
/// Below this many multiply-adds per matrix, the overhead of one sgemm call
/// per matrix outweighs what the cache saves (a batch of 256 32^3 bf16
/// GEMMs: 0.87x the time of widening the batch first; 64^3: 1.10x).
constexpr int64_t kPerMatrixMinMacs = 64 * 64 * 32;

bool CPUBackend::smallMatrices(const GemmArgs &g) const {
  const int64_t perMatrix =
      4 * (g.M * g.K + g.K * g.N + (g.cType == AMP_RT_F32 ? 0 : g.M * g.N));
  return g.batch >= 2 * pool.size() && perMatrix <= kCachedMatrixBytes &&
         g.M * g.N * g.K >= kPerMatrixMinMacs;
}

/// A GEMM whose B is small next to a tall A (a classifier's few outputs,
/// its weight gradient) as a batch of row blocks of A sharing B, for
/// widenedGemmPerMatrix: each block's f32 copy is read back from the cache.
/// The rows beyond the last whole block are `rest` (M 0 if none).
static bool asRowBlocks(const GemmArgs &g, int threads, GemmArgs &blocks,
                        GemmArgs &rest) {
  const int64_t rowBytes = 4 * (g.K + (g.cType == AMP_RT_F32 ? 0 : g.N));
  const int64_t rows =
      std::max<int64_t>(16, (kCachedMatrixBytes / 2 / rowBytes) & ~15);
  if (g.batch != 1 || 4 * g.K * g.N > kCachedMatrixBytes / 2 ||
      g.M < 2 * threads * rows || g.M * rowBytes <= 2 * kCachedMatrixBytes)
    return false;
  const size_t es = dtypeSize(g.abType), cs = dtypeSize(g.cType);
  blocks = rest = g;
  blocks.M = rows;
  blocks.batch = g.M / rows;
  blocks.strideA = g.transA ? rows : rows * g.lda;
  blocks.strideB = 0;
  blocks.strideC = rows * g.ldc;
  const int64_t done = blocks.batch * rows;
  rest.M = g.M - done;
  rest.A = static_cast<const char *>(g.A) +
           (g.transA ? done : done * g.lda) * int64_t(es);
  rest.C = static_cast<char *>(g.C) + done * g.ldc * int64_t(cs);
  return true;
}

amp_rt_status CPUBackend::widenedGemm(const GemmArgs &g) {
  if (smallMatrices(g))
    return widenedGemmPerMatrix(g);
  GemmArgs blocks, rest;
  if (asRowBlocks(g, pool.size(), blocks, rest)) {
    amp_rt_status s = widenedGemmPerMatrix(blocks);
    if (s != AMP_RT_SUCCESS || rest.M == 0)
      return s;
    return widenedGemm(rest);
  }
  const int64_t aRows = g.transA ? g.K : g.M, aCols = g.transA ? g.M : g.K;
  const int64_t bRows = g.transB ? g.N : g.K, bCols = g.transB ? g.K : g.N;
  // Padded rows keep oneDNN's AVX2 no-copy sgemm off cache-set conflicts
  // (avoidDnnlNoCopySgemm). With AVX-512 kernels they would cost: oneDNN
  // runs strided operands on its jit gemm, not brgemm, and the jit gemm
  // takes a transposed operand at half brgemm's rate (1024x512x2048 with B
  // transposed, Intel Xeon without AVX512_BF16: 117 vs 247 GF/s).
  const bool pad = paths.dnnlAvx2Sgemm;
  const int64_t aLd = pad ? widenedLd(aCols) : aCols;
  const int64_t bLd = pad ? widenedLd(bCols) : bCols;
  // A broadcast operand (batch stride 0) is widened once.
  const int64_t nA = g.strideA ? g.batch : 1, nB = g.strideB ? g.batch : 1;
  const int64_t MN = g.M * g.N;
  const bool direct = g.cType == AMP_RT_F32;
  float *a = bufA.floats(size_t(nA * aRows * aLd));
  float *b = bufB.floats(size_t(nB * bRows * bLd));
  float *c = direct ? nullptr : bufC.floats(size_t(g.batch * MN));
  if (!a || !b || (!direct && !c))
    return fail(AMP_RT_ERROR_OUT_OF_MEMORY, "cpu gemm: out of memory");
  const size_t es = dtypeSize(g.abType);
  std::vector<WidenJob> jobs;
  for (int64_t i = 0; i < nA; ++i)
    jobs.push_back({g.abType,
                    static_cast<const char *>(g.A) + i * g.strideA * es, aRows,
                    aCols, g.lda, a + i * aRows * aLd, aLd});
  for (int64_t i = 0; i < nB; ++i)
    jobs.push_back({g.abType,
                    static_cast<const char *>(g.B) + i * g.strideB * es, bRows,
                    bCols, g.ldb, b + i * bRows * bLd, bLd});
  widenToF32(pool, jobs);
  GemmArgs f = g;
  f.abType = AMP_RT_F32;
  f.A = a, f.lda = aLd, f.strideA = nA > 1 ? aRows * aLd : 0;
  f.B = b, f.ldb = bLd, f.strideB = nB > 1 ? bRows * bLd : 0;
  if (!direct) {
    f.cType = AMP_RT_F32;
    f.C = c, f.ldc = g.N, f.strideC = MN;
    f.alpha = 1.0f, f.beta = 0.0f;
  }
  amp_rt_status s = dnnl.gemm(f);
  if (s == AMP_RT_ERROR_UNSUPPORTED) {
    refused();
    return blas.gemm(g);
  }
  if (s != AMP_RT_SUCCESS || direct)
    return s;
  storeFromF32(pool, c, g.N, g.C, g.cType, g.ldc, g.M, g.N, g.alpha, g.beta,
               g.batch, MN, g.strideC);
  return AMP_RT_SUCCESS;
}

/// Widening the whole batch first wrote every f32 copy to memory and the
/// batched GEMM read them back; here each thread widens, multiplies and
/// stores whole matrices of the batch in turn, and a matrix's copies stay in
/// its core's cache (Intel Xeon without AVX512_BF16, docs/runtime.md).
amp_rt_status CPUBackend::widenedGemmPerMatrix(const GemmArgs &g) {
  const int64_t aRows = g.transA ? g.K : g.M, aCols = g.transA ? g.M : g.K;
  const int64_t bRows = g.transB ? g.N : g.K, bCols = g.transB ? g.K : g.N;
  const bool pad = paths.dnnlAvx2Sgemm; // as in widenedGemm
  const int64_t aLd = pad ? widenedLd(aCols) : aCols;
  const int64_t bLd = pad ? widenedLd(bCols) : bCols;
  const int64_t aSize = aRows * aLd, bSize = bRows * bLd, cSize = g.M * g.N;
  const bool direct = g.cType == AMP_RT_F32;
  const size_t es = dtypeSize(g.abType), cs = dtypeSize(g.cType);
  // A broadcast operand (batch stride 0) is widened once, for all.
  float *sharedA = g.strideA ? nullptr : bufA.floats(size_t(aSize));
  float *sharedB = g.strideB ? nullptr : bufB.floats(size_t(bSize));
  if ((!g.strideA && !sharedA) || (!g.strideB && !sharedB))
    return fail(AMP_RT_ERROR_OUT_OF_MEMORY, "cpu gemm: out of memory");
  std::vector<WidenJob> shared;
  if (sharedA)
    shared.push_back({g.abType, g.A, aRows, aCols, g.lda, sharedA, aLd});
  if (sharedB)
    shared.push_back({g.abType, g.B, bRows, bCols, g.ldb, sharedB, bLd});
  widenToF32(pool, shared);
  std::atomic<int> outOfMemory{0}, failed{0};
  pool.parallelFor(g.batch, 1, [&](int64_t begin, int64_t end) {
    // The pool's threads are OpenMP's and live as long as the process.
    static thread_local Scratch local;
    float *mine = local.floats(size_t(
        (sharedA ? 0 : aSize) + (sharedB ? 0 : bSize) + (direct ? 0 : cSize)));
    if (!mine) {
      outOfMemory = 1;
      return;
    }
    float *a = sharedA ? sharedA : mine;
    float *b = sharedB ? sharedB : mine + (sharedA ? 0 : aSize);
    float *c = mine + (sharedA ? 0 : aSize) + (sharedB ? 0 : bSize);
    std::vector<WidenJob> jobs;
    jobs.reserve(2);
    for (int64_t i = begin; i < end; ++i) {
      jobs.clear();
      if (!sharedA)
        jobs.push_back({g.abType,
                        static_cast<const char *>(g.A) + i * g.strideA * es,
                        aRows, aCols, g.lda, a, aLd});
      if (!sharedB)
        jobs.push_back({g.abType,
                        static_cast<const char *>(g.B) + i * g.strideB * es,
                        bRows, bCols, g.ldb, b, bLd});
      widenToF32(pool, jobs); // inside the region: on this thread
      GemmArgs f = g;
      f.abType = f.cType = AMP_RT_F32;
      f.batch = 1;
      f.A = a, f.lda = aLd, f.B = b, f.ldb = bLd;
      void *out = static_cast<char *>(g.C) + i * g.strideC * cs;
      if (direct) {
        f.C = out;
      } else {
        f.C = c, f.ldc = g.N, f.alpha = 1.0f, f.beta = 0.0f;
      }
      if (!DnnlKernels::sgemmOnThisThread(f)) {
        failed = 1;
        return;
      }
      if (!direct)
        storeFromF32(pool, c, g.N, out, g.cType, g.ldc, g.M, g.N, g.alpha,
                     g.beta);
    }
  });
  if (outOfMemory)
    return fail(AMP_RT_ERROR_OUT_OF_MEMORY, "cpu gemm: out of memory");
  if (failed)
    return fail(AMP_RT_ERROR_BACKEND, "cpu gemm: oneDNN's sgemm failed");
  return AMP_RT_SUCCESS;
}

amp_rt_status CPUBackend::conv(ConvDirection dir, const ConvProblem &p,
                               amp_rt_dtype inType, amp_rt_dtype outType,
                               float alpha, const void *in0, const void *in1,
                               float beta, void *out) {
  paths.announce();
  bool viaDnnl = inType == AMP_RT_BF16
                     ? paths.nativeBf16.load()
                     : inType == AMP_RT_F32 && paths.f32OneDnn;
  // Blocked activations are oneDNN's layout: only its kernels read them,
  // natively or on the widened copies (widening keeps the layout).
  if (p.blocked16) {
    if (viaDnnl)
      return dnnl.conv(dir, p, inType, outType, alpha, in0, in1, beta, out);
    if (inType != AMP_RT_F32 && paths.f32OneDnn)
      return widenedConv(dir, p, inType, outType, alpha, in0, in1, beta, out);
    return AMP_RT_ERROR_UNSUPPORTED;
  }
  if (viaDnnl) {
    amp_rt_status s =
        dnnl.conv(dir, p, inType, outType, alpha, in0, in1, beta, out);
    if (s != AMP_RT_ERROR_UNSUPPORTED)
      return s;
    refused();
  }
  if (inType == AMP_RT_F32 || !paths.f32OneDnn)
    return fallbackConv(dir, p, inType, outType, alpha, in0, in1, beta, out);
  return widenedConv(dir, p, inType, outType, alpha, in0, in1, beta, out);
}

amp_rt_status CPUBackend::widenedConv(ConvDirection dir, const ConvProblem &p,
                                      amp_rt_dtype inType, amp_rt_dtype outType,
                                      float alpha, const void *in0,
                                      const void *in1, float beta, void *out) {
  int64_t shapes[3][4]; // x, w, y
  convTensorShapes(p, shapes[0], shapes[1], shapes[2]);
  auto count = [&](int t) {
    return shapes[t][0] * shapes[t][1] * shapes[t][2] * shapes[t][3];
  };
  const int which[3][3] = {{0, 1, 2}, {2, 1, 0}, {0, 2, 1}}; // per dir
  const int *w = which[int(dir)];
  const int64_t n0 = count(w[0]), n1 = count(w[1]), n2 = count(w[2]);
  const bool direct = outType == AMP_RT_F32;
  float *a = bufA.floats(size_t(n0)), *b = bufB.floats(size_t(n1));
  float *c = direct ? nullptr : bufC.floats(size_t(n2));
  if (!a || !b || (!direct && !c))
    return fail(AMP_RT_ERROR_OUT_OF_MEMORY, "cpu conv: out of memory");
  widenToF32(pool, {{inType, in0, 1, n0, n0, a}, {inType, in1, 1, n1, n1, b}});
  amp_rt_status s =
      direct ? dnnl.conv(dir, p, AMP_RT_F32, AMP_RT_F32, alpha, a, b, beta, out)
             : dnnl.conv(dir, p, AMP_RT_F32, AMP_RT_F32, 1.0f, a, b, 0.0f, c);
  if (s == AMP_RT_ERROR_UNSUPPORTED) {
    if (p.blocked16) // the caller unblocks the operands
      return s;
    refused();
    return fallbackConv(dir, p, inType, outType, alpha, in0, in1, beta, out);
  }
  if (s != AMP_RT_SUCCESS || direct)
    return s;
  storeFromF32(pool, c, n2, out, outType, n2, 1, n2, alpha, beta);
  return AMP_RT_SUCCESS;
}

amp_rt_status CPUBackend::unscaleAndCheck(void *const *tensors,
                                          const amp_rt_dtype *dtypes,
                                          const int64_t *counts, int64_t n,
                                          float invScale, int32_t *foundInf) {
  std::atomic<int> found{0};
  for (int64_t t = 0; t < n; ++t) {
    amp_rt_dtype type = dtypes[t];
    void *base = tensors[t];
    pool.parallelFor(counts[t], kConvertGrain, [&](int64_t b, int64_t e) {
      float tmp[1024];
      bool bad = false;
      for (int64_t i0 = b; i0 < e; i0 += 1024) {
        size_t m = size_t(std::min<int64_t>(1024, e - i0));
        if (type == AMP_RT_F32) {
          float *v = static_cast<float *>(base) + i0;
          for (size_t i = 0; i < m; ++i) {
            v[i] *= invScale;
            bad |= (bitsOf(v[i]) & 0x7f800000u) == 0x7f800000u;
          }
          continue;
        }
        // Check the stored 16-bit result: a finite f32 product can still
        // round to inf.
        bool bf16 = type == AMP_RT_BF16;
        uint16_t expMask = bf16 ? 0x7f80 : 0x7c00;
        uint16_t *low = static_cast<uint16_t *>(base) + i0;
        convertLowToF32(bf16, low, tmp, m);
        for (size_t i = 0; i < m; ++i)
          tmp[i] *= invScale;
        convertF32ToLow(bf16, tmp, low, m);
        for (size_t i = 0; i < m; ++i)
          bad |= (low[i] & expMask) == expMask;
      }
      if (bad)
        found.store(1, std::memory_order_relaxed);
    });
  }
  *foundInf = found.load();
  return AMP_RT_SUCCESS;
}

} // namespace

std::unique_ptr<Backend> createCPUBackend() {
  return std::make_unique<CPUBackend>();
}

} // namespace rt
} // namespace amp
