//===- TileForThreads.cpp - One scf.forall chunk per thread ---------------===//
//
// amp-tile-for-threads: the loops that stay outside libamp_rt (elementwise
// ops, casts, reductions, optimizer updates) are memory-bound sweeps over
// whole tensors; splitting each into one contiguous chunk per thread lets
// the fast pipeline's parallel variant run them on every core.
//
//===----------------------------------------------------------------------===//

#include "amp/Transforms/BlockedConv.h"
#include "amp/Transforms/Passes.h"
#include "amp/Transforms/TilingUtils.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/Support/Threading.h"

namespace mlir::amp {
#define GEN_PASS_DEF_TILEFORTHREADSPASS
#include "amp/Transforms/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;

bool mlir::amp::isNonDecreasing(AffineExpr expr) {
  if (isa<AffineDimExpr, AffineSymbolExpr, AffineConstantExpr>(expr))
    return true;
  auto binary = dyn_cast<AffineBinaryOpExpr>(expr);
  if (!binary)
    return false;
  auto constant = dyn_cast<AffineConstantExpr>(binary.getRHS());
  switch (expr.getKind()) {
  case AffineExprKind::Add:
    return isNonDecreasing(binary.getLHS()) && isNonDecreasing(binary.getRHS());
  case AffineExprKind::Mul:
  case AffineExprKind::FloorDiv:
  case AffineExprKind::CeilDiv:
    return constant && constant.getValue() >= 0 &&
           isNonDecreasing(binary.getLHS());
  default:
    return false;
  }
}

namespace {

/// The loop `op` is split along: its outermost parallel loop whose static
/// extent is at least `threads` (so that every chunk gets work), if its
/// static iteration space has at least `minIterations` points and its maps
/// never decrease.
std::optional<unsigned> chooseSplitLoop(linalg::LinalgOp op, unsigned threads,
                                        int64_t minIterations) {
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  int64_t points = 1;
  for (int64_t r : ranges) {
    if (ShapedType::isDynamic(r))
      return std::nullopt;
    points *= r;
  }
  for (AffineMap map : op.getIndexingMapsArray())
    if (!llvm::all_of(map.getResults(), amp::isNonDecreasing))
      return std::nullopt;
  if (points < minIterations)
    return std::nullopt;
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  for (auto [i, it] : llvm::enumerate(iterators))
    if (it == utils::IteratorType::parallel &&
        ranges[i] >= static_cast<int64_t>(threads))
      return i;
  return std::nullopt;
}

struct TileForThreadsPass
    : public amp::impl::TileForThreadsPassBase<TileForThreadsPass> {
  using Base::Base;

  void runOnOperation() override {
    unsigned threads = numThreads;
    if (threads == 0)
      threads = llvm::hardware_concurrency().compute_thread_count();
    if (threads < 2)
      return;

    // Contractions and convolutions are libamp_rt's (amp-lower-to-runtime
    // matches the named ops on whole buffers); ops already inside a forall
    // were split before.
    // A fill that only initializes contractions stays whole too: the
    // runtime call overwrites the output instead (amp-lower-to-runtime).
    // A window reduction without a product (max / sum pooling) has no
    // library call: it is split like any other loop nest.
    auto isLibraryOp = amp::isLibraryContraction;
    IRRewriter rewriter(&getContext());
    if (buffers)
      copiesToLinalg(rewriter);

    SmallVector<linalg::LinalgOp> candidates;
    getOperation()->walk([&](linalg::LinalgOp op) {
      bool semantics =
          buffers ? op.hasPureBufferSemantics() : op.hasPureTensorSemantics();
      if (!semantics || isLibraryOp(op) || op->getParentOfType<scf::ForallOp>())
        return;
      if (buffers) {
        candidates.push_back(op);
        return;
      }
      if (isa<linalg::FillOp>(op.getOperation()) &&
          llvm::all_of(op->getUsers(), isLibraryOp))
        return;
      // So does the rounding of a contraction's result, the contraction's
      // only reader: amp-lower-to-runtime folds it into the runtime call.
      if (amp::isRoundingOfLibraryResult(op))
        return;
      candidates.push_back(op);
    });

    for (linalg::LinalgOp op : candidates) {
      std::optional<unsigned> loop =
          chooseSplitLoop(op, threads, minIterations);
      if (!loop)
        continue;
      SmallVector<OpFoldResult> chunks(*loop + 1, rewriter.getIndexAttr(0));
      chunks[*loop] = rewriter.getIndexAttr(threads);
      scf::SCFTilingOptions options;
      options.setLoopType(scf::SCFTilingOptions::LoopType::ForallOp);
      options.setNumThreads(chunks);
      rewriter.setInsertionPoint(op);
      FailureOr<scf::SCFTilingResult> tiled = scf::tileUsingSCF(
          rewriter, cast<TilingInterface>(op.getOperation()), options);
      // An op the tiling interface cannot split stays one serial loop nest.
      if (failed(tiled))
        continue;
      if (buffers)
        rewriter.eraseOp(op);
      else
        rewriter.replaceOp(op, tiled->replacements);
    }
  }

  /// Bufferization's copies (slice insertions it could not do in place,
  /// copies of arguments a step updates) are memref.copy: one memcpy on one
  /// thread where both sides are contiguous, otherwise the C runner's
  /// element-by-element `memrefCopy`. Big ones become linalg.copy, which the
  /// walk then splits into vectorizable loops per thread.
  void copiesToLinalg(RewriterBase &rewriter) {
    SmallVector<memref::CopyOp> copies;
    getOperation()->walk([&](memref::CopyOp copy) {
      auto type = dyn_cast<MemRefType>(copy.getSource().getType());
      if (type && type.hasStaticShape() &&
          type.getNumElements() >= minIterations &&
          isa<MemRefType>(copy.getTarget().getType()) &&
          !copy->getParentOfType<scf::ForallOp>())
        copies.push_back(copy);
    });
    for (memref::CopyOp copy : copies) {
      rewriter.setInsertionPoint(copy);
      rewriter.replaceOpWithNewOp<linalg::CopyOp>(copy, copy.getSource(),
                                                  copy.getTarget());
    }
  }
};

} // namespace
