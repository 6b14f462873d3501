//===- CpuCommon.cpp ------------------------------------------------------===//

#include "CpuCommon.h"

#include "../Convert.h"
#include "ThreadPool.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <thread>

namespace amp {
namespace rt {

Scratch::~Scratch() { std::free(data); }

void *Scratch::bytes(size_t n) {
  if (n > capacity) {
    std::free(data);
    capacity = std::max(n, capacity + capacity / 2);
    data = std::aligned_alloc(64, (capacity + 63) & ~size_t(63));
    if (!data)
      capacity = 0;
  }
  return data;
}

int cpuThreadCount() {
  for (const char *var :
       {"AMP_RT_NUM_THREADS", "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS"}) {
    const char *v = std::getenv(var);
    if (v && std::atoi(v) > 0)
      return std::min(std::atoi(v), 256);
  }
  unsigned hw = std::thread::hardware_concurrency();
  return hw ? int(std::min(hw, 256u)) : 1;
}

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

namespace {
/// n elements of `type` at src -> f32.
void rowToF32(amp_rt_dtype type, const void *src, float *dst, size_t n) {
  if (type == AMP_RT_F32)
    std::memcpy(dst, src, n * 4);
  else
    convertLowToF32(type == AMP_RT_BF16, static_cast<const uint16_t *>(src),
                    dst, n);
}

/// A part of a WidenJob: `rows` rows from `row`, or for a dense job (no
/// padding on either side) the elements [row, row + rows) of its one long
/// row.
struct WidenPiece {
  const WidenJob *job;
  int64_t row, rows;
};

int64_t dstLdOf(const WidenJob &j) { return j.dstLd ? j.dstLd : j.cols; }

bool isDense(const WidenJob &j) {
  return j.ld == j.cols && dstLdOf(j) == j.cols;
}

/// The elements of a dense job, the rows of another: what pieces cut.
int64_t unitsOf(const WidenJob &j) {
  return isDense(j) ? j.rows * j.cols : j.rows;
}

void widenPiece(const WidenPiece &p) {
  const WidenJob &j = *p.job;
  const char *s = static_cast<const char *>(j.src);
  const size_t es = j.type == AMP_RT_F32 ? 4 : 2;
  if (isDense(j)) {
    rowToF32(j.type, s + p.row * es, j.dst + p.row, size_t(p.rows));
    return;
  }
  for (int64_t r = p.row; r < p.row + p.rows; ++r)
    rowToF32(j.type, s + r * j.ld * es, j.dst + r * dstLdOf(j), size_t(j.cols));
}
} // namespace

void widenToF32(ThreadPool &pool, const std::vector<WidenJob> &jobs) {
  int64_t total = 0;
  for (const WidenJob &j : jobs)
    total += j.rows * j.cols;
  const int64_t parts = std::min<int64_t>(
      pool.size(), (total + kConvertGrain - 1) / kConvertGrain);
  if (parts <= 1) {
    for (const WidenJob &j : jobs)
      widenPiece({&j, 0, unitsOf(j)});
    return;
  }
  // About four pieces per part, cut at row boundaries unless dense.
  const int64_t target = std::max<int64_t>(1, total / (parts * 4));
  std::vector<WidenPiece> pieces;
  for (const WidenJob &j : jobs) {
    const int64_t step =
        isDense(j)
            ? target
            : std::max<int64_t>(1, target / std::max<int64_t>(1, j.cols));
    for (int64_t b = 0, n = unitsOf(j); b < n; b += step)
      pieces.push_back({&j, b, std::min(step, n - b)});
  }
  const int64_t n = int64_t(pieces.size());
  pool.parallelFor(n, (n + parts - 1) / parts, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i)
      widenPiece(pieces[size_t(i)]);
  });
}

int64_t widenedLd(int64_t cols) {
  // 16 floats: the rows stay 64-byte aligned.
  return cols >= 256 && cols % 256 == 0 ? cols + 16 : cols;
}

void storeFromF32(ThreadPool &pool, const float *acc, int64_t accLd, void *dst,
                  amp_rt_dtype type, int64_t dstLd, int64_t rows, int64_t cols,
                  float alpha, float beta, int64_t batch, int64_t accStride,
                  int64_t dstStride) {
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
  const int64_t mn = rows * cols;
  if (accLd == cols && dstLd == cols &&
      (batch == 1 || (accStride == mn && dstStride == mn))) {
    pool.parallelFor(batch * mn, kConvertGrain,
                     [&](int64_t b, int64_t e) { run(acc + b, b, e - b); });
    return;
  }
  // One region over the rows of every matrix: the matrices of a batch are
  // often each below the grain, and one region per matrix would store them
  // all on one thread.
  int64_t grain =
      std::max<int64_t>(1, kConvertGrain / std::max<int64_t>(cols, 1));
  pool.parallelFor(batch * rows, grain, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      int64_t m = i / rows, r = i % rows;
      run(acc + m * accStride + r * accLd, m * dstStride + r * dstLd, cols);
    }
  });
}

} // namespace rt
} // namespace amp
