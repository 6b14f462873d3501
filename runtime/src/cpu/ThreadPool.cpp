//===- ThreadPool.cpp -----------------------------------------------------===//

#include "ThreadPool.h"

#include <algorithm>

namespace amp {
namespace rt {

ThreadPool::ThreadPool(int threads) {
  for (int i = 1; i < threads; ++i)
    workers.emplace_back([this, i] { workerLoop(i); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mutex);
    stopping = true;
  }
  wake.notify_all();
  for (std::thread &t : workers)
    t.join();
}

void ThreadPool::workerLoop(int index) {
  uint64_t seen = 0;
  for (;;) {
    const std::function<void(int64_t, int64_t)> *fn;
    int64_t begin, end;
    {
      std::unique_lock<std::mutex> lock(mutex);
      wake.wait(lock, [&] { return stopping || generation != seen; });
      if (stopping)
        return;
      seen = generation;
      fn = job;
      begin = std::min(jobN, index * jobChunk);
      end = std::min(jobN, begin + jobChunk);
    }
    if (begin < end)
      (*fn)(begin, end);
    {
      std::lock_guard<std::mutex> lock(mutex);
      if (--pending == 0)
        done.notify_one();
    }
  }
}

void ThreadPool::parallelFor(int64_t n, int64_t grain,
                             const std::function<void(int64_t, int64_t)> &fn) {
  if (n <= 0)
    return;
  int64_t parts =
      std::min<int64_t>(size(), (n + grain - 1) / std::max<int64_t>(grain, 1));
  if (parts <= 1) {
    fn(0, n);
    return;
  }
  int64_t chunk = (n + parts - 1) / parts; // workers past `parts` idle
  {
    std::lock_guard<std::mutex> lock(mutex);
    job = &fn;
    jobN = n;
    jobChunk = chunk;
    pending = int(workers.size());
    ++generation;
  }
  wake.notify_all();
  fn(0, std::min(n, chunk)); // the caller takes the first part
  std::unique_lock<std::mutex> lock(mutex);
  done.wait(lock, [&] { return pending == 0; });
}

} // namespace rt
} // namespace amp
