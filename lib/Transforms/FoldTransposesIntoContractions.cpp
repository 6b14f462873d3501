//===- FoldTransposesIntoContractions.cpp - Transposes as indexing maps ---===//
//
// amp-fold-transposes-into-contractions: a transposed (batch_)matmul operand
// on tensors is read through the op's indexing maps, which
// amp-lower-to-runtime expresses as transA / transB, instead of being
// copied by a linalg.transpose.
//
//===----------------------------------------------------------------------===//

#include "amp/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::amp {
#define GEN_PASS_DEF_FOLDTRANSPOSESINTOCONTRACTIONSPASS
#include "amp/Transforms/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;

namespace {

/// Replaces an input of a (batch_)matmul on tensors that is the result of a
/// linalg.transpose swapping the two innermost dimensions by the transpose's
/// input, read through the swapped indexing map.
template <typename ContractionOp>
struct FoldTransposeIntoContraction final
    : public OpRewritePattern<ContractionOp> {
  using OpRewritePattern<ContractionOp>::OpRewritePattern;

  LogicalResult matchAndRewrite(ContractionOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.hasPureTensorSemantics())
      return failure();
    auto linalgOp = cast<linalg::LinalgOp>(op.getOperation());
    SmallVector<AffineMap> maps = linalgOp.getIndexingMapsArray();
    bool changed = false;
    SmallVector<Value, 2> inputs(op.getInputs());
    for (unsigned i = 0; i < 2; ++i) {
      auto transpose = inputs[i].getDefiningOp<linalg::TransposeOp>();
      if (!transpose || !isInnerSwap(transpose.getPermutation()) ||
          maps[i].getNumResults() != transpose.getPermutation().size())
        continue;
      // The transpose's result at (.., a, b) is its input at (.., b, a).
      SmallVector<AffineExpr> results(maps[i].getResults());
      std::swap(results[results.size() - 2], results.back());
      maps[i] =
          AffineMap::get(maps[i].getNumDims(), 0, results, op.getContext());
      inputs[i] = transpose.getInput();
      changed = true;
    }
    if (!changed)
      return failure();
    rewriter.modifyOpInPlace(op, [&] {
      op->setOperands(0, 2, inputs);
      op.setIndexingMapsAttr(rewriter.getAffineMapArrayAttr(maps));
    });
    return success();
  }

private:
  /// Whether `perm` is the identity except for its two last entries, swapped.
  static bool isInnerSwap(ArrayRef<int64_t> perm) {
    int64_t rank = perm.size();
    if (rank < 2 || perm[rank - 2] != rank - 1 || perm[rank - 1] != rank - 2)
      return false;
    for (int64_t d = 0; d + 2 < rank; ++d)
      if (perm[d] != d)
        return false;
    return true;
  }
};

struct FoldTransposesIntoContractionsPass
    : public amp::impl::FoldTransposesIntoContractionsPassBase<
          FoldTransposesIntoContractionsPass> {
  using Base::Base;

  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FoldTransposeIntoContraction<linalg::MatmulOp>,
                 FoldTransposeIntoContraction<linalg::BatchMatmulOp>>(
        &getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
