//===- ReportWrite.cpp - The amp-report-write pass ------------------------===//
//
// Compares the IR after the rewrite with the snapshots amp-report-snapshot
// took, writes the JSON report, the summary table and the DOT graph, and
// removes every trace of the reporting (snapshots, amp.decision attributes)
// so that the IR continues down the pipeline as if nothing was reported.
//
//===----------------------------------------------------------------------===//

#include "amp/Analysis/GpuTargets.h"
#include "amp/Analysis/PrecisionAnnotations.h"
#include "amp/Reports/AmpReport.h"
#include "amp/Reports/DataflowDot.h"
#include "amp/Reports/Passes.h"
#include "amp/Reports/ReportMetrics.h"

#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/ToolOutputFile.h"

namespace mlir::amp {
#define GEN_PASS_DEF_REPORTWRITEPASS
#include "amp/Reports/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;
using namespace mlir::amp;

namespace {

struct ReportWritePass
    : public amp::impl::ReportWritePassBase<ReportWritePass> {
  using Base::Base;

  /// target=cpu is an option error (no step-time preset): one line,
  /// before any IR is touched.
  LogicalResult initialize(MLIRContext *context) override;
  void runOnOperation() override;

private:
  /// Opens `path` for writing; emits an error naming `what` on failure.
  std::unique_ptr<llvm::ToolOutputFile> open(StringRef path, StringRef what);
};

} // namespace

std::unique_ptr<llvm::ToolOutputFile> ReportWritePass::open(StringRef path,
                                                            StringRef what) {
  std::string message;
  std::unique_ptr<llvm::ToolOutputFile> file = openOutputFile(path, &message);
  if (!file)
    getOperation().emitError() << "amp-report-write: cannot write the " << what
                               << " to '" << path << "': " << message;
  return file;
}

LogicalResult ReportWritePass::initialize(MLIRContext *context) {
  if (target != TargetOption::Cpu)
    return success();
  return emitError(UnknownLoc::get(context))
         << "amp-report-write: the report's step-time estimate has GPU "
            "presets only ("
         << listGpuTargets()
         << "); with mode=auto target=cpu, leave out report=, "
            "summary=true and dot=";
}

void ReportWritePass::runOnOperation() {
  ModuleOp module = getOperation();
  // Read everything that lives in the IR, then remove it, so that the IR
  // leaves as it would without reporting, and diagnostics show it so.
  const GpuTarget *gpu =
      lookupGpuTarget(stringifyEnumOption<TargetOption>(target));
  FailureOr<std::vector<FunctionMetrics>> input = loadSnapshot(module, "input");
  FailureOr<std::vector<FunctionMetrics>> rewritten =
      loadSnapshot(module, "rewritten");
  std::vector<FunctionMetrics> output = measureModule(module);
  std::unique_ptr<llvm::ToolOutputFile> dot;
  bool dotFailed = false;
  if (gpu && succeeded(input) && !dotFile.empty()) {
    dot = open(dotFile, "DOT graph");
    dotFailed =
        !dot || failed(writeDataflowDot(module, dotFunction, dot->os()));
  }
  stripPrecisionDecisions(module);
  stripSnapshots(module);

  // initialize() checked the target.
  assert(gpu && "unknown target");
  if (failed(input)) {
    module.emitError()
        << "amp-report-write: no snapshot of the input; run "
           "amp-report-snapshot{stage=input} before amp-auto-mixed-precision "
           "(the amp pipeline does with report=, summary=true or dot=)";
    return signalPassFailure();
  }
  if (dotFailed) {
    if (dot)
      module.emitError() << "amp-report-write: dot-func: no function named '"
                         << dotFunction << "'";
    return signalPassFailure();
  }
  if (dot)
    dot->keep();
  if (reportFile.empty() && !summary && dotFile.empty())
    module.emitWarning() << "amp-report-write: nothing to write; set "
                            "report=<file>, summary=true or dot=<file>";
  // Without a snapshot right after the rewrite, the IR now is that IR (no
  // cast cleanup ran in between).
  if (failed(rewritten))
    rewritten = output;
  auto anyCount = [](ArrayRef<int64_t> counts) {
    return llvm::any_of(counts, [](int64_t n) { return n != 0; });
  };
  bool floatOps = llvm::any_of(*rewritten, [&](const FunctionMetrics &m) {
    return anyCount(m.byPrecision);
  });
  bool annotated = llvm::any_of(*rewritten, [&](const FunctionMetrics &m) {
    return anyCount(m.byClass);
  });
  if (floatOps && !annotated)
    module.emitWarning()
        << "amp-report-write: no op carries an amp.decision: classes are not "
           "reported; run amp-auto-mixed-precision with annotate=true";

  std::vector<FunctionReport> reports =
      compareSnapshots(*input, *rewritten, output, *gpu);
  if (!reportFile.empty()) {
    std::unique_ptr<llvm::ToolOutputFile> file = open(reportFile, "report");
    if (!file)
      return signalPassFailure();
    file->os() << llvm::formatv("{0:2}", reportToJSON(reports, *gpu)) << "\n";
    file->keep();
  }
  if (summary)
    printReportSummary(reports, *gpu, llvm::errs());
}
