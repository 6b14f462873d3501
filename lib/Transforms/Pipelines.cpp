//===- Pipelines.cpp - The default AMP pipeline ---------------------------===//

#include "amp/Transforms/Passes.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

using namespace mlir;
using namespace mlir::amp;

void mlir::amp::buildAmpPipeline(OpPassManager &pm,
                                 const AmpPipelineOptions &options) {
  AutoMixedPrecisionPassOptions ampOptions;
  ampOptions.mode = options.mode;
  ampOptions.policyFile = options.policy;
  ampOptions.explain = options.explain;
  pm.addPass(createAutoMixedPrecisionPass(ampOptions));
  pm.addPass(createOptimizeCastsPass());
}

void mlir::amp::registerAmpPipelines() {
  PassPipelineRegistration<AmpPipelineOptions>(
      "amp",
      "Automatic mixed precision with the default policy: "
      "amp-auto-mixed-precision, then amp-optimize-casts",
      buildAmpPipeline);
  PassPipelineRegistration<AmpPipelineOptions>(
      "amp-explain",
      "The amp pipeline with one remark per op saying why it is low or f32",
      [](OpPassManager &pm, const AmpPipelineOptions &options) {
        AmpPipelineOptions explained;
        explained.mode = options.mode;
        explained.policy = options.policy;
        explained.explain = true;
        buildAmpPipeline(pm, explained);
      });
}
