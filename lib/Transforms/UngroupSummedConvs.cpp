//===- UngroupSummedConvs.cpp - Sums over a grouped conv's groups ---------===//
//
// amp-ungroup-summed-convs: the sum over the groups of a grouped
// convolution is one ungrouped convolution whose input channels are the
// (group, channel) pairs. torch-mlir writes the weight gradient of a
// strided convolution as a grouped convolution with the batch as the groups
// (one input channel per group) and sums the per-sample gradients
// afterwards: batch x the result, a transpose and a reduction in loops,
// and per-sample (minibatch 1) convolutions for the library. Upstream has
// no rewrite between grouped and ungrouped convolutions.
//
//===----------------------------------------------------------------------===//

#include "amp/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Utils/Utils.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::amp {
#define GEN_PASS_DEF_UNGROUPSUMMEDCONVSPASS
#include "amp/Transforms/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;

namespace {

/// Whether `v` is a `linalg.fill` of +0.0 on tensors.
bool isZeroFill(Value v) {
  auto fill = v.getDefiningOp<linalg::FillOp>();
  return fill && fill.hasPureTensorSemantics() &&
         matchPattern(fill.getInputs()[0], m_PosZeroFloat());
}

/// Whether the body of `op` is `out + in` (or `out + extf(in)`).
bool isSumBody(linalg::GenericOp op) {
  Block &body = op.getRegion().front();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  auto add = yield.getValues()[0].getDefiningOp<arith::AddFOp>();
  if (!add || body.getOperations().size() > 3)
    return false;
  BlockArgument in = body.getArgument(0), out = body.getArgument(1);
  auto isIn = [&](Value v) {
    if (auto ext = v.getDefiningOp<arith::ExtFOp>())
      v = ext.getIn();
    return v == in;
  };
  return (add.getLhs() == out && isIn(add.getRhs())) ||
         (add.getRhs() == out && isIn(add.getLhs()));
}

/// conv_2d_nchw_fchw(I', F') of the grouped `conv` (see SumOverGroups),
/// transposed by `perm` into `sumType` unless `perm` is the identity.
static Value buildUngroupedConv(RewriterBase &rewriter,
                                linalg::Conv2DNgchwGfchwOp conv,
                                RankedTensorType sumType,
                                ArrayRef<int64_t> perm) {
  auto inType = cast<RankedTensorType>(conv.getInputs()[0].getType());
  auto filterType = cast<RankedTensorType>(conv.getInputs()[1].getType());
  auto convType = cast<RankedTensorType>(conv.getResultTypes()[0]);
  Location loc = conv.getLoc();
  int64_t n = inType.getDimSize(0), g = inType.getDimSize(1),
          c = inType.getDimSize(2), f = filterType.getDimSize(1);
  SmallVector<ReassociationIndices> mergeGroups = {{0}, {1, 2}, {3}, {4}};
  // I: N x G x C x H x W -> N x G*C x H x W.
  Value input = tensor::CollapseShapeOp::create(
      rewriter, loc, conv.getInputs()[0], mergeGroups);
  // F: G x F x C x KH x KW -> F x G x C x KH x KW -> F x G*C x KH x KW.
  SmallVector<int64_t> filterShape = {f, g, c, filterType.getDimSize(3),
                                      filterType.getDimSize(4)};
  Value filterInit = tensor::EmptyOp::create(rewriter, loc, filterShape,
                                             filterType.getElementType());
  Value filter =
      linalg::TransposeOp::create(rewriter, loc, conv.getInputs()[1],
                                  filterInit, ArrayRef<int64_t>{1, 0, 2, 3, 4})
          ->getResult(0);
  filter = tensor::CollapseShapeOp::create(rewriter, loc, filter, mergeGroups);
  SmallVector<int64_t> outShape = {n, f, convType.getDimSize(3),
                                   convType.getDimSize(4)};
  Value zero =
      conv.getOutputs()[0].getDefiningOp<linalg::FillOp>().getInputs()[0];
  Value init = tensor::EmptyOp::create(rewriter, loc, outShape,
                                       convType.getElementType());
  init = linalg::FillOp::create(rewriter, loc, zero, init).getResult(0);
  Value result = linalg::Conv2DNchwFchwOp::create(
                     rewriter, loc, init.getType(), ValueRange{input, filter},
                     ValueRange{init}, conv.getStrides(), conv.getDilations())
                     ->getResult(0);
  if (!llvm::equal(perm, llvm::seq<int64_t>(0, 4))) {
    Value dest = tensor::EmptyOp::create(rewriter, loc, sumType.getShape(),
                                         sumType.getElementType());
    result = linalg::TransposeOp::create(rewriter, loc, result, dest, perm)
                 ->getResult(0);
  }
  return result;
}

/// sum over g of conv_2d_ngchw_gfchw(I, F)[n, g, f, h, w] (through a
/// transpose and an AMP rounding, each read only there), into a zero
/// tensor, becomes conv_2d_nchw_fchw(I', F')[n, f, h, w] with I' the
/// N x G*C x H x W view of I and F' the F x G*C x KH x KW transpose of F.
/// Skipping the rounding of the per-group results is the one change in
/// numerics: the sum runs over the unrounded f32 products, as a
/// backward-weights kernel computes a weight gradient over a batch.
struct SumOverGroups final : OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::GenericOp sum,
                                PatternRewriter &rewriter) const override {
    if (!sum.hasPureTensorSemantics() || sum.getNumDpsInputs() != 1 ||
        sum.getNumDpsInits() != 1 || sum.getNumLoops() != 5 ||
        sum.getNumReductionLoops() != 1 || !isSumBody(sum) ||
        !isZeroFill(sum.getDpsInits()[0]))
      return rewriter.notifyMatchFailure(sum, "not a sum into zeros");
    AffineMap inMap = sum.getIndexingMapsArray()[0];
    AffineMap outMap = sum.getIndexingMapsArray()[1];
    if (!inMap.isPermutation() || !outMap.isProjectedPermutation())
      return rewriter.notifyMatchFailure(sum, "not a plain reduction");

    // Walk up to the convolution; `dimOf[i]` is the convolution's result
    // dimension that dimension i of the current value holds.
    SmallVector<int64_t> dimOf = {0, 1, 2, 3, 4};
    Value v = sum.getDpsInputs()[0];
    if (auto transpose = v.getDefiningOp<linalg::TransposeOp>()) {
      if (!transpose->hasOneUse() || !transpose.hasPureTensorSemantics())
        return rewriter.notifyMatchFailure(sum, "transpose has other uses");
      dimOf = llvm::to_vector(transpose.getPermutation());
      v = transpose.getInput();
    }
    if (auto round = v.getDefiningOp<linalg::GenericOp>()) {
      if (!amp::isRoundingCopy(round) || !round->hasOneUse())
        return rewriter.notifyMatchFailure(sum, "not a rounding");
      v = round.getDpsInputs()[0];
    }
    auto conv = v.getDefiningOp<linalg::Conv2DNgchwGfchwOp>();
    if (!conv || !v.hasOneUse() || !conv.hasPureTensorSemantics() ||
        !isZeroFill(conv.getOutputs()[0]))
      return rewriter.notifyMatchFailure(sum, "not a grouped convolution");
    auto inType = cast<RankedTensorType>(conv.getInputs()[0].getType());
    auto filterType = cast<RankedTensorType>(conv.getInputs()[1].getType());
    auto convType = cast<RankedTensorType>(conv.getResultTypes()[0]);
    auto sumType = cast<RankedTensorType>(sum.getResultTypes()[0]);
    if (!inType.hasStaticShape() || !filterType.hasStaticShape() ||
        convType.getElementType() != sumType.getElementType())
      return rewriter.notifyMatchFailure(sum, "dynamic shape or other type");

    // The summed loop must run over the groups; the result keeps the other
    // four dimensions of the convolution in some order.
    auto convDimOfLoop = [&](unsigned loop) -> int64_t {
      return dimOf[*inMap.getResultPosition(
          getAffineDimExpr(loop, sum.getContext()))];
    };
    unsigned reduced = 0;
    for (auto [loop, type] : llvm::enumerate(sum.getIteratorTypesArray()))
      if (type == utils::IteratorType::reduction)
        reduced = loop;
    if (convDimOfLoop(reduced) != 1)
      return rewriter.notifyMatchFailure(sum, "the sum is not over groups");
    // Result dimension k of the sum holds dimension perm[k] of the
    // ungrouped N x F x OH x OW convolution.
    SmallVector<int64_t> perm;
    for (AffineExpr e : outMap.getResults()) {
      int64_t d = convDimOfLoop(cast<AffineDimExpr>(e).getPosition());
      perm.push_back(d == 0 ? 0 : d - 1);
    }

    rewriter.replaceOp(sum, buildUngroupedConv(rewriter, conv, sumType, perm));
    return success();
  }
};

struct UngroupSummedConvsPass
    : public amp::impl::UngroupSummedConvsPassBase<UngroupSummedConvsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<SumOverGroups>(&getContext());
    // Greedily, so that the grouped convolution and what read it go too.
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
