//===- Trainer.h - amp-run's training loop, evaluation and benchmark -*- C++
//-*-===//
//
// Owns the step's arguments (params, optimizer state, loss scale, batches),
// calls the JIT-compiled step once per batch and applies its results to the
// state (docs/training-step.md's amp.role ABI), evaluates on the test split
// and times the step (--bench-steps). Everything it prints is in
// docs/amp-run.md.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_RUN_TRAINER_H
#define AMP_RUN_TRAINER_H

#include "Dataset.h"
#include "JitFunction.h"
#include "Signature.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <string>
#include <vector>

namespace amp::run {

struct TrainOptions {
  /// --steps, or else --epochs (1 when neither is given) over the training
  /// split; with --bench-steps alone, no training.
  int64_t steps = 0;
  int64_t epochs = 0;
  int64_t benchSteps = 0;
  int64_t printEvery = 1;
  bool quiet = false;
  bool printState = false;
  bool timing = false;
  uint64_t seed = 0;
  double initScale = 1.0;
  /// --init-params: raw little-endian f32 values of every param argument, in
  /// argument order, instead of the Glorot / zeros initialization.
  std::string initParams;
  /// --poison-steps: these steps (1-based) get `poisonValue` in their input.
  std::vector<int64_t> poisonSteps;
  double poisonValue = 0.0;
};

/// Prints `prefix` and "step time: median X ms, min Y ms over N steps; Z
/// samples/s" for the call times `ms` (not empty) of a step on `batch`
/// samples: the line benchmarks read.
void printStepTime(llvm::StringRef prefix, const std::vector<double> &ms,
                   int64_t batch);

class Trainer {
public:
  /// `eval` / `evalCall` may be null (no eval function).
  Trainer(const Signature &step, JitFunction &stepCall, const Signature *eval,
          JitFunction *evalCall, const Dataset &data, const Split &split,
          const TrainOptions &options);

  /// Allocates the step's arguments, initializes params and the loss scale,
  /// checks the options against the number of steps, and prints the plan.
  llvm::Error prepare();
  /// Runs the training steps.
  llvm::Error train();
  /// Test accuracy of the eval function with the trained params.
  llvm::Error evaluate();
  /// --bench-steps: times the step on one batch.
  void benchmark();
  /// The parts of benchmark(), for --bench-against: puts the first training
  /// batch into the step's input, then times one call of the step (ms; its
  /// results freed, its peak memory counted).
  void prepareBenchmark();
  double timeBenchmarkCall(double *cpuMs = nullptr);
  int64_t peakMemory() const { return peakBytes; }
  /// Peak memory, leaks, and with --timing the training / eval times.
  void printSummary(double loweringMs, double jitMs, double totalMs) const;

private:
  bool benchOnly() const;
  /// Overwrites the params with the values of --init-params.
  llvm::Error loadInitialParams();
  /// Applies the results of one step to the state and prints its line.
  llvm::Error finishStep(int64_t n, double scale);
  void addLeaks(int64_t liveBefore, int64_t buffersBefore);

  const Signature &step;
  JitFunction &stepCall;
  const Signature *eval;
  JitFunction *evalCall;
  const Dataset &data;
  const Split &split;
  const TrainOptions &options;

  std::vector<std::unique_ptr<HostTensor>> state;
  llvm::SmallVector<HostTensor *, 16> stepArgs;
  llvm::SmallVector<HostTensor *, 8> paramTensors, optTensors;
  llvm::SmallDenseSet<int64_t, 8> poisoned;
  int64_t totalSteps = 0;
  int64_t stepsPerEpoch = 0;
  int64_t gradElements = 0;
  std::vector<float> gradBuffer;

  // Figures.
  double zeroShareSum = 0;
  int64_t zeroShareSteps = 0;
  int64_t skipped = 0;
  int64_t peakBytes = 0, leakedBytes = 0, leakedBuffers = 0;
  double trainMs = 0, evalMs = 0;
};

} // namespace amp::run

#endif // AMP_RUN_TRAINER_H
