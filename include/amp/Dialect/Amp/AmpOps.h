//===- AmpOps.h - The amp dialect's markers ---------------------*- C++ -*-===//
//
// amp.grad_seed, amp.param_grad and amp.state_update.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_DIALECT_AMP_AMPOPS_H
#define AMP_DIALECT_AMP_AMPOPS_H

#include "amp/Dialect/Amp/AmpDialect.h"
#include "amp/Interfaces/AmpPrecisionOpInterface.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#define GET_OP_CLASSES
#include "amp/Dialect/Amp/AmpOps.h.inc"

namespace mlir::amp {

/// Returns true if `op` is one of the amp markers.
inline bool isAmpMarker(Operation *op) {
  return isa<GradSeedOp, ParamGradOp, StateUpdateOp>(op);
}

/// Calls `callback` on every marker under `root`, in pre-order. It enters
/// only functions, structured control flow and symbol tables, where the
/// verifier allows markers, and skips the bodies of other ops (linalg
/// bodies are half the ops of a large graph).
void walkMarkers(Operation *root, function_ref<void(Operation *)> callback);

/// The markers under an op (walkMarkers' order), as an analysis for the
/// pass manager to cache: the marker passes of a pipeline run one after
/// another, and those that change nothing preserve it, so a module without
/// markers (a forward graph) is walked once, not once per pass.
struct StepMarkerIndex {
  explicit StepMarkerIndex(Operation *root) {
    walkMarkers(root, [&](Operation *op) { markers.push_back(op); });
  }
  SmallVector<Operation *> markers;
};

} // namespace mlir::amp

#endif // AMP_DIALECT_AMP_AMPOPS_H
