//===- ReadRoundingsWide.cpp - Skip roundings read back wide --------------===//
//
// amp-auto-mixed-precision rounds a value once for all its low readers, and
// a low elementwise op computes in f32 and rounds its result on yield. When
// the readers of such a rounding are elementwise linalg ops whose bodies
// extend the element straight back to f32 (or f32 consumers' extf), the
// rounded tensor exists only to be widened again: a chain of low elementwise
// ops (a batch norm's four ops, a bias add and a residual add) rounds every
// intermediate where PyTorch rounds once. Upstream has no rewrite for this:
// arith's folds never touch extf(truncf(x)), which is not an identity, and
// linalg's elementwise fusion would fuse the truncf into every reader,
// keeping the rounding and duplicating it.
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

/// Whether the linalg op that owns `use` reads it broadcast: through an
/// indexing map that is no permutation of its loops (it drops loops, or
/// reads unit dimensions at 0) over a static iteration space at least four
/// times the operand's size.
static bool isBroadcastRead(OpOperand &use) {
  auto linalgOp = cast<linalg::LinalgOp>(use.getOwner());
  auto type = dyn_cast<RankedTensorType>(use.get().getType());
  if (!type || !type.hasStaticShape() ||
      linalgOp.getMatchingIndexingMap(&use).isPermutation())
    return false;
  int64_t space = 1;
  for (int64_t range : linalgOp.getStaticLoopRanges()) {
    if (ShapedType::isDynamic(range))
      return false;
    space *= range;
  }
  return 4 * type.getNumElements() <= space;
}

namespace {

/// The readers of a rounded tensor, when each of them only extends it back
/// to the wide element type: an elementwise linalg op (through a body
/// argument) or an extf of the whole tensor to the wide type, directly or
/// through reshapes (torch-mlir reshapes between a bias add and the residual
/// add that reads it).
struct WideReads {
  SmallVector<std::pair<OpOperand *, BlockArgument>> bodyReads;
  SmallVector<arith::ExtFOp> tensorExtensions;
  SmallVector<Operation *> reshapes;
  SmallVector<Operation *> readers;
  Operation *lastReader = nullptr;
  /// Whether every body read broadcasts the tensor (isBroadcastRead): a
  /// per-channel or per-row vector, such as a batch norm's mean of the
  /// output gradient.
  bool onlyBroadcastReads = true;

  /// Collects the reads of `rounded`; fails if one does more than extend it
  /// to `wide` or sits outside `block`.
  LogicalResult collect(Value rounded, Type wide, Block *block) {
    for (OpOperand &use : rounded.getUses()) {
      Operation *reader = use.getOwner();
      if (reader->getBlock() != block)
        return failure();
      if (isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(reader)) {
        reshapes.push_back(reader);
        if (failed(collect(reader->getResult(0), wide, block)))
          return failure();
        continue;
      }
      if (auto ext = dyn_cast<arith::ExtFOp>(reader)) {
        if (getElementTypeOrSelf(ext.getType()) != wide)
          return failure();
        tensorExtensions.push_back(ext);
      } else if (BlockArgument arg = getArgumentExtendedTo(use, wide)) {
        bodyReads.emplace_back(&use, arg);
        if (!isBroadcastRead(use))
          onlyBroadcastReads = false;
      } else {
        return failure();
      }
      readers.push_back(reader);
      if (!lastReader || lastReader->isBeforeInBlock(reader))
        lastReader = reader;
    }
    return success(lastReader != nullptr);
  }

  /// Makes every reader of `rounded` take `wideValue` (the reshapes between
  /// them retyped) and use its element as is.
  void readWide(Value rounded, Value wideValue, PatternRewriter &rewriter) {
    Type wide = getElementTypeOrSelf(wideValue.getType());
    if (rounded != wideValue)
      rewriter.replaceAllUsesWith(rounded, wideValue);
    for (Operation *reshape : reshapes)
      rewriter.modifyOpInPlace(reshape, [&] {
        Value result = reshape->getResult(0);
        result.setType(cast<RankedTensorType>(result.getType()).clone(wide));
      });
    for (auto &[use, arg] : bodyReads) {
      rewriter.modifyOpInPlace(use->getOwner(), [&] { arg.setType(wide); });
      for (Operation *ext : llvm::make_early_inc_range(arg.getUsers()))
        rewriter.replaceOp(ext, arg);
    }
    for (arith::ExtFOp ext : tensorExtensions)
      rewriter.replaceOp(ext, ext.getIn());
  }
};

} // namespace

/// Ops that allocate nothing the check below should count: views, empty
/// tensors, and casts, which the cast cleanup moves and merges afterwards
/// (counting them would make the decision depend on where they sit).
static bool isViewEmptyOrCast(Operation *op) {
  return isa<tensor::EmptyOp, tensor::ExpandShapeOp, tensor::CollapseShapeOp,
             tensor::CastOp, arith::TruncFOp, arith::ExtFOp>(op);
}

/// Whether a wide tensor of `rounded`'s shape (element `wide`), alive from
/// `start` to `reads.lastReader` (all in one block), costs no memory that
/// matters: no op between them other than the readers makes a tensor of
/// half the rounded tensor's elements or more (a forward activation read
/// again by the backward pass keeps its low copy: each one alone would cost
/// little, all of them double the saved activations). With
/// `pastLargerTensors`, also when one of them has at least twice its bytes:
/// the peak there grows by at most a quarter of that tensor. Gives up
/// (keeps the rounding) after a bounded number of ops, so the check costs
/// O(1) per rounding.
static bool isCheapToKeepWide(Operation *start, RankedTensorType rounded,
                              Type wide, const WideReads &reads,
                              bool pastLargerTensors) {
  if (start == reads.lastReader || reads.lastReader->isBeforeInBlock(start))
    return true;
  // A tensor that every reader broadcasts is a fraction of each reader's
  // iteration space (a per-channel statistic of the tensor it scales or
  // centers): its wide copy costs a few bytes per channel wherever it
  // lives, and its rounding would reach every element it is applied to (a
  // batch norm's backward subtracts the rounded mean of the output gradient
  // from each of its elements, where they nearly cancel: torch-fuzz seed
  // 1799).
  if (!reads.bodyReads.empty() && reads.onlyBroadcastReads)
    return true;
  if (!rounded.hasStaticShape())
    return false;
  constexpr unsigned kMaxOpsBetween = 64;
  int64_t threshold = (rounded.getNumElements() + 1) / 2;
  int64_t wideBits = rounded.getNumElements() * wide.getIntOrFloatBitWidth();
  bool anyLarge = false;
  unsigned seen = 0;
  for (Operation *op = start->getNextNode(); op != reads.lastReader;
       op = op->getNextNode()) {
    if (++seen > kMaxOpsBetween)
      return false;
    if (isViewEmptyOrCast(op) || llvm::is_contained(reads.readers, op))
      continue;
    for (Type type : op->getResultTypes()) {
      auto tensor = dyn_cast<RankedTensorType>(type);
      if (!tensor)
        continue;
      if (!tensor.hasStaticShape() ||
          !tensor.getElementType().isIntOrIndexOrFloat())
        return false;
      if (tensor.getNumElements() < threshold)
        continue;
      if (pastLargerTensors &&
          tensor.getNumElements() *
                  tensor.getElementType().getIntOrFloatBitWidth() >=
              2 * wideBits)
        return true;
      anyLarge = true;
    }
  }
  return !anyLarge;
}

/// The last op of `block` after `start` that uses `value` (or `start`).
static Operation *getLastUseAfter(Value value, Operation *start) {
  Block *block = start->getBlock();
  for (Operation *user : value.getUsers()) {
    Operation *inBlock = block->findAncestorOpInBlock(*user);
    if (inBlock && start->isBeforeInBlock(inBlock))
      start = inBlock;
  }
  return start;
}

/// Where the wide input of `trunc` starts to live only for the wide reads:
/// after its last other use (it lives that long anyway), or never, for a
/// block argument or a constant, which live all along (a global once
/// bufferized). (Counting a constant's liveness made the decision depend on
/// its other users: a padded accumulator, whose pad reads the constant
/// before the contraction, read it narrow where the unpadded one read it
/// wide.)
static Operation *getExtraLivenessStart(arith::TruncFOp trunc) {
  Value wide = trunc.getIn();
  if (isa<BlockArgument>(wide) || wide.getDefiningOp<arith::ConstantOp>())
    return nullptr;
  return getLastUseAfter(wide, trunc);
}

/// Whether an op other than casts reads the wide input of `trunc`: the f32
/// tensor is then a value of the program in its own right (an embedding's
/// output that a layer norm reads), and the rounding exists only for the
/// low readers. A transformer's residual stream is such a value, and
/// PyTorch's autocast keeps it f32 across the attention block or the
/// feed-forward before the residual add; a saved forward activation read
/// again by the backward pass is not (or its f32 reader is in the backward
/// pass too, and reading it wide costs nothing).
static bool isReadWideElsewhere(arith::TruncFOp trunc) {
  return llvm::any_of(trunc.getIn().getUsers(), [](Operation *user) {
    return !isa<arith::TruncFOp, arith::ExtFOp>(user);
  });
}

namespace {

/// A tensor truncf whose readers only extend it back: they read its input.
struct ReadRoundingWide : OpRewritePattern<arith::TruncFOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(arith::TruncFOp trunc,
                                PatternRewriter &rewriter) const override {
    auto rounded = dyn_cast<RankedTensorType>(trunc.getType());
    if (!rounded || trunc->use_empty())
      return rewriter.notifyMatchFailure(trunc, "not a used tensor rounding");
    WideReads reads;
    Type wide = getElementTypeOrSelf(trunc.getIn().getType());
    if (failed(reads.collect(trunc, wide, trunc->getBlock())))
      return rewriter.notifyMatchFailure(
          trunc, "a reader does not just extend it back");
    Operation *start = getExtraLivenessStart(trunc);
    if (start && !isCheapToKeepWide(start, rounded, wide, reads,
                                    isReadWideElsewhere(trunc)))
      return rewriter.notifyMatchFailure(
          trunc, "the wide tensor would outlive a large allocation");
    reads.readWide(trunc, trunc.getIn(), rewriter);
    rewriter.eraseOp(trunc);
    return success();
  }
};

/// A low elementwise linalg.generic that computes a result wide and rounds
/// it on yield, whose readers only extend the result back: it yields the
/// wide element into a wide result instead, and they read that. Applied
/// along a chain of such ops, the chain rounds once, at its end.
struct YieldRoundingWide : OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::GenericOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.hasPureTensorSemantics() || !linalg::isElementwise(op))
      return rewriter.notifyMatchFailure(op, "not an elementwise tensor op");
    auto yield = cast<linalg::YieldOp>(op.getBody()->getTerminator());
    bool changed = false;
    for (OpResult result : op->getResults())
      changed |= succeeded(yieldWide(op, yield, result, rewriter));
    if (!changed)
      return rewriter.notifyMatchFailure(op, "no result only read wide");
    return success();
  }

private:
  static LogicalResult yieldWide(linalg::GenericOp op, linalg::YieldOp yield,
                                 OpResult result, PatternRewriter &rewriter) {
    unsigned index = result.getResultNumber();
    auto rounded = dyn_cast<RankedTensorType>(result.getType());
    auto trunc = yield.getOperand(index).getDefiningOp<arith::TruncFOp>();
    OpOperand *init = op.getDpsInitOperand(index);
    // The init is replaced by a wide one: its element must be unused.
    if (!rounded || result.use_empty() || !trunc ||
        trunc->getBlock() != op.getBody() ||
        !op.getMatchingBlockArgument(init).use_empty())
      return failure();
    Type wide = trunc.getIn().getType();
    WideReads reads;
    if (failed(reads.collect(result, wide, op->getBlock())))
      return failure();
    // An f32 consumer's extf makes the wide tensor anyway, and keeps it
    // until its last use: as for a rounding of an f32 value (above), only
    // the rest of the wide reads' span costs, and past larger tensors too.
    Operation *start = op;
    for (arith::ExtFOp ext : reads.tensorExtensions)
      start = getLastUseAfter(ext, start);
    if (!isCheapToKeepWide(start, rounded, wide, reads,
                           /*pastLargerTensors=*/
                           !reads.tensorExtensions.empty()))
      return failure();

    auto wideType = RankedTensorType::get(rounded.getShape(), wide);
    // The painting's init is an empty tensor, or the rounding of one that
    // stayed f32: the wide init is that f32 tensor, or a new empty one.
    Operation *oldInit = init->get().getDefiningOp();
    Value wideInit;
    if (auto initTrunc = dyn_cast_or_null<arith::TruncFOp>(oldInit);
        initTrunc && initTrunc.getIn().getType() == wideType)
      wideInit = initTrunc.getIn();
    else
      wideInit = tensor::EmptyOp::create(
          rewriter, op.getLoc(),
          tensor::getMixedSizes(rewriter, op.getLoc(), init->get()), wide);
    rewriter.modifyOpInPlace(op, [&] {
      init->set(wideInit);
      op.getMatchingBlockArgument(init).setType(wide);
      result.setType(wideType);
      yield->setOperand(index, trunc.getIn());
    });
    if (trunc->use_empty())
      rewriter.eraseOp(trunc);
    if (oldInit && isOpTriviallyDead(oldInit))
      rewriter.eraseOp(oldInit);
    reads.readWide(result, result, rewriter);
    return success();
  }
};

} // namespace

void mlir::amp::populateReadRoundingsWidePatterns(RewritePatternSet &patterns) {
  patterns.add<ReadRoundingWide, YieldRoundingWide>(patterns.getContext());
}
