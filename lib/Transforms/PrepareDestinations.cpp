//===- PrepareDestinations.cpp - Destinations bufferization need not copy -===//
//
// amp-prepare-destinations: two shapes of tensor IR make one-shot
// bufferization copy whole activations, and both are common in imported
// models (torch-mlir's resnet18 has 38 such copies per forward):
//
// - one `linalg.fill` shared as the init of several contractions: the first
//   one writes its buffer in place, every other one gets a copy of the zeros;
// - `tensor.pad` (a convolution's zero border): it bufferizes to a
//   `memref.copy` into a strided subview, which the LLVM lowering turns into
//   a call of the runtime's element-by-element `memrefCopy`, on one thread.
//
// Each contraction gets its own fill instead (amp-lower-to-runtime then drops
// it and calls the `_overwrite` entry point), and a pad becomes a fill of
// the padded tensor plus a `linalg.copy` of the source into its interior,
// which amp-tile-for-threads can split and LLVM vectorizes.
//
//===----------------------------------------------------------------------===//

#include "amp/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::amp {
#define GEN_PASS_DEF_PREPAREDESTINATIONSPASS
#include "amp/Transforms/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;

namespace {

/// Gives every use of a shared `linalg.fill` on tensors as the init of a
/// linalg op but the first its own clone of the fill (and of a
/// `tensor.empty` init).
struct UnshareFillInit final : public OpRewritePattern<linalg::FillOp> {
  using OpRewritePattern<linalg::FillOp>::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::FillOp fill,
                                PatternRewriter &rewriter) const override {
    if (!fill.hasPureTensorSemantics() || fill->hasOneUse())
      return failure();
    SmallVector<OpOperand *> inits;
    for (OpOperand &use : fill->getResult(0).getUses()) {
      // Linalg ops only: a tensor.insert_slice into the fill is the pad's
      // (InsertSliceAsCopy reads the same fill through its extract_slice).
      auto user = dyn_cast<linalg::LinalgOp>(use.getOwner());
      if (user && user.isDpsInit(&use))
        inits.push_back(&use);
    }
    // Keep the original for the first init in program order (or for the
    // uses that are not inits).
    llvm::stable_sort(inits, [](OpOperand *a, OpOperand *b) {
      Operation *x = a->getOwner(), *y = b->getOwner();
      return x->getBlock() == y->getBlock() && x->isBeforeInBlock(y);
    });
    if (inits.size() == fill->getResult(0).getNumUses())
      inits.erase(inits.begin());
    if (inits.empty())
      return failure();
    for (OpOperand *init : inits) {
      Operation *user = init->getOwner();
      rewriter.setInsertionPoint(user);
      Value dest = fill.getDpsInitOperand(0)->get();
      if (auto empty = dest.getDefiningOp<tensor::EmptyOp>())
        dest = rewriter.clone(*empty)->getResult(0);
      auto clone = linalg::FillOp::create(rewriter, fill.getLoc(),
                                          fill.getInputs(), ValueRange{dest});
      rewriter.modifyOpInPlace(user, [&] { init->set(clone.getResult(0)); });
    }
    return success();
  }
};

/// `tensor.insert_slice %src into %dest` (not rank-reducing) ->
/// `linalg.copy ins(%src) outs(tensor.extract_slice %dest)` inserted at the
/// same place: bufferized in place, it is a copy loop into the subview
/// instead of a `memref.copy`.
struct InsertSliceAsCopy final
    : public OpRewritePattern<tensor::InsertSliceOp> {
  using OpRewritePattern<tensor::InsertSliceOp>::OpRewritePattern;

  LogicalResult matchAndRewrite(tensor::InsertSliceOp insert,
                                PatternRewriter &rewriter) const override {
    RankedTensorType sourceType = insert.getSourceType();
    if (!sourceType.hasStaticShape() ||
        sourceType.getRank() != insert.getDestType().getRank())
      return failure();
    // Already a copy: this pattern's, or one whose destination slice was
    // folded (an extract_slice of a splat constant is a constant, so the
    // slice could not be recognised and the rewrite would repeat forever).
    if (insert.getSource().getDefiningOp<linalg::CopyOp>())
      return failure();
    auto slice = tensor::ExtractSliceOp::create(
        rewriter, insert.getLoc(), sourceType, insert.getDest(),
        insert.getMixedOffsets(), insert.getMixedSizes(),
        insert.getMixedStrides());
    auto copy = linalg::CopyOp::create(rewriter, insert.getLoc(),
                                       insert.getSource(), slice.getResult());
    rewriter.modifyOpInPlace(
        insert, [&] { insert.getSourceMutable().assign(copy.getResult(0)); });
    return success();
  }
};

struct PrepareDestinationsPass
    : public amp::impl::PrepareDestinationsPassBase<PrepareDestinationsPass> {
  using Base::Base;

  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    // tensor.pad -> tensor.empty + linalg.fill + tensor.insert_slice.
    linalg::populateDecomposePadPatterns(patterns);
    patterns.add<UnshareFillInit, InsertSliceAsCopy>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns)))) {
      getOperation()->emitError()
          << "amp-prepare-destinations: the rewrite did not converge";
      return signalPassFailure();
    }
  }
};

} // namespace
