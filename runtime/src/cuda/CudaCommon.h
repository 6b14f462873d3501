//===- CudaCommon.h - pieces shared by the cuda backend's files -*- C++ -*-===//
//
// CUDA and cuDNN statuses turned into amp_rt_status (with the library's name
// for them), dtype mappings, filter strides and the workspace callback that
// the backend and its convolution paths share.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_RT_CUDA_CUDACOMMON_H
#define AMP_RT_CUDA_CUDACOMMON_H

#include "../Backend.h"

#include <cuda_runtime_api.h>
#include <cudnn.h>
#include <library_types.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>

namespace amp {
namespace rt {
namespace cuda {

/// The most scratch memory a convolution may ask cuDNN for.
constexpr size_t kMaxConvWorkspace = size_t(1) << 30;

/// Records a failed CUDA runtime call and returns its status; `call` is the
/// call's text, of which only the function name is kept.
amp_rt_status cudaFailure(const char *call, cudaError_t e);

/// Records a failed cuDNN call `what` and returns its status.
amp_rt_status cudnnFailure(const char *what, cudnnStatus_t s);

cudaDataType_t cudaType(amp_rt_dtype t);
cudnnDataType_t cudnnType(amp_rt_dtype t);

/// The convolution's group count (groups; 0, which the front end turns into
/// 1, reads as 1 here too).
inline int64_t groupCount(const amp_rt_conv2d_desc &d) {
  return d.groups > 1 ? d.groups : 1;
}

/// The filter's input channels: C / groups (activations keep C).
inline int64_t filterChannels(const amp_rt_conv2d_desc &d) {
  return d.C / groupCount(d);
}

/// Elements of the filter: K x C/groups x R x S.
inline int64_t filterCount(const amp_rt_conv2d_desc &d) {
  return d.K * filterChannels(d) * d.R * d.S;
}

/// (k, c, r, s) element strides of a filter layout (not FILTER_DEFAULT),
/// c running over the filter's C / groups input channels.
std::array<int64_t, 4> filterStrides(amp_rt_filter_layout l,
                                     const amp_rt_conv2d_desc &d);

/// Grows the backend's scratch buffer to at least `bytes` and returns it in
/// *ptr. The buffer is cudaMalloc'ed (256-byte aligned) and used in stream
/// order, so work queued before the call may still be reading it.
using WorkspaceFn = std::function<amp_rt_status(size_t bytes, void **ptr)>;

} // namespace cuda
} // namespace rt
} // namespace amp

#define CUDA_CHECK(call)                                                       \
  do {                                                                         \
    cudaError_t e_ = (call);                                                   \
    if (e_ != cudaSuccess)                                                     \
      return ::amp::rt::cuda::cudaFailure(#call, e_);                          \
  } while (false)

#define CUDNN_CHECK(call, what)                                                \
  do {                                                                         \
    cudnnStatus_t s_ = (call);                                                 \
    if (s_ != CUDNN_STATUS_SUCCESS)                                            \
      return ::amp::rt::cuda::cudnnFailure(what, s_);                          \
  } while (false)

#endif // AMP_RT_CUDA_CUDACOMMON_H
