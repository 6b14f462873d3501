//===- Passes.h - amp-opt transformation passes -----------------*- C++ -*-===//

#ifndef AMP_TRANSFORMS_PASSES_H
#define AMP_TRANSFORMS_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::amp {

#define GEN_PASS_DECL
#include "amp/Transforms/Passes.h.inc"

/// Options of the default AMP pipeline (`--amp`).
struct AmpPipelineOptions : public PassPipelineOptions<AmpPipelineOptions> {
  PassOptions::Option<std::string> mode{
      *this, "mode", llvm::cl::desc("f16 or bf16"), llvm::cl::init("f16")};
  PassOptions::Option<std::string> policy{
      *this, "policy", llvm::cl::desc("Policy file (JSON or YAML)"),
      llvm::cl::init("")};
  PassOptions::Option<bool> explain{*this, "explain",
                                    llvm::cl::desc("Emit one remark per op"),
                                    llvm::cl::init(false)};
  PassOptions::Option<bool> stats{
      *this, "stats", llvm::cl::desc("Print each pass's statistics to stderr"),
      llvm::cl::init(false)};
};

/// Adds amp-auto-mixed-precision and amp-optimize-casts to `pm`.
void buildAmpPipeline(OpPassManager &pm, const AmpPipelineOptions &options);

/// Registers the `amp` and `amp-explain` pass pipelines.
void registerAmpPipelines();

//===----------------------------------------------------------------------===//
// Registration
//===----------------------------------------------------------------------===//

#define GEN_PASS_REGISTRATION
#include "amp/Transforms/Passes.h.inc"

} // namespace mlir::amp

#endif // AMP_TRANSFORMS_PASSES_H
