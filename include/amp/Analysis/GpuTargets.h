//===- GpuTargets.h - GPU presets for the roofline estimate -----*- C++ -*-===//
//
// Peak throughputs and memory bandwidth of the GPUs the AMP report estimates
// a step time for (docs/reports.md lists the sources), and the roofline time
// of one op on them.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_ANALYSIS_GPUTARGETS_H
#define AMP_ANALYSIS_GPUTARGETS_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <string>

namespace mlir::amp {

struct GpuTarget {
  StringRef name;
  StringRef description;
  /// FLOP/s of the FP32 (CUDA core) pipeline, no TF32.
  double peakF32;
  /// Dense Tensor Core FLOP/s with f16 / bf16 inputs and f32 accumulation;
  /// 0 where the GPU has none (V100 has no bf16).
  double peakF16Tensor;
  double peakBF16Tensor;
  /// HBM bandwidth in bytes/s.
  double bandwidth;
};

/// v100, a100, h100.
ArrayRef<GpuTarget> getGpuTargets();
const GpuTarget *lookupGpuTarget(StringRef name);
/// "v100, a100 or h100", for error messages.
std::string listGpuTargets();

} // namespace mlir::amp

#endif // AMP_ANALYSIS_GPUTARGETS_H
