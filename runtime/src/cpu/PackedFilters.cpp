//===- PackedFilters.cpp - filters kept in oneDNN's layouts ---------------===//

#include "PackedFilters.h"

#include "ThreadPool.h"

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <new>

namespace amp {
namespace rt {

namespace {

/// Memory-bound: split only what keeps both threads busy for a while.
constexpr int64_t kCompareGrain = 1 << 20;

bool sameBytes(const char *a, const char *b, size_t bytes, int threads) {
  std::atomic<bool> differs{false};
  ThreadPool(threads).parallelFor(
      int64_t(bytes), kCompareGrain, [&](int64_t begin, int64_t end) {
        // A filter that changed usually differs early: stop the other
        // chunks too.
        for (int64_t at = begin; at < end && !differs.load(); at += 1 << 16) {
          size_t n = size_t(std::min<int64_t>(end - at, 1 << 16));
          if (std::memcmp(a + at, b + at, n) != 0)
            differs.store(true);
        }
      });
  return !differs.load();
}

void copyBytes(char *to, const char *from, size_t bytes, int threads) {
  ThreadPool(threads).parallelFor(
      int64_t(bytes), kCompareGrain, [&](int64_t begin, int64_t end) {
        std::memcpy(to + begin, from + begin, size_t(end - begin));
      });
}

} // namespace

PackedFilters::PackedFilters() {
  const char *mb = std::getenv("AMP_RT_FILTER_CACHE_MB");
  budget = size_t(mb && *mb ? std::strtoull(mb, nullptr, 10) : 256) << 20;
}

size_t PackedFilters::entryBytes(const Entry &e) const {
  return e.bytes + e.packed.get_desc().get_size();
}

void PackedFilters::evictPast(size_t limit) {
  while (used > limit && !entries.empty()) {
    used -= entryBytes(entries.back());
    entries.pop_back();
  }
}

void PackedFilters::setBudget(size_t bytes) {
  budget = bytes;
  evictPast(budget);
}

PackedFilters::Entry *PackedFilters::find(const PlanKey &key, int operand,
                                          const void *filter, size_t bytes,
                                          int threads) {
  // The entry last seen at this address first: in a loop over fixed
  // weights, it is the one.
  auto match = entries.end();
  for (int pass = 0; pass < 2 && match == entries.end(); ++pass)
    for (auto it = entries.begin(); it != entries.end(); ++it)
      if ((it->address == filter) == (pass == 0) && it->operand == operand &&
          it->bytes == bytes && it->key == key &&
          sameBytes(it->copy.get(), static_cast<const char *>(filter), bytes,
                    threads)) {
        match = it;
        break;
      }
  if (match == entries.end()) {
    ++misses;
    return nullptr;
  }
  ++hits;
  match->address = filter;
  entries.splice(entries.begin(), entries, match);
  return &entries.front();
}

PackedFilters::Entry *PackedFilters::store(const PlanKey &key, int operand,
                                           const void *filter, size_t bytes,
                                           const dnnl::memory::desc &packedDesc,
                                           const dnnl::engine &engine,
                                           int threads) {
  const size_t need = bytes + packedDesc.get_size();
  if (!enabled() || need > budget)
    return nullptr;
  auto it = entries.begin();
  while (it != entries.end() &&
         !(it->address == filter && it->operand == operand && it->key == key))
    ++it;
  if (it != entries.end()) {
    entries.splice(entries.begin(), entries, it);
  } else {
    evictPast(budget - need);
    Entry e;
    e.key = key;
    e.operand = operand;
    e.address = filter;
    e.bytes = bytes;
    // Out of memory here only means no cache: the call packs as before.
    try {
      e.copy.reset(new char[bytes]);
      e.packed = dnnl::memory(packedDesc, engine);
    } catch (const std::bad_alloc &) {
      return nullptr;
    } catch (const dnnl::error &) {
      return nullptr;
    }
    entries.push_front(std::move(e));
    used += need;
  }
  Entry &e = entries.front();
  copyBytes(e.copy.get(), static_cast<const char *>(filter), bytes, threads);
  return &e;
}

} // namespace rt
} // namespace amp
