//===- ThreadPool.h - fork-join pool for the cpu backend --------*- C++ -*-===//
//
// Conversions, im2col and epilogues are memory-bound loops that benefit from
// a second core. Workers block on a condition variable between jobs (no
// spinning), so they do not compete with OpenBLAS's own threads.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_RT_CPU_THREADPOOL_H
#define AMP_RT_CPU_THREADPOOL_H

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace amp {
namespace rt {

class ThreadPool {
public:
  /// `threads` includes the calling thread; 1 means everything runs inline.
  explicit ThreadPool(int threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool &) = delete;
  ThreadPool &operator=(const ThreadPool &) = delete;

  int size() const { return int(workers.size()) + 1; }

  /// Calls fn(begin, end) on disjoint ranges covering [0, n), each at least
  /// `grain` long (except the last), and returns when all are done.
  void parallelFor(int64_t n, int64_t grain,
                   const std::function<void(int64_t, int64_t)> &fn);

private:
  void workerLoop(int index);

  std::vector<std::thread> workers;
  std::mutex mutex;
  std::condition_variable wake, done;
  const std::function<void(int64_t, int64_t)> *job = nullptr;
  int64_t jobN = 0, jobChunk = 0;
  uint64_t generation = 0;
  int pending = 0;
  bool stopping = false;
};

} // namespace rt
} // namespace amp

#endif // AMP_RT_CPU_THREADPOOL_H
