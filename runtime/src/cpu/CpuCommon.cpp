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
} // namespace

void widenToF32(ThreadPool &pool, amp_rt_dtype type, const void *src,
                int64_t rows, int64_t cols, int64_t ld, float *dst,
                int64_t dstLd) {
  const char *s = static_cast<const char *>(src);
  const size_t es = type == AMP_RT_F32 ? 4 : 2;
  if (dstLd == 0)
    dstLd = cols;
  if (ld == cols && dstLd == cols) {
    pool.parallelFor(rows * cols, kConvertGrain, [&](int64_t b, int64_t e) {
      rowToF32(type, s + b * es, dst + b, size_t(e - b));
    });
    return;
  }
  int64_t grain =
      std::max<int64_t>(1, kConvertGrain / std::max<int64_t>(cols, 1));
  pool.parallelFor(rows, grain, [&](int64_t b, int64_t e) {
    for (int64_t r = b; r < e; ++r)
      rowToF32(type, s + r * ld * es, dst + r * dstLd, size_t(cols));
  });
}

int64_t widenedLd(int64_t cols) {
  // 16 floats: the rows stay 64-byte aligned.
  return cols >= 256 && cols % 256 == 0 ? cols + 16 : cols;
}

void storeFromF32(ThreadPool &pool, const float *acc, int64_t accLd, void *dst,
                  amp_rt_dtype type, int64_t dstLd, int64_t rows, int64_t cols,
                  float alpha, float beta) {
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

} // namespace rt
} // namespace amp
