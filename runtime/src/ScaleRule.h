//===- ScaleRule.h - GradScaler's dynamic loss-scale update -----*- C++ -*-===//
//
// The one definition of the scale update, shared by the host code and the
// CUDA kernel so both backends follow exactly the same rule: PyTorch's
// amp_update_scale_cuda_kernel (aten/src/ATen/native/cuda/AmpKernels.cu),
// followed by a clamp to [minScale, maxScale].
//
//===----------------------------------------------------------------------===//

#ifndef AMP_RT_SCALERULE_H
#define AMP_RT_SCALERULE_H

#include <cstdint>

#ifdef __CUDACC__
#define AMP_RT_HOST_DEVICE __host__ __device__
#else
#define AMP_RT_HOST_DEVICE
#endif

namespace amp {
namespace rt {

AMP_RT_HOST_DEVICE inline bool isFiniteF32(float x) {
  // x - x is 0 for finite x and NaN for inf and NaN; the same on host and
  // device without relying on either side's isfinite overloads.
  return (x - x) == 0.0f;
}

AMP_RT_HOST_DEVICE inline void applyScaleRule(float &scale, int32_t &goodSteps,
                                              bool foundInf, float growth,
                                              float backoff, int32_t interval,
                                              float minScale, float maxScale) {
  if (foundInf) {
    scale = scale * backoff;
    goodSteps = 0;
  } else {
    int32_t successful = goodSteps + 1;
    if (successful == interval) {
      float grown = scale * growth;
      if (isFiniteF32(grown))
        scale = grown;
      goodSteps = 0;
    } else {
      goodSteps = successful;
    }
  }
  // A NaN scale (only reachable from a NaN input) compares false both ways.
  if (scale < minScale)
    scale = minScale;
  if (scale > maxScale)
    scale = maxScale;
}

} // namespace rt
} // namespace amp

#endif // AMP_RT_SCALERULE_H
