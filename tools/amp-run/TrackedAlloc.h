//===- TrackedAlloc.h - Counted malloc/free for JIT-compiled code -*- C++
//-*-===//
//
// amp-run binds the allocation functions that the lowered code calls
// (`malloc`, `free`, `aligned_alloc`, `calloc`, `realloc`, `posix_memalign`)
// to replacements that keep a size table keyed by pointer, so that it can
// report the peak of live bytes during one step and find leaks.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_RUN_TRACKEDALLOC_H
#define AMP_RUN_TRACKEDALLOC_H

#include <cstdint>

namespace mlir {
class ExecutionEngine;
} // namespace mlir

namespace amp::run {

/// Counters of the allocations made by JIT-compiled code.
struct AllocStats {
  /// Bytes allocated and not yet freed.
  int64_t liveBytes = 0;
  /// Buffers allocated and not yet freed.
  int64_t liveBuffers = 0;
  /// Highest `liveBytes` since the last `resetPeak()`.
  int64_t peakBytes = 0;
  /// Allocations since the start.
  int64_t allocations = 0;
  /// Calls of `free` (or `realloc`) on a pointer the replacements did not
  /// hand out. Such a pointer is not freed (it belongs to amp-run).
  int64_t foreignFrees = 0;
};

/// Defines the replacements in the engine's main JIT dylib. Must be called
/// before the first lookup of a function (which materializes the code).
void registerTrackedAllocator(mlir::ExecutionEngine &engine);

/// The current counters.
AllocStats allocStats();

/// Sets the peak to the current live bytes.
void resetPeak();

/// True if `ptr` was allocated by the replacements and is still live.
bool isTrackedAllocation(const void *ptr);

/// Frees a buffer that JIT-compiled code allocated (e.g. one it returned),
/// through the replacements, so that the counters stay right.
void freeTrackedAllocation(void *ptr);

} // namespace amp::run

#endif // AMP_RUN_TRACKEDALLOC_H
