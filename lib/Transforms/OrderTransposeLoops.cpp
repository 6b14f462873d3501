//===- OrderTransposeLoops.cpp - The amp-order-transpose-loops pass -------===//
//
// Reorders the loops of a linalg.transpose that moves the input's contiguous
// dimension far from the output's, so that both innermost dimensions are
// the two innermost loops and each loop block stays in the cache.
//
//===----------------------------------------------------------------------===//

#include "amp/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::amp {
#define GEN_PASS_DEF_ORDERTRANSPOSELOOPSPASS
#include "amp/Transforms/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;
using namespace mlir::amp;

namespace {

/// linalg.transpose -> linalg.generic with the loop order described in the
/// pass's summary. Transposes whose input-contiguous dimension is already
/// one of the output's last two loops are left as they are.
struct OrderTransposeLoops final
    : public OpRewritePattern<linalg::TransposeOp> {
  using OpRewritePattern<linalg::TransposeOp>::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::TransposeOp op,
                                PatternRewriter &rewriter) const override {
    ArrayRef<int64_t> perm = op.getPermutation();
    int64_t rank = perm.size();
    // Output dimension i is input dimension perm[i]; `fromInner` is the
    // output dimension (= loop) that walks the input's innermost one.
    int64_t fromInner = llvm::find(perm, rank - 1) - perm.begin();
    if (rank < 3 || fromInner >= rank - 2)
      return failure();
    SmallVector<unsigned> order;
    for (int64_t i = 0; i < rank - 1; ++i)
      if (i != fromInner)
        order.push_back(i);
    order.push_back(fromInner);
    order.push_back(rank - 1);
    FailureOr<linalg::GenericOp> generic =
        linalg::generalizeNamedOp(rewriter, op);
    if (failed(generic))
      return failure();
    return linalg::interchangeGenericOp(rewriter, *generic, order);
  }
};

struct OrderTransposeLoopsPass
    : public amp::impl::OrderTransposeLoopsPassBase<OrderTransposeLoopsPass> {
  using Base::Base;

  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<OrderTransposeLoops>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
