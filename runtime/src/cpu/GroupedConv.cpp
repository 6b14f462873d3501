//===- GroupedConv.cpp - direct grouped convolutions on f32 copies --------===//
//
// The cpu backend's path for grouped and depthwise convolutions (groups > 1)
// where oneDNN does not run them: the im2col + sgemm path assumes a dense
// filter, and a depthwise convolution is a GEMM with K = 1 per group, which
// no BLAS runs well. Each direction is written as a gather (every output
// element sums its own terms, so threads never write the same element),
// accumulated in f32 on widened copies of the inputs and stored with
// alpha / beta at the end. Depthwise convolutions are memory-bound, so
// direct loops lose little to a library here.
//
//===----------------------------------------------------------------------===//

#include "GroupedConv.h"

#include "ThreadPool.h"

#include <algorithm>

namespace amp {
namespace rt {

namespace {

/// Element offsets of the three dense tensors of a grouped problem.
struct Indexer {
  explicit Indexer(const ConvProblem &p)
      : d(p.desc), P(p.P), Q(p.Q), cg(p.desc.C / p.desc.groups),
        kg(p.desc.K / p.desc.groups),
        fs(filterStrides(p.desc.filter_layout, p.desc.K, cg, p.desc.R,
                         p.desc.S)) {}

  int64_t x(int64_t n, int64_t c, int64_t h, int64_t w) const {
    return d.layout == AMP_RT_NHWC ? ((n * d.H + h) * d.W + w) * d.C + c
                                   : ((n * d.C + c) * d.H + h) * d.W + w;
  }
  int64_t y(int64_t n, int64_t k, int64_t p, int64_t q) const {
    return d.layout == AMP_RT_NHWC ? ((n * P + p) * Q + q) * d.K + k
                                   : ((n * d.K + k) * P + p) * Q + q;
  }
  /// Filter element of output channel k and in-group input channel ci.
  int64_t w(int64_t k, int64_t ci, int64_t r, int64_t s) const {
    return k * fs.k + ci * fs.c + r * fs.r + s * fs.s;
  }

  const amp_rt_conv2d_desc &d;
  int64_t P, Q, cg, kg;
  FilterStrides fs;
};

int64_t elementsOf(const int64_t shape[4]) {
  return shape[0] * shape[1] * shape[2] * shape[3];
}

/// y[n][k][p][q] = sum over ci, r, s of x[n][g*cg+ci][h][w] * f[k][ci][r][s].
void forward(ThreadPool &pool, const Indexer &ix, const float *x,
             const float *f, float *y) {
  const amp_rt_conv2d_desc &d = ix.d;
  pool.parallelFor(d.N * d.K, 1, [&](int64_t b, int64_t e) {
    for (int64_t nk = b; nk < e; ++nk) {
      const int64_t n = nk / d.K, k = nk % d.K, c0 = k / ix.kg * ix.cg;
      for (int64_t p = 0; p < ix.P; ++p)
        for (int64_t q = 0; q < ix.Q; ++q) {
          float acc = 0.0f;
          for (int64_t r = 0; r < d.R; ++r) {
            const int64_t h = p * d.stride_h - d.pad_h + r * d.dil_h;
            if (h < 0 || h >= d.H)
              continue;
            for (int64_t s = 0; s < d.S; ++s) {
              const int64_t w = q * d.stride_w - d.pad_w + s * d.dil_w;
              if (w < 0 || w >= d.W)
                continue;
              for (int64_t ci = 0; ci < ix.cg; ++ci)
                acc += x[ix.x(n, c0 + ci, h, w)] * f[ix.w(k, ci, r, s)];
            }
          }
          y[ix.y(n, k, p, q)] = acc;
        }
    }
  });
}

/// dx[n][c][h][w] = sum over the group's k and the (r, s, p, q) with
/// h = p * stride_h - pad_h + r * dil_h (likewise w) of dy * f.
void backwardData(ThreadPool &pool, const Indexer &ix, const float *dy,
                  const float *f, float *dx) {
  const amp_rt_conv2d_desc &d = ix.d;
  pool.parallelFor(d.N * d.C, 1, [&](int64_t b, int64_t e) {
    for (int64_t nc = b; nc < e; ++nc) {
      const int64_t n = nc / d.C, c = nc % d.C, g = c / ix.cg, ci = c % ix.cg;
      for (int64_t h = 0; h < d.H; ++h)
        for (int64_t w = 0; w < d.W; ++w) {
          float acc = 0.0f;
          for (int64_t r = 0; r < d.R; ++r) {
            const int64_t ph = h + d.pad_h - r * d.dil_h;
            if (ph < 0 || ph % d.stride_h || ph / d.stride_h >= ix.P)
              continue;
            for (int64_t s = 0; s < d.S; ++s) {
              const int64_t qw = w + d.pad_w - s * d.dil_w;
              if (qw < 0 || qw % d.stride_w || qw / d.stride_w >= ix.Q)
                continue;
              for (int64_t k = g * ix.kg; k < (g + 1) * ix.kg; ++k)
                acc += dy[ix.y(n, k, ph / d.stride_h, qw / d.stride_w)] *
                       f[ix.w(k, ci, r, s)];
            }
          }
          dx[ix.x(n, c, h, w)] = acc;
        }
    }
  });
}

/// df[k][ci][r][s] = sum over n, p, q of x[n][g*cg+ci][h][w] * dy[n][k][p][q].
void backwardFilter(ThreadPool &pool, const Indexer &ix, const float *x,
                    const float *dy, float *df) {
  const amp_rt_conv2d_desc &d = ix.d;
  pool.parallelFor(d.K * ix.cg, 1, [&](int64_t b, int64_t e) {
    for (int64_t kc = b; kc < e; ++kc) {
      const int64_t k = kc / ix.cg, ci = kc % ix.cg, c = k / ix.kg * ix.cg + ci;
      for (int64_t r = 0; r < d.R; ++r)
        for (int64_t s = 0; s < d.S; ++s) {
          float acc = 0.0f;
          for (int64_t n = 0; n < d.N; ++n)
            for (int64_t p = 0; p < ix.P; ++p) {
              const int64_t h = p * d.stride_h - d.pad_h + r * d.dil_h;
              if (h < 0 || h >= d.H)
                continue;
              for (int64_t q = 0; q < ix.Q; ++q) {
                const int64_t w = q * d.stride_w - d.pad_w + s * d.dil_w;
                if (w >= 0 && w < d.W)
                  acc += x[ix.x(n, c, h, w)] * dy[ix.y(n, k, p, q)];
              }
            }
          df[ix.w(k, ci, r, s)] = acc;
        }
    }
  });
}

} // namespace

amp_rt_status GroupedConv::run(ConvDirection dir, const ConvProblem &p,
                               amp_rt_dtype inType, amp_rt_dtype outType,
                               float alpha, const void *in0, const void *in1,
                               float beta, void *out) {
  int64_t shapes[3][4]; // x, w, y
  convTensorShapes(p, shapes[0], shapes[1], shapes[2]);
  const int which[3][3] = {{0, 1, 2}, {2, 1, 0}, {0, 2, 1}}; // per dir
  const int *t = which[int(dir)];
  const int64_t n0 = elementsOf(shapes[t[0]]), n1 = elementsOf(shapes[t[1]]),
                n2 = elementsOf(shapes[t[2]]);
  float *a = bufA.floats(size_t(n0)), *b = bufB.floats(size_t(n1)),
        *c = bufC.floats(size_t(n2));
  if (!a || !b || !c)
    return fail(AMP_RT_ERROR_OUT_OF_MEMORY, "cpu grouped conv: out of memory");
  widenToF32(pool, {{inType, in0, 1, n0, n0, a}, {inType, in1, 1, n1, n1, b}});
  const Indexer ix(p);
  switch (dir) {
  case ConvDirection::Forward:
    forward(pool, ix, a, b, c);
    break;
  case ConvDirection::BackwardData:
    backwardData(pool, ix, a, b, c);
    break;
  case ConvDirection::BackwardFilter:
    backwardFilter(pool, ix, a, b, c);
    break;
  }
  storeFromF32(pool, c, n2, out, outType, n2, 1, n2, alpha, beta);
  return AMP_RT_SUCCESS;
}

} // namespace rt
} // namespace amp
