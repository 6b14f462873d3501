//===- RuntimeInternal.h - shared internals of the front end ----*- C++ -*-===//
//
// What the files of the libamp_rt front end share, and nothing else: the
// error helpers (Status.cpp), the registry of backends with their buffers
// and staging arenas (BackendRegistry.cpp), and the staging of one call's
// operands (Staging.cpp). Frontend.h is the part the MLIR entry points use;
// none of this is exported from libamp_rt.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_RT_RUNTIMEINTERNAL_H
#define AMP_RT_RUNTIMEINTERNAL_H

#include "Frontend.h"

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace amp {
namespace rt {

//===----------------------------------------------------------------------===//
// Errors and argument checks (Status.cpp)
//===----------------------------------------------------------------------===//

/// Prefixes the failure message with the API function's name, once.
amp_rt_status named(const char *fn, amp_rt_status s);

inline bool validDtype(int t) {
  return t == AMP_RT_F32 || t == AMP_RT_F16 || t == AMP_RT_BF16;
}

/// Input type `in` (F32, F16 or BF16) and output type `out` (F32, or `in`).
amp_rt_status checkContractionTypes(const char *fn, const char *inName,
                                    const char *outName, int in, int out);

/// a * b + c without overflow, for element counts; false on overflow.
inline bool mulAdd(int64_t a, int64_t b, int64_t c, int64_t &out) {
  int64_t p;
  return !__builtin_mul_overflow(a, b, &p) &&
         !__builtin_add_overflow(p, c, &out);
}

//===----------------------------------------------------------------------===//
// Backend slots: a backend with its buffer registry and staging arena
// (BackendRegistry.cpp; the arena is in Staging.cpp)
//===----------------------------------------------------------------------===//

/// Runtime-owned staging memory of one backend: blocks handed out by a bump
/// pointer during a call. When a call needed more than one block, they are
/// merged into one larger block at the start of the next call, so the steady
/// state allocates nothing.
class Arena {
public:
  /// Starts a call: merges the previous call's blocks into one.
  void reset(Backend &be);
  amp_rt_status allocate(Backend &be, size_t bytes, void **out);
  /// Frees every block, after waiting for the backend.
  void releaseAll(Backend &be);

private:
  struct Block {
    void *ptr;
    size_t size;
  };
  std::vector<Block> blocks;
  size_t offset = 0;
};

struct Slot {
  std::unique_ptr<Backend> backend;
  std::map<uintptr_t, size_t> buffers; // caller-owned: base -> bytes
  Arena arena;

  bool contains(const void *p, size_t bytes) const {
    uintptr_t a = reinterpret_cast<uintptr_t>(p);
    auto it = buffers.upper_bound(a);
    if (it == buffers.begin())
      return false;
    --it;
    return a >= it->first && bytes <= it->second &&
           a - it->first <= it->second - bytes;
  }
};

struct Runtime {
  std::recursive_mutex mutex;
  Slot cpu, cuda;
  Slot *current = nullptr;
  bool selected = false;
  amp_rt_status selectionStatus = AMP_RT_SUCCESS;
  std::string selectionError;
  // Result of trying to create the cuda backend: 0 untried, 1 ok, -1 failed.
  int cudaState = 0;
  std::string cudaError;
};

/// The process-wide registry (never destroyed).
Runtime &runtime();

/// The active slot, selecting it on first use; fails with the reason when
/// the requested backend is unavailable.
amp_rt_status activeSlot(const char *fn, Slot *&slot);

//===----------------------------------------------------------------------===//
// Staging of one call's operands (Staging.cpp)
//===----------------------------------------------------------------------===//

/// Number of elements from element 0 to the last one, inclusive (strides are
/// non-negative). 0 for an empty view; -1 on overflow.
int64_t spanElements(const TensorView &v);

/// Whether the memory from element 0 to the last element of `a` overlaps
/// that of `b` (false if either is empty).
bool spansOverlap(const TensorView &a, const TensorView &b);

/// Row-major dense strides for the sizes of `v`.
void denseStrides(const TensorView &v, int64_t *strides);

/// Makes every operand of one call accessible to the backend (and dense when
/// asked), then writes outputs back. Host operands on the cuda backend are
/// copied to arena memory; non-contiguous ones are packed on the host first
/// when their span has gaps (so write-backs never touch memory between
/// elements), or by the backend when they are already resident.
class CallContext {
public:
  CallContext(const char *fn, Slot &slot);

  /// Runtime-owned memory of the backend, valid until the next call.
  amp_rt_status scratch(size_t bytes, void **p);
  /// Whether the backend can access `v` where it is.
  bool isResident(const TensorView &v) const;
  /// Stages an operand the call reads; `dense`: the backend needs it packed.
  /// An operand whose memory overlaps `writtenBy` (the call's output) is
  /// read from a copy: kernels read their inputs while they store.
  amp_rt_status input(const TensorView &v, bool dense, TensorView &out,
                      const TensorView *writtenBy = nullptr);
  /// `read`: the call reads the output's old value (accumulation, beta != 0).
  amp_rt_status output(const TensorView &v, bool read, bool dense,
                       TensorView &out);
  /// Writes outputs back; waits for the backend when host memory was used.
  amp_rt_status finish();

  Backend &backend() { return be; }
  const char *name() const { return fn; }

private:
  struct WriteBack {
    enum Kind { DeviceUnpack, Download, DownloadAndUnpack } kind;
    TensorView user, staged;
    std::vector<char> host;
  };

  /// Whether `v` needs no staging: empty, or resident and, when `dense` is
  /// asked for, contiguous.
  bool usableInPlace(const TensorView &v, bool dense) const;
  /// Points `out` at scratch memory for `v`'s elements, with dense strides.
  amp_rt_status denseScratch(const TensorView &v, TensorView &out);
  /// Packs resident `v` into dense scratch memory on the backend, copying
  /// its values there when `read`.
  amp_rt_status packOnDevice(const TensorView &v, bool read, TensorView &out);
  std::vector<char> &hostTemp(size_t bytes);

  const char *fn;
  Slot &slot;
  Backend &be;
  bool touchedHost = false;
  std::vector<WriteBack> writeBacks;
  std::vector<std::vector<char>> hostTemps;
};

} // namespace rt
} // namespace amp

#endif // AMP_RT_RUNTIMEINTERNAL_H
