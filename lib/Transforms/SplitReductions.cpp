//===- SplitReductions.cpp - The amp-split-reductions pass ----------------===//
//
// Lowered to loops, a linalg reduction adds its terms one after the other
// into one accumulator: n terms carry a rounding error that grows like
// n u. Batch norm's backward sums thousands of terms that cancel (the
// gradient of a batch's mean), and its gradients came out of our loops 60
// times less accurate than out of PyTorch, whose sums are blocked
// (torch-fuzz seed 1543). Split into blocks of about sqrt(n) terms whose
// partial sums are then added, the error grows like 2 sqrt(n) u, and the
// blocks are parallel loops that amp-tile-for-threads can share out.
//
// Upstream's linalg::splitReduction splits one reduction loop (by
// reshaping it); it is used for an op with a single long reduction loop.
// An op with several reduction loops (batch norm's sum over N, H and W) is
// split between loops instead, which needs no reshape: the outer
// reduction loops become parallel loops of the first op, whose result
// grows their dimensions, and a second op sums those.
//
//===----------------------------------------------------------------------===//

#include "amp/Transforms/Passes.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

#include <cmath>

namespace mlir::amp {
#define GEN_PASS_DEF_SPLITREDUCTIONSPASS
#include "amp/Transforms/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;
using namespace mlir::amp;

namespace {

/// The combiner of `op`'s reduction when it is one floating-point add.
arith::AddFOp addCombiner(linalg::LinalgOp op) {
  SmallVector<Operation *> combiners;
  if (!matchReduction(op.getRegionOutputArgs(), 0, combiners) ||
      combiners.size() != 1)
    return nullptr;
  return dyn_cast<arith::AddFOp>(combiners.front());
}

/// The number of terms per result of a reduction this pass splits, or 0.
int64_t termsToSplit(linalg::LinalgOp op, int64_t minTerms) {
  if (!isa<linalg::GenericOp, linalg::ReduceOp>(op) ||
      !op.hasPureTensorSemantics() || op.getNumDpsInits() != 1 ||
      op->getNumResults() != 1 || op.getNumReductionLoops() == 0 ||
      linalg::isaContractionOpInterface(op) ||
      linalg::isaConvolutionOpInterface(op))
    return 0;
  if (!isa<FloatType>(
          getElementTypeOrSelf(op.getDpsInitOperand(0)->get().getType())))
    return 0;
  // Inputs read element by element: a window (pooling, or a convolution
  // written as a generic, amp-block-convs' blocked ones among them, which
  // amp-lower-to-runtime sends to the library) is left alone.
  for (OpOperand *input : op.getDpsInputOperands())
    if (!op.getMatchingIndexingMap(input).isProjectedPermutation(
            /*allowZeroInResults=*/true))
      return 0;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (llvm::any_of(ranges, ShapedType::isDynamic))
    return 0;
  // The result must be indexed by parallel loops alone, each once, or by
  // 0 (torch-mlir's 1x24x1x1 batch statistics).
  AffineMap outMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  if (!outMap.isProjectedPermutation(/*allowZeroInResults=*/true))
    return 0;
  SmallVector<unsigned> reductions;
  op.getReductionDims(reductions);
  int64_t terms = 1;
  for (unsigned d : reductions) {
    if (outMap.isFunctionOfDim(d))
      return 0;
    terms *= ranges[d];
  }
  if (terms < minTerms || !addCombiner(op))
    return 0;
  return terms;
}

/// How many of the reduction loops (outermost first) become parallel: the
/// split whose blocks and block count add up to the fewest terms summed in
/// a row, if that is at most a quarter of `terms`; 0 otherwise.
size_t outerLoopsToSplit(ArrayRef<int64_t> extents, int64_t terms) {
  size_t best = 0;
  int64_t bestChain = terms / 4;
  int64_t outer = 1;
  for (size_t s = 1; s < extents.size(); ++s) {
    outer *= extents[s - 1];
    int64_t chain = outer + terms / outer;
    if (chain <= bestChain) {
      best = s;
      bestChain = chain;
    }
  }
  return best;
}

/// Splits `op` between its reduction loops: its first `numOuter` reduction
/// loops become parallel loops of a partial-sum op, and a second op adds
/// the partial sums to the original init.
void splitBetweenLoops(RewriterBase &rewriter, linalg::GenericOp op,
                       arith::AddFOp combiner, size_t numOuter) {
  MLIRContext *ctx = op.getContext();
  Location loc = op.getLoc();
  SmallVector<unsigned> reductions;
  op.getReductionDims(reductions);
  ArrayRef<unsigned> outer =
      ArrayRef<unsigned>(reductions).take_front(numOuter);
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();

  // The block indices lead the partial sums' tensor: its innermost
  // dimension stays the result's, written contiguously as before.
  Value init = op.getDpsInits()[0];
  auto initType = cast<RankedTensorType>(init.getType());
  SmallVector<int64_t> partialShape;
  SmallVector<AffineExpr> partialResults;
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  for (unsigned d : outer) {
    partialShape.push_back(ranges[d]);
    partialResults.push_back(getAffineDimExpr(d, ctx));
    iterators[d] = utils::IteratorType::parallel;
  }
  llvm::append_range(partialShape, initType.getShape());
  llvm::append_range(partialResults, maps.back().getResults());
  maps.back() = AffineMap::get(op.getNumLoops(), 0, partialResults, ctx);

  rewriter.setInsertionPoint(op);
  Value empty = tensor::EmptyOp::create(rewriter, loc, partialShape,
                                        initType.getElementType());
  Value neutral = arith::ConstantOp::create(
      rewriter, loc, *arith::getNeutralElement(combiner.getOperation()));
  Value zeros =
      linalg::FillOp::create(rewriter, loc, neutral, empty).getResult(0);
  auto partial =
      linalg::GenericOp::create(rewriter, loc, zeros.getType(),
                                op.getDpsInputs(), zeros, maps, iterators);
  rewriter.inlineRegionBefore(op.getRegion(), partial.getRegion(),
                              partial.getRegion().begin());

  // The sum of the blocks: loops (blocks..., result...), the result's
  // innermost.
  const int64_t rank = initType.getRank();
  const int64_t numBlockDims = int64_t(outer.size());
  const int64_t loops = numBlockDims + rank;
  SmallVector<utils::IteratorType> sumIterators(numBlockDims,
                                                utils::IteratorType::reduction);
  sumIterators.append(rank, utils::IteratorType::parallel);
  SmallVector<AffineExpr> initDims;
  for (int64_t d = numBlockDims; d < loops; ++d)
    initDims.push_back(getAffineDimExpr(d, ctx));
  SmallVector<AffineMap> sumMaps = {
      AffineMap::getMultiDimIdentityMap(loops, ctx),
      AffineMap::get(loops, 0, initDims, ctx)};
  auto total = linalg::GenericOp::create(
      rewriter, loc, initType, partial.getResult(0), init, sumMaps,
      sumIterators, [&](OpBuilder &b, Location l, ValueRange args) {
        Value sum = arith::AddFOp::create(b, l, args[0], args[1],
                                          combiner.getFastmathAttr());
        linalg::YieldOp::create(b, l, sum);
      });
  rewriter.replaceOp(op, total.getResults());
}

/// `op` with the unit dimensions its result indexes by a constant 0
/// (torch-mlir's keepdim sums: (d0, d1) -> (d0, 0)) collapsed out of its
/// init and expanded back after it: upstream's splitReduction builds an
/// invalid op from such a map. `op` itself when there are none.
linalg::GenericOp withoutZeroIndexedDims(RewriterBase &rewriter,
                                         linalg::GenericOp op) {
  MLIRContext *ctx = op.getContext();
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  AffineMap outMap = maps.back();
  Value init = op.getDpsInits()[0];
  auto initType = cast<RankedTensorType>(init.getType());
  SmallVector<AffineExpr> kept;
  SmallVector<int64_t> keptShape;
  SmallVector<ReassociationIndices> groups;
  ReassociationIndices pending;
  for (auto [i, result] : llvm::enumerate(outMap.getResults())) {
    pending.push_back(int64_t(i));
    if (isa<AffineConstantExpr>(result))
      continue;
    kept.push_back(result);
    keptShape.push_back(initType.getDimSize(i));
    groups.push_back(pending);
    pending.clear();
  }
  if (kept.size() == outMap.getNumResults())
    return op;
  if (!groups.empty())
    groups.back().append(pending.begin(), pending.end());
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  auto keptType = RankedTensorType::get(keptShape, initType.getElementType());
  Value collapsed =
      tensor::CollapseShapeOp::create(rewriter, loc, keptType, init, groups);
  maps.back() = AffineMap::get(outMap.getNumDims(), 0, kept, ctx);
  auto narrow =
      linalg::GenericOp::create(rewriter, loc, keptType, op.getDpsInputs(),
                                collapsed, maps, op.getIteratorTypesArray());
  rewriter.inlineRegionBefore(op.getRegion(), narrow.getRegion(),
                              narrow.getRegion().begin());
  Value expanded = tensor::ExpandShapeOp::create(rewriter, loc, initType,
                                                 narrow.getResult(0), groups);
  rewriter.replaceOp(op, expanded);
  return narrow;
}

/// The number of blocks one reduction loop of `terms` iterations is split
/// into: the divisor of `terms` closest to its square root, or 0 if none
/// balances well (a prime count of terms).
int64_t blocksOfOneLoop(int64_t terms) {
  for (int64_t d = int64_t(std::sqrt(double(terms))); d >= 2; --d)
    if (terms % d == 0)
      return d + terms / d <= terms / 4 ? d : 0;
  return 0;
}

/// Splits `op`'s single reduction loop into `blocks` blocks with upstream's
/// linalg::splitReduction.
bool splitOneLoop(RewriterBase &rewriter, linalg::GenericOp op,
                  int64_t blocks) {
  op = withoutZeroIndexedDims(rewriter, op);
  rewriter.setInsertionPoint(op);
  FailureOr<linalg::SplitReductionResult> split =
      linalg::splitReduction(rewriter, op, [&](linalg::LinalgOp) {
        // The reduction loop becomes (blocks, terms / blocks), the block
        // index parallel and first in the partial sums' tensor, whose
        // innermost dimension stays the result's.
        return linalg::SplitReductionOptions{blocks, 0,
                                             /*innerParallel=*/false};
      });
  return succeeded(split);
}

struct SplitReductionsPass
    : public amp::impl::SplitReductionsPassBase<SplitReductionsPass> {
  using Base::Base;

  void runOnOperation() override {
    // Collected first: the rewrites replace the ops the walk would visit.
    SmallVector<std::pair<linalg::LinalgOp, int64_t>> candidates;
    getOperation()->walk([&](linalg::LinalgOp op) {
      if (int64_t terms = termsToSplit(op, minTerms))
        candidates.emplace_back(op, terms);
    });
    IRRewriter rewriter(&getContext());
    for (auto [op, terms] : candidates) {
      SmallVector<unsigned> reductions;
      op.getReductionDims(reductions);
      SmallVector<int64_t> ranges = op.getStaticLoopRanges();
      SmallVector<int64_t> extents = llvm::to_vector(
          llvm::map_range(reductions, [&](unsigned d) { return ranges[d]; }));
      const size_t numOuter = outerLoopsToSplit(extents, terms);
      const int64_t blocks =
          reductions.size() == 1 ? blocksOfOneLoop(terms) : 0;
      if (!numOuter && !blocks)
        continue;
      auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
      if (!generic) {
        rewriter.setInsertionPoint(op);
        FailureOr<linalg::GenericOp> generalized =
            linalg::generalizeNamedOp(rewriter, op);
        if (failed(generalized))
          continue;
        generic = *generalized;
      }
      arith::AddFOp combiner = addCombiner(generic);
      if (numOuter)
        splitBetweenLoops(rewriter, generic, combiner, numOuter);
      else
        splitOneLoop(rewriter, generic, blocks);
    }
  }
};

} // namespace
