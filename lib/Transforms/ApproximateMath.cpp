//===- ApproximateMath.cpp - The amp-approximate-math pass ----------------===//
//
// Upstream's polynomial approximations of the transcendental functions the
// fast lowering would otherwise call libm for, in f32 (docs/passes.md).
//
//===----------------------------------------------------------------------===//

#include "amp/Transforms/Passes.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::amp {
#define GEN_PASS_DEF_APPROXIMATEMATHPASS
#include "amp/Transforms/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;

/// The math functions amp-approximate-math rewrites (operation names).
static bool isApproximated(StringRef name) {
  return llvm::is_contained({"math.tanh", "math.exp", "math.expm1", "math.log",
                             "math.log1p", "math.log2", "math.erf"},
                            name);
}

namespace {

/// amp-approximate-math: upstream's polynomial approximations of the
/// functions isApproximated() names, in f32.
struct ApproximateMathPass
    : public amp::impl::ApproximateMathPassBase<ApproximateMathPass> {
  using Base::Base;

  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateMathF32ExpansionPatterns(patterns, isApproximated);
    populateMathPolynomialApproximationPatterns(patterns, isApproximated);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
