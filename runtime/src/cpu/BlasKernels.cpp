//===- BlasKernels.cpp - F16C widening + OpenBLAS sgemm, im2col convs -----===//

#include "BlasKernels.h"

#include "../Convert.h"
#include "ThreadPool.h"

#include <cblas.h>

#include <algorithm>
#include <cstring>

namespace amp {
namespace rt {

namespace {
constexpr int64_t kColBudget = 1 << 22; // floats of im2col per chunk

float elementF32(amp_rt_dtype type, const void *p, int64_t i) {
  if (type == AMP_RT_F32)
    return static_cast<const float *>(p)[i];
  uint16_t v = static_cast<const uint16_t *>(p)[i];
  return type == AMP_RT_BF16 ? bf16ToF32Scalar(v) : f16ToF32Scalar(v);
}

bool isPointwise(const ConvProblem &p) {
  const amp_rt_conv2d_desc &d = p.desc;
  return d.R == 1 && d.S == 1 && d.stride_h == 1 && d.stride_w == 1 &&
         d.pad_h == 0 && d.pad_w == 0;
}
} // namespace

amp_rt_status BlasKernels::gemm(const GemmArgs &g) {
  if (!fitsInt(g.M) || !fitsInt(g.N) || !fitsInt(g.K) || !fitsInt(g.lda) ||
      !fitsInt(g.ldb) || !fitsInt(g.ldc))
    return fail(AMP_RT_ERROR_UNSUPPORTED,
                "cpu gemm: sizes or leading dimensions above INT_MAX are not "
                "supported by the 32-bit OpenBLAS interface");
  const bool f32In = g.abType == AMP_RT_F32;
  const size_t es = dtypeSize(g.abType);
  int64_t aRows = g.transA ? g.K : g.M, aCols = g.transA ? g.M : g.K;
  int64_t bRows = g.transB ? g.N : g.K, bCols = g.transB ? g.K : g.N;
  float *a = f32In ? nullptr : bufA.floats(size_t(aRows * aCols));
  float *b = f32In ? nullptr : bufB.floats(size_t(bRows * bCols));
  bool direct = g.cType == AMP_RT_F32;
  float *c = direct ? nullptr : bufC.floats(size_t(g.M * g.N));
  if ((!f32In && (!a || !b)) || (!direct && !c))
    return fail(AMP_RT_ERROR_OUT_OF_MEMORY, "cpu gemm: out of memory");
  const char *A = static_cast<const char *>(g.A);
  const char *B = static_cast<const char *>(g.B);
  int lda = int(f32In ? g.lda : aCols), ldb = int(f32In ? g.ldb : bCols);
  auto ta = g.transA ? CblasTrans : CblasNoTrans;
  auto tb = g.transB ? CblasTrans : CblasNoTrans;
  for (int64_t i = 0; i < g.batch; ++i) {
    const void *Ai = A + i * g.strideA * es, *Bi = B + i * g.strideB * es;
    // A broadcast operand (batch stride 0) is widened once.
    if (f32In) {
      a = static_cast<float *>(const_cast<void *>(Ai));
      b = static_cast<float *>(const_cast<void *>(Bi));
    } else {
      if (i == 0 || g.strideA != 0)
        widenToF32(pool, g.abType, Ai, aRows, aCols, g.lda, a);
      if (i == 0 || g.strideB != 0)
        widenToF32(pool, g.abType, Bi, bRows, bCols, g.ldb, b);
    }
    if (direct) {
      float *C = static_cast<float *>(g.C) + i * g.strideC;
      cblas_sgemm(CblasRowMajor, ta, tb, int(g.M), int(g.N), int(g.K), g.alpha,
                  a, lda, b, ldb, g.beta, C, int(g.ldc));
      continue;
    }
    uint16_t *C = static_cast<uint16_t *>(g.C) + i * g.strideC;
    cblas_sgemm(CblasRowMajor, ta, tb, int(g.M), int(g.N), int(g.K), 1.0f, a,
                lda, b, ldb, 0.0f, c, int(g.N));
    storeFromF32(pool, c, g.N, C, g.cType, g.ldc, g.M, g.N, g.alpha, g.beta);
  }
  return AMP_RT_SUCCESS;
}

const float *BlasKernels::asF32(amp_rt_dtype type, const void *src, int64_t n,
                                Scratch &buf) {
  if (type == AMP_RT_F32)
    return static_cast<const float *>(src);
  float *dst = buf.floats(size_t(n));
  if (dst)
    widenToF32(pool, type, src, 1, n, n, dst);
  return dst;
}

void BlasKernels::canonicalFilter(const ConvProblem &p, amp_rt_dtype type,
                                  const void *w, float *dst) {
  const amp_rt_conv2d_desc &d = p.desc;
  int64_t K = d.K, C = d.C, R = d.R, S = d.S;
  amp_rt_filter_layout canon =
      d.layout == AMP_RT_NHWC ? AMP_RT_FILTER_KRSC : AMP_RT_FILTER_KCRS;
  if (d.filter_layout == canon) {
    widenToF32(pool, type, w, 1, K * C * R * S, K * C * R * S, dst);
    return;
  }
  FilterStrides src = filterStrides(d.filter_layout, K, C, R, S);
  FilterStrides dc = filterStrides(canon, K, C, R, S);
  for (int64_t k = 0; k < K; ++k)
    for (int64_t c = 0; c < C; ++c)
      for (int64_t r = 0; r < R; ++r)
        for (int64_t s = 0; s < S; ++s)
          dst[k * dc.k + c * dc.c + r * dc.r + s * dc.s] = elementF32(
              type, w, k * src.k + c * src.c + r * src.r + s * src.s);
}

// NHWC: rows are output pixels m = (n, p, q) in [begin, end) (n ignored),
// columns (r, s, c). NCHW: for image n, rows (c, r, s) and columns the
// output pixels j = (p, q) in [begin, end).
void BlasKernels::im2col(const ConvProblem &p, const float *x, int64_t n,
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
void BlasKernels::col2im(const ConvProblem &p, const float *col, int64_t n,
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

amp_rt_status BlasKernels::conv(ConvDirection dir, const ConvProblem &p,
                                amp_rt_dtype inType, amp_rt_dtype outType,
                                float alpha, const void *in0, const void *in1,
                                float beta, void *out) {
  const amp_rt_conv2d_desc &d = p.desc;
  const int64_t PQ = p.P * p.Q, CRS = d.C * d.R * d.S;
  if (!fitsInt(d.K) || !fitsInt(CRS) || !fitsInt(d.N * PQ) ||
      !fitsInt(d.N * d.H * d.W * d.C))
    return fail(AMP_RT_ERROR_UNSUPPORTED,
                "cpu conv: dimensions above INT_MAX are not supported");
  switch (dir) {
  case ConvDirection::Forward:
    return forward(p, inType, outType, alpha, in0, in1, beta, out);
  case ConvDirection::BackwardData:
    return backwardData(p, inType, outType, alpha, in0, in1, beta, out);
  case ConvDirection::BackwardFilter:
    return backwardFilter(p, inType, outType, alpha, in0, in1, beta, out);
  }
  return fail(AMP_RT_ERROR_INTERNAL, "cpu conv: unknown direction");
}

namespace {
/// Sizes of one convolution and how it is cut into im2col chunks: NHWC
/// splits the N*P*Q output pixels, NCHW the P*Q of one image.
struct Geometry {
  bool nhwc, pointwise;
  int64_t N, C, K, PQ, HW, CRS, total, chunk;
};

Geometry geometry(const ConvProblem &p) {
  const amp_rt_conv2d_desc &d = p.desc;
  Geometry g;
  g.nhwc = d.layout == AMP_RT_NHWC;
  g.pointwise = isPointwise(p);
  g.N = d.N, g.C = d.C, g.K = d.K, g.PQ = p.P * p.Q, g.HW = d.H * d.W;
  g.CRS = d.C * d.R * d.S;
  g.total = g.nhwc ? g.N * g.PQ : g.PQ;
  g.chunk =
      std::max<int64_t>(1, std::min<int64_t>(g.total, kColBudget / g.CRS));
  return g;
}
} // namespace

amp_rt_status BlasKernels::forward(const ConvProblem &p, amp_rt_dtype inType,
                                   amp_rt_dtype outType, float alpha,
                                   const void *xIn, const void *w, float beta,
                                   void *out) {
  const Geometry g = geometry(p);
  const bool nhwc = g.nhwc, pointwise = g.pointwise;
  const int64_t N = g.N, C = g.C, K = g.K, PQ = g.PQ, HW = g.HW, CRS = g.CRS;
  const int64_t total = g.total, chunk = g.chunk;
  float *col = pointwise ? nullptr : bufCol.floats(size_t(chunk * CRS));
  if (!pointwise && !col)
    return fail(AMP_RT_ERROR_OUT_OF_MEMORY, "cpu conv: out of memory");
  const bool f32 = outType == AMP_RT_F32;
  const float *x = asF32(inType, xIn, N * HW * C, bufX);
  float *wc = bufW.floats(size_t(K * CRS));
  float *tmp = f32 ? nullptr : bufAcc.floats(size_t(chunk * K));
  if (!x || !wc || (!f32 && !tmp))
    return fail(AMP_RT_ERROR_OUT_OF_MEMORY, "cpu conv: out of memory");
  canonicalFilter(p, inType, w, wc);
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
        float *dst = f32 ? static_cast<float *>(out) + m0 * K : tmp;
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, int(rows), int(K),
                    int(CRS), f32 ? alpha : 1.0f, src, int(srcLd), wc, int(CRS),
                    f32 ? beta : 0.0f, dst, int(K));
        if (!f32)
          storeFromF32(pool, tmp, K, static_cast<uint16_t *>(out) + m0 * K,
                       outType, K, rows, K, alpha, beta);
      } else {
        // y[n][:, m0:m1] (K x rows, ld PQ) = wc (K x CRS) * col.
        int64_t yOff = n * K * PQ + m0;
        float *dst = f32 ? static_cast<float *>(out) + yOff : tmp;
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, int(K),
                    int(rows), int(CRS), f32 ? alpha : 1.0f, wc, int(CRS), src,
                    int(srcLd), f32 ? beta : 0.0f, dst, int(f32 ? PQ : rows));
        if (!f32)
          storeFromF32(pool, tmp, rows, static_cast<uint16_t *>(out) + yOff,
                       outType, PQ, K, rows, alpha, beta);
      }
    }
  return AMP_RT_SUCCESS;
}

amp_rt_status BlasKernels::backwardData(const ConvProblem &p,
                                        amp_rt_dtype inType,
                                        amp_rt_dtype outType, float alpha,
                                        const void *dyIn, const void *w,
                                        float beta, void *out) {
  const Geometry g = geometry(p);
  const bool nhwc = g.nhwc, pointwise = g.pointwise;
  const int64_t N = g.N, C = g.C, K = g.K, PQ = g.PQ, HW = g.HW, CRS = g.CRS;
  const int64_t total = g.total, chunk = g.chunk;
  float *col = pointwise ? nullptr : bufCol.floats(size_t(chunk * CRS));
  if (!pointwise && !col)
    return fail(AMP_RT_ERROR_OUT_OF_MEMORY, "cpu conv: out of memory");
  const float *dy = asF32(inType, dyIn, N * PQ * K, bufX);
  float *acc = bufAcc.floats(size_t(N * HW * C));
  float *wc = bufW.floats(size_t(K * CRS));
  if (!dy || !acc || !wc)
    return fail(AMP_RT_ERROR_OUT_OF_MEMORY, "cpu conv: out of memory");
  canonicalFilter(p, inType, w, wc);
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
                    int(rows), int(K), 1.0f, wc, int(CRS), dy + n * K * PQ + m0,
                    int(PQ), 0.0f, dst, int(pointwise ? HW : rows));
      }
      if (!pointwise)
        col2im(p, col, n, m0, m1, acc);
    }
  storeFromF32(pool, acc, N * HW * C, out, outType, N * HW * C, 1, N * HW * C,
               alpha, beta);
  return AMP_RT_SUCCESS;
}

amp_rt_status BlasKernels::backwardFilter(const ConvProblem &p,
                                          amp_rt_dtype inType,
                                          amp_rt_dtype outType, float alpha,
                                          const void *xIn, const void *dyIn,
                                          float beta, void *out) {
  const amp_rt_conv2d_desc &d = p.desc;
  const Geometry g = geometry(p);
  const bool nhwc = g.nhwc, pointwise = g.pointwise;
  const int64_t N = g.N, C = g.C, K = g.K, PQ = g.PQ, HW = g.HW, CRS = g.CRS;
  const int64_t total = g.total, chunk = g.chunk;
  float *col = pointwise ? nullptr : bufCol.floats(size_t(chunk * CRS));
  if (!pointwise && !col)
    return fail(AMP_RT_ERROR_OUT_OF_MEMORY, "cpu conv: out of memory");
  const float *x = asF32(inType, xIn, N * HW * C, bufX);
  const float *dy = asF32(inType, dyIn, N * PQ * K, bufAcc);
  float *wc = bufW.floats(size_t(K * CRS));
  if (!x || !dy || !wc)
    return fail(AMP_RT_ERROR_OUT_OF_MEMORY, "cpu conv: out of memory");
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
      float accBeta = n == 0 && m0 == 0 ? 0.0f : 1.0f;
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
  storeFromF32(pool, result, K * CRS, out, outType, K * CRS, 1, K * CRS, alpha,
               beta);
  return AMP_RT_SUCCESS;
}

} // namespace rt
} // namespace amp
