//===- ReadRoundingsWide.cpp - Skip roundings read back wide --------------===//
//
// amp-auto-mixed-precision rounds a value once for all its low readers. When
// those readers are elementwise linalg ops, their bodies extend the element
// straight back to f32 (a low elementwise op computes in f32 and rounds its
// result), so the rounded tensor exists only to be widened again. Upstream
// has no rewrite for this: arith's folds never touch extf(truncf(x)), which
// is not an identity, and linalg's elementwise fusion would fuse the truncf
// into every reader, keeping the rounding and duplicating it.
//
//===----------------------------------------------------------------------===//

#include "amp/Transforms/ReadRoundingsWide.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Utils/Utils.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;
using namespace mlir::amp;

/// The body argument through which `use` is read, if `use` is an input of an
/// elementwise linalg op that only extends it to `wide`. Contractions are
/// excluded: their low inputs are what makes them fast (bf16 dot products,
/// Tensor Cores), and a generic contraction extends its inputs in its body
/// exactly like an elementwise op.
static BlockArgument getArgumentExtendedTo(OpOperand &use, Type wide) {
  // Only explicit bodies: a named op's body is its region builder's.
  if (!isa<linalg::GenericOp, linalg::MapOp>(use.getOwner()))
    return {};
  auto linalgOp = cast<linalg::LinalgOp>(use.getOwner());
  if (!linalgOp.hasPureTensorSemantics() || !linalgOp.isDpsInput(&use) ||
      !linalg::isElementwise(linalgOp))
    return {};
  BlockArgument arg = linalgOp.getMatchingBlockArgument(&use);
  for (Operation *argUser : arg.getUsers()) {
    auto ext = dyn_cast<arith::ExtFOp>(argUser);
    if (!ext || ext.getType() != wide)
      return {};
  }
  return arg;
}

/// Ops that allocate nothing the check below should count: views, empty
/// tensors, and casts, which the cast cleanup moves and merges afterwards
/// (counting them would make the decision depend on where they sit).
static bool isViewEmptyOrCast(Operation *op) {
  return isa<tensor::EmptyOp, tensor::ExpandShapeOp, tensor::CollapseShapeOp,
             tensor::CastOp, arith::TruncFOp, arith::ExtFOp>(op);
}

/// Whether reading the wide input of `trunc` up to `lastReader` (both in one
/// block) keeps it alive across no allocation that matters. The wide value
/// lives at least until its last other use anyway (a block argument or a
/// constant: all along); after that, no op up to `lastReader` other than the
/// readers may make a tensor of half the rounded tensor's elements or more.
/// Gives up after a bounded number of ops, so the check costs O(1) per cast.
static bool noLargeTensorBetween(arith::TruncFOp trunc, Operation *lastReader,
                                 ArrayRef<Operation *> readers) {
  Value wide = trunc.getIn();
  // A block argument lives all along, and so does a constant (a global
  // once bufferized): reading either wide keeps nothing alive. (Counting a
  // constant's liveness made the decision depend on its other users: a
  // padded accumulator, whose pad reads the constant before the
  // contraction, read it narrow where the unpadded one read it wide.)
  if (isa<BlockArgument>(wide) || wide.getDefiningOp<arith::ConstantOp>())
    return true;
  Block *block = trunc->getBlock();
  Operation *start = trunc;
  for (Operation *user : wide.getUsers()) {
    Operation *inBlock = block->findAncestorOpInBlock(*user);
    if (inBlock && inBlock != trunc && start->isBeforeInBlock(inBlock))
      start = inBlock;
  }
  if (start == lastReader || lastReader->isBeforeInBlock(start))
    return true;

  constexpr unsigned kMaxOpsBetween = 64;
  auto rounded = cast<RankedTensorType>(trunc.getType());
  int64_t threshold =
      rounded.hasStaticShape() ? (rounded.getNumElements() + 1) / 2 : 0;
  unsigned seen = 0;
  for (Operation *op = start->getNextNode(); op != lastReader;
       op = op->getNextNode()) {
    if (++seen > kMaxOpsBetween)
      return false;
    if (isViewEmptyOrCast(op) || llvm::is_contained(readers, op))
      continue;
    for (Type type : op->getResultTypes()) {
      auto tensor = dyn_cast<RankedTensorType>(type);
      if (tensor &&
          (!tensor.hasStaticShape() || tensor.getNumElements() >= threshold))
        return false;
    }
  }
  return true;
}

namespace {

struct ReadRoundingWide : OpRewritePattern<arith::TruncFOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(arith::TruncFOp trunc,
                                PatternRewriter &rewriter) const override {
    if (!isa<RankedTensorType>(trunc.getType()) || trunc->use_empty())
      return rewriter.notifyMatchFailure(trunc, "not a used tensor rounding");
    Type wide = getElementTypeOrSelf(trunc.getIn().getType());
    Block *block = trunc->getBlock();
    SmallVector<std::pair<OpOperand *, BlockArgument>> reads;
    SmallVector<Operation *> readers;
    Operation *lastReader = nullptr;
    for (OpOperand &use : trunc->getUses()) {
      BlockArgument arg = getArgumentExtendedTo(use, wide);
      Operation *reader = use.getOwner();
      if (!arg || reader->getBlock() != block)
        return rewriter.notifyMatchFailure(
            trunc, "a reader does not just extend it back");
      reads.emplace_back(&use, arg);
      readers.push_back(reader);
      if (!lastReader || lastReader->isBeforeInBlock(reader))
        lastReader = reader;
    }
    if (!noLargeTensorBetween(trunc, lastReader, readers))
      return rewriter.notifyMatchFailure(
          trunc, "the wide tensor would outlive a large allocation");

    for (auto &read : reads) {
      OpOperand *use = read.first;
      BlockArgument arg = read.second;
      rewriter.modifyOpInPlace(use->getOwner(), [&] {
        arg.setType(wide);
        use->set(trunc.getIn());
      });
      for (Operation *ext : llvm::make_early_inc_range(arg.getUsers()))
        rewriter.replaceOp(ext, arg);
    }
    rewriter.eraseOp(trunc);
    return success();
  }
};

} // namespace

void mlir::amp::populateReadRoundingsWidePatterns(RewritePatternSet &patterns) {
  patterns.add<ReadRoundingWide>(patterns.getContext());
}
