//===- Pipelines.h - amp-opt pass pipelines ---------------------*- C++ -*-===//
//
// Every pass pipeline of amp-opt, declared in one place: `--amp` and
// `--amp-explain` (the AMP rewrite, with the reporting passes when a report
// is asked for) and `--amp-lower-to-llvm` (the lowering amp-run and
// scripts/lower-to-llvm.sh share). This layer sits above the core
// (Transforms) and the reports (Reports), which do not depend on it.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_PIPELINES_PIPELINES_H
#define AMP_PIPELINES_PIPELINES_H

#include "amp/Support/OptionEnums.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

#include <string>

namespace mlir::amp {

/// Options of the default AMP pipeline (`--amp`).
struct AmpPipelineOptions : public PassPipelineOptions<AmpPipelineOptions> {
  PassOptions::Option<AmpModeOption> mode{
      *this, "mode",
      llvm::cl::desc("f16, bf16, or auto: what pays on `target` (the host "
                     "CPU unless target is given)"),
      llvm::cl::init(AmpModeOption::F16)};
  PassOptions::ListOption<std::string> cpuFeatures{
      *this, "cpu-features",
      llvm::cl::desc("With mode=auto target=cpu: LLVM x86 feature names to "
                     "decide from instead of the host's (e.g. "
                     "avx512bf16,f16c)")};
  PassOptions::Option<EmitOption> emit{
      *this, "emit",
      llvm::cl::desc("Who compiles the output: mlir, or iree (weights "
                     "taken rounded from the caller; on target=cpu, "
                     "convolutions kept f32)"),
      llvm::cl::init(EmitOption::Mlir)};
  PassOptions::Option<std::string> policy{
      *this, "policy", llvm::cl::desc("Policy file (JSON or YAML)"),
      llvm::cl::init("")};
  PassOptions::Option<bool> castEconomy{
      *this, "cast-economy",
      llvm::cl::desc("Keep a clear region f32 where its border casts would "
                     "move more bytes (false: TensorFlow's painting)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> explain{*this, "explain",
                                    llvm::cl::desc("Emit one remark per op"),
                                    llvm::cl::init(false)};
  PassOptions::Option<bool> stats{
      *this, "stats", llvm::cl::desc("Print each pass's statistics to stderr"),
      llvm::cl::init(false)};
  PassOptions::Option<LossScalingOption> lossScaling{
      *this, "loss-scaling",
      llvm::cl::desc("Loss scaling of training steps (functions with an "
                     "amp.grad_seed): dynamic, static, none or auto "
                     "(dynamic for f16, none for bf16)"),
      llvm::cl::init(LossScalingOption::Auto)};
  PassOptions::Option<double> initScale{
      *this, "init-scale",
      llvm::cl::desc("Initial (dynamic) or constant (static) loss scale"),
      llvm::cl::init(65536.0)};
  PassOptions::Option<ScaleStateKind> lossScaleState{
      *this, "state",
      llvm::cl::desc("Where the loss-scale state lives: args or globals"),
      llvm::cl::init(ScaleStateKind::Args)};
  // What the rewrite did (docs/reports.md): any of report, summary, dot
  // turns on amp-report-snapshot and amp-report-write around the rewrite.
  PassOptions::Option<std::string> report{
      *this, "report",
      llvm::cl::desc("Write the JSON report of the rewrite to this file"),
      llvm::cl::init("")};
  PassOptions::Option<bool> summary{
      *this, "summary", llvm::cl::desc("Print the report as a table to stderr"),
      llvm::cl::init(false)};
  PassOptions::Option<TargetOption> target{
      *this, "target",
      llvm::cl::desc("v100, a100, h100 or cpu: what mode=auto picks the "
                     "type for (default there: cpu, the host), and the GPU "
                     "preset of the report's step-time estimate (default "
                     "h100; cpu has none)"),
      llvm::cl::init(TargetOption::H100)};
  PassOptions::Option<std::string> dot{
      *this, "dot",
      llvm::cl::desc("Write the mixed-precision dataflow graph as Graphviz "
                     "DOT to this file"),
      llvm::cl::init("")};
  PassOptions::Option<std::string> dotFunction{
      *this, "dot-func",
      llvm::cl::desc("Only draw this function in the DOT graph"),
      llvm::cl::init("")};
};

/// Adds amp-auto-mixed-precision, amp-optimize-casts,
/// amp-check-master-weights, amp-loss-scaling and amp-strip-markers to `pm`.
void buildAmpPipeline(OpPassManager &pm, const AmpPipelineOptions &options);

/// Registers the `amp` and `amp-explain` pass pipelines, and the lowering
/// pipelines of registerAmpLoweringPipelines().
void registerAmpPipelines();

/// Options of the lowering to the LLVM dialect (`--amp-lower-to-llvm`).
struct AmpLowerToLLVMOptions
    : public PassPipelineOptions<AmpLowerToLLVMOptions> {
  PassOptions::Option<bool> runtime{
      *this, "runtime",
      llvm::cl::desc("Run amp-lower-to-runtime after bufferization: f16 / "
                     "bf16 matmuls and convolutions call libamp_rt"),
      llvm::cl::init(false)};
  PassOptions::Option<bool> fast{
      *this, "fast",
      llvm::cl::desc("The fast pipeline (implies runtime, and parallel "
                     "unless threads=1): elementwise fusion, every matmul / "
                     "convolution (f32 too) in libamp_rt, vectorized loops"),
      llvm::cl::init(false)};
  PassOptions::Option<bool> parallel{
      *this, "parallel",
      llvm::cl::desc("Run the loops that stay outside libamp_rt on all cores "
                     "(amp-tile-for-threads, then OpenMP work-sharing loops; "
                     "the lowered code then needs an OpenMP runtime, "
                     "libomp)"),
      llvm::cl::init(false)};
  PassOptions::Option<unsigned> threads{
      *this, "threads",
      llvm::cl::desc("With parallel (or fast): chunks per parallel loop "
                     "(0: this machine's hardware threads; 1: serial loops)"),
      llvm::cl::init(0)};
  PassOptions::Option<bool> blockConvs{
      *this, "block-convs",
      llvm::cl::desc("With fast: NCHW convolutions keep their activations in "
                     "oneDNN's blocked layout between the library calls "
                     "(amp-block-convs)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> donateState{
      *this, "donate-state",
      llvm::cl::desc("Write a training step's new params and optimizer state "
                     "into their arguments' buffers "
                     "(amp-update-state-in-place): the caller donates them "
                     "and must not read them after the call"),
      llvm::cl::init(false)};
  PassOptions::Option<Bf16ConversionsOption> bf16Conversions{
      *this, "bf16-conversions",
      llvm::cl::desc("How f32 -> bf16 roundings become machine code: auto "
                     "(expand unless the host has AVX512_BF16), native "
                     "(LLVM's fptrunc: one instruction with AVX512_BF16, a "
                     "__truncsfbf2 call per element without), expand "
                     "(integer round-to-nearest-even that vectorizes)"),
      llvm::cl::init(Bf16ConversionsOption::Auto)};
  PassOptions::Option<LowContractionsOption> lowContractions{
      *this, "low-contractions",
      llvm::cl::desc("With fast: how the f16 / bf16 inputs of the library's "
                     "contractions reach it: auto (widened in the IR, fused "
                     "into their producers, where the host CPU has no dot "
                     "products in that type: bf16 without AVX512_BF16, f16 "
                     "always; not in training steps, where it was measured "
                     "slower), library (as they are: for the cuda backend), "
                     "widen (both types, everywhere; "
                     "amp-widen-runtime-inputs)"),
      llvm::cl::init(LowContractionsOption::Auto)};
};

/// Adds the lowering of a module of func / arith / math / tensor / linalg /
/// scf ops on static tensors to the LLVM dialect to `pm` (a module pass
/// manager): the reference pipeline by default, the fast one with `fast`.
/// docs/lowering.md lists the passes.
void buildAmpLowerToLLVMPipeline(OpPassManager &pm,
                                 const AmpLowerToLLVMOptions &options);

/// Registers the `amp-lower-to-llvm` pass pipeline.
void registerAmpLoweringPipelines();

} // namespace mlir::amp

#endif // AMP_PIPELINES_PIPELINES_H
