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

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
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

namespace {

/// The loop `op` is split along: its outermost parallel loop whose static
/// extent is at least `threads` (so that every chunk gets work), if its
/// static iteration space has at least `minIterations` points.
std::optional<unsigned> chooseSplitLoop(linalg::LinalgOp op, unsigned threads,
                                        int64_t minIterations) {
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  int64_t points = 1;
  for (int64_t r : ranges) {
    if (ShapedType::isDynamic(r))
      return std::nullopt;
    points *= r;
  }
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
    auto isLibraryOp = [](Operation *op) {
      return isa<linalg::ContractionOpInterface,
                 linalg::ConvolutionOpInterface>(op) ||
             !amp::matchBlockedConv(op).empty();
    };
    SmallVector<linalg::LinalgOp> candidates;
    getOperation()->walk([&](linalg::LinalgOp op) {
      if (!op.hasPureTensorSemantics() || isLibraryOp(op) ||
          op->getParentOfType<scf::ForallOp>())
        return;
      if (isa<linalg::FillOp>(op.getOperation()) &&
          llvm::all_of(op->getUsers(), isLibraryOp))
        return;
      // So does the rounding of a contraction's result, the contraction's
      // only reader: amp-lower-to-runtime folds it into the runtime call.
      if (amp::isRoundingCopy(op)) {
        Operation *producer = op.getDpsInputs()[0].getDefiningOp();
        if (producer && isLibraryOp(producer) && producer->hasOneUse())
          return;
      }
      candidates.push_back(op);
    });

    IRRewriter rewriter(&getContext());
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
      rewriter.replaceOp(op, tiled->replacements);
    }
  }
};

} // namespace
