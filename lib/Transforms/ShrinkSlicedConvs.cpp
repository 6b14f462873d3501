//===- ShrinkSlicedConvs.cpp - Convolutions of the slice that is read -----===//
//
// amp-shrink-sliced-convs: a convolution whose result is only read through
// a smaller tensor.extract_slice computes just that slice (and so does any
// other linalg op whose only use is a smaller slice). torch-mlir's
// weight gradients of strided convolutions compute a window larger than the
// filter and slice the filter out of it (resnet18: 10.7 GFLOP where 6.0 are
// read).
//
//===----------------------------------------------------------------------===//

#include "amp/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/Interfaces/TilingInterface.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::amp {
#define GEN_PASS_DEF_SHRINKSLICEDCONVSPASS
#include "amp/Transforms/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;

namespace {

/// Replaces `extract_slice(op)`, the only use of a linalg op's result, by
/// the op on the slice (upstream's tiled producer: the inputs and the init
/// are sliced to what the output slice reads). The convolution itself, and
/// the ops between it and the slice (the rounding of an AMP result) or
/// before its operands once they are sliced (the flipped filter of a
/// data gradient). Not upstream's linalg bubble-up pattern: it clones the
/// op onto the sliced operands without offsetting its `linalg.index`
/// values, so a generic that reads by index (torch-mlir's flipped and
/// transposed filters) read the slice at offset 0 (a wrong data gradient
/// found by tools/amp-fuzz/torch-fuzz.py); tiling through TilingInterface
/// offsets them.
struct SliceOfLinalgOp final : OpRewritePattern<tensor::ExtractSliceOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(tensor::ExtractSliceOp slice,
                                PatternRewriter &rewriter) const override {
    auto result = dyn_cast<OpResult>(slice.getSource());
    if (!result || !result.hasOneUse())
      return rewriter.notifyMatchFailure(slice, "source has other uses");
    auto op = dyn_cast<linalg::LinalgOp>(result.getOwner());
    if (!op || !op.hasPureTensorSemantics() || op->getNumResults() != 1)
      return rewriter.notifyMatchFailure(slice, "not a linalg op's slice");
    if (slice.getSourceType() == slice.getResultType())
      return rewriter.notifyMatchFailure(slice, "the whole result is read");
    FailureOr<TilingResult> tiled =
        tensor::replaceExtractSliceWithTiledProducer(rewriter, slice, result);
    if (failed(tiled))
      return rewriter.notifyMatchFailure(slice, "cannot tile the producer");
    rewriter.replaceOp(slice, tiled->tiledValues);
    return success();
  }
};

struct ShrinkSlicedConvsPass
    : public amp::impl::ShrinkSlicedConvsPassBase<ShrinkSlicedConvsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<SliceOfLinalgOp>(&getContext());
    // Slices move above the reshapes between them and the convolution,
    // and merge; the init's fill is then sliced, and its empty tensor shrinks.
    tensor::populateBubbleUpExtractSliceOpPatterns(patterns);
    tensor::populateMergeConsecutiveInsertExtractSlicePatterns(patterns);
    linalg::populateSwapExtractSliceWithFillPatterns(patterns);
    tensor::populateFoldTensorEmptyPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
