//===- TrackedAlloc.cpp - Counted malloc/free for JIT-compiled code -------===//
//
// The lowered code allocates every buffer with `malloc` (or, after LLVM's
// optimizations, `calloc` / `aligned_alloc`) and frees it with `free`. The
// replacements below forward to the C library and keep a table from pointer
// to size. The JIT-compiled code of `amp-run --parallel` allocates on the
// async runtime's worker threads too, so every access takes a lock
// (uncontended: a few buffers per loop nest).
//
//===----------------------------------------------------------------------===//

#include "TrackedAlloc.h"

#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ExecutionEngine/Orc/Mangling.h"

#include <cstdlib>
#include <cstring>
#include <mutex>

using namespace amp::run;

namespace {
struct Tracker {
  std::mutex mutex;
  llvm::DenseMap<const void *, size_t> sizes;
  AllocStats stats;

  void add(void *ptr, size_t size) {
    if (!ptr)
      return;
    std::lock_guard<std::mutex> lock(mutex);
    sizes[ptr] = size;
    stats.liveBytes += static_cast<int64_t>(size);
    stats.liveBuffers += 1;
    stats.allocations += 1;
    if (stats.liveBytes > stats.peakBytes)
      stats.peakBytes = stats.liveBytes;
  }

  /// Forgets `ptr`; false (and counted) if it was not handed out by the
  /// replacements.
  bool remove(void *ptr) {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = sizes.find(ptr);
    if (it == sizes.end()) {
      stats.foreignFrees += 1;
      return false;
    }
    stats.liveBytes -= static_cast<int64_t>(it->second);
    stats.liveBuffers -= 1;
    sizes.erase(it);
    return true;
  }
};
} // namespace

static Tracker &tracker() {
  static Tracker *t = new Tracker(); // Never destroyed: no exit-time order.
  return *t;
}

extern "C" {
static void *ampRunMalloc(size_t size) {
  void *ptr = std::malloc(size);
  tracker().add(ptr, size);
  return ptr;
}

static void *ampRunCalloc(size_t count, size_t size) {
  void *ptr = std::calloc(count, size);
  tracker().add(ptr, count * size);
  return ptr;
}

static void *ampRunAlignedAlloc(size_t alignment, size_t size) {
  void *ptr = std::aligned_alloc(alignment, size);
  tracker().add(ptr, size);
  return ptr;
}

static int ampRunPosixMemalign(void **out, size_t alignment, size_t size) {
  int rc = posix_memalign(out, alignment, size);
  if (rc == 0)
    tracker().add(*out, size);
  return rc;
}

static void ampRunFree(void *ptr) {
  if (!ptr)
    return;
  // Not ours to free (e.g. a buffer of amp-run passed as an argument):
  // counted and leaked rather than corrupt the heap.
  if (!tracker().remove(ptr))
    return;
  std::free(ptr);
}

static void *ampRunRealloc(void *ptr, size_t size) {
  if (!ptr)
    return ampRunMalloc(size);
  if (!tracker().remove(ptr))
    return nullptr;
  void *result = std::realloc(ptr, size);
  tracker().add(result, size);
  return result;
}
}

void amp::run::registerTrackedAllocator(mlir::ExecutionEngine &engine) {
  engine.registerSymbols([](llvm::orc::MangleAndInterner interner) {
    llvm::orc::SymbolMap map;
    auto define = [&](llvm::StringRef name, auto *fn) {
      map[interner(name)] = {llvm::orc::ExecutorAddr::fromPtr(fn),
                             llvm::JITSymbolFlags::Exported};
    };
    define("malloc", &ampRunMalloc);
    define("calloc", &ampRunCalloc);
    define("aligned_alloc", &ampRunAlignedAlloc);
    define("posix_memalign", &ampRunPosixMemalign);
    define("realloc", &ampRunRealloc);
    define("free", &ampRunFree);
    return map;
  });
}

AllocStats amp::run::allocStats() {
  std::lock_guard<std::mutex> lock(tracker().mutex);
  return tracker().stats;
}

void amp::run::resetPeak() {
  std::lock_guard<std::mutex> lock(tracker().mutex);
  tracker().stats.peakBytes = tracker().stats.liveBytes;
}

bool amp::run::isTrackedAllocation(const void *ptr) {
  std::lock_guard<std::mutex> lock(tracker().mutex);
  return tracker().sizes.count(ptr) != 0;
}

void amp::run::freeTrackedAllocation(void *ptr) { ampRunFree(ptr); }
