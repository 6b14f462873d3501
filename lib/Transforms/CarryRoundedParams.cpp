//===- CarryRoundedParams.cpp - The amp-carry-rounded-params pass ---------===//
//
// Turns the per-step rounding of a training step's parameters into state:
// the step takes the 16-bit copy as an argument and returns the rounding of
// the new parameter, which the optimizer update (fused with it by the
// lowering) writes while it writes the f32 master copy.
//
//===----------------------------------------------------------------------===//

#include "amp/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

namespace mlir::amp {
#define GEN_PASS_DEF_CARRYROUNDEDPARAMSPASS
#include "amp/Transforms/Passes.h.inc"
} // namespace mlir::amp

#define DEBUG_TYPE "amp-carry-rounded-params"

using namespace mlir;
using namespace mlir::amp;

static bool hasRole(DictionaryAttr attrs, StringRef role) {
  auto value = attrs ? attrs.getAs<StringAttr>("amp.role") : nullptr;
  return value && value.getValue() == role;
}

/// The result of `fn` that is the new value of argument `arg`, if any.
static std::optional<unsigned> updateOf(FunctionOpInterface fn, unsigned arg) {
  for (unsigned r = 0, e = fn.getNumResults(); r < e; ++r) {
    DictionaryAttr attrs = fn.getResultAttrDict(r);
    auto updates = attrs ? attrs.getAs<IntegerAttr>("amp.updates") : nullptr;
    if (hasRole(attrs, "update") && updates && updates.getInt() == arg)
      return r;
  }
  return std::nullopt;
}

/// Whether `fn` already takes the rounding of argument `param` to `type`
/// (a second run of the pass: a step that returns a param unchanged rounds
/// the argument itself at its return).
static bool hasCopy(FunctionOpInterface fn, unsigned param, Type type) {
  for (unsigned i = 0, e = fn.getNumArguments(); i < e; ++i) {
    DictionaryAttr attrs = fn.getArgAttrDict(i);
    auto of = attrs ? attrs.getAs<IntegerAttr>("amp.copy_of") : nullptr;
    if (of && of.getInt() == param && fn.getArgumentTypes()[i] == type)
      return true;
  }
  return false;
}

/// Plain roundings of one argument to one 16-bit tensor type.
using RoundingGroup = SmallVector<arith::TruncFOp>;

/// The plain roundings of the entry block's arguments of `fn`, per argument
/// grouped by type, in program order. A rounding mode other than the
/// default is not what the caller's initial copy computes, so it stays.
static DenseMap<unsigned, SmallVector<RoundingGroup>>
roundingsOfArguments(FunctionOpInterface fn) {
  Block &entry = fn.getFunctionBody().front();
  DenseMap<unsigned, SmallVector<RoundingGroup>> roundings;
  fn.walk([&](arith::TruncFOp trunc) {
    auto arg = dyn_cast<BlockArgument>(trunc.getIn());
    auto to = dyn_cast<RankedTensorType>(trunc.getType());
    if (!arg || arg.getOwner() != &entry || trunc.getRoundingmodeAttr() ||
        !to || !(to.getElementType().isF16() || to.getElementType().isBF16()))
      return;
    SmallVector<RoundingGroup> &groups = roundings[arg.getArgNumber()];
    auto group = llvm::find_if(
        groups, [&](RoundingGroup &g) { return g.front().getType() == to; });
    if (group == groups.end())
      groups.push_back({trunc});
    else
      group->push_back(trunc);
  });
  return roundings;
}

namespace {
struct CarryRoundedParamsPass
    : public amp::impl::CarryRoundedParamsPassBase<CarryRoundedParamsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    for (auto fn : module.getOps<FunctionOpInterface>()) {
      // A callee's signature is its callers' too; the copies are for the
      // entry point a runner calls.
      if (fn.isExternal() || !SymbolTable::symbolKnownUseEmpty(fn, module))
        continue;
      if (failed(carryCopies(fn)))
        return signalPassFailure();
    }
  }

  LogicalResult carryCopies(FunctionOpInterface fn) {
    Block &entry = fn.getFunctionBody().front();
    SmallVector<Operation *> returns;
    for (Block &block : fn.getFunctionBody())
      if (block.mightHaveTerminator() &&
          block.getTerminator()->hasTrait<OpTrait::ReturnLike>())
        returns.push_back(block.getTerminator());
    MLIRContext *ctx = fn.getContext();
    Builder b(ctx);
    DenseMap<unsigned, SmallVector<RoundingGroup>> roundings =
        roundingsOfArguments(fn);
    for (unsigned i = 0, e = fn.getNumArguments(); i < e; ++i) {
      BlockArgument param = entry.getArgument(i);
      auto type = dyn_cast<RankedTensorType>(param.getType());
      if (!type || !type.getElementType().isF32() ||
          !hasRole(fn.getArgAttrDict(i), "param"))
        continue;
      auto rounded = roundings.find(i);
      std::optional<unsigned> update = updateOf(fn, i);
      if (rounded == roundings.end() || !update)
        continue;
      for (RoundingGroup &group : rounded->second) {
        Type copyType = group.front().getType();
        if (hasCopy(fn, i, copyType))
          continue;
        unsigned copyIndex = fn.getNumArguments();
        NamedAttribute argAttrs[] = {
            b.getNamedAttr("amp.role", b.getStringAttr("param_copy")),
            b.getNamedAttr("amp.copy_of", b.getI64IntegerAttr(i))};
        if (failed(fn.insertArgument(copyIndex, copyType,
                                     b.getDictionaryAttr(argAttrs),
                                     param.getLoc())))
          return fn.emitError("cannot add the rounded copy of argument #") << i;
        BlockArgument copy = entry.getArgument(copyIndex);
        for (arith::TruncFOp trunc : group) {
          trunc.getResult().replaceAllUsesWith(copy);
          trunc.erase();
        }
        // The next step's copy: the rounding of the new value, at every
        // return (amp-fuse-elementwise merges it into the update).
        for (Operation *ret : returns) {
          OpBuilder builder(ret);
          Value next = arith::TruncFOp::create(builder, ret->getLoc(), copyType,
                                               ret->getOperand(*update));
          ret->insertOperands(ret->getNumOperands(), next);
        }
        NamedAttribute resultAttrs[] = {
            b.getNamedAttr("amp.role", b.getStringAttr("update")),
            b.getNamedAttr("amp.updates", b.getI64IntegerAttr(copyIndex))};
        if (failed(fn.insertResult(fn.getNumResults(), copyType,
                                   b.getDictionaryAttr(resultAttrs))))
          return fn.emitError("cannot add the rounded copy of result #")
                 << *update;
        ++numCopies;
      }
    }
    return success();
  }
};
} // namespace
