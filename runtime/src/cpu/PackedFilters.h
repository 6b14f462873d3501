//===- PackedFilters.h - filters kept in oneDNN's layouts -------*- C++ -*-===//
//
// A convolution primitive reads its filter in a blocked layout of its own,
// and the caller's filter (KCRS, KRSC, RSCK) is reordered into it on every
// call: 0.4-2.7 ms for resnet18's 4.7 MB deep filters, next to 3.4-4.3 ms
// of kernel (docs/performance.md). When the same filter comes back (an
// inference loop, any loop over fixed weights) its packing is reused.
//
// A filter is recognised by its bytes, never by its address alone: each
// entry keeps a copy of the caller's filter, and a hit needs every byte
// equal. A filter rewritten in place (an optimizer step) or another layer's
// filter at a recycled address therefore never reads a stale packing; the
// price of a hit is one compare, which reads twice the filter's bytes
// sequentially on both threads instead of the reorder's scattered writes.
// Plans whose filters keep changing (a training step) stop being cached
// after a few misses in a row and are retried now and then
// (ConvPlan::FilterReuse), so they pay almost nothing.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_RT_CPU_PACKEDFILTERS_H
#define AMP_RT_CPU_PACKEDFILTERS_H

#include <dnnl.hpp>

#include <cstdint>
#include <list>
#include <memory>
#include <vector>

namespace amp {
namespace rt {

using PlanKey = std::vector<int64_t>;

class PackedFilters {
public:
  struct Entry {
    PlanKey key;
    int operand;
    const void *address; // where the caller's filter was last seen
    size_t bytes;
    std::unique_ptr<char[]> copy; // the caller's filter, byte for byte
    dnnl::memory packed;          // the same filter in the primitive's layout
  };

  /// Budget in bytes (copies and packings together): AMP_RT_FILTER_CACHE_MB
  /// (default 256); 0 disables the cache.
  PackedFilters();

  bool enabled() const { return budget > 0; }
  /// Sets the budget (0: off), dropping least recently used entries past it.
  void setBudget(size_t bytes);

  /// The entry of operand `operand` of plan `key` holding exactly the
  /// `bytes` at `filter`, now the most recently used; nullptr if none.
  /// Counts a hit or a miss.
  Entry *find(const PlanKey &key, int operand, const void *filter, size_t bytes,
              int threads);

  /// An entry for the filter at `filter` that the caller will pack into
  /// `entry->packed` (desc `packedDesc`): the entry of this plan operand
  /// last seen at this address if there is one (its filter was rewritten
  /// there), else a new one, evicting least recently used entries past the
  /// budget. Copies the filter into it. nullptr when the filter does not
  /// fit the budget at all.
  Entry *store(const PlanKey &key, int operand, const void *filter,
               size_t bytes, const dnnl::memory::desc &packedDesc,
               const dnnl::engine &engine, int threads);

  int64_t hits = 0, misses = 0;
  size_t used = 0; // bytes held

private:
  size_t entryBytes(const Entry &e) const;
  void evictPast(size_t limit);

  size_t budget;
  std::list<Entry> entries; // most recently used first
};

} // namespace rt
} // namespace amp

#endif // AMP_RT_CPU_PACKEDFILTERS_H
