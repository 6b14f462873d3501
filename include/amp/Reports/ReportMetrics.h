//===- ReportMetrics.h - What the AMP report measures -----------*- C++ -*-===//
//
// The numbers of one function at one point of the pipeline: classified ops,
// ops by precision, casts, contraction FLOPs, bytes of the values the
// backward pass reads, and the roofline time on every GPU preset.
// amp-report-write compares them before and after the rewrite;
// amp-report-snapshot keeps them in the module (as JSON) until then.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_ANALYSIS_REPORTMETRICS_H
#define AMP_ANALYSIS_REPORTMETRICS_H

#include "amp/Interfaces/PrecisionClass.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/JSON.h"

#include <array>
#include <cstdint>
#include <string>

namespace mlir::amp {

/// Precision an op runs in after the rewrite.
enum class OpPrecision { Low, F32, Other };
constexpr unsigned kNumClasses = 5;    // allow, infer, clear, deny, unlisted
constexpr unsigned kNumPrecisions = 3; // low, f32, other
StringRef stringifyOpPrecision(OpPrecision precision);

/// Low if `op` reads or writes an f16 / bf16 scalar, tensor or vector, F32
/// if it touches f32 ones only, Other if none of either.
OpPrecision getOpPrecision(Operation *op);

struct CountAndBytes {
  int64_t count = 0;
  int64_t bytes = 0;
};

struct FunctionMetrics {
  std::string name;
  /// The function has an amp.grad_seed: a training step.
  bool trainingStep = false;
  /// Ops carrying an amp.decision, by class.
  std::array<int64_t, kNumClasses> byClass{};
  /// Float ops (not casts, constants or empty tensors) by precision.
  std::array<int64_t, kNumPrecisions> byPrecision{};
  /// The same ops by the class of their decision (last row: none).
  std::array<std::array<int64_t, kNumPrecisions>, kNumClasses + 1>
      classPrecision{};
  /// arith.truncf / arith.extf; bytes: elements x result element size.
  CountAndBytes casts;
  int64_t contractionFlops = 0;
  int64_t lowContractionFlops = 0;
  /// Totals of the roofline inputs over every op.
  int64_t flops = 0;
  int64_t bytes = 0;
  /// Ops with dynamic shapes, left out of the estimate.
  int64_t uncostedOps = 0;
  /// Values defined before amp.grad_seed and used after it (all values
  /// defined by ops, without a seed).
  CountAndBytes saved;
  /// Of `saved`: casts of function arguments (the f16 copy of a weight that
  /// the backward pass reads again).
  CountAndBytes savedArgumentCopies;
  /// Roofline seconds on each getGpuTargets() entry, in order.
  std::vector<double> seconds;
};

/// Measures `func` (ops in scf bodies count once per static trip).
FunctionMetrics measureFunction(func::FuncOp func);
/// Measures every func.func with a body nested in `module`.
std::vector<FunctionMetrics> measureModule(ModuleOp module);

llvm::json::Value toJSON(const FunctionMetrics &metrics);
bool fromJSON(const llvm::json::Value &value, FunctionMetrics &metrics,
              llvm::json::Path path);

/// Keeps the metrics of `stage` in a module attribute `amp.report.<stage>`.
void storeSnapshot(ModuleOp module, StringRef stage,
                   ArrayRef<FunctionMetrics> metrics);
/// Reads a snapshot back; fails if there is none or it is malformed.
FailureOr<std::vector<FunctionMetrics>> loadSnapshot(ModuleOp module,
                                                     StringRef stage);
/// Removes every `amp.report.*` module attribute.
void stripSnapshots(ModuleOp module);

} // namespace mlir::amp

#endif // AMP_ANALYSIS_REPORTMETRICS_H
