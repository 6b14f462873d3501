//===- Passes.h - amp-opt transformation passes -----------------*- C++ -*-===//

#ifndef AMP_TRANSFORMS_PASSES_H
#define AMP_TRANSFORMS_PASSES_H

#include "amp/Support/OptionEnums.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/Pass.h"

namespace mlir::amp {

#define GEN_PASS_DECL
#include "amp/Transforms/Passes.h.inc"

/// Whether `op` only rounds its one input into its one output, element by
/// element: identity maps, all loops parallel, a body of one arith.truncf
/// (default rounding) and the yield. That is an arith.truncf of a tensor
/// once converted to linalg; after a contraction it is the contraction's
/// epilogue, which amp-tile-for-threads keeps whole and
/// amp-lower-to-runtime folds into the runtime call.
bool isRoundingCopy(Operation *op);

/// Whether `op` is a contraction amp-lower-to-runtime hands to libamp_rt:
/// a named contraction, a convolution with a product in its body (not a
/// pooling), or a blocked convolution of amp-block-convs.
bool isLibraryContraction(Operation *op);

/// Whether `op` is the rounding copy of a library contraction's result,
/// that result's only reader: amp-lower-to-runtime folds it into the
/// runtime call (which then writes the 16-bit result), so the fast pipeline
/// keeps it whole and unfused.
bool isRoundingOfLibraryResult(Operation *op);

/// Replaces every amp marker of `markers` (a StepMarkerIndex's, or any list
/// of markers) by its identity: amp.grad_seed by ones of the loss's type,
/// amp.param_grad by its operand and amp.state_update by its new value.
void replaceMarkersByIdentities(ArrayRef<Operation *> markers);

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
