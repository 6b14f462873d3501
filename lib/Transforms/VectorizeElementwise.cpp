//===- VectorizeElementwise.cpp - Elementwise loops as vector code --------===//
//
// amp-vectorize-elementwise: the elementwise loop nests that stay outside
// libamp_rt are tiled into chunks of the innermost loop and vectorized with
// upstream's linalg vectorizer, so that LLVM gets vector loads and stores
// instead of a scalar loop it may only vectorize behind a runtime overlap
// check (which fails when the output buffer is one of the inputs).
//
//===----------------------------------------------------------------------===//

#include "amp/Transforms/HostVectorWidth.h"
#include "amp/Transforms/Passes.h"
#include "amp/Transforms/TilingUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::amp {
#define GEN_PASS_DEF_VECTORIZEELEMENTWISEPASS
#include "amp/Transforms/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;

namespace {

/// Whether every operand that the innermost loop indexes walks it as its own
/// innermost, unit-stride dimension (so that a chunk is one vector load).
bool readsInnermostContiguously(linalg::GenericOp op, unsigned innermost) {
  for (OpOperand &operand : op->getOpOperands()) {
    AffineMap map = op.getMatchingIndexingMap(&operand);
    if (!map.isFunctionOfDim(innermost))
      continue;
    if (map.getNumResults() == 0 ||
        map.getResults().back() != getAffineDimExpr(innermost, op.getContext()))
      return false;
    auto type = dyn_cast<MemRefType>(operand.get().getType());
    if (!type)
      return false;
    SmallVector<int64_t> strides;
    int64_t offset;
    if (failed(type.getStridesAndOffset(strides, offset)) || strides.empty() ||
        strides.back() != 1)
      return false;
  }
  return true;
}

/// Whether `expr`, a function of the loops other than the innermost one, is
/// one the tiling slices right and that is 0 at a chunk's only point of
/// those loops: an index, a window position (`2 * p + r`), a broadcast 0.
bool isOuterIndexExpr(AffineExpr expr, unsigned loops) {
  if (!amp::isNonDecreasing(expr))
    return false;
  SmallVector<AffineExpr> zeros(loops,
                                getAffineConstantExpr(0, expr.getContext()));
  auto atOrigin = dyn_cast<AffineConstantExpr>(expr.replaceDims(zeros));
  return atOrigin && atOrigin.getValue() == 0;
}

/// Whether every map result is the innermost loop itself or an outer index
/// expression (isOuterIndexExpr).
bool hasChunkableMaps(linalg::GenericOp op, unsigned innermost) {
  AffineExpr inner = getAffineDimExpr(innermost, op.getContext());
  for (AffineMap map : op.getIndexingMapsArray())
    for (AffineExpr result : map.getResults())
      if (result != inner && (result.isFunctionOfDim(innermost) ||
                              !isOuterIndexExpr(result, map.getNumDims())))
        return false;
  return true;
}

/// Replaces each compound map result of `chunk` (a window position `2p + r`,
/// which isOuterIndexExpr made 0 at the chunk's only point of the outer
/// loops) by 0: a max pool's input `(n, cb, 2p + r, 2q + s, ci)` becomes
/// `(n, cb, 0, 0, ci)`, which the vectorizer reads as one vector. Returns
/// false, the maps unchanged, where a loop would then appear in no map.
bool dropWindowExprs(linalg::GenericOp chunk) {
  MLIRContext *context = chunk.getContext();
  SmallVector<AffineMap> original = chunk.getIndexingMapsArray();
  SmallVector<Attribute> maps;
  for (AffineMap map : original) {
    SmallVector<AffineExpr> results;
    for (AffineExpr result : map.getResults())
      results.push_back(isa<AffineDimExpr, AffineConstantExpr>(result)
                            ? result
                            : getAffineConstantExpr(0, context));
    maps.push_back(AffineMapAttr::get(
        AffineMap::get(map.getNumDims(), 0, results, context)));
  }
  chunk.setIndexingMapsAttr(ArrayAttr::get(context, maps));
  if (chunk.getShapesToLoopsMap())
    return true;
  chunk.setIndexingMapsAttr(
      ArrayAttr::get(context, llvm::map_to_vector(original, [](AffineMap m) {
                       return Attribute(AffineMapAttr::get(m));
                     })));
  return false;
}

/// A generic on buffers whose innermost loop is parallel and splits into
/// `width`-element chunks that vector code can run: an elementwise op, or a
/// reduction along outer loops (batch-norm statistics), whose chunks then
/// add `width` elements into `width` accumulators, each in the order of the
/// scalar loops.
bool isCandidate(linalg::GenericOp op, int64_t width) {
  if (!op.hasPureBufferSemantics() || op.getNumLoops() == 0 ||
      op.getIteratorTypesArray().back() != utils::IteratorType::parallel ||
      op.hasIndexSemantics())
    return false;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (llvm::any_of(ranges, ShapedType::isDynamic) || ranges.back() % width != 0)
    return false;
  unsigned innermost = ranges.size() - 1;
  if (!hasChunkableMaps(op, innermost))
    return false;
  // Float operands; a scalar one (a loss scale) is broadcast.
  for (Value v : op->getOperands())
    if (!isa<FloatType>(getElementTypeOrSelf(v.getType())))
      return false;
  // Arithmetic only: anything else (a tensor.extract, a call) stays in the
  // scalar loops.
  for (Operation &inner : op.getBlock()->without_terminator())
    if (!isa<arith::ArithDialect, math::MathDialect>(inner.getDialect()))
      return false;
  // Window maps (pooling) are only vectorizable once the chunk's outer
  // loops are dropped; the others are checked whole.
  bool permutations = llvm::all_of(op.getIndexingMapsArray(), [](AffineMap m) {
    return m.isProjectedPermutation(/*allowZeroInResults=*/true);
  });
  return readsInnermostContiguously(op, innermost) &&
         (!permutations || succeeded(linalg::vectorizeOpPrecondition(op)));
}

struct VectorizeElementwisePass
    : public amp::impl::VectorizeElementwisePassBase<VectorizeElementwisePass> {
  using Base::Base;

  void runOnOperation() override {
    int64_t lanes = width ? width : amp::hostF32Lanes();
    if (lanes < 2)
      return;
    SmallVector<linalg::GenericOp> candidates;
    getOperation().walk([&](linalg::GenericOp op) {
      if (isCandidate(op, lanes))
        candidates.push_back(op);
    });
    if (candidates.empty())
      return markAllAnalysesPreserved();

    IRRewriter rewriter(&getContext());
    for (linalg::GenericOp op : candidates) {
      // One point of every outer loop, `lanes` of the innermost one (the
      // loops keep their order, so each sum keeps its order of additions).
      SmallVector<OpFoldResult> tiles(op.getNumLoops(),
                                      rewriter.getIndexAttr(1));
      tiles.back() = rewriter.getIndexAttr(lanes);
      scf::SCFTilingOptions options;
      options.setTileSizes(tiles);
      rewriter.setInsertionPoint(op);
      FailureOr<scf::SCFTilingResult> tiled = scf::tileUsingSCF(
          rewriter, cast<TilingInterface>(op.getOperation()), options);
      if (failed(tiled))
        continue;
      rewriter.eraseOp(op);
      for (Operation *chunk : tiled->tiledOps) {
        rewriter.setInsertionPoint(chunk);
        // On buffers the vectorizer stores through transfer_writes and
        // leaves no results; the chunk's op goes.
        if (dropWindowExprs(cast<linalg::GenericOp>(chunk)) &&
            succeeded(linalg::vectorize(rewriter, chunk)))
          rewriter.eraseOp(chunk);
      }
    }

    // The chunks' transfers are 1 x ... x 1 x lanes: drop the unit
    // dimensions, then make them vector.load / vector.store (and a scalar
    // load + vector.broadcast for an operand the innermost loop does not
    // index).
    RewritePatternSet patterns(&getContext());
    vector::populateVectorTransferDropUnitDimsPatterns(patterns);
    vector::populateDropUnitDimWithShapeCastPatterns(patterns);
    vector::populateCastAwayVectorLeadingOneDimPatterns(patterns);
    vector::populateVectorTransferPermutationMapLoweringPatterns(patterns);
    vector::populateVectorTransferLoweringPatterns(patterns,
                                                   /*maxTransferRank=*/1);
    vector::populateVectorBroadcastLoweringPatterns(patterns);
    vector::populateVectorShapeCastLoweringPatterns(patterns);
    // extract(broadcast(scalar)) of a scalar operand: one broadcast.
    vector::ExtractOp::getCanonicalizationPatterns(patterns, &getContext());
    vector::BroadcastOp::getCanonicalizationPatterns(patterns, &getContext());
    // A reduction chunk reduces over unit dimensions only: an elementwise
    // combine with its accumulator.
    vector::MultiDimReductionOp::getCanonicalizationPatterns(patterns,
                                                             &getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
