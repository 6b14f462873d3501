//===- Signature.h - amp.role analysis of step/eval functions ---*- C++ -*-===//
//
// Reads the `amp.role` (and `amp.updates`) attributes of a training step's
// and an evaluation function's arguments and results (docs/training-step.md)
// and checks them: every argument and result has a known role, the types fit
// the role, updates name a state argument of the same type.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_RUN_SIGNATURE_H
#define AMP_RUN_SIGNATURE_H

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace mlir {
namespace func {
class FuncOp;
} // namespace func
} // namespace mlir

namespace amp::run {

enum class Role {
  // Arguments.
  Input,
  Label,
  Param,
  ParamCopy,
  OptState,
  // Arguments and results.
  LossScale,
  GoodSteps,
  // Results.
  Loss,
  Update,
  StepOk,
  Grad,
  Logits,
};

llvm::StringRef roleName(Role role);

/// Element types amp-run can pass: f32, i32, i1 (one byte in memory), and
/// the 16-bit floats of `param_copy` arguments.
enum class ElemKind { F32, I32, I1, BF16, F16 };

/// "f32", "i32", "i1", "bf16" or "f16".
llvm::StringRef elemName(ElemKind elem);

/// A statically shaped tensor as amp-run passes it: after one-shot
/// bufferization with identity layouts, a memref with this shape.
struct TensorSpec {
  llvm::SmallVector<int64_t, 4> shape;
  ElemKind elem = ElemKind::F32;

  int64_t numElements() const;
  int64_t elemBytes() const;
  int64_t numBytes() const { return numElements() * elemBytes(); }
  /// Words of its memref descriptor: allocated, aligned, offset, sizes,
  /// strides.
  int64_t descriptorWords() const { return 3 + 2 * shape.size(); }
  std::string str() const;
  bool operator==(const TensorSpec &other) const {
    return shape == other.shape && elem == other.elem;
  }
};

struct RoleValue {
  Role role;
  TensorSpec spec;
  /// For results: the argument this result replaces for the next step
  /// (`update`: `amp.updates`; `loss_scale`, `good_steps`: the argument of
  /// the same role). For a `param_copy` argument: the param it is the
  /// rounding of (`amp.copy_of`). Otherwise -1.
  int64_t target = -1;
};

/// The roles of a step or eval function, with the positions of the unique
/// ones (-1 when absent).
struct Signature {
  std::string name;
  llvm::SmallVector<RoleValue, 8> args;
  llvm::SmallVector<RoleValue, 8> results;
  int64_t input = -1, label = -1, lossScaleArg = -1, goodStepsArg = -1;
  int64_t loss = -1, stepOk = -1, logits = -1, lossScaleResult = -1;
  /// Argument indices of `param`s, in order.
  llvm::SmallVector<int64_t, 8> params;
  /// Argument indices of `param_copy`s, in order.
  llvm::SmallVector<int64_t, 4> paramCopies;
  /// Result indices of `grad`s (gradients returned for inspection).
  llvm::SmallVector<int64_t, 8> grads;

  int64_t batchSize() const { return args[input].spec.shape[0]; }
  /// Product of the input's non-batch dimensions.
  int64_t numFeatures() const;
};

/// The signature of the training step `fn`.
llvm::Expected<Signature> analyzeStep(mlir::func::FuncOp fn);

/// The signature of the evaluation function `fn`, whose `param`s must match
/// those of `step` in order and type, and whose input must have the
/// step's per-sample shape.
llvm::Expected<Signature> analyzeEval(mlir::func::FuncOp fn,
                                      const Signature &step);

/// True if a result of `fn` has role `role` (to find the default step and
/// eval functions).
bool hasResultRole(mlir::func::FuncOp fn, llvm::StringRef role);

/// --print-signature: `step NAME`, then `arg|result INDEX ROLE ELEM SHAPE
/// TARGET` per value (SHAPE: dims joined by x, `-` for a scalar; TARGET: the
/// argument an update replaces, or -1).
void writeSignature(const Signature &sig, llvm::raw_ostream &os);

} // namespace amp::run

#endif // AMP_RUN_SIGNATURE_H
