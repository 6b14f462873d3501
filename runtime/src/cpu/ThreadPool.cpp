//===- ThreadPool.cpp -----------------------------------------------------===//

#include "ThreadPool.h"

#include <dlfcn.h>

#include <algorithm>

namespace amp {
namespace rt {

void *ompSymbol(const char *name) {
  if (void *sym = dlsym(RTLD_DEFAULT, name))
    return sym;
  for (const char *lib :
       {"libgomp.so.1", "libiomp5.so", "libomp.so.5", "libomp.so"}) {
    if (void *h = dlopen(lib, RTLD_LAZY | RTLD_NOLOAD))
      if (void *sym = dlsym(h, name))
        return sym;
  }
  return nullptr;
}

namespace {

/// The parts of the OpenMP runtime's ABI the loops need. GOMP_parallel is
/// GNU OpenMP's entry for a parallel region; LLVM's and Intel's runtimes
/// implement it too (that is how Debian's oneDNN runs on them).
struct OmpApi {
  void (*parallel)(void (*)(void *), void *, unsigned, unsigned);
  int (*threadNum)();
  int (*numThreads)();
  int (*inParallel)();

  bool available() const {
    return parallel && threadNum && numThreads && inParallel;
  }
};

const OmpApi &ompApi() {
  static const OmpApi api = {
      reinterpret_cast<void (*)(void (*)(void *), void *, unsigned, unsigned)>(
          ompSymbol("GOMP_parallel")),
      reinterpret_cast<int (*)()>(ompSymbol("omp_get_thread_num")),
      reinterpret_cast<int (*)()>(ompSymbol("omp_get_num_threads")),
      reinterpret_cast<int (*)()>(ompSymbol("omp_in_parallel"))};
  return api;
}

struct Region {
  const OmpApi *api;
  const std::function<void(int64_t, int64_t)> *fn;
  int64_t n, parts, chunk;
};

/// The body of the parallel region, on every thread of the team. The team
/// may be smaller than asked (OMP_DYNAMIC, thread limits): each thread takes
/// every team-size-th part.
void runParts(void *data) {
  const Region &r = *static_cast<const Region *>(data);
  const int64_t team = std::max(1, r.api->numThreads());
  for (int64_t p = r.api->threadNum(); p < r.parts; p += team) {
    const int64_t begin = std::min(r.n, p * r.chunk);
    const int64_t end = std::min(r.n, begin + r.chunk);
    if (begin < end)
      (*r.fn)(begin, end);
  }
}

} // namespace

void ThreadPool::parallelFor(int64_t n, int64_t grain,
                             const std::function<void(int64_t, int64_t)> &fn) {
  if (n <= 0)
    return;
  const int64_t parts =
      std::min<int64_t>(size(), (n + grain - 1) / std::max<int64_t>(grain, 1));
  const OmpApi &api = ompApi();
  if (parts <= 1 || !api.available() || api.inParallel()) {
    fn(0, n);
    return;
  }
  Region region{&api, &fn, n, parts, (n + parts - 1) / parts};
  api.parallel(runParts, &region, unsigned(parts), 0);
}

} // namespace rt
} // namespace amp
