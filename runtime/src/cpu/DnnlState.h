//===- DnnlState.h - internals of the oneDNN kernels ------------*- C++ -*-===//
//
// Shared by DnnlKernels.cpp, DnnlMatmul.cpp and DnnlConv.cpp: the engine,
// stream and OpenMP control, the primitive caches, and the user-mode
// scratchpad that all cached primitives share (they run one at a time).
//
//===----------------------------------------------------------------------===//

#ifndef AMP_RT_CPU_DNNLSTATE_H
#define AMP_RT_CPU_DNNLSTATE_H

#include "CpuCommon.h"
#include "Dnnl.h"
#include "PackedFilters.h"

#include <dnnl.hpp>

#include <list>
#include <mutex>
#include <new>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace amp {
namespace rt {

struct PlanKeyHash {
  size_t operator()(const PlanKey &key) const noexcept {
    size_t h = key.size();
    for (int64_t v : key)
      h ^=
          std::hash<int64_t>()(v) + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    return h;
  }
};

/// A small least-recently-used map from problem keys to plans.
template <typename Plan> class PlanCache {
public:
  explicit PlanCache(size_t capacity) : capacity(capacity) {}

  /// The plan of `key`, now the most recently used; nullptr if absent.
  Plan *find(const PlanKey &key) {
    auto it = index.find(key);
    if (it == index.end())
      return nullptr;
    items.splice(items.begin(), items, it->second);
    return &it->second->second;
  }
  /// Adds a plan, evicting the least recently used one when full.
  Plan &insert(const PlanKey &key, Plan plan) {
    if (items.size() >= capacity) {
      index.erase(items.back().first);
      items.pop_back();
    }
    items.emplace_front(key, std::move(plan));
    index[key] = items.begin();
    return items.front().second;
  }
  size_t size() const { return items.size(); }

private:
  using Item = std::pair<PlanKey, Plan>;
  size_t capacity;
  std::list<Item> items;
  std::unordered_map<PlanKey, typename std::list<Item>::iterator, PlanKeyHash>
      index;
};

/// A matmul primitive for one problem; `supported` is false when oneDNN
/// refused it (remembered so that the refusal is not retried every call).
struct MatmulPlan {
  bool supported = false;
  std::string refusal; // oneDNN's message when not supported
  dnnl::matmul prim;
  dnnl::memory::desc src, weights, dst;
  bool runtimeAlpha = false;
  size_t scratchpadBytes = 0;
};

/// A convolution primitive with the reorders around it. Operands: 0 and 1
/// the inputs, 2 the output, as in Backend::conv.
struct ConvPlan {
  bool supported = false;
  std::string refusal;
  dnnl::primitive prim;
  int args[3] = {0, 0, 0}; // DNNL_ARG_* of each operand
  dnnl::memory::desc user[3], inner[3];
  bool reorderIn[2] = {false, false};
  dnnl::reorder toInner[2];
  /// The primitive writes the caller's output with alpha and beta fused;
  /// otherwise it writes f32 `inner[2]` and `toUser` applies them.
  bool outDirect = true;
  dnnl::reorder toUser;
  bool runtimeAlpha = false; // toUser takes alpha as a run-time scale
  size_t scratchpadBytes = 0;

  /// Whether input i is the caller's filter, reordered on every call unless
  /// its packing is kept (PackedFilters).
  bool filterIn[2] = {false, false};
  /// Per input: stops caching the filters of a plan that missed
  /// kMissesBeforePause times in a row (they change every call: a training
  /// step) for kPausedCalls calls, then tries again. A plan shared by
  /// several layers misses once per layer before it hits: the threshold
  /// leaves room for that.
  struct FilterReuse {
    static constexpr int kMissesBeforePause = 8;
    static constexpr int kPausedCalls = 64;
    int misses = 0, paused = 0;
    bool tryCache() {
      if (paused == 0)
        return true;
      --paused;
      return false;
    }
    void hit() { misses = 0; }
    /// Whether to keep this miss's packing.
    bool miss() {
      if (++misses < kMissesBeforePause)
        return true;
      misses = kMissesBeforePause - 1; // one more miss pauses again
      paused = kPausedCalls;
      return false;
    }
  } filterReuse[2];
};

struct DnnlKernels::State {
  explicit State(int threads);

  /// Before creating or running primitives on the calling thread: gives
  /// OpenMP the configured thread count (oneDNN requires the same count at
  /// creation and execution).
  void pinThreads();
  /// Attributes every primitive starts from (user-mode scratchpad).
  dnnl::primitive_attr attr() const;
  /// The shared scratchpad as a memory of at least `bytes`.
  dnnl::memory scratchpad(size_t bytes);
  /// With AMP_RT_VERBOSE=1: one stderr line per created primitive.
  void trace(const char *what, const dnnl::primitive_desc &pd) const;
  /// `buf` grown to `md` and wrapped as a memory.
  dnnl::memory staged(Scratch &buf, const dnnl::memory::desc &md);

  dnnl::engine engine;
  dnnl::stream stream;
  std::mutex mutex; // one call at a time: the stream and buffers are shared
  int threads;
  bool verbose;
  int (*ompGetMaxThreads)() = nullptr;
  void (*ompSetNumThreads)(int) = nullptr;
  Scratch scratchpadBuf, staging[3];
  PlanCache<MatmulPlan> matmuls{128};
  PlanCache<ConvPlan> convs{64};
  PackedFilters filters;
  std::string why; // the last refusal, for bf16Works and AMP_RT_VERBOSE
};

dnnl::memory::data_type dnnlType(amp_rt_dtype t);

/// Runs `body` and turns oneDNN's exceptions into statuses. A refused
/// primitive ("unimplemented") becomes AMP_RT_ERROR_UNSUPPORTED without
/// touching the thread's error, so the caller can fall back silently.
template <typename F>
amp_rt_status guarded(DnnlKernels::State &st, const char *what, F &&body) {
  try {
    return body();
  } catch (const dnnl::error &e) {
    st.why = std::string(what) + ": " + e.what();
    if (e.status == dnnl_unimplemented)
      return AMP_RT_ERROR_UNSUPPORTED;
    return fail(e.status == dnnl_out_of_memory ? AMP_RT_ERROR_OUT_OF_MEMORY
                                               : AMP_RT_ERROR_BACKEND,
                "%s failed: %s", what, e.what());
  } catch (const std::bad_alloc &) {
    return fail(AMP_RT_ERROR_OUT_OF_MEMORY, "%s: out of memory", what);
  }
}

} // namespace rt
} // namespace amp

#endif // AMP_RT_CPU_DNNLSTATE_H
