//===- Pipelines.cpp - The default AMP pipeline ---------------------------===//

#include "amp/Pipelines/Pipelines.h"
#include "amp/Reports/Passes.h"
#include "amp/Transforms/Passes.h"

#include "amp/Analysis/TargetPrecision.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

using namespace mlir;
using namespace mlir::amp;

/// The target mode=auto decides for: `target` when given, else the host
/// CPU (the option's default, h100, is the report's).
static TargetOption autoTarget(const AmpPipelineOptions &options) {
  return options.target.hasValue() ? options.target.getValue()
                                   : TargetOption::Cpu;
}

/// `auto`: dynamic loss scaling for f16, none for bf16 (which has f32's
/// range, so its gradients do not underflow) and for a program mode=auto
/// leaves f32.
static ScalingMode resolveLossScaling(const AmpPipelineOptions &options) {
  switch (options.lossScaling) {
  case LossScalingOption::Dynamic:
    return ScalingMode::Dynamic;
  case LossScalingOption::Static:
    return ScalingMode::Static;
  case LossScalingOption::None:
    return ScalingMode::None;
  case LossScalingOption::Auto:
    break;
  }
  std::optional<AmpMode> mode =
      options.mode == AmpModeOption::BF16 ? AmpMode::BF16 : AmpMode::F16;
  if (options.mode == AmpModeOption::Auto)
    mode = chooseAutoPrecision(autoTarget(options), options.cpuFeatures,
                               options.emit)
               .mode;
  if (!mode)
    return ScalingMode::None;
  return *mode == AmpMode::BF16 ? ScalingMode::None : ScalingMode::Dynamic;
}

void mlir::amp::buildAmpPipeline(OpPassManager &pm,
                                 const AmpPipelineOptions &options) {
  // The report (docs/reports.md) compares snapshots taken before and right
  // after the rewrite with the IR after the cast cleanup. A target without
  // an output still gets amp-report-write, which checks it and says so.
  // A target named for mode=auto alone asks for no report.
  bool reporting = !options.report.empty() || options.summary ||
                   !options.dot.empty() ||
                   (options.target != TargetOption::H100 &&
                    options.target != TargetOption::Cpu &&
                    options.mode != AmpModeOption::Auto);
  if (reporting)
    pm.addPass(createReportSnapshotPass({SnapshotStage::Input}));
  AutoMixedPrecisionPassOptions ampOptions;
  ampOptions.mode = options.mode;
  ampOptions.emit = options.emit;
  if (options.mode == AmpModeOption::Auto || options.emit == EmitOption::Iree) {
    ampOptions.target = autoTarget(options);
    ampOptions.cpuFeatures.assign(options.cpuFeatures.begin(),
                                  options.cpuFeatures.end());
  }
  ampOptions.policyFile = options.policy;
  ampOptions.explain = options.explain;
  ampOptions.castEconomy = options.castEconomy;
  ampOptions.printStats = options.stats;
  ampOptions.annotate = reporting;
  // The pass manager verifies the whole module after each pass that changed
  // it, which costs more than the cast cleanup itself on large graphs; the
  // cleanup runs inside the rewrite unless a snapshot must come between.
  ampOptions.optimizeCasts = !reporting;
  pm.addPass(createAutoMixedPrecisionPass(ampOptions));
  if (reporting) {
    pm.addPass(createReportSnapshotPass({SnapshotStage::Rewritten}));
    OptimizeCastsPassOptions castOptions;
    castOptions.printStats = options.stats;
    pm.addPass(createOptimizeCastsPass(castOptions));
  }
  if (reporting)
    pm.addPass(
        createReportWritePass({options.report, options.summary, options.target,
                               options.dot, options.dotFunction}));
  // The marker passes run on the module itself, not nested per function: a
  // nested pipeline costs a verification of the module after it (its symbol
  // table walks every op), more than the two passes themselves, and when
  // they change nothing they skip verification altogether.
  pm.addPass(createCheckMasterWeightsPass());
  LossScalingPassOptions scalingOptions;
  scalingOptions.mode = resolveLossScaling(options);
  scalingOptions.initScale = options.initScale;
  scalingOptions.state = options.lossScaleState;
  scalingOptions.printStats = options.stats;
  pm.addPass(createLossScalingPass(scalingOptions));
  pm.addPass(createStripMarkersPass());
  // IREE runs a function many times with the same weights: the caller
  // rounds them once (docs/downstream.md).
  if (options.emit == EmitOption::Iree)
    pm.addPass(createLowPrecisionArgumentsPass());
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
        explained.emit = options.emit;
        explained.policy = options.policy;
        explained.explain = true;
        explained.castEconomy = options.castEconomy;
        explained.stats = options.stats;
        explained.lossScaling = options.lossScaling;
        explained.initScale = options.initScale;
        explained.lossScaleState = options.lossScaleState;
        explained.report = options.report;
        explained.summary = options.summary;
        if (options.target.hasValue())
          explained.target = options.target;
        explained.cpuFeatures = options.cpuFeatures;
        explained.dot = options.dot;
        explained.dotFunction = options.dotFunction;
        buildAmpPipeline(pm, explained);
      });
  registerAmpLoweringPipelines();
}
