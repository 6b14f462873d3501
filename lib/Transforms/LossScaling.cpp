//===- LossScaling.cpp - The amp-loss-scaling pass ------------------------===//
//
// Loss scaling around the backward pass of every training step (a func.func
// with an amp.grad_seed, docs/training-step.md): this file checks the options
// and the steps; ScaleTrainingStep.cpp rewrites each step.
//
// The rewrite of a function happens only once every function of the module
// passed the checks, so a failing module is left unchanged.
//
//===----------------------------------------------------------------------===//

#include "ScaleTrainingStep.h"

#include "amp/Dialect/Amp/AmpOps.h"
#include "amp/Transforms/PassStatistics.h"
#include "amp/Transforms/Passes.h"

// The pass's dependent dialects (Passes.h.inc).
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MLProgram/IR/MLProgram.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/MapVector.h"

#include <cstdint>
#include <limits>
#include <optional>

namespace mlir::amp {
#define GEN_PASS_DEF_LOSSSCALINGPASS
#include "amp/Transforms/Passes.h.inc"
} // namespace mlir::amp

#define DEBUG_TYPE "amp-loss-scaling"

using namespace mlir;
using namespace mlir::amp;

namespace {

struct LossScalingPass
    : public amp::impl::LossScalingPassBase<LossScalingPass> {
  using Base::Base;

  /// Checks the options before any IR is touched: one error line, no dump
  /// of the module.
  LogicalResult initialize(MLIRContext *ctx) override;
  void runOnOperation() override;

private:
  LogicalResult checkStep(Operation *function, StepMarkers &markers);
  /// With skip-on-overflow, updates are guarded after the last gradient.
  static LogicalResult checkUpdatesFollowGradients(func::FuncOp func,
                                                   StepMarkers &markers);
  /// state=args changes the signature: no caller in the module may exist.
  LogicalResult checkNoCallers(func::FuncOp func);
  void scaleStep(func::FuncOp func, StepMarkers &markers);

  // Plain counters: Debian's Release MLIR compiles Statistic to a no-op.
  uint64_t functionsScaled = 0, gradientsUnscaled = 0, updatesGuarded = 0;
};

} // namespace

LogicalResult LossScalingPass::initialize(MLIRContext *ctx) {
  auto fail = [&]() {
    return emitError(UnknownLoc::get(ctx)) << "amp-loss-scaling: ";
  };
  const double maxF32 = std::numeric_limits<float>::max();
  if (!(initScale > 0 && initScale <= maxF32))
    return fail() << "init-scale must be a finite f32 > 0 (got "
                  << formatScaleValue(initScale) << ")";
  if (!(growthFactor > 1 && growthFactor <= maxF32))
    return fail() << "growth-factor must be > 1 (got "
                  << formatScaleValue(growthFactor) << ")";
  if (!(backoffFactor > 0 && backoffFactor < 1))
    return fail() << "backoff-factor must be in (0, 1) (got "
                  << formatScaleValue(backoffFactor) << ")";
  if (growthInterval < 1 || growthInterval > INT32_MAX)
    return fail() << "growth-interval must be in [1, 2147483647] (got "
                  << static_cast<int64_t>(growthInterval) << ")";
  if (!(minScale > 0 && minScale <= maxF32))
    return fail() << "min-scale must be a finite f32 > 0 (got "
                  << formatScaleValue(minScale) << ")";
  if (!(maxScale > 0))
    return fail() << "max-scale must be > 0 (got " << formatScaleValue(maxScale)
                  << ")";
  if (minScale > maxScale)
    return fail() << "min-scale (" << formatScaleValue(minScale)
                  << ") must not exceed max-scale ("
                  << formatScaleValue(maxScale) << ")";
  return success();
}

LogicalResult LossScalingPass::checkStep(Operation *function,
                                         StepMarkers &markers) {
  if (markers.seeds.empty()) {
    // State updates alone are left to amp-strip-markers.
    if (markers.grads.empty())
      return success();
    return markers.grads.front().emitError()
           << "amp-loss-scaling: amp.param_grad in a function without "
              "amp.grad_seed: the scale of its gradients is unknown (mark "
              "the loss with amp.grad_seed)";
  }
  auto func = dyn_cast<func::FuncOp>(function);
  if (!func)
    return function->emitError()
           << "amp-loss-scaling: a training step must be a func.func (got '"
           << function->getName() << "')";
  if (!func.getBody().hasOneBlock())
    return func.emitError()
           << "amp-loss-scaling: training step @" << func.getName()
           << " has more than one block; only single-block bodies are "
              "supported (structured control flow: scf)";
  Block &body = func.getBody().front();
  for (ParamGradOp grad : markers.grads)
    if (grad->getBlock() != &body)
      return grad.emitError()
             << "amp-loss-scaling: amp.param_grad must be directly in the "
                "body of @"
             << func.getName()
             << ", not in a nested region: every gradient feeds the "
                "step's all-finite check";

  if (skipOnOverflow && failed(checkUpdatesFollowGradients(func, markers)))
    return failure();
  if (state == ScaleStateKind::Args)
    return checkNoCallers(func);
  return success();
}

LogicalResult
LossScalingPass::checkUpdatesFollowGradients(func::FuncOp func,
                                             StepMarkers &markers) {
  // Updates are guarded once every gradient is known: an update placed
  // before the last gradient is moved after it, which needs its uses to be
  // after it too.
  if (markers.grads.empty())
    return success();
  Block &body = func.getBody().front();
  Operation *lastGrad = markers.grads.front();
  for (ParamGradOp grad : markers.grads)
    if (lastGrad->isBeforeInBlock(grad))
      lastGrad = grad;
  for (StateUpdateOp update : markers.updates) {
    Operation *ancestor = body.findAncestorOpInBlock(*update);
    if (lastGrad->isBeforeInBlock(ancestor))
      continue;
    if (ancestor != update.getOperation()) {
      InFlightDiagnostic diag =
          update.emitError()
          << "amp-loss-scaling: amp.state_update in a nested region must "
             "come after the last amp.param_grad of the function: the "
             "update is skipped on overflow of any gradient";
      diag.attachNote(lastGrad->getLoc()) << "the last amp.param_grad";
      return diag;
    }
    for (Operation *user : update->getUsers()) {
      Operation *userAncestor = body.findAncestorOpInBlock(*user);
      if (lastGrad->isBeforeInBlock(userAncestor))
        continue;
      InFlightDiagnostic diag =
          update.emitError()
          << "amp-loss-scaling: the result of this amp.state_update is "
             "used before the last amp.param_grad of the function; the "
             "update can only be skipped once every gradient is known";
      diag.attachNote(user->getLoc()) << "used here";
      diag.attachNote(lastGrad->getLoc()) << "the last amp.param_grad";
      return diag;
    }
  }
  return success();
}

LogicalResult LossScalingPass::checkNoCallers(func::FuncOp func) {
  // Appending the scale state changes the signature, which callers in the
  // module could not follow.
  std::optional<SymbolTable::UseRange> uses =
      SymbolTable::getSymbolUses(func, getOperation());
  if (!uses || uses->empty())
    return success();
  InFlightDiagnostic diag =
      func.emitError()
      << "amp-loss-scaling{state=args}: training step @" << func.getName()
      << " gets loss-scale arguments and results, but it is referenced "
         "in the module; call it from outside the module or use "
         "state=globals";
  for (const SymbolTable::SymbolUse &use : *uses)
    diag.attachNote(use.getUser()->getLoc()) << "referenced here";
  return diag;
}

void LossScalingPass::scaleStep(func::FuncOp func, StepMarkers &markers) {
  ScaleOptions options{mode,         state,          initScale,
                       growthFactor, backoffFactor,  minScale,
                       maxScale,     growthInterval, skipOnOverflow};
  ScaleCounts counts = scaleTrainingStep(func, markers, options);
  gradientsUnscaled += counts.gradientsUnscaled;
  updatesGuarded += counts.updatesGuarded;
  ++functionsScaled;
}

void LossScalingPass::runOnOperation() {
  functionsScaled = gradientsUnscaled = updatesGuarded = 0;
  auto printStatistics = [&]() {
    numFunctionsScaled += functionsScaled;
    numGradientsUnscaled += gradientsUnscaled;
    numUpdatesGuarded += updatesGuarded;
    if (printStats)
      printPassStatistics(getArgument(),
                          {{"functions-scaled", functionsScaled},
                           {"gradients-unscaled", gradientsUnscaled},
                           {"updates-guarded", updatesGuarded}});
  };

  ArrayRef<Operation *> allMarkers = getAnalysis<StepMarkerIndex>().markers;
  if (allMarkers.empty()) {
    markAllAnalysesPreserved();
    return printStatistics();
  }
  if (mode == ScalingMode::None) {
    replaceMarkersByIdentities(allMarkers);
    return printStatistics();
  }

  llvm::MapVector<Operation *, StepMarkers> steps;
  for (Operation *op : allMarkers) {
    StepMarkers &markers =
        steps[op->getParentOfType<FunctionOpInterface>().getOperation()];
    if (auto seed = dyn_cast<GradSeedOp>(op))
      markers.seeds.push_back(seed);
    else if (auto grad = dyn_cast<ParamGradOp>(op))
      markers.grads.push_back(grad);
    else
      markers.updates.push_back(cast<StateUpdateOp>(op));
  }

  bool ok = true;
  for (auto &[function, markers] : steps)
    ok &= succeeded(checkStep(function, markers));
  if (!ok)
    return signalPassFailure();

  for (auto &[function, markers] : steps)
    if (!markers.seeds.empty())
      scaleStep(cast<func::FuncOp>(function), markers);
  printStatistics();
}
