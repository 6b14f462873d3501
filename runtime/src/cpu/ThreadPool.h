//===- ThreadPool.h - fork-join loops for the cpu backend -------*- C++ -*-===//
//
// Conversions, im2col and epilogues are memory-bound loops that benefit from
// a second core. They run on the OpenMP threads that oneDNN's kernels (and
// amp-run's generated loops) run on, through the OpenMP runtime oneDNN
// loaded: a pool of our own put a third thread on two cores while OpenMP's
// workers still spun after the contraction before, and its conversions ran
// at up to half their rate (docs/runtime.md).
//
//===----------------------------------------------------------------------===//

#ifndef AMP_RT_CPU_THREADPOOL_H
#define AMP_RT_CPU_THREADPOOL_H

#include <cstdint>
#include <functional>

namespace amp {
namespace rt {

/// Symbol `name` of the OpenMP runtime oneDNN already loaded (Debian's
/// libdnnl links GNU OpenMP), or nullptr: libamp_rt does not link OpenMP
/// itself, so it works with any compiler and never loads a second runtime.
/// The global scope comes first: a program that loaded LLVM's libomp
/// globally (amp-run --parallel) binds oneDNN's GOMP_* calls to it, even
/// though libgomp.so.1 is loaded too.
void *ompSymbol(const char *name);

class ThreadPool {
public:
  /// `threads` includes the calling thread; 1 means everything runs inline.
  explicit ThreadPool(int threads) : threads(threads < 1 ? 1 : threads) {}

  int size() const { return threads; }

  /// Calls fn(begin, end) on disjoint ranges covering [0, n), each at least
  /// `grain` long (except the last), and returns when all are done. Inside
  /// another parallel region, or without an OpenMP runtime in the process
  /// (a oneDNN built without OpenMP), everything runs on the calling thread.
  void parallelFor(int64_t n, int64_t grain,
                   const std::function<void(int64_t, int64_t)> &fn);

private:
  int threads;
};

} // namespace rt
} // namespace amp

#endif // AMP_RT_CPU_THREADPOOL_H
