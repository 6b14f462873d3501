//===- OptimizeCasts.cpp - The amp-optimize-casts pass --------------------===//

#include "amp/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace mlir::amp {
#define GEN_PASS_DEF_OPTIMIZECASTSPASS
#include "amp/Transforms/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;
using namespace mlir::amp;

namespace {

struct OptimizeCastsPass
    : public amp::impl::OptimizeCastsPassBase<OptimizeCastsPass> {
  using Base::Base;
  void runOnOperation() override;
};

} // namespace

void OptimizeCastsPass::runOnOperation() {
  // truncf(extf(x)) back to x's type is exact.
  getOperation().walk([&](arith::TruncFOp trunc) {
    auto ext = trunc.getIn().getDefiningOp<arith::ExtFOp>();
    if (!ext || ext.getIn().getType() != trunc.getType())
      return;
    trunc.replaceAllUsesWith(ext.getIn());
    trunc.erase();
    ++numCastsRemoved;
  });
}
