//===- FuseElementwise.cpp - The amp-fuse-elementwise pass ----------------===//
//
// Upstream's elementwise fusion (linalg::populateElementwiseOpsFusionPatterns)
// under the fast lowering's rules, plus the two fusions it does not do: a
// producer whose result is also returned, and a producer read by a gather
// (tensor.extract in a linalg body). See docs/passes.md.
//
//===----------------------------------------------------------------------===//

#include "amp/Transforms/BlockedConv.h"
#include "amp/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::amp {
#define GEN_PASS_DEF_FUSEELEMENTWISEPASS
#include "amp/Transforms/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;
using namespace mlir::amp;

namespace {

/// Fuses an elementwise linalg.generic producer whose result is also
/// returned into its linalg.generic consumer, the fused op yielding the
/// producer's result too (upstream's fuseElementwiseOps keeps it as an extra
/// result; its pattern only rewrites the consumer's use, and leaves the
/// producer for the other uses, which would compute it twice). An
/// optimizer's new momentum is such a result: returned, and read by the
/// weight update, which then computes it in the same loop instead of
/// reading it back (MLP step: 16 MB less traffic per 2048x2048 weight).
struct FuseReturnedProducer final : public OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern<linalg::GenericOp>::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::GenericOp consumer,
                                PatternRewriter &rewriter) const override {
    for (OpOperand &operand : consumer->getOpOperands()) {
      auto producer = operand.get().getDefiningOp<linalg::GenericOp>();
      if (!producer || producer->hasOneUse() ||
          producer->getBlock() != consumer->getBlock())
        continue;
      // Every other use is a return of the consumer's block (after it); in
      // particular not another operand of the consumer (its init, say),
      // which the replacement of the producer's result would make a use of
      // the fused op's own result.
      bool onlyReturned = llvm::all_of(producer->getUses(), [&](OpOperand &u) {
        return &u == &operand ||
               (isa<func::ReturnOp>(u.getOwner()) &&
                u.getOwner()->getBlock() == consumer->getBlock());
      });
      if (!onlyReturned || !linalg::areElementwiseOpsFusable(&operand))
        continue;
      FailureOr<linalg::ElementwiseOpFusionResult> fused =
          linalg::fuseElementwiseOps(rewriter, &operand);
      if (failed(fused))
        continue;
      for (auto [original, replacement] : fused->replacements)
        rewriter.replaceAllUsesWith(original, replacement);
      rewriter.eraseOp(consumer);
      rewriter.eraseOp(producer);
      return success();
    }
    return failure();
  }
};

/// True if every use of `v` is a tensor.extract (what a gather in a
/// linalg body reads), so that rewriting them leaves `v` dead.
static bool onlyExtracted(Value v) {
  return llvm::all_of(v.getUsers(), llvm::IsaPred<tensor::ExtractOp>);
}

/// Computes the element a `tensor.extract` reads from an elementwise linalg
/// op (a generic, a transpose) from the op's inputs, so that the op's
/// whole tensor is not materialized for a gather. torch-mlir's max-pool
/// indices read the padded input with tensor.extract inside their body; in
/// bf16 the painting widens that input first, and amp-block-convs moves
/// the widening into the blocked layout: an 8x64x114x114 f32 tensor for
/// resnet18's stem (27 MB), written and transposed once per step to be
/// compared with the maximum. Upstream's elementwise fusion goes through
/// indexing maps, which a body's tensor.extract is not. Only ops whose
/// every use is such an extract, with an identity output map,
/// projected-permutation input maps, no linalg.index and a body that does
/// not read its init.
struct ExtractFromElementwiseProducer final
    : public OpRewritePattern<tensor::ExtractOp> {
  using OpRewritePattern<tensor::ExtractOp>::OpRewritePattern;

  static bool isFoldable(linalg::LinalgOp producer) {
    if (producer.getNumDpsInits() != 1 || producer.hasIndexSemantics() ||
        producer.getNumParallelLoops() != producer.getNumLoops() ||
        !producer.getMatchingIndexingMap(producer.getDpsInitOperand(0))
             .isIdentity() ||
        producer.payloadUsesValueFromOperand(producer.getDpsInitOperand(0)))
      return false;
    for (OpOperand *input : producer.getDpsInputOperands())
      if (!isa<RankedTensorType>(input->get().getType()) ||
          !producer.getMatchingIndexingMap(input).isProjectedPermutation())
        return false;
    return onlyExtracted(producer->getResult(0));
  }

  LogicalResult matchAndRewrite(tensor::ExtractOp extract,
                                PatternRewriter &rewriter) const override {
    auto producer = extract.getTensor().getDefiningOp<linalg::LinalgOp>();
    if (!producer || !isFoldable(producer))
      return failure();
    Block *body = producer.getBlock();
    IRMapping mapping;
    for (OpOperand *input : producer.getDpsInputOperands()) {
      AffineMap map = producer.getMatchingIndexingMap(input);
      SmallVector<Value> indices;
      for (AffineExpr result : map.getResults())
        indices.push_back(
            extract.getIndices()[cast<AffineDimExpr>(result).getPosition()]);
      Value element = tensor::ExtractOp::create(rewriter, extract.getLoc(),
                                                input->get(), indices);
      mapping.map(producer.getMatchingBlockArgument(input), element);
    }
    for (Operation &op : body->without_terminator())
      rewriter.clone(op, mapping);
    Value yielded = body->getTerminator()->getOperand(0);
    rewriter.replaceOp(extract, mapping.lookupOrDefault(yielded));
    return success();
  }
};

/// extract(extract_slice(x)) -> extract(x) at offset + index * stride, and
/// extract(collapse_shape(x)) -> extract(x) at the delinearized index, when
/// the slice or collapse is only extracted from: the layout changes between
/// a widening and the gather that reads it (above).
struct ExtractThroughLayout final : public OpRewritePattern<tensor::ExtractOp> {
  using OpRewritePattern<tensor::ExtractOp>::OpRewritePattern;

  LogicalResult matchAndRewrite(tensor::ExtractOp extract,
                                PatternRewriter &rewriter) const override {
    Location loc = extract.getLoc();
    Value source = extract.getTensor();
    if (!onlyExtracted(source))
      return failure();
    auto constant = [&](int64_t c) {
      return arith::ConstantIndexOp::create(rewriter, loc, c).getResult();
    };
    SmallVector<Value> indices;
    if (auto slice = source.getDefiningOp<tensor::ExtractSliceOp>()) {
      if (slice.getSourceType().getRank() != slice.getType().getRank() ||
          ShapedType::isDynamicShape(slice.getStaticOffsets()) ||
          ShapedType::isDynamicShape(slice.getStaticStrides()))
        return failure();
      for (auto [index, offset, stride] :
           llvm::zip(extract.getIndices(), slice.getStaticOffsets(),
                     slice.getStaticStrides())) {
        Value i = index;
        if (stride != 1)
          i = arith::MulIOp::create(rewriter, loc, i, constant(stride));
        if (offset != 0)
          i = arith::AddIOp::create(rewriter, loc, i, constant(offset));
        indices.push_back(i);
      }
      rewriter.replaceOpWithNewOp<tensor::ExtractOp>(extract, slice.getSource(),
                                                     indices);
      return success();
    }
    auto collapse = source.getDefiningOp<tensor::CollapseShapeOp>();
    if (!collapse || !collapse.getSrcType().hasStaticShape())
      return failure();
    ArrayRef<int64_t> sizes = collapse.getSrcType().getShape();
    for (auto [index, group] :
         llvm::zip(extract.getIndices(), collapse.getReassociationIndices())) {
      SmallVector<Value> parts(group.size());
      Value rest = index;
      for (int64_t j = group.size() - 1; j > 0; --j) {
        Value size = constant(sizes[group[j]]);
        parts[j] = arith::RemUIOp::create(rewriter, loc, rest, size);
        rest = arith::DivUIOp::create(rewriter, loc, rest, size);
      }
      parts[0] = rest;
      llvm::append_range(indices, parts);
    }
    rewriter.replaceOpWithNewOp<tensor::ExtractOp>(extract, collapse.getSrc(),
                                                   indices);
    return success();
  }
};

/// amp-fuse-elementwise: upstream's elementwise fusion without reshape
/// propagation, never into a named op.
struct FuseElementwisePass
    : public amp::impl::FuseElementwisePassBase<FuseElementwisePass> {
  using Base::Base;

  void runOnOperation() override {
    MLIRContext *context = &getContext();
    RewritePatternSet patterns(context);
    // Fuse a single-use producer into a linalg.generic consumer only: never
    // into a named contraction or convolution (amp-lower-to-runtime's ops),
    // and never the rounding of such an op's result, which the runtime call
    // absorbs: the library then writes the 16-bit result, and the consumer
    // reads half the bytes.
    linalg::ControlFusionFn control = [](OpOperand *fused) {
      Operation *producer = fused->get().getDefiningOp();
      return producer && producer->hasOneUse() &&
             isa<linalg::GenericOp>(fused->getOwner()) &&
             !fused->getOwner()->hasAttr(kBlockedConvAttrName) &&
             !amp::isRoundingOfLibraryResult(producer);
    };
    linalg::populateElementwiseOpsFusionPatterns(patterns, control);
    patterns.add<FuseReturnedProducer, ExtractFromElementwiseProducer,
                 ExtractThroughLayout>(context);
    linalg::GenericOp::getCanonicalizationPatterns(patterns, context);
    if (failed(applyPatternsGreedily(
            getOperation(), std::move(patterns),
            GreedyRewriteConfig().setUseTopDownTraversal())))
      return signalPassFailure();
  }
};

} // namespace
