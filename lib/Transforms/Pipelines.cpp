//===- Pipelines.cpp - The default AMP pipeline ---------------------------===//

#include "amp/Transforms/Passes.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

using namespace mlir;
using namespace mlir::amp;

/// `auto`: dynamic loss scaling for f16, none for bf16 (which has f32's
/// range, so its gradients do not underflow).
static std::string resolveLossScaling(const AmpPipelineOptions &options) {
  if (options.lossScaling != "auto")
    return options.lossScaling;
  return options.mode == "bf16" ? "none" : "dynamic";
}

void mlir::amp::buildAmpPipeline(OpPassManager &pm,
                                 const AmpPipelineOptions &options) {
  AutoMixedPrecisionPassOptions ampOptions;
  ampOptions.mode = options.mode;
  ampOptions.policyFile = options.policy;
  ampOptions.explain = options.explain;
  ampOptions.printStats = options.stats;
  pm.addPass(createAutoMixedPrecisionPass(ampOptions));
  OptimizeCastsPassOptions castOptions;
  castOptions.printStats = options.stats;
  pm.addPass(createOptimizeCastsPass(castOptions));
  pm.addPass(createCheckMasterWeightsPass());
  LossScalingPassOptions scalingOptions;
  scalingOptions.mode = resolveLossScaling(options);
  scalingOptions.initScale = options.initScale;
  scalingOptions.state = options.lossScaleState;
  scalingOptions.printStats = options.stats;
  pm.addPass(createLossScalingPass(scalingOptions));
  pm.addPass(createStripMarkersPass());
}

void mlir::amp::registerAmpPipelines() {
  PassPipelineRegistration<AmpPipelineOptions>(
      "amp",
      "Automatic mixed precision with the default policy: "
      "amp-auto-mixed-precision, amp-optimize-casts, "
      "amp-check-master-weights, amp-loss-scaling, amp-strip-markers",
      buildAmpPipeline);
  PassPipelineRegistration<AmpPipelineOptions>(
      "amp-explain",
      "The amp pipeline with one remark per op saying why it is low or f32",
      [](OpPassManager &pm, const AmpPipelineOptions &options) {
        AmpPipelineOptions explained;
        explained.mode = options.mode;
        explained.policy = options.policy;
        explained.explain = true;
        explained.stats = options.stats;
        explained.lossScaling = options.lossScaling;
        explained.initScale = options.initScale;
        explained.lossScaleState = options.lossScaleState;
        buildAmpPipeline(pm, explained);
      });
}
