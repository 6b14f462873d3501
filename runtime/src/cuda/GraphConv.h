//===- GraphConv.h - convolutions through cuDNN's graph API -----*- C++ -*-===//
//
// Builds, caches and executes cuDNN backend ("graph") API execution plans,
// one per convolution problem. The graph is one convolution operation whose
// tensors are described as they are stored: x/dx [N,C,H,W] and y/dy
// [N,K,P,Q] with NHWC or NCHW strides, the filter [K,C/G,R,S] in the
// activations' own layout (KRSC with NHWC, KCRS with NCHW), where G is the
// group count, which cuDNN infers from x's C and w's C/G; the real data
// types (16-bit inputs, f16/bf16/f32 output) and f32 compute. So nothing is
// widened on the way in. A filter in another layout is never described to
// cuDNN by its strides: it is permuted on the device, into the workspace
// before the graph runs when it is an input, from the graph's result in the
// workspace when it is the output (backward filter).
//
// Engines come from heuristics mode A, tried in their order until an
// execution plan finalizes; engines that round the inputs or reduce in less
// than f32 are skipped, and so are transform-based (FFT, Winograd) ones.
// Plans and refusals are cached per problem, so a refused problem goes to
// the legacy path at once the next time.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_RT_CUDA_GRAPHCONV_H
#define AMP_RT_CUDA_GRAPHCONV_H

#include "CudaCommon.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace amp {
namespace rt {
namespace cuda {

/// Unique ids of the graph's tensors, by role: x/dx, w/dw, y/dy.
inline constexpr int64_t kUidX = 1, kUidW = 2, kUidY = 3;

/// Owns one cudnnBackendDescriptor_t (destroyed with it).
class GraphDescriptor {
public:
  GraphDescriptor() = default;
  GraphDescriptor(const GraphDescriptor &) = delete;
  GraphDescriptor &operator=(const GraphDescriptor &) = delete;
  GraphDescriptor(GraphDescriptor &&other) noexcept : d(other.d) {
    other.d = nullptr;
  }
  GraphDescriptor &operator=(GraphDescriptor &&other) noexcept {
    if (this != &other) {
      reset();
      d = other.d;
      other.d = nullptr;
    }
    return *this;
  }
  ~GraphDescriptor() { reset(); }

  /// Replaces the held descriptor by a new one of `type` (none on failure).
  cudnnStatus_t create(cudnnBackendDescriptorType_t type) {
    reset();
    cudnnStatus_t s = cudnnBackendCreateDescriptor(type, &d);
    if (s != CUDNN_STATUS_SUCCESS)
      d = nullptr;
    return s;
  }
  void reset() {
    if (d)
      cudnnBackendDestroyDescriptor(d);
    d = nullptr;
  }
  cudnnBackendDescriptor_t get() const { return d; }
  explicit operator bool() const { return d != nullptr; }

private:
  cudnnBackendDescriptor_t d = nullptr;
};

/// The graph-API convolution plans of one cuDNN handle.
class GraphConvPlans {
public:
  /// Engines that need more than `maxWorkspace` bytes are not used.
  explicit GraphConvPlans(size_t maxWorkspace) : maxWorkspace(maxWorkspace) {}
  GraphConvPlans(const GraphConvPlans &) = delete;
  GraphConvPlans &operator=(const GraphConvPlans &) = delete;

  /// out = alpha * conv + beta * out (Backend::conv's operands), issued on
  /// `handle`, whose stream must be `stream`. Returns AMP_RT_ERROR_UNSUPPORTED,
  /// without recording an error and before touching any memory, when the
  /// graph path does not apply: f32 inputs (they keep the legacy path's exact
  /// f32 math) or no usable cuDNN engine; whyUnsupported() then says why.
  /// Every other failure is recorded with fail() and is never
  /// AMP_RT_ERROR_UNSUPPORTED. The workspace holds, in this order and each
  /// at a multiple of 256 bytes, the permuted filter (an input filter in
  /// another layout than the activations'), the graph's result when `out`
  /// cannot take it directly, and the engine's own workspace.
  amp_rt_status run(cudnnHandle_t handle, cudaStream_t stream,
                    ConvDirection dir, const ConvProblem &p,
                    amp_rt_dtype inType, amp_rt_dtype outType, float alpha,
                    const void *in0, const void *in1, float beta, void *out,
                    const WorkspaceFn &workspace);

  const std::string &whyUnsupported() const { return why; }

  /// With `on`, every plan built or refused prints one line to stderr.
  void setVerbose(bool on) { verbose = on; }

  /// Destroys every plan; call it before destroying the handle.
  void clear() { plans.clear(); }

private:
  /// A finalized execution plan with every descriptor it was built from,
  /// or, with no plan, the reason why none could be built.
  struct Plan {
    std::vector<GraphDescriptor> parts; // destroyed in reverse order
    GraphDescriptor plan;
    int64_t workspace = 0;
    int64_t engine = -1;            // the engine's global index
    size_t config = 0, configs = 0; // which of the heuristics' configurations
    std::string why;                // no plan: the reason
    unsigned announced = 0; // verbose: a bit per caller's filter layout seen
    ~Plan();
  };
  // direction, in/graph-output types, layouts as the graph sees them (the
  // filter always in the activations' own), sizes, padding, stride,
  // dilation, groups, pointer alignment, alpha and beta bit patterns.
  using Key = std::array<int64_t, 22>;

  /// `p` as the graph sees it: the filter in the activations' layout.
  std::unique_ptr<Plan> build(cudnnHandle_t handle, ConvDirection dir,
                              const ConvProblem &p, amp_rt_dtype inType,
                              amp_rt_dtype outType, float alpha, float beta,
                              int64_t alignment);

  /// The cached plan (or refusal) of `graphProblem`, built on first use.
  Plan &planFor(cudnnHandle_t handle, ConvDirection dir,
                const ConvProblem &graphProblem, amp_rt_dtype inType,
                amp_rt_dtype graphOut, float graphAlpha, float graphBeta,
                int64_t alignment);
  /// Verbose: one line per plan and filter layout of the callers (a refused
  /// plan prints `why`).
  void announce(Plan &plan, ConvDirection dir, const ConvProblem &p,
                amp_rt_dtype inType, amp_rt_dtype graphOut, int64_t alignment,
                bool permuteIn, bool permuteOut, bool blendAfter,
                amp_rt_filter_layout native);
  /// Runs `plan` on the graph's tensors (x/dx, w/dw, y/dy).
  static amp_rt_status execute(cudnnHandle_t handle, const Plan &plan,
                               void *const pointers[3], void *engineWs);

  size_t maxWorkspace;
  bool verbose = false;
  std::string why;
  std::map<Key, std::unique_ptr<Plan>> plans;
};

} // namespace cuda
} // namespace rt
} // namespace amp

#endif // AMP_RT_CUDA_GRAPHCONV_H
