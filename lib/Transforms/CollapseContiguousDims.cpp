//===- CollapseContiguousDims.cpp - The amp-collapse-contiguous-dims pass -===//
//
// Merges the loops of an elementwise linalg op whose dimensions are
// contiguous in every operand, so that a weight-shaped op (an optimizer
// update or a cast of a 512x512x3x3 filter, a transpose of its gradient)
// runs one long vectorizable innermost loop instead of millions of 3-long
// (or 1-long) ones. The rewrite itself is upstream's
// (linalg::populateCollapseDimensions); this file decides which dimensions.
//
//===----------------------------------------------------------------------===//

#include "amp/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::amp {
#define GEN_PASS_DEF_COLLAPSECONTIGUOUSDIMSPASS
#include "amp/Transforms/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;
using namespace mlir::amp;

namespace {

/// An op is worth collapsing when its innermost loop is shorter than a
/// vector: the loops of the blocked (x16) and wide activations vectorize
/// well as they are, and keeping them unchanged keeps their thread chunks.
constexpr int64_t kShortInnermostLoop = 16;

/// True if `v` is a whole tensor that bufferizes to a contiguous buffer
/// (not a slice, whose collapse would need a copy).
bool isWholeTensor(Value v) {
  return !v.getDefiningOp<tensor::ExtractSliceOp>();
}

/// The groups of adjacent parallel loops of `op` that every indexing map
/// keeps adjacent and in order, or nothing if collapsing does not pay.
SmallVector<ReassociationIndices> collapsibleGroups(linalg::LinalgOp op) {
  if (!op.hasPureTensorSemantics() || op.getNumLoops() < 2 ||
      op.getNumParallelLoops() != op.getNumLoops() || op.hasIndexSemantics())
    return {};
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (llvm::any_of(ranges, ShapedType::isDynamic) ||
      ranges.back() >= kShortInnermostLoop)
    return {};
  for (OpOperand &operand : op->getOpOperands())
    if (isa<RankedTensorType>(operand.get().getType()) &&
        !isWholeTensor(operand.get()))
      return {};
  // Only maps that pick loops: upstream's collapse builds invalid ops for
  // a floordiv (a pooling's backward) or a constant 0 (torch's broadcast
  // of a 1x512x1x1 statistic) in a map.
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  if (!llvm::all_of(maps,
                    [](AffineMap map) { return map.isProjectedPermutation(); }))
    return {};
  SmallVector<ReassociationIndices> groups = {{0}};
  for (int64_t dim = 1, e = ranges.size(); dim < e; ++dim) {
    ReassociationIndices extended = groups.back();
    extended.push_back(dim);
    if (linalg::areDimSequencesPreserved(maps, {extended}))
      groups.back() = extended;
    else
      groups.push_back({dim});
  }
  if (groups.size() == ranges.size())
    return {};
  return groups;
}

/// A linalg.transpose whose dimensions can be merged becomes a
/// linalg.generic, which upstream's pattern collapses.
struct GeneralizeCollapsibleTranspose final
    : public OpRewritePattern<linalg::TransposeOp> {
  using OpRewritePattern<linalg::TransposeOp>::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::TransposeOp op,
                                PatternRewriter &rewriter) const override {
    if (collapsibleGroups(op).empty())
      return failure();
    return linalg::generalizeNamedOp(rewriter, op);
  }
};

struct CollapseContiguousDimsPass
    : public amp::impl::CollapseContiguousDimsPassBase<
          CollapseContiguousDimsPass> {
  using Base::Base;

  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<GeneralizeCollapsibleTranspose>(&getContext());
    linalg::populateCollapseDimensions(patterns, collapsibleGroups);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
    mergeEqualCollapses();
  }

  /// Upstream's rewrite collapses each operand on its own: an op that reads
  /// its init's tensor as an input too (an optimizer update written over
  /// the gradient) gets two equal collapse_shapes, and bufferization then
  /// sees a read of one beside the write to the other and allocates. Equal
  /// collapses of one value in one block become the first one (not a CSE
  /// of the whole function, which would merge the destinations
  /// amp-prepare-destinations kept apart).
  void mergeEqualCollapses() {
    SmallVector<tensor::CollapseShapeOp> collapses;
    getOperation()->walk(
        [&](tensor::CollapseShapeOp op) { collapses.push_back(op); });
    IRRewriter rewriter(&getContext());
    DenseSet<Operation *> merged;
    for (tensor::CollapseShapeOp op : collapses) {
      if (merged.contains(op))
        continue;
      for (Operation *user :
           llvm::make_early_inc_range(op.getSrc().getUsers())) {
        auto other = dyn_cast<tensor::CollapseShapeOp>(user);
        if (!other || other == op || other->getBlock() != op->getBlock() ||
            !op->isBeforeInBlock(other) || other.getType() != op.getType() ||
            other.getReassociation() != op.getReassociation())
          continue;
        merged.insert(other);
        rewriter.replaceOp(other, op.getResult());
      }
    }
  }
};

} // namespace
