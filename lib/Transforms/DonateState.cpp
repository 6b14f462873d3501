//===- DonateState.cpp - Update a training step's state in place ----------===//
//
// amp-update-state-in-place and amp-return-donated-buffers: a training
// step's caller donates the buffers of its params and optimizer state, and
// the step writes each new value over the old one, as PyTorch's optimizers
// do (`param.add_`) and JAX does with donated arguments. An update in place
// moves about 0.6x the bytes of one into a fresh buffer (no write-allocate
// fetch of the destination) and the step no longer holds two copies of its
// state.
//
//===----------------------------------------------------------------------===//

#include "amp/Transforms/Passes.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::amp {
#define GEN_PASS_DEF_UPDATESTATEINPLACEPASS
#define GEN_PASS_DEF_RETURNDONATEDBUFFERSPASS
#include "amp/Transforms/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;

namespace {

constexpr StringLiteral kDonatedAttr = "amp.donated";

/// Whether every use of `arg` other than `update` reads it before `update`
/// runs: an input of `update` at the same element as `update`'s result, or
/// an op before `update` in its block. Anything else would read the old
/// value after the in-place write; bufferization would then copy the
/// argument first (correct, but slower than a fresh buffer).
bool onlyReadBefore(BlockArgument arg, linalg::GenericOp update) {
  Block *block = update->getBlock();
  for (OpOperand &use : arg.getUses()) {
    Operation *owner = use.getOwner();
    if (owner == update.getOperation()) {
      if (!update.isDpsInput(&use) ||
          !update.getMatchingIndexingMap(&use).isIdentity())
        return false;
      continue;
    }
    Operation *ancestor = block->findAncestorOpInBlock(*owner);
    if (!ancestor || !ancestor->isBeforeInBlock(update))
      return false;
  }
  return true;
}

/// The all-parallel generic computing `value` whose init for that result
/// may be replaced: its payload does not read it and its indexing map is
/// the identity.
std::optional<std::pair<linalg::GenericOp, OpOperand *>>
matchUpdate(Value value) {
  auto update = value.getDefiningOp<linalg::GenericOp>();
  if (!update || !update.hasPureTensorSemantics() ||
      update.getNumLoops() != update.getNumParallelLoops())
    return std::nullopt;
  OpOperand *init =
      update.getDpsInitOperand(cast<OpResult>(value).getResultNumber());
  if (update.payloadUsesValueFromOperand(init) ||
      !update.getMatchingIndexingMap(init).isIdentity())
    return std::nullopt;
  return std::make_pair(update, init);
}

struct UpdateStateInPlacePass
    : public amp::impl::UpdateStateInPlacePassBase<UpdateStateInPlacePass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal() || !func.getBody().hasOneBlock())
      return;
    auto ret = dyn_cast<func::ReturnOp>(func.getBody().front().getTerminator());
    if (!ret)
      return;

    MLIRContext *context = &getContext();
    SmallVector<Operation *> updates;
    for (unsigned i = 0, e = func.getNumResults(); i < e; ++i) {
      auto target = func.getResultAttrOfType<IntegerAttr>(i, "amp.updates");
      if (!target || target.getInt() < 0 ||
          target.getInt() >= static_cast<int64_t>(func.getNumArguments()))
        continue;
      unsigned argNumber = target.getInt();
      BlockArgument arg = func.getArgument(argNumber);
      Value value = ret.getOperand(i);
      if (arg.getType() != value.getType() ||
          func.getArgAttr(argNumber, kDonatedAttr))
        continue;
      auto match = matchUpdate(value);
      if (!match || !onlyReadBefore(arg, match->first))
        continue;
      auto [update, init] = *match;
      update->setOperand(init->getOperandNumber(), arg);
      func.setArgAttr(argNumber, kDonatedAttr, UnitAttr::get(context));
      func.setArgAttr(argNumber,
                      bufferization::BufferizationDialect::kWritableAttrName,
                      BoolAttr::get(context, true));
      updates.push_back(update);
    }
    if (updates.empty())
      return;

    // The generic now reads the argument both as an input and as its init
    // (the same element): upstream's patterns read the init's block argument
    // instead and drop the input, so that no read of the argument is left
    // beside the write when amp-tile-for-threads splits the op into chunks
    // (one-shot bufferization would see that read as a conflict and copy).
    RewritePatternSet patterns(context);
    linalg::populateEraseUnnecessaryInputsPatterns(patterns);
    linalg::populateEraseUnusedOperandsAndResultsPatterns(patterns);
    (void)applyOpPatternsGreedily(
        updates, std::move(patterns),
        GreedyRewriteConfig().setStrictness(
            GreedyRewriteStrictness::ExistingAndNewOps));
  }
};

/// True if `use` only asks a `bufferization.dealloc` to keep the buffer
/// alive (a retained operand, not one it may free) and nothing reads the
/// ownership the dealloc computes for it. The deallocation pipeline retains
/// every returned value; retaining the donated argument instead of its
/// clone keeps the same buffers alive (the function owns no view of an
/// argument) and the ownership of a returned value is not needed.
static bool isUnusedRetention(OpOperand &use) {
  auto dealloc = dyn_cast<bufferization::DeallocOp>(use.getOwner());
  if (!dealloc)
    return false;
  for (auto [i, retained] : llvm::enumerate(dealloc.getRetainedMutable()))
    if (&retained == &use)
      return dealloc.getUpdatedConditions()[i].use_empty();
  return false;
}

struct ReturnDonatedBuffersPass
    : public amp::impl::ReturnDonatedBuffersPassBase<ReturnDonatedBuffersPass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    SmallVector<bufferization::CloneOp> clones;
    func.walk([&](bufferization::CloneOp clone) {
      auto arg = dyn_cast<BlockArgument>(clone.getInput());
      if (!arg || arg.getOwner() != &func.getBody().front() ||
          !func.getArgAttr(arg.getArgNumber(), kDonatedAttr))
        return;
      if (llvm::all_of(clone->getUses(), [&](OpOperand &use) {
            return isa<func::ReturnOp>(use.getOwner()) ||
                   isUnusedRetention(use);
          }))
        clones.push_back(clone);
    });
    IRRewriter rewriter(&getContext());
    for (bufferization::CloneOp clone : clones) {
      if (clone.getInput().getType() != clone.getType())
        continue;
      rewriter.replaceOp(clone, clone.getInput());
    }
  }
};

} // namespace
