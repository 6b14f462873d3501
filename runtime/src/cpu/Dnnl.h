//===- Dnnl.h - the oneDNN kernels of the cpu backend -----------*- C++ -*-===//
//
// Matmuls and convolutions as oneDNN primitives: bf16 on the native
// AVX512_BF16 instructions with f32 accumulation, and f32. Primitives are
// cached by problem (shapes, strides, types, transposes, whether alpha is 1,
// beta) in small LRU maps and reused; one engine and one stream serve the
// process. dnnl.hpp stays behind this header (DnnlState.h).
//
// oneDNN is a hard dependency of libamp_rt: a missing libdnnl.so.2 is a
// dynamic-link error when libamp_rt loads.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_RT_CPU_DNNL_H
#define AMP_RT_CPU_DNNL_H

#include "../Backend.h"

#include <memory>
#include <string>

namespace amp {
namespace rt {

class DnnlKernels {
public:
  /// `threads` > 0 pins OpenMP (which oneDNN runs on) to that many threads
  /// around every primitive; 0 leaves OpenMP's default (OMP_NUM_THREADS).
  explicit DnnlKernels(int threads);
  ~DnnlKernels();
  DnnlKernels(const DnnlKernels &) = delete;
  DnnlKernels &operator=(const DnnlKernels &) = delete;

  /// "2.6.3".
  static std::string version();
  /// Whether oneDNN's kernels here are its AVX-512 ones (false on an
  /// AVX2-only CPU, or under DNNL_MAX_CPU_ISA=AVX2).
  static bool hasAvx512Kernels();
  /// Whether oneDNN creates bf16 matmul and convolution primitives here
  /// (it refuses on CPUs without bf16 support); `why` gets the reason.
  bool bf16Works(std::string &why);

  /// GemmArgs with abType F32 (cType F32) or BF16 (cType F32 or BF16).
  /// AMP_RT_ERROR_UNSUPPORTED when oneDNN has no primitive for it, so that
  /// the caller can fall back.
  amp_rt_status gemm(const GemmArgs &g);
  /// One f32 GEMM of a batch (GemmArgs with batch 1, abType and cType F32)
  /// on the calling thread alone: oneDNN's sgemm, called from inside a
  /// parallel region, which it does not split further. False if it fails
  /// (the caller reports it: errors are per thread).
  static bool sgemmOnThisThread(const GemmArgs &g);
  /// Backend::conv with inType F32 (outType F32) or BF16 (F32 or BF16);
  /// AMP_RT_ERROR_UNSUPPORTED as for gemm.
  amp_rt_status conv(ConvDirection dir, const ConvProblem &p,
                     amp_rt_dtype inType, amp_rt_dtype outType, float alpha,
                     const void *in0, const void *in1, float beta, void *out);
  /// The byte budget of the filters kept packed across calls (0: none
  /// kept); PackedFilters.h.
  void setFilterCacheBudget(size_t bytes);
  void filterCacheStats(int64_t &hits, int64_t &misses, size_t &bytes);

  struct State;

private:
  std::unique_ptr<State> state;
};

} // namespace rt
} // namespace amp

#endif // AMP_RT_CPU_DNNL_H
