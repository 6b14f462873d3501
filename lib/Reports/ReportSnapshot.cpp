//===- ReportSnapshot.cpp - The amp-report-snapshot pass ------------------===//
//
// Measures the module (ReportMetrics) and keeps the numbers in a module
// attribute for amp-report-write, which runs later in the same pipeline.
// Keeping them in the IR, rather than in an object shared by pass instances,
// makes the pair work in any textual pipeline and from the mlir-opt plugin.
//
//===----------------------------------------------------------------------===//

#include "amp/Reports/Passes.h"
#include "amp/Reports/ReportMetrics.h"

namespace mlir::amp {
#define GEN_PASS_DEF_REPORTSNAPSHOTPASS
#include "amp/Reports/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;
using namespace mlir::amp;

namespace {

struct ReportSnapshotPass
    : public amp::impl::ReportSnapshotPassBase<ReportSnapshotPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    storeSnapshot(module, stringifyEnumOption<SnapshotStage>(stage),
                  measureModule(module));
  }
};

} // namespace
