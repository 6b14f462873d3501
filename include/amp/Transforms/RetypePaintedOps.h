//===- RetypePaintedOps.h - Painted ops to their low types ------*- C++ -*-===//
//
// The rewrite of amp-auto-mixed-precision as patterns, for other compilers
// that paint with amp::PrecisionPainting and want the same rewrite.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_TRANSFORMS_RETYPEPAINTEDOPS_H
#define AMP_TRANSFORMS_RETYPEPAINTEDOPS_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace mlir::amp {

/// What the retyping patterns read and record. The caller fills `lowType`
/// and `plans`; each pattern consumes the plan of the op it rewrites (so an
/// op is rewritten at most once) and records the outcome.
struct RetypeState {
  /// The new operand and result types of one op (each the old type or the
  /// old shape with the low element type).
  struct Plan {
    SmallVector<Type> operandTypes, resultTypes;
  };
  FloatType lowType;
  DenseMap<Operation *, Plan> plans;

  /// Each retyped op (the new op where it was replaced) with the operand
  /// types it wants, in the order of the rewrite. Its operands still hold
  /// the old values: the caller inserts the casts.
  SmallVector<std::pair<Operation *, SmallVector<Type>>> retyped;
  /// The results that the rewrite made low, in order.
  llvm::SetVector<Value> retypedValues;
  /// Ops that do not verify with the low types: left as they were.
  SmallVector<Operation *> keptF32;
  /// The truncations that the in-place retyping of explicit linalg bodies
  /// added at their yields: the roundings ReadRoundingsWide may drop (one
  /// the program had, also one the cast cleanup moved into a body, stays).
  llvm::SmallPtrSet<Operation *, 16> yieldRoundings;
};

/// Patterns that give every op of `state.plans` its planned types: an
/// explicit linalg body is patched in place (its low inputs extended to f32,
/// its low outputs truncated, so it still computes in f32); any other op is
/// retyped on a detached clone that replaces it if it verifies. Meant for
/// walkAndApplyPatterns, which visits defining ops before their users (a
/// region reading a value made low earlier gets it through an extf).
void populateRetypePaintedOpsPatterns(RewritePatternSet &patterns,
                                      RetypeState &state);

} // namespace mlir::amp

#endif // AMP_TRANSFORMS_RETYPEPAINTEDOPS_H
