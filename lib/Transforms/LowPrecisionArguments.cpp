//===- LowPrecisionArguments.cpp - The amp-low-precision-arguments pass ---===//
//
// Moves the rounding of arguments that a function only reads rounded (its
// weights, after amp-auto-mixed-precision) from every call of the function
// to its caller, which rounds once per set of weights.
//
//===----------------------------------------------------------------------===//

#include "amp/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/TypeUtilities.h"

namespace mlir::amp {
#define GEN_PASS_DEF_LOWPRECISIONARGUMENTSPASS
#include "amp/Transforms/Passes.h.inc"
} // namespace mlir::amp

#define DEBUG_TYPE "amp-low-precision-arguments"

using namespace mlir;
using namespace mlir::amp;

/// The 16-bit tensor type that every use of `arg` rounds it to, if any.
static std::optional<RankedTensorType> roundedOnlyType(BlockArgument arg) {
  auto type = dyn_cast<RankedTensorType>(arg.getType());
  if (!type || !type.getElementType().isF32() || arg.use_empty())
    return std::nullopt;
  std::optional<RankedTensorType> rounded;
  for (Operation *user : arg.getUsers()) {
    auto trunc = dyn_cast<arith::TruncFOp>(user);
    // A truncf with a rounding mode or fastmath flags is not the plain
    // round-to-nearest-even the caller is asked for.
    if (!trunc || trunc.getRoundingmodeAttr())
      return std::nullopt;
    auto to = dyn_cast<RankedTensorType>(trunc.getType());
    Type element = to ? to.getElementType() : Type();
    if (!to || !(element.isF16() || element.isBF16()) ||
        (rounded && *rounded != to))
      return std::nullopt;
    rounded = to;
  }
  return rounded;
}

namespace {
struct LowPrecisionArgumentsPass
    : public amp::impl::LowPrecisionArgumentsPassBase<
          LowPrecisionArgumentsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    // The users of every function, from one walk of the module: rewriting
    // a call's operands keeps its user entry.
    SymbolTableCollection symbolTables;
    SymbolUserMap users(symbolTables, module);
    // A caller whose argument only feeds a rounded call operand rounds it
    // in turn: repeat until no function changes.
    while (
        llvm::count_if(module.getOps<func::FuncOp>(), [&](func::FuncOp func) {
          return takeRounded(func, users.getUsers(func));
        }))
      ;
  }

  /// Retypes the arguments of `func` that it only reads rounded; returns
  /// whether any changed. `users` are the ops that reference `func`.
  bool takeRounded(func::FuncOp func, ArrayRef<Operation *> users) {
    if (func.isExternal())
      return false;
    // Calls are rewritten below; any other use of the symbol (a
    // func.constant, a reference from another dialect) keeps the
    // signature.
    if (llvm::any_of(users,
                     [](Operation *user) { return !isa<func::CallOp>(user); }))
      return false;
    Block &entry = func.getBody().front();
    SmallVector<Type> inputs(func.getArgumentTypes());
    bool changed = false;
    for (BlockArgument arg : entry.getArguments()) {
      std::optional<RankedTensorType> rounded = roundedOnlyType(arg);
      if (!rounded)
        continue;
      unsigned index = arg.getArgNumber();
      Type original = arg.getType();
      for (Operation *user : llvm::make_early_inc_range(arg.getUsers())) {
        user->getResult(0).replaceAllUsesWith(arg);
        user->erase();
      }
      arg.setType(*rounded);
      inputs[index] = *rounded;
      func.setArgAttr(index, "amp.rounded_from", TypeAttr::get(original));
      for (Operation *user : users) {
        auto call = cast<func::CallOp>(user);
        OpBuilder builder(call);
        Value operand = call.getOperand(index);
        call.setOperand(index, arith::TruncFOp::create(builder, call.getLoc(),
                                                       *rounded, operand));
      }
      ++numArguments;
      changed = true;
    }
    if (changed)
      func.setFunctionType(FunctionType::get(
          func.getContext(), inputs, func.getFunctionType().getResults()));
    return changed;
  }
};
} // namespace
