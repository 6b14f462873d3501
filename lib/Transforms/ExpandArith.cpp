//===- ExpandArith.cpp - The amp-expand-arith pass ------------------------===//
//
// Upstream's arith expansions (arith::populateArithExpandOpsPatterns) for
// the ops LLVM cannot lower, except the f32 / f64 min / max ops, which stay
// whole for LLVM's vectorizable intrinsics, and optionally upstream's bf16
// conversion expansions (docs/passes.md).
//
//===----------------------------------------------------------------------===//

#include "amp/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::amp {
#define GEN_PASS_DEF_EXPANDARITHPASS
#include "amp/Transforms/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;

/// Whether amp-expand-arith leaves `op` to LLVM: a float min / max on f32
/// or f64 (scalars or vectors).
static bool isMinMaxLLVMVectorizes(Operation *op) {
  if (!isa<arith::MaximumFOp, arith::MinimumFOp, arith::MaxNumFOp,
           arith::MinNumFOp>(op))
    return false;
  Type element = getElementTypeOrSelf(op->getResult(0).getType());
  return element.isF32() || element.isF64();
}

namespace {

/// amp-expand-arith: upstream's arith expansions, except for the f32 / f64
/// min / max ops, which stay whole for LLVM's intrinsics.
struct ExpandArithPass
    : public amp::impl::ExpandArithPassBase<ExpandArithPass> {
  using Base::Base;

  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    arith::populateArithExpandOpsPatterns(patterns);
    if (includeBf16)
      arith::populateExpandBFloat16Patterns(patterns);
    SmallVector<Operation *> ops;
    getOperation()->walk([&](Operation *op) {
      if (op->getName().getDialectNamespace() ==
              arith::ArithDialect::getDialectNamespace() &&
          !isMinMaxLLVMVectorizes(op))
        ops.push_back(op);
    });
    // Only those ops: the expansions create nothing that needs expanding.
    GreedyRewriteConfig config;
    config.setStrictness(GreedyRewriteStrictness::ExistingOps);
    if (failed(applyOpPatternsGreedily(ops, std::move(patterns), config)))
      return signalPassFailure();
  }
};

} // namespace
