//===- CudaCommon.cpp - pieces shared by the cuda backend's files ---------===//

#include "CudaCommon.h"

#include <string>

namespace amp {
namespace rt {
namespace cuda {

amp_rt_status cudaFailure(const char *call, cudaError_t e) {
  // Strip the argument list: "cudaMemcpyAsync(...)" -> "cudaMemcpyAsync".
  std::string name(call);
  name = name.substr(0, name.find('('));
  return fail(e == cudaErrorMemoryAllocation ? AMP_RT_ERROR_OUT_OF_MEMORY
                                             : AMP_RT_ERROR_BACKEND,
              "%s failed: %s (%s)", name.c_str(), cudaGetErrorName(e),
              cudaGetErrorString(e));
}

amp_rt_status cudnnFailure(const char *what, cudnnStatus_t s) {
  return fail(s == CUDNN_STATUS_NOT_SUPPORTED  ? AMP_RT_ERROR_UNSUPPORTED
              : s == CUDNN_STATUS_ALLOC_FAILED ? AMP_RT_ERROR_OUT_OF_MEMORY
                                               : AMP_RT_ERROR_BACKEND,
              "%s failed: %s", what, cudnnGetErrorString(s));
}

cudaDataType_t cudaType(amp_rt_dtype t) {
  return t == AMP_RT_F32   ? CUDA_R_32F
         : t == AMP_RT_F16 ? CUDA_R_16F
                           : CUDA_R_16BF;
}

cudnnDataType_t cudnnType(amp_rt_dtype t) {
  return t == AMP_RT_F32   ? CUDNN_DATA_FLOAT
         : t == AMP_RT_F16 ? CUDNN_DATA_HALF
                           : CUDNN_DATA_BFLOAT16;
}

std::array<int64_t, 4> filterStrides(amp_rt_filter_layout l,
                                     const amp_rt_conv2d_desc &d) {
  const int64_t c = filterChannels(d);
  switch (l) {
  case AMP_RT_FILTER_KCRS:
    return {c * d.R * d.S, d.R * d.S, d.S, 1};
  case AMP_RT_FILTER_RSCK:
    return {1, d.K, d.S * c * d.K, c * d.K};
  default: // KRSC
    return {d.R * d.S * c, 1, d.S * c, c};
  }
}

} // namespace cuda
} // namespace rt
} // namespace amp
