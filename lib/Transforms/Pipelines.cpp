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
  ampOptions.printStats = options.stats;
  pm.addPass(createAutoMixedPrecisionPass(ampOptions));
  OptimizeCastsPassOptions castOptions;
  castOptions.printStats = options.stats;
  pm.addPass(createOptimizeCastsPass(castOptions));
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
        explained.stats = options.stats;
        buildAmpPipeline(pm, explained);
      });
}
