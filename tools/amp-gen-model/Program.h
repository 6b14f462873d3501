//===- Program.h - The training step around a model -------------*- C++ -*-===//
//
// The functions amp-gen-model writes: the training step (forward, loss,
// backward, optimizer, with the markers and roles of
// docs/training-step.md), the eval function, and the testing driver
// (Driver.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef AMP_GEN_MODEL_PROGRAM_H
#define AMP_GEN_MODEL_PROGRAM_H

#include "Models.h"

namespace amp_gen {

struct StateSpec {
  std::string name;
  llvm::SmallVector<int64_t> shape;
  std::string param; // empty for Adam's step count
  std::string kind;  // velocity, m, v, step
};

std::vector<StateSpec> stateSpecs(const Options &o,
                                  const std::vector<ParamSpec> &params);

/// Builds the step function into `module`.
void emitStep(mlir::ModuleOp module, const Options &o, Model &model,
              mlir::FloatType ft);
/// Builds the eval function (x, params) -> logits.
void emitPredict(mlir::ModuleOp module, const Options &o, Model &model,
                 mlir::FloatType ft);
/// Builds @main (and its helpers) that runs one step on deterministic
/// inputs and prints what test/Examples/gradcheck.py compares.
void emitDriver(mlir::ModuleOp module, const Options &o, Model &model,
                mlir::FloatType ft);

} // namespace amp_gen

#endif // AMP_GEN_MODEL_PROGRAM_H
