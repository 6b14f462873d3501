//===- CPUBackend.cpp - the cpu backend: F16C conversion + OpenBLAS -------===//
//
// Low-precision operands are widened to f32 (exactly: every f16 and bf16
// value is an f32 value) with the F16C/AVX2 kernels, split over the thread
// pool, and the products run in OpenBLAS's cblas_sgemm, which accumulates in
// f32. Convolutions are im2col (or col2im) + the same sgemm. docs/runtime.md
// has the measurements behind this choice.
//
//===----------------------------------------------------------------------===//

#include "../Backend.h"
#include "../Convert.h"
#include "../Frontend.h"
#include "../ScaleRule.h"
#include "ThreadPool.h"

#include <cblas.h>

#include <algorithm>
#include <atomic>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <thread>

namespace amp {
namespace rt {
namespace {

/// Grow-only, 64-byte aligned scratch memory: no page faults or zeroing in
/// steady state (std::vector::resize would zero-fill every call).
class Scratch {
public:
  float *floats(size_t n) { return static_cast<float *>(bytes(n * 4)); }
  void *bytes(size_t n) {
    if (n > capacity) {
      std::free(data);
      capacity = std::max(n, capacity + capacity / 2);
      data = std::aligned_alloc(64, (capacity + 63) & ~size_t(63));
      if (!data)
        capacity = 0;
    }
    return data;
  }
  ~Scratch() { std::free(data); }

private:
  void *data = nullptr;
  size_t capacity = 0;
};

int threadCount() {
  for (const char *var : {"AMP_RT_NUM_THREADS", "OPENBLAS_NUM_THREADS"}) {
    const char *v = std::getenv(var);
    if (v && std::atoi(v) > 0)
      return std::min(std::atoi(v), 256);
  }
  unsigned hw = std::thread::hardware_concurrency();
  return hw ? int(std::min(hw, 256u)) : 1;
}

// Elements per task. Waking a pool thread costs tens of microseconds (and
// OpenBLAS keeps its threads spinning for a while after each sgemm), so only
// conversions much larger than that are split; measured in bench/gemm_cpu.
constexpr int64_t kConvertGrain = 1 << 18;
constexpr int64_t kColBudget = 1 << 22; // floats of im2col per chunk

bool fitsInt(int64_t v) { return v >= 0 && v <= INT_MAX; }

/// (k, c, r, s) element strides of a filter layout.
struct FilterStrides {
  int64_t k, c, r, s;
};
FilterStrides filterStrides(amp_rt_filter_layout l, int64_t K, int64_t C,
                            int64_t R, int64_t S) {
  switch (l) {
  case AMP_RT_FILTER_KCRS:
    return {C * R * S, R * S, S, 1};
  case AMP_RT_FILTER_RSCK:
    return {1, K, S * C * K, C * K};
  default: // KRSC
    return {R * S * C, 1, S * C, C};
  }
}

class CPUBackend final : public Backend {
public:
  CPUBackend() : pool(threadCount()) {}

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
  /// dst (rows x cols, dense) = f32(src (rows x cols, leading dim ld)).
  void widen(bool bf16, const uint16_t *src, int64_t rows, int64_t cols,
             int64_t ld, float *dst);
  /// dst (rows x cols, ld dstLd) = alpha * acc (ld accLd) + beta * dst,
  /// converted to `type`; beta == 0 does not read dst.
  void store(const float *acc, int64_t accLd, void *dst, amp_rt_dtype type,
             int64_t dstLd, int64_t rows, int64_t cols, float alpha,
             float beta);
  /// f32 copy of a dense filter in the canonical order of `layout`: KRSC for
  /// NHWC, KCRS for NCHW (the order of the im2col columns).
  void canonicalFilter(const ConvProblem &p, bool bf16, const uint16_t *w,
                       float *dst);
  void im2col(const ConvProblem &p, const float *x, int64_t n, int64_t begin,
              int64_t end, float *col);
  void col2im(const ConvProblem &p, const float *col, int64_t n, int64_t begin,
              int64_t end, float *dx);
  bool isPointwise(const ConvProblem &p) const {
    const amp_rt_conv2d_desc &d = p.desc;
    return d.R == 1 && d.S == 1 && d.stride_h == 1 && d.stride_w == 1 &&
           d.pad_h == 0 && d.pad_w == 0;
  }

  ThreadPool pool;
  Scratch bufA, bufB, bufC, bufX, bufW, bufCol, bufAcc;
};

void CPUBackend::widen(bool bf16, const uint16_t *src, int64_t rows,
                       int64_t cols, int64_t ld, float *dst) {
  if (ld == cols) {
    int64_t n = rows * cols;
    pool.parallelFor(n, kConvertGrain, [&](int64_t b, int64_t e) {
      convertLowToF32(bf16, src + b, dst + b, size_t(e - b));
    });
    return;
  }
  int64_t grain =
      std::max<int64_t>(1, kConvertGrain / std::max<int64_t>(cols, 1));
  pool.parallelFor(rows, grain, [&](int64_t b, int64_t e) {
    for (int64_t r = b; r < e; ++r)
      convertLowToF32(bf16, src + r * ld, dst + r * cols, size_t(cols));
  });
}

void CPUBackend::store(const float *acc, int64_t accLd, void *dst,
                       amp_rt_dtype type, int64_t dstLd, int64_t rows,
                       int64_t cols, float alpha, float beta) {
  // dst[0, m) = alpha * a[0, m) + beta * dst[0, m), in blocks.
  auto run = [&](const float *a, int64_t dstOffset, int64_t m) {
    if (type == AMP_RT_F32) {
      float *d = static_cast<float *>(dst) + dstOffset;
      if (beta == 0.0f)
        for (int64_t j = 0; j < m; ++j)
          d[j] = alpha * a[j];
      else
        for (int64_t j = 0; j < m; ++j)
          d[j] = alpha * a[j] + beta * d[j];
      return;
    }
    bool bf16 = type == AMP_RT_BF16;
    uint16_t *d = static_cast<uint16_t *>(dst) + dstOffset;
    float tmp[512];
    for (int64_t j0 = 0; j0 < m; j0 += 512) {
      size_t k = size_t(std::min<int64_t>(512, m - j0));
      if (beta == 0.0f) {
        for (size_t j = 0; j < k; ++j)
          tmp[j] = alpha * a[j0 + j];
      } else {
        convertLowToF32(bf16, d + j0, tmp, k);
        for (size_t j = 0; j < k; ++j)
          tmp[j] = alpha * a[j0 + j] + beta * tmp[j];
      }
      convertF32ToLow(bf16, tmp, d + j0, k);
    }
  };
  if (accLd == cols && dstLd == cols) {
    pool.parallelFor(rows * cols, kConvertGrain,
                     [&](int64_t b, int64_t e) { run(acc + b, b, e - b); });
    return;
  }
  int64_t grain =
      std::max<int64_t>(1, kConvertGrain / std::max<int64_t>(cols, 1));
  pool.parallelFor(rows, grain, [&](int64_t b, int64_t e) {
    for (int64_t r = b; r < e; ++r)
      run(acc + r * accLd, r * dstLd, cols);
  });
}

amp_rt_status CPUBackend::gemm(const GemmArgs &g) {
  if (!fitsInt(g.M) || !fitsInt(g.N) || !fitsInt(g.K) || !fitsInt(g.lda) ||
      !fitsInt(g.ldb) || !fitsInt(g.ldc))
    return fail(AMP_RT_ERROR_UNSUPPORTED,
                "cpu gemm: sizes or leading dimensions above INT_MAX are not "
                "supported by the 32-bit OpenBLAS interface");
  bool bf16 = g.abType == AMP_RT_BF16;
  int64_t aRows = g.transA ? g.K : g.M, aCols = g.transA ? g.M : g.K;
  int64_t bRows = g.transB ? g.N : g.K, bCols = g.transB ? g.K : g.N;
  float *a = bufA.floats(size_t(aRows * aCols));
  float *b = bufB.floats(size_t(bRows * bCols));
  bool direct = g.cType == AMP_RT_F32;
  float *c = direct ? nullptr : bufC.floats(size_t(g.M * g.N));
  if (!a || !b || (!direct && !c))
    return fail(AMP_RT_ERROR_OUT_OF_MEMORY, "cpu gemm: out of memory");
  const uint16_t *A = static_cast<const uint16_t *>(g.A);
  const uint16_t *B = static_cast<const uint16_t *>(g.B);
  auto ta = g.transA ? CblasTrans : CblasNoTrans;
  auto tb = g.transB ? CblasTrans : CblasNoTrans;
  for (int64_t i = 0; i < g.batch; ++i) {
    // A broadcast operand (batch stride 0) is widened once.
    if (i == 0 || g.strideA != 0)
      widen(bf16, A + i * g.strideA, aRows, aCols, g.lda, a);
    if (i == 0 || g.strideB != 0)
      widen(bf16, B + i * g.strideB, bRows, bCols, g.ldb, b);
    if (direct) {
      float *C = static_cast<float *>(g.C) + i * g.strideC;
      cblas_sgemm(CblasRowMajor, ta, tb, int(g.M), int(g.N), int(g.K), g.alpha,
                  a, int(aCols), b, int(bCols), g.beta, C, int(g.ldc));
      continue;
    }
    uint16_t *C = static_cast<uint16_t *>(g.C) + i * g.strideC;
    cblas_sgemm(CblasRowMajor, ta, tb, int(g.M), int(g.N), int(g.K), 1.0f, a,
                int(aCols), b, int(bCols), 0.0f, c, int(g.N));
    store(c, g.N, C, g.cType, g.ldc, g.M, g.N, g.alpha, g.beta);
  }
  return AMP_RT_SUCCESS;
}

void CPUBackend::canonicalFilter(const ConvProblem &p, bool bf16,
                                 const uint16_t *w, float *dst) {
  const amp_rt_conv2d_desc &d = p.desc;
  int64_t K = d.K, C = d.C, R = d.R, S = d.S;
  amp_rt_filter_layout canon =
      d.layout == AMP_RT_NHWC ? AMP_RT_FILTER_KRSC : AMP_RT_FILTER_KCRS;
  if (d.filter_layout == canon) {
    widen(bf16, w, 1, K * C * R * S, K * C * R * S, dst);
    return;
  }
  FilterStrides src = filterStrides(d.filter_layout, K, C, R, S);
  FilterStrides dc = filterStrides(canon, K, C, R, S);
  for (int64_t k = 0; k < K; ++k)
    for (int64_t c = 0; c < C; ++c)
      for (int64_t r = 0; r < R; ++r)
        for (int64_t s = 0; s < S; ++s) {
          uint16_t v = w[k * src.k + c * src.c + r * src.r + s * src.s];
          dst[k * dc.k + c * dc.c + r * dc.r + s * dc.s] =
              bf16 ? bf16ToF32Scalar(v) : f16ToF32Scalar(v);
        }
}

// NHWC: rows are output pixels m = (n, p, q) in [begin, end) (n ignored),
// columns (r, s, c). NCHW: for image n, rows (c, r, s) and columns the
// output pixels j = (p, q) in [begin, end).
void CPUBackend::im2col(const ConvProblem &p, const float *x, int64_t n,
                        int64_t begin, int64_t end, float *col) {
  const amp_rt_conv2d_desc &d = p.desc;
  int64_t H = d.H, W = d.W, C = d.C, R = d.R, S = d.S, P = p.P, Q = p.Q;
  if (d.layout == AMP_RT_NHWC) {
    int64_t rowLen = R * S * C;
    pool.parallelFor(end - begin, std::max<int64_t>(1, 4096 / rowLen),
                     [&](int64_t b, int64_t e) {
                       for (int64_t m = begin + b; m < begin + e; ++m) {
                         int64_t img = m / (P * Q), pq = m % (P * Q);
                         int64_t oh = pq / Q, ow = pq % Q;
                         float *dst = col + (m - begin) * rowLen;
                         for (int64_t r = 0; r < R; ++r) {
                           int64_t h = oh * d.stride_h - d.pad_h + r * d.dil_h;
                           for (int64_t s = 0; s < S; ++s, dst += C) {
                             int64_t w =
                                 ow * d.stride_w - d.pad_w + s * d.dil_w;
                             if (h < 0 || h >= H || w < 0 || w >= W)
                               std::memset(dst, 0, size_t(C) * 4);
                             else
                               std::memcpy(dst, x + ((img * H + h) * W + w) * C,
                                           size_t(C) * 4);
                           }
                         }
                       }
                     });
    return;
  }
  int64_t cols = end - begin;
  const float *xn = x + n * C * H * W;
  pool.parallelFor(
      C * R * S, std::max<int64_t>(1, 4096 / cols), [&](int64_t b, int64_t e) {
        for (int64_t row = b; row < e; ++row) {
          int64_t c = row / (R * S), r = (row / S) % R, s = row % S;
          float *dst = col + row * cols;
          for (int64_t j = begin; j < end; ++j) {
            int64_t h = (j / Q) * d.stride_h - d.pad_h + r * d.dil_h;
            int64_t w = (j % Q) * d.stride_w - d.pad_w + s * d.dil_w;
            dst[j - begin] = (h < 0 || h >= H || w < 0 || w >= W)
                                 ? 0.0f
                                 : xn[(c * H + h) * W + w];
          }
        }
      });
}

// The adjoint of im2col: adds every column entry into the input position it
// was read from. Serial, because overlapping windows write the same pixels.
void CPUBackend::col2im(const ConvProblem &p, const float *col, int64_t n,
                        int64_t begin, int64_t end, float *dx) {
  const amp_rt_conv2d_desc &d = p.desc;
  int64_t H = d.H, W = d.W, C = d.C, R = d.R, S = d.S, P = p.P, Q = p.Q;
  if (d.layout == AMP_RT_NHWC) {
    int64_t rowLen = R * S * C;
    for (int64_t m = begin; m < end; ++m) {
      int64_t img = m / (P * Q), pq = m % (P * Q);
      int64_t oh = pq / Q, ow = pq % Q;
      const float *src = col + (m - begin) * rowLen;
      for (int64_t r = 0; r < R; ++r) {
        int64_t h = oh * d.stride_h - d.pad_h + r * d.dil_h;
        for (int64_t s = 0; s < S; ++s, src += C) {
          int64_t w = ow * d.stride_w - d.pad_w + s * d.dil_w;
          if (h < 0 || h >= H || w < 0 || w >= W)
            continue;
          float *dst = dx + ((img * H + h) * W + w) * C;
          for (int64_t c = 0; c < C; ++c)
            dst[c] += src[c];
        }
      }
    }
    return;
  }
  int64_t cols = end - begin;
  float *dxn = dx + n * C * H * W;
  for (int64_t row = 0; row < C * R * S; ++row) {
    int64_t c = row / (R * S), r = (row / S) % R, s = row % S;
    const float *src = col + row * cols;
    for (int64_t j = begin; j < end; ++j) {
      int64_t h = (j / Q) * d.stride_h - d.pad_h + r * d.dil_h;
      int64_t w = (j % Q) * d.stride_w - d.pad_w + s * d.dil_w;
      if (h >= 0 && h < H && w >= 0 && w < W)
        dxn[(c * H + h) * W + w] += src[j - begin];
    }
  }
}

amp_rt_status CPUBackend::conv(ConvDirection dir, const ConvProblem &p,
                               amp_rt_dtype inType, amp_rt_dtype outType,
                               float alpha, const void *in0, const void *in1,
                               float beta, void *out) {
  const amp_rt_conv2d_desc &d = p.desc;
  const bool bf16 = inType == AMP_RT_BF16, nhwc = d.layout == AMP_RT_NHWC;
  const int64_t N = d.N, C = d.C, K = d.K, P = p.P, Q = p.Q;
  const int64_t HW = d.H * d.W, PQ = P * Q, CRS = C * d.R * d.S;
  if (!fitsInt(K) || !fitsInt(CRS) || !fitsInt(N * PQ) || !fitsInt(N * HW * C))
    return fail(AMP_RT_ERROR_UNSUPPORTED,
                "cpu conv: dimensions above INT_MAX are not supported");
  const bool pointwise = isPointwise(p);
  // Chunks: NHWC splits the N*P*Q output pixels, NCHW the P*Q of an image.
  const int64_t total = nhwc ? N * PQ : PQ;
  const int64_t chunk =
      std::max<int64_t>(1, std::min<int64_t>(total, kColBudget / CRS));
  float *col = pointwise ? nullptr : bufCol.floats(size_t(chunk * CRS));
  float *wc = bufW.floats(size_t(K * CRS));
  if ((!pointwise && !col) || !wc)
    return fail(AMP_RT_ERROR_OUT_OF_MEMORY, "cpu conv: out of memory");

  const uint16_t *a = static_cast<const uint16_t *>(in0);
  const uint16_t *b = static_cast<const uint16_t *>(in1);
  switch (dir) {
  case ConvDirection::Forward: {
    float *x = bufX.floats(size_t(N * HW * C));
    float *tmp =
        outType == AMP_RT_F32 ? nullptr : bufAcc.floats(size_t(chunk * K));
    if (!x || (outType != AMP_RT_F32 && !tmp))
      return fail(AMP_RT_ERROR_OUT_OF_MEMORY, "cpu conv: out of memory");
    widen(bf16, a, 1, N * HW * C, N * HW * C, x);
    canonicalFilter(p, bf16, b, wc);
    for (int64_t n = 0; n < (nhwc ? 1 : N); ++n)
      for (int64_t m0 = 0; m0 < total; m0 += chunk) {
        int64_t m1 = std::min(total, m0 + chunk), rows = m1 - m0;
        const float *src = col;
        int64_t srcLd = nhwc ? CRS : rows;
        if (pointwise) {
          src = nhwc ? x + m0 * C : x + n * C * HW + m0;
          srcLd = nhwc ? C : HW;
        } else {
          im2col(p, x, n, m0, m1, col);
        }
        if (nhwc) {
          // y[m0:m1, :] (rows x K) = col (rows x CRS) * wc^T.
          bool f32 = outType == AMP_RT_F32;
          float *dst = f32 ? static_cast<float *>(out) + m0 * K : tmp;
          cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, int(rows),
                      int(K), int(CRS), f32 ? alpha : 1.0f, src, int(srcLd), wc,
                      int(CRS), f32 ? beta : 0.0f, dst, int(K));
          if (!f32)
            store(tmp, K, static_cast<uint16_t *>(out) + m0 * K, outType, K,
                  rows, K, alpha, beta);
        } else {
          // y[n][:, m0:m1] (K x rows, ld PQ) = wc (K x CRS) * col.
          bool f32 = outType == AMP_RT_F32;
          int64_t yOff = n * K * PQ + m0;
          float *dst = f32 ? static_cast<float *>(out) + yOff : tmp;
          cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, int(K),
                      int(rows), int(CRS), f32 ? alpha : 1.0f, wc, int(CRS),
                      src, int(srcLd), f32 ? beta : 0.0f, dst,
                      int(f32 ? PQ : rows));
          if (!f32)
            store(tmp, rows, static_cast<uint16_t *>(out) + yOff, outType, PQ,
                  K, rows, alpha, beta);
        }
      }
    return AMP_RT_SUCCESS;
  }
  case ConvDirection::BackwardData: {
    float *dy = bufX.floats(size_t(N * PQ * K));
    float *acc = bufAcc.floats(size_t(N * HW * C));
    if (!dy || !acc)
      return fail(AMP_RT_ERROR_OUT_OF_MEMORY, "cpu conv: out of memory");
    widen(bf16, a, 1, N * PQ * K, N * PQ * K, dy);
    canonicalFilter(p, bf16, b, wc);
    if (!pointwise)
      std::memset(acc, 0, size_t(N * HW * C) * 4);
    for (int64_t n = 0; n < (nhwc ? 1 : N); ++n)
      for (int64_t m0 = 0; m0 < total; m0 += chunk) {
        int64_t m1 = std::min(total, m0 + chunk), rows = m1 - m0;
        if (nhwc) {
          // dcol (rows x CRS) = dy[m0:m1, :] (rows x K) * wc (K x CRS).
          float *dst = pointwise ? acc + m0 * C : col;
          cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, int(rows),
                      int(CRS), int(K), 1.0f, dy + m0 * K, int(K), wc, int(CRS),
                      0.0f, dst, int(CRS));
        } else {
          // dcol (CRS x rows) = wc^T (CRS x K) * dy[n][:, m0:m1].
          float *dst = pointwise ? acc + n * C * HW + m0 : col;
          cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, int(CRS),
                      int(rows), int(K), 1.0f, wc, int(CRS),
                      dy + n * K * PQ + m0, int(PQ), 0.0f, dst,
                      int(pointwise ? HW : rows));
        }
        if (!pointwise)
          col2im(p, col, n, m0, m1, acc);
      }
    store(acc, N * HW * C, out, outType, N * HW * C, 1, N * HW * C, alpha,
          beta);
    return AMP_RT_SUCCESS;
  }
  case ConvDirection::BackwardFilter: {
    float *x = bufX.floats(size_t(N * HW * C));
    float *dy = bufAcc.floats(size_t(N * PQ * K));
    if (!x || !dy)
      return fail(AMP_RT_ERROR_OUT_OF_MEMORY, "cpu conv: out of memory");
    widen(bf16, a, 1, N * HW * C, N * HW * C, x);
    widen(bf16, b, 1, N * PQ * K, N * PQ * K, dy);
    bool first = true;
    for (int64_t n = 0; n < (nhwc ? 1 : N); ++n)
      for (int64_t m0 = 0; m0 < total; m0 += chunk) {
        int64_t m1 = std::min(total, m0 + chunk), rows = m1 - m0;
        const float *src = col;
        int64_t srcLd = nhwc ? CRS : rows;
        if (pointwise) {
          src = nhwc ? x + m0 * C : x + n * C * HW + m0;
          srcLd = nhwc ? C : HW;
        } else {
          im2col(p, x, n, m0, m1, col);
        }
        float accBeta = first ? 0.0f : 1.0f;
        first = false;
        if (nhwc)
          // wc (K x CRS) += dy[m0:m1, :]^T (K x rows) * col (rows x CRS).
          cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, int(K), int(CRS),
                      int(rows), 1.0f, dy + m0 * K, int(K), src, int(srcLd),
                      accBeta, wc, int(CRS));
        else
          // wc (K x CRS) += dy[n][:, m0:m1] (K x rows) * col^T (rows x CRS).
          cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, int(K), int(CRS),
                      int(rows), 1.0f, dy + n * K * PQ + m0, int(PQ), src,
                      int(srcLd), accBeta, wc, int(CRS));
      }
    amp_rt_filter_layout canon = nhwc ? AMP_RT_FILTER_KRSC : AMP_RT_FILTER_KCRS;
    const float *result = wc;
    if (d.filter_layout != canon) {
      // Permute the canonical result into the caller's filter layout.
      float *perm = bufCol.floats(size_t(K * CRS));
      if (!perm)
        return fail(AMP_RT_ERROR_OUT_OF_MEMORY, "cpu conv: out of memory");
      FilterStrides s = filterStrides(canon, K, C, d.R, d.S);
      FilterStrides t = filterStrides(d.filter_layout, K, C, d.R, d.S);
      for (int64_t k = 0; k < K; ++k)
        for (int64_t c = 0; c < C; ++c)
          for (int64_t r = 0; r < d.R; ++r)
            for (int64_t q = 0; q < d.S; ++q)
              perm[k * t.k + c * t.c + r * t.r + q * t.s] =
                  wc[k * s.k + c * s.c + r * s.r + q * s.s];
      result = perm;
    }
    store(result, K * CRS, out, outType, K * CRS, 1, K * CRS, alpha, beta);
    return AMP_RT_SUCCESS;
  }
  }
  return fail(AMP_RT_ERROR_INTERNAL, "cpu conv: unknown direction");
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
