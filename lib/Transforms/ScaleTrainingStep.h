//===- ScaleTrainingStep.h - Loss scaling of one training step -*- C++ -*-===//
//
// The rewrite that amp-loss-scaling applies to each training step once all of
// the module's steps passed its checks (LossScaling.cpp). Private to
// lib/Transforms.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_LIB_TRANSFORMS_SCALETRAININGSTEP_H
#define AMP_LIB_TRANSFORMS_SCALETRAININGSTEP_H

#include "amp/Dialect/Amp/AmpOps.h"
#include "amp/Support/OptionEnums.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <string>

namespace mlir::amp {

/// The markers of one function, in program order.
struct StepMarkers {
  SmallVector<GradSeedOp, 1> seeds;
  SmallVector<ParamGradOp> grads;
  SmallVector<StateUpdateOp> updates;
};

/// amp-loss-scaling's options, checked.
struct ScaleOptions {
  ScalingMode mode;
  ScaleStateKind state;
  double initScale, growthFactor, backoffFactor, minScale, maxScale;
  int64_t growthInterval;
  bool skipOnOverflow;
};

struct ScaleCounts {
  uint64_t gradientsUnscaled = 0, updatesGuarded = 0;
};

/// Rewrites `func`, a training step with at least one amp.grad_seed: the
/// seeds become the loss scale S, the gradients are unscaled in f32 and feed
/// one all-finite flag that guards the state updates, and (mode=dynamic) S
/// follows PyTorch GradScaler's rule in appended arguments / results or in
/// ml_program globals. Erases the markers.
ScaleCounts scaleTrainingStep(func::FuncOp func, StepMarkers &markers,
                              const ScaleOptions &options);

/// `value` as the diagnostics of amp-loss-scaling print it (%g).
std::string formatScaleValue(double value);

} // namespace mlir::amp

#endif // AMP_LIB_TRANSFORMS_SCALETRAININGSTEP_H
