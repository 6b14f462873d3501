//===- AmpReport.h - What the AMP rewrite did, per function -----*- C++ -*-===//
//
// Compares the metrics of the input (f32), of the IR right after
// amp-auto-mixed-precision and of the IR after amp-optimize-casts, and
// writes the result as JSON (docs/amp-report.schema.json) or as a table.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_ANALYSIS_AMPREPORT_H
#define AMP_ANALYSIS_AMPREPORT_H

#include "amp/Analysis/GpuTargets.h"
#include "amp/Reports/ReportMetrics.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <vector>

namespace mlir::amp {

/// The roofline estimate of one version of a function.
struct StepEstimate {
  double seconds = 0;
  int64_t flops = 0;
  int64_t bytes = 0;
};

/// One function (or the total over all functions) before vs after.
struct FunctionReport {
  std::string name;
  bool trainingStep = false;
  /// Classes of the ops amp-auto-mixed-precision classified.
  std::array<int64_t, kNumClasses> byClass{};
  /// Float ops of the output by precision, and by class and precision.
  std::array<int64_t, kNumPrecisions> byPrecision{};
  std::array<std::array<int64_t, kNumPrecisions>, kNumClasses + 1>
      classPrecision{};
  /// Casts in the input, inserted by amp-auto-mixed-precision, removed by
  /// amp-optimize-casts, left in the output.
  CountAndBytes castsInput, castsInserted, castsRemoved, castsOutput;
  int64_t contractionFlops = 0;
  int64_t lowContractionFlops = 0;
  /// Values kept for the backward pass in the input and in the output.
  CountAndBytes savedF32, savedAmp;
  /// Of savedAmp: low-precision copies of function arguments.
  CountAndBytes savedAmpArgumentCopies;
  StepEstimate estimateF32, estimateAmp;
  int64_t uncostedOps = 0;

  double getLowContractionShare() const;
  double getSavedRatio() const;
  double getSpeedup() const;
};

/// Builds the report of every function of `output` (and the total, last)
/// from the snapshots: `input` before the rewrite, `rewritten` right after
/// amp-auto-mixed-precision, `output` at the end. Functions are matched by
/// name; one missing from a snapshot counts as empty there.
std::vector<FunctionReport>
compareSnapshots(ArrayRef<FunctionMetrics> input,
                 ArrayRef<FunctionMetrics> rewritten,
                 ArrayRef<FunctionMetrics> output, const GpuTarget &target);

/// The JSON document of docs/amp-report.schema.json; `reports` ends with the
/// total.
llvm::json::Value reportToJSON(ArrayRef<FunctionReport> reports,
                               const GpuTarget &target);

/// A table with one column per function and one for the total.
void printReportSummary(ArrayRef<FunctionReport> reports,
                        const GpuTarget &target, raw_ostream &os);

} // namespace mlir::amp

#endif // AMP_ANALYSIS_AMPREPORT_H
