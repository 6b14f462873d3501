//===- Passes.h - amp-opt transformation passes -----------------*- C++ -*-===//

#ifndef AMP_TRANSFORMS_PASSES_H
#define AMP_TRANSFORMS_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/Pass.h"

namespace mlir::amp {

#define GEN_PASS_DECL
#include "amp/Transforms/Passes.h.inc"

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
/// on memrefs become calls to libamp_rt's entry points, declared in the
/// nearest module. `counts` may be null.
/// A call of a 16-bit contraction that overwrites a fresh f32 buffer read
/// only by a rounding into a buffer of the input type (isRoundingCopy)
/// becomes the call that writes the 16-bit buffer itself (the
/// `_<in>_<in>_overwrite` entry point: f32 accumulation, one rounding as it
/// stores), and the rounding and the f32 buffer go.
void populateLowerToRuntimePatterns(RewritePatternSet &patterns,
                                    const LowerToRuntimeOptions &options,
                                    LowerToRuntimeCounts *counts = nullptr);

/// Whether `op` only rounds its one input into its one output, element by
/// element: identity maps, all loops parallel, a body of one arith.truncf
/// (default rounding) and the yield. That is an arith.truncf of a tensor
/// once converted to linalg; after a contraction it is the contraction's
/// epilogue, which amp-tile-for-threads keeps whole and
/// amp-lower-to-runtime folds into the runtime call.
bool isRoundingCopy(Operation *op);

/// Replaces every amp marker nested in `root` by its identity: amp.grad_seed
/// by ones of the loss's type, amp.param_grad by its operand and
/// amp.state_update by its new value. Returns the number of markers replaced.
unsigned replaceMarkersByIdentities(Operation *root);

/// What one run of the amp-optimize-casts cleanup did.
struct CastOptimizationStats {
  uint64_t castsRemoved = 0, constantsFolded = 0, castsHoisted = 0;
  /// Tensor extensions moved into the bodies of their linalg consumers.
  uint64_t castsFused = 0;
  /// Tensor truncations moved into the bodies of the generics they round.
  uint64_t castsFusedIntoProducers = 0;

  CastOptimizationStats &operator+=(const CastOptimizationStats &other) {
    castsRemoved += other.castsRemoved;
    constantsFolded += other.constantsFolded;
    castsHoisted += other.castsHoisted;
    castsFused += other.castsFused;
    castsFusedIntoProducers += other.castsFusedIntoProducers;
    return *this;
  }
};

/// Runs the amp-optimize-casts cleanup on `root` (docs/passes.md). The pass
/// runs it on its module; amp-auto-mixed-precision{optimize-casts=true}
/// runs it at its end, which saves the --amp pipeline one verification of
/// the module, and on its input, so that it paints the program a second
/// run on its output sees.
CastOptimizationStats optimizeCasts(Operation *root);

/// Prints `stats` to stderr as amp-optimize-casts{stats=true} does.
void printCastOptimizationStats(const CastOptimizationStats &stats);

//===----------------------------------------------------------------------===//
// Registration
//===----------------------------------------------------------------------===//

#define GEN_PASS_REGISTRATION
#include "amp/Transforms/Passes.h.inc"

} // namespace mlir::amp

#endif // AMP_TRANSFORMS_PASSES_H
