//===- Profile.h - Per-call timing of libamp_rt's contractions --*- C++ -*-===//
//
// With AMP_RT_PROFILE set, every GEMM and convolution the runtime runs is
// timed (staging and packing included) and, at process exit, a table of
// the calls grouped by kind and shape goes to stderr (or to the file
// AMP_RT_PROFILE names): calls, total and per-call time, GF/s. It answers
// "how much of my step is the library, and which shapes are slow" without
// a profiler that can see into JIT-compiled code.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_RT_PROFILE_H
#define AMP_RT_PROFILE_H

#include "Backend.h"

#include <chrono>
#include <string>

namespace amp {
namespace rt {

/// True when AMP_RT_PROFILE is set to anything but "" or "0" (read once).
bool profiling();

/// Adds one call of `key` taking `seconds` and doing `flops` to the table.
void recordCall(const std::string &key, double flops, double seconds);

/// The table's key and flop count of one convolution / one GEMM.
std::string convProfileKey(ConvDirection dir, const ConvProblem &p,
                           amp_rt_dtype in, amp_rt_dtype out, double &flops);
std::string gemmProfileKey(amp_rt_dtype ab, amp_rt_dtype c, int64_t batch,
                           int64_t M, int64_t N, int64_t K, bool transA,
                           bool transB, double &flops);

/// Times the scope and records it under the key `makeKey(flops)` builds,
/// only when profiling (the key is not built otherwise).
class ProfileScope {
public:
  template <typename MakeKey> explicit ProfileScope(MakeKey &&makeKey) {
    if (!profiling())
      return;
    key = makeKey(flops);
    active = true;
    start = std::chrono::steady_clock::now();
  }
  ~ProfileScope() {
    if (active)
      recordCall(key, flops,
                 std::chrono::duration<double>(
                     std::chrono::steady_clock::now() - start)
                     .count());
  }
  ProfileScope(const ProfileScope &) = delete;
  ProfileScope &operator=(const ProfileScope &) = delete;

  /// Records nothing: the call did not run here (it falls back to an entry
  /// point that records itself).
  void discard() { active = false; }

private:
  bool active = false;
  double flops = 0;
  std::string key;
  std::chrono::steady_clock::time_point start;
};

} // namespace rt
} // namespace amp

#endif // AMP_RT_PROFILE_H
