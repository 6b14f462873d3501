//===- AmpReport.cpp - What the AMP rewrite did, per function -------------===//

#include "amp/Reports/AmpReport.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::amp;

static const PrecisionClass kClasses[] = {
    PrecisionClass::Allow, PrecisionClass::Infer, PrecisionClass::Clear,
    PrecisionClass::Deny, PrecisionClass::Unlisted};
static const OpPrecision kPrecisions[] = {OpPrecision::Low, OpPrecision::F32,
                                          OpPrecision::Other};

double FunctionReport::getLowContractionShare() const {
  return contractionFlops ? static_cast<double>(lowContractionFlops) /
                                static_cast<double>(contractionFlops)
                          : 0.0;
}

double FunctionReport::getSavedRatio() const {
  return savedF32.bytes ? static_cast<double>(savedAmp.bytes) /
                              static_cast<double>(savedF32.bytes)
                        : 1.0;
}

double FunctionReport::getSpeedup() const {
  return estimateAmp.seconds > 0 ? estimateF32.seconds / estimateAmp.seconds
                                 : 1.0;
}

/// `a - b`, never negative: the passes only add (resp. remove) casts, a
/// negative net change means a cast was rebuilt and is not counted.
static CountAndBytes netIncrease(const CountAndBytes &a,
                                 const CountAndBytes &b) {
  return {std::max<int64_t>(0, a.count - b.count),
          std::max<int64_t>(0, a.bytes - b.bytes)};
}

static void accumulate(CountAndBytes &sum, const CountAndBytes &value) {
  sum.count += value.count;
  sum.bytes += value.bytes;
}

static void accumulate(StepEstimate &sum, const StepEstimate &value) {
  sum.seconds += value.seconds;
  sum.flops += value.flops;
  sum.bytes += value.bytes;
}

std::vector<FunctionReport> mlir::amp::compareSnapshots(
    ArrayRef<FunctionMetrics> input, ArrayRef<FunctionMetrics> rewritten,
    ArrayRef<FunctionMetrics> output, const GpuTarget &target) {
  size_t targetIndex = &target - getGpuTargets().data();
  auto index = [](ArrayRef<FunctionMetrics> metrics) {
    llvm::StringMap<const FunctionMetrics *> byName;
    for (const FunctionMetrics &function : metrics)
      byName.try_emplace(function.name, &function);
    return byName;
  };
  llvm::StringMap<const FunctionMetrics *> inputByName = index(input);
  llvm::StringMap<const FunctionMetrics *> rewrittenByName = index(rewritten);
  FunctionMetrics empty;
  empty.seconds.assign(getGpuTargets().size(), 0.0);
  auto lookup = [&](const llvm::StringMap<const FunctionMetrics *> &byName,
                    StringRef name) {
    return byName.lookup(name) ? byName.lookup(name) : &empty;
  };
  auto estimate = [&](const FunctionMetrics &metrics) {
    return StepEstimate{metrics.seconds[targetIndex], metrics.flops,
                        metrics.bytes};
  };

  std::vector<FunctionReport> reports;
  FunctionReport total;
  total.name = "total";
  for (const FunctionMetrics &out : output) {
    const FunctionMetrics &in = *lookup(inputByName, out.name);
    const FunctionMetrics &mid = *lookup(rewrittenByName, out.name);
    FunctionReport report;
    report.name = out.name;
    report.trainingStep = out.trainingStep;
    // The decisions are counted right after the rewrite, before
    // amp-optimize-casts folds some ops away.
    report.byClass = mid.byClass;
    report.byPrecision = out.byPrecision;
    report.classPrecision = out.classPrecision;
    report.castsInput = in.casts;
    report.castsInserted = netIncrease(mid.casts, in.casts);
    report.castsRemoved = netIncrease(mid.casts, out.casts);
    report.castsOutput = out.casts;
    report.contractionFlops = out.contractionFlops;
    report.lowContractionFlops = out.lowContractionFlops;
    report.savedF32 = in.saved;
    report.savedAmp = out.saved;
    report.savedAmpArgumentCopies = out.savedArgumentCopies;
    report.estimateF32 = estimate(in);
    report.estimateAmp = estimate(out);
    report.uncostedOps = out.uncostedOps;
    reports.push_back(report);

    total.trainingStep |= report.trainingStep;
    for (unsigned i = 0; i < kNumClasses; ++i)
      total.byClass[i] += report.byClass[i];
    for (unsigned j = 0; j < kNumPrecisions; ++j) {
      total.byPrecision[j] += report.byPrecision[j];
      for (unsigned i = 0; i <= kNumClasses; ++i)
        total.classPrecision[i][j] += report.classPrecision[i][j];
    }
    accumulate(total.castsInput, report.castsInput);
    accumulate(total.castsInserted, report.castsInserted);
    accumulate(total.castsRemoved, report.castsRemoved);
    accumulate(total.castsOutput, report.castsOutput);
    total.contractionFlops += report.contractionFlops;
    total.lowContractionFlops += report.lowContractionFlops;
    accumulate(total.savedF32, report.savedF32);
    accumulate(total.savedAmp, report.savedAmp);
    accumulate(total.savedAmpArgumentCopies, report.savedAmpArgumentCopies);
    accumulate(total.estimateF32, report.estimateF32);
    accumulate(total.estimateAmp, report.estimateAmp);
    total.uncostedOps += report.uncostedOps;
  }
  reports.push_back(total);
  return reports;
}

//===----------------------------------------------------------------------===//
// JSON
//===----------------------------------------------------------------------===//

static llvm::json::Object countObject(const CountAndBytes &value,
                                      StringRef countName = "count") {
  return llvm::json::Object{{countName, value.count}, {"bytes", value.bytes}};
}

static llvm::json::Object estimateObject(const StepEstimate &estimate) {
  return llvm::json::Object{{"seconds", estimate.seconds},
                            {"flops", estimate.flops},
                            {"bytes", estimate.bytes}};
}

static llvm::json::Object
precisionCounts(const std::array<int64_t, kNumPrecisions> &counts) {
  llvm::json::Object object;
  for (OpPrecision precision : kPrecisions)
    object[stringifyOpPrecision(precision)] =
        counts[static_cast<unsigned>(precision)];
  return object;
}

static llvm::json::Object reportObject(const FunctionReport &report,
                                       bool withName) {
  llvm::json::Object byClass, byClassAndPrecision;
  for (PrecisionClass cls : kClasses) {
    unsigned i = static_cast<unsigned>(cls);
    byClass[stringifyPrecisionClass(cls)] = report.byClass[i];
    byClassAndPrecision[stringifyPrecisionClass(cls)] =
        precisionCounts(report.classPrecision[i]);
  }
  byClassAndPrecision["unclassified"] =
      precisionCounts(report.classPrecision[kNumClasses]);

  llvm::json::Object object{
      {"training_step", report.trainingStep},
      {"ops",
       llvm::json::Object{
           {"by_class", std::move(byClass)},
           {"by_precision", precisionCounts(report.byPrecision)},
           {"by_class_and_precision", std::move(byClassAndPrecision)}}},
      {"casts",
       llvm::json::Object{{"input", countObject(report.castsInput)},
                          {"inserted", countObject(report.castsInserted)},
                          {"removed", countObject(report.castsRemoved)},
                          {"output", countObject(report.castsOutput)}}},
      {"contraction_flops",
       llvm::json::Object{{"total", report.contractionFlops},
                          {"low", report.lowContractionFlops},
                          {"low_share", report.getLowContractionShare()}}},
      {"saved_for_backward",
       llvm::json::Object{
           {"f32", countObject(report.savedF32, "values")},
           {"amp", countObject(report.savedAmp, "values")},
           {"amp_argument_copies",
            countObject(report.savedAmpArgumentCopies, "values")},
           {"ratio", report.getSavedRatio()}}},
      {"estimate",
       llvm::json::Object{{"kind", "roofline estimate, not a measurement"},
                          {"f32", estimateObject(report.estimateF32)},
                          {"amp", estimateObject(report.estimateAmp)},
                          {"speedup", report.getSpeedup()},
                          {"uncosted_ops", report.uncostedOps}}},
  };
  if (withName)
    object["name"] = report.name;
  return object;
}

llvm::json::Value mlir::amp::reportToJSON(ArrayRef<FunctionReport> reports,
                                          const GpuTarget &target) {
  llvm::json::Array functions;
  for (const FunctionReport &report : reports.drop_back())
    functions.push_back(reportObject(report, /*withName=*/true));
  return llvm::json::Object{
      {"format", "amp-report"},
      {"version", 1},
      {"target",
       llvm::json::Object{{"name", target.name},
                          {"description", target.description},
                          {"peak_f32_flops", target.peakF32},
                          {"peak_f16_tensor_flops", target.peakF16Tensor},
                          {"peak_bf16_tensor_flops", target.peakBF16Tensor},
                          {"bandwidth_bytes_per_second", target.bandwidth}}},
      {"functions", std::move(functions)},
      {"total", reportObject(reports.back(), /*withName=*/false)},
  };
}

//===----------------------------------------------------------------------===//
// Summary table
//===----------------------------------------------------------------------===//

/// 1536 -> "1.5 KiB".
static std::string formatBytes(int64_t bytes) {
  static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes);
  unsigned unit = 0;
  while (value >= 1024 && unit + 1 < std::size(units)) {
    value /= 1024;
    ++unit;
  }
  if (unit == 0)
    return llvm::formatv("{0} B", bytes).str();
  return llvm::formatv("{0:f1} {1}", value, units[unit]).str();
}

/// 12600000 -> "12.6 MFLOP".
static std::string formatFlops(int64_t flops) {
  static const char *const units[] = {"", "k", "M", "G", "T", "P"};
  double value = static_cast<double>(flops);
  unsigned unit = 0;
  while (value >= 1000 && unit + 1 < std::size(units)) {
    value /= 1000;
    ++unit;
  }
  if (unit == 0)
    return llvm::formatv("{0} FLOP", flops).str();
  return llvm::formatv("{0:f1} {1}FLOP", value, units[unit]).str();
}

/// 1.234e-6 -> "1.23 us".
static std::string formatSeconds(double seconds) {
  static const char *const units[] = {"s", "ms", "us", "ns"};
  unsigned unit = 0;
  while (seconds != 0 && seconds < 1 && unit + 1 < std::size(units)) {
    seconds *= 1000;
    ++unit;
  }
  return llvm::formatv("{0:f2} {1}", seconds, units[unit]).str();
}

void mlir::amp::printReportSummary(ArrayRef<FunctionReport> reports,
                                   const GpuTarget &target, raw_ostream &os) {
  using Row = SmallVector<std::string>;
  SmallVector<Row> rows;
  auto addRow = [&](StringRef title,
                    function_ref<std::string(const FunctionReport &)> cell) {
    Row row{title.str()};
    for (const FunctionReport &report : reports)
      row.push_back(cell(report));
    rows.push_back(std::move(row));
  };
  auto castCell = [](const CountAndBytes &casts) {
    return llvm::formatv("{0} ({1})", casts.count, formatBytes(casts.bytes))
        .str();
  };

  addRow("function", [](const FunctionReport &r) { return r.name; });
  addRow("ops allow/infer/clear/deny/unlisted", [](const FunctionReport &r) {
    return llvm::formatv("{0}/{1}/{2}/{3}/{4}", r.byClass[0], r.byClass[1],
                         r.byClass[2], r.byClass[3], r.byClass[4])
        .str();
  });
  addRow("ops low/f32/other", [](const FunctionReport &r) {
    return llvm::formatv("{0}/{1}/{2}", r.byPrecision[0], r.byPrecision[1],
                         r.byPrecision[2])
        .str();
  });
  addRow("casts inserted",
         [&](const FunctionReport &r) { return castCell(r.castsInserted); });
  addRow("casts removed",
         [&](const FunctionReport &r) { return castCell(r.castsRemoved); });
  addRow("casts in output",
         [&](const FunctionReport &r) { return castCell(r.castsOutput); });
  addRow("contraction FLOPs low", [](const FunctionReport &r) {
    return llvm::formatv("{0:f1}% of {1}", 100 * r.getLowContractionShare(),
                         formatFlops(r.contractionFlops))
        .str();
  });
  addRow("saved for backward f32 -> amp", [](const FunctionReport &r) {
    return formatBytes(r.savedF32.bytes) + " -> " +
           formatBytes(r.savedAmp.bytes);
  });
  addRow("  of which copies of arguments", [](const FunctionReport &r) {
    return formatBytes(r.savedAmpArgumentCopies.bytes);
  });
  addRow("est. step time f32 -> amp", [](const FunctionReport &r) {
    return formatSeconds(r.estimateF32.seconds) + " -> " +
           formatSeconds(r.estimateAmp.seconds);
  });
  addRow("est. speedup", [](const FunctionReport &r) {
    return llvm::formatv("{0:f2}x", r.getSpeedup()).str();
  });

  SmallVector<size_t> widths(reports.size() + 1, 0);
  for (const Row &row : rows)
    for (auto [i, cell] : llvm::enumerate(row))
      widths[i] = std::max(widths[i], cell.size());

  os << "amp-report: target " << target.name << " (" << target.description
     << "); step times are roofline estimates, not measurements\n";
  for (const Row &row : rows) {
    for (auto [i, cell] : llvm::enumerate(row)) {
      if (i == 0)
        os << llvm::left_justify(cell, widths[i]);
      else
        os << "  " << llvm::right_justify(cell, widths[i]);
    }
    os << "\n";
  }
}
