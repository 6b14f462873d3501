//===- AmpToRuntime.h - Contractions to libamp_rt calls ---------*- C++ -*-===//
//
// The patterns of amp-lower-to-runtime, for other compilers' pipelines:
// linalg contractions on memrefs become calls of libamp_rt's entry points
// (runtime/include/amp_rt.h).
//
//===----------------------------------------------------------------------===//

#ifndef AMP_CONVERSION_AMPTORUNTIME_AMPTORUNTIME_H
#define AMP_CONVERSION_AMPTORUNTIME_AMPTORUNTIME_H

#include "mlir/IR/PatternMatch.h"

namespace mlir::amp {

/// Whether `op` is of a kind amp-lower-to-runtime lowers (on memrefs, with
/// operand types that have an entry point): the linalg matmuls and
/// convolutions listed at populateLowerToRuntimePatterns, or a blocked
/// convolution of amp-block-convs.
bool isRuntimeContractionKind(Operation *op);

/// What populateLowerToRuntimePatterns lowers.
struct LowerToRuntimeOptions {
  /// Also f32 x f32 -> f32 contractions (the _f32_f32 entry points).
  bool includeF32 = false;
  /// A remark on every candidate: lowered, or why not.
  bool explain = false;
};

/// What the patterns did (exact under walkAndApplyPatterns, which visits
/// each op once).
struct LowerToRuntimeCounts {
  uint64_t lowered = 0, left = 0;
  /// Entry point names already taken by something else (an error each).
  uint64_t nameConflicts = 0;
};

/// The rewrite of amp-lower-to-runtime: f16 / bf16 (with includeF32 also
/// f32) linalg.matmul, batch_matmul, conv_2d_nhwc_hwcf and conv_2d_nchw_fchw
/// on memrefs, and the blocked convolutions of amp-block-convs, become calls
/// to libamp_rt's entry points, declared in the nearest module. `counts`
/// may be null.
/// A call of a 16-bit contraction that overwrites a fresh f32 buffer read
/// only by a rounding into a buffer of the input type (isRoundingCopy)
/// becomes the call that writes the 16-bit buffer itself (the
/// `_<in>_<in>_overwrite` entry point: f32 accumulation, one rounding as it
/// stores), and the rounding and the f32 buffer go.
void populateLowerToRuntimePatterns(RewritePatternSet &patterns,
                                    const LowerToRuntimeOptions &options,
                                    LowerToRuntimeCounts *counts = nullptr);

} // namespace mlir::amp

#endif // AMP_CONVERSION_AMPTORUNTIME_AMPTORUNTIME_H
