//===- CpuCommon.h - pieces shared by the cpu backend's paths ---*- C++ -*-===//
//
// Scratch memory, the thread count, and the f16/bf16 <-> f32 staging loops
// (widen before an f32 contraction, store its result with alpha/beta) that
// both the OpenBLAS path and the widened oneDNN path use.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_RT_CPU_CPUCOMMON_H
#define AMP_RT_CPU_CPUCOMMON_H

#include "amp_rt.h"

#include <climits>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace amp {
namespace rt {

class ThreadPool;

/// Grow-only, 64-byte aligned scratch memory: no page faults or zeroing in
/// steady state (std::vector::resize would zero-fill every call).
class Scratch {
public:
  Scratch() = default;
  Scratch(const Scratch &) = delete;
  Scratch &operator=(const Scratch &) = delete;
  ~Scratch();
  float *floats(size_t n) { return static_cast<float *>(bytes(n * 4)); }
  /// nullptr when out of memory.
  void *bytes(size_t n);

private:
  void *data = nullptr;
  size_t capacity = 0;
};

/// Threads of the cpu backend: AMP_RT_NUM_THREADS, else OMP_NUM_THREADS,
/// else OPENBLAS_NUM_THREADS, else every core.
int cpuThreadCount();

// Elements per task. Waking a sleeping thread costs tens of microseconds (and
// OpenBLAS keeps its threads spinning for a while after each sgemm), so only
// conversions much larger than that are split; measured in bench/gemm_cpu
// when the loops had a pool of their own (now OpenMP's threads,
// ThreadPool.h).
constexpr int64_t kConvertGrain = 1 << 18;

inline bool fitsInt(int64_t v) { return v >= 0 && v <= INT_MAX; }

/// (k, c, r, s) element strides of a filter layout.
struct FilterStrides {
  int64_t k, c, r, s;
};
FilterStrides filterStrides(amp_rt_filter_layout l, int64_t K, int64_t C,
                            int64_t R, int64_t S);

/// dst (rows x cols, leading dim dstLd, default cols) = f32(src (rows x
/// cols, leading dim ld)); src has `type` (F32 is copied).
struct WidenJob {
  amp_rt_dtype type;
  const void *src;
  int64_t rows, cols, ld;
  float *dst;
  int64_t dstLd = 0;
};

/// Runs every job in one parallel region: the operands of a contraction
/// (and every matrix of a batched one) are often each below kConvertGrain,
/// and one region per operand would widen them all on one thread.
void widenToF32(ThreadPool &pool, const std::vector<WidenJob> &jobs);

inline void widenToF32(ThreadPool &pool, amp_rt_dtype type, const void *src,
                       int64_t rows, int64_t cols, int64_t ld, float *dst,
                       int64_t dstLd = 0) {
  widenToF32(pool, {WidenJob{type, src, rows, cols, ld, dst, dstLd}});
}

/// The leading dimension (in floats) of a widened copy with `cols` columns:
/// `cols`, or a little more when its rows would be a multiple of 1 KiB apart.
/// oneDNN 2.6.3's AVX2 sgemm runs a no-copy kernel on an aligned B whose rows
/// are a power of two apart that is 1.6x slower at 512^3 (2.2x with 4 KiB;
/// measured on Zen 4 with DNNL_MAX_CPU_ISA=AVX2, docs/runtime.md).
int64_t widenedLd(int64_t cols);

/// dst (rows x cols, ld dstLd) = alpha * acc (ld accLd) + beta * dst,
/// converted to `type`; beta == 0 does not read dst. For a batch, matrix i
/// is at acc + i * accStride and at element i * dstStride of dst; all are
/// stored in one parallel region.
void storeFromF32(ThreadPool &pool, const float *acc, int64_t accLd, void *dst,
                  amp_rt_dtype type, int64_t dstLd, int64_t rows, int64_t cols,
                  float alpha, float beta, int64_t batch = 1,
                  int64_t accStride = 0, int64_t dstStride = 0);

} // namespace rt
} // namespace amp

#endif // AMP_RT_CPU_CPUCOMMON_H
