//===- TargetPrecision.h - What mode=auto picks for a target ----*- C++ -*-===//
//
// `mode=auto`: the low-precision type that pays on the target, from its
// arithmetic: bf16 where it has bf16 dot products (AVX512_BF16 or AMX on a
// CPU, bf16 Tensor Cores on a GPU), f16 storage where a CPU only converts
// (F16C) and IREE compiles the output (emit=iree), f16 on a GPU with f16
// Tensor Cores only, nothing where nothing pays (f32, no rewrite): on a CPU
// without bf16 dot products whose output amp-opt's own lowering runs.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_ANALYSIS_TARGETPRECISION_H
#define AMP_ANALYSIS_TARGETPRECISION_H

#include "amp/Analysis/PrecisionPolicy.h"
#include "mlir/Support/LLVM.h"

#include <optional>
#include <string>

namespace mlir::amp {

struct AutoPrecision {
  /// The low type, or none: the program stays f32.
  std::optional<AmpMode> mode;
  /// Why, in one sentence (for remarks and --amp-explain).
  std::string reason;
};

/// What `mode=auto` picks for `target`: a GPU preset or the CPU. For the
/// CPU, `cpuFeatures` names LLVM's x86 features (e.g. "avx512bf16", "f16c");
/// empty means the host's. `emit` is who compiles the output.
AutoPrecision chooseAutoPrecision(TargetOption target,
                                  ArrayRef<std::string> cpuFeatures,
                                  EmitOption emit);

} // namespace mlir::amp

#endif // AMP_ANALYSIS_TARGETPRECISION_H
