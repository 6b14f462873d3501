//===- RetypePaintedOps.cpp - Painted ops to their low types --------------===//
//
// The rewrite of amp-auto-mixed-precision as patterns: every op the painting
// runs low gets the types of its plan. An explicit linalg body is patched in
// place; any other op is retyped on a detached clone that replaces it when
// it verifies, so an op of any dialect that does not accept the low types
// stays as it was. Operands keep their values: the pass inserts the casts
// afterwards, one per value and type.
//
//===----------------------------------------------------------------------===//

#include "amp/Transforms/RetypePaintedOps.h"
#include "amp/Analysis/PrecisionPainting.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "llvm/Support/Threading.h"

using namespace mlir;
using namespace mlir::amp;

/// Re-creates the body of a named linalg op for its new element types with
/// the op's own region builder (so e.g. a matmul extends f16 inputs to its
/// f32 accumulator).
static void rebuildNamedLinalgBody(Operation *op) {
  auto linalgOp = cast<linalg::LinalgOp>(op);
  auto regionBuilder = linalgOp.getRegionBuilder();
  Region &region = op->getRegion(0);
  region.dropAllReferences();
  region.getBlocks().clear();
  Block *block = new Block();
  region.push_back(block);
  for (Value operand : op->getOperands())
    block->addArgument(getElementTypeOrSelf(operand.getType()), op->getLoc());
  ImplicitLocOpBuilder builder(op->getLoc(), op->getContext());
  builder.setInsertionPointToStart(block);
  regionBuilder(builder, *block, op->getAttrs(),
                [&]() { return op->emitError(); });
}

/// Retypes the explicit body of linalg.generic / map / reduce: low block
/// arguments are extended to f32 on entry and low outputs truncated on
/// yield, so the body keeps computing in f32 while storage is low. The
/// truncations are added to `yieldRoundings` if given.
static void patchExplicitLinalgBody(
    RewriterBase &rewriter, Operation *op, ArrayRef<Type> operandTypes,
    SmallPtrSetImpl<Operation *> *yieldRoundings = nullptr) {
  auto linalgOp = cast<linalg::LinalgOp>(op);
  Block &body = op->getRegion(0).front();
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPointToStart(&body);
  unsigned numInputs = linalgOp.getNumDpsInputs();
  for (BlockArgument arg : body.getArguments()) {
    unsigned index = arg.getArgNumber();
    if (body.getNumArguments() != op->getNumOperands() && index >= numInputs)
      continue;
    Type want = getElementTypeOrSelf(operandTypes[index]);
    Type have = arg.getType();
    if (want == have || !isa<FloatType>(want) || !isa<FloatType>(have))
      continue;
    arg.setType(want);
    // Unused arguments (the `outs` of an elementwise op) need no extension.
    if (arg.use_empty())
      continue;
    // In argument order, after the extensions already inserted.
    auto ext = arith::ExtFOp::create(rewriter, arg.getLoc(), have, arg);
    rewriter.replaceAllUsesExcept(arg, ext, ext);
  }
  Operation *yield = body.getTerminator();
  rewriter.setInsertionPoint(yield);
  for (OpOperand &operand : yield->getOpOperands()) {
    Type want = getElementTypeOrSelf(
        op->getResult(operand.getOperandNumber()).getType());
    Value value = operand.get();
    if (value.getType() == want || !isa<FloatType>(want))
      continue;
    // A low value captured from outside yielded into an f32 result: no
    // truncation applies; the trial fails and the op stays f32.
    auto valueType = dyn_cast<FloatType>(value.getType());
    if (!valueType || valueType.getWidth() < cast<FloatType>(want).getWidth())
      continue;
    // A value that is only moved (copy, transpose, broadcast bodies) is
    // yielded as it came in: trunc(ext(x)) == x.
    if (auto ext = value.getDefiningOp<arith::ExtFOp>();
        ext && ext.getIn().getType() == want) {
      rewriter.modifyOpInPlace(yield, [&] { operand.set(ext.getIn()); });
      if (ext->use_empty())
        rewriter.eraseOp(ext);
      continue;
    }
    Value truncated =
        arith::TruncFOp::create(rewriter, value.getLoc(), want, value);
    if (yieldRoundings)
      yieldRoundings->insert(truncated.getDefiningOp());
    rewriter.modifyOpInPlace(yield, [&] { operand.set(truncated); });
  }
}

/// The names of the f32 FloatAttrs of `op`, inherent or discardable. Read
/// without `getAttrs()`, which builds a DictionaryAttr from the properties
/// of every op that has them (4 K instructions per tensor.expand_shape).
static SmallVector<StringAttr> f32AttrNames(Operation *op) {
  SmallVector<StringAttr> names;
  auto add = [&](StringAttr name, Attribute value) {
    auto floatAttr = dyn_cast_or_null<FloatAttr>(value);
    if (floatAttr && floatAttr.getType().isF32())
      names.push_back(name);
  };
  if (std::optional<RegisteredOperationName> info = op->getRegisteredInfo())
    for (StringAttr name : info->getAttributeNames())
      add(name, op->getInherentAttr(name).value_or(Attribute()));
  for (NamedAttribute attr : op->getDiscardableAttrs())
    add(attr.getName(), attr.getValue());
  return names;
}

/// Converts f32 float attributes tied to the op's element type (e.g.
/// tosa.clamp's bounds) to `lowType`. A finite value beyond `lowType`'s range
/// saturates to its largest finite value of the same sign: a bound of
/// +-FLT_MAX (TOSA's "no bound", e.g. a ReLU clamp) still bounds nothing for
/// finite low-precision data, where rounding it would give an infinity (and
/// bf16 cannot hold FLT_MAX either). Returns whether any attribute changed.
static bool convertFloatAttrs(Operation *op, FloatType lowType) {
  SmallVector<StringAttr> names = f32AttrNames(op);
  for (StringAttr name : names) {
    auto floatAttr = cast<FloatAttr>(op->getAttr(name));
    APFloat value = floatAttr.getValue();
    bool losesInfo = false;
    APFloat::opStatus status = value.convert(
        lowType.getFloatSemantics(), APFloat::rmNearestTiesToEven, &losesInfo);
    if (status & APFloat::opOverflow)
      value = APFloat::getLargest(lowType.getFloatSemantics(),
                                  floatAttr.getValue().isNegative());
    op->setAttr(name, FloatAttr::get(lowType, value));
  }
  return !names.empty();
}

/// Verifies `op` and the ops nested in it, without dominance: mlir::verify
/// would order the whole parent block (for values used in linalg bodies) on
/// every trial, which is quadratic; the retyping never changes dominance.
static LogicalResult verifyInvariants(Operation *op) {
  WalkResult result = op->walk([](Operation *nested) {
    std::optional<RegisteredOperationName> name = nested->getRegisteredInfo();
    if (name && (failed(name->verifyInvariants(nested)) ||
                 failed(name->verifyRegionInvariants(nested))))
      return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

/// The trial of a retyped linalg op. Its own verifier checks indexing maps
/// and shapes, which a retype leaves as they were (the original op
/// verified), so only what a retype changes is checked: the body's block
/// arguments against the operands' element types, and the body's ops
/// (linalg.yield against the outputs). This skips the structured-op
/// verifier, the most expensive part of the trial on large graphs.
static LogicalResult verifyRetypedLinalgOp(linalg::LinalgOp linalgOp) {
  Operation *op = linalgOp.getOperation();
  if (op->getNumRegions() != 1 || !op->getRegion(0).hasOneBlock())
    return verifyInvariants(op);
  Block &body = op->getRegion(0).front();
  if (body.getNumArguments() != op->getNumOperands())
    return verifyInvariants(op);
  for (auto [arg, operand] : llvm::zip(body.getArguments(), op->getOperands()))
    if (arg.getType() != getElementTypeOrSelf(operand.getType()))
      return failure();
  for (Operation &nested : body)
    if (failed(verifyInvariants(&nested)))
      return failure();
  return success();
}

/// Whether patchExplicitLinalgBody() gives `op` a body that verifies with
/// `operandTypes` and `resultTypes`: one block with an argument per operand,
/// float types wherever an argument's type changes, and every yielded value
/// of its result's type already, forwarded from an input of that type, or a
/// wider float (truncated). Ops in the body keep the types they verified
/// with (captured values made low get an extf later). Decided before
/// anything changes, so the common case needs no copy of the body to undo
/// and no trial verification.
static bool canPatchExplicitLinalgBody(Operation *op,
                                       ArrayRef<Type> operandTypes,
                                       ArrayRef<Type> resultTypes) {
  if (op->getNumRegions() != 1 || !op->getRegion(0).hasOneBlock())
    return false;
  Block &body = op->getRegion(0).front();
  if (body.getNumArguments() != op->getNumOperands() || body.empty() ||
      !isa<linalg::YieldOp>(body.back()))
    return false;
  auto newArgType = [&](BlockArgument arg) {
    return getElementTypeOrSelf(operandTypes[arg.getArgNumber()]);
  };
  for (BlockArgument arg : body.getArguments()) {
    Type want = newArgType(arg);
    if (want != arg.getType() &&
        (!isa<FloatType>(want) || !isa<FloatType>(arg.getType())))
      return false;
  }
  Operation *yield = &body.back();
  if (yield->getNumOperands() != resultTypes.size())
    return false;
  for (auto [value, type] : llvm::zip(yield->getOperands(), resultTypes)) {
    Type want = getElementTypeOrSelf(type);
    if (value.getType() == want)
      continue;
    // Moved, not computed: yielded as it came in.
    if (auto arg = dyn_cast<BlockArgument>(value);
        arg && arg.getOwner() == &body && newArgType(arg) == want)
      continue;
    if (auto ext = value.getDefiningOp<arith::ExtFOp>();
        ext && ext.getIn().getType() == want)
      continue;
    auto wantFloat = dyn_cast<FloatType>(want);
    auto valueFloat = dyn_cast<FloatType>(value.getType());
    if (!wantFloat || !valueFloat ||
        valueFloat.getWidth() <= wantFloat.getWidth())
      return false;
  }
  return true;
}

namespace {

/// Takes the plan of `op` out of `state` (each op is rewritten at most
/// once).
static std::optional<RetypeState::Plan> takePlan(RetypeState &state,
                                                 Operation *op) {
  auto it = state.plans.find(op);
  if (it == state.plans.end())
    return std::nullopt;
  RetypeState::Plan plan = std::move(it->second);
  state.plans.erase(it);
  return plan;
}

/// Records a retyped op and the values it made low.
void recordRetyped(RetypeState &state, Operation *op,
                   ArrayRef<Type> operandTypes, ArrayRef<Type> oldResultTypes) {
  state.retyped.push_back({op, SmallVector<Type>(operandTypes)});
  for (auto [result, oldType] : llvm::zip(op->getResults(), oldResultTypes))
    if (result.getType() != oldType)
      state.retypedValues.insert(result);
}

/// Whether patching the body of named op `linalgOp` gives the body its
/// region builder would build for the new types, so that the patch can
/// stand in for the rebuild and its trial: the results keep their types and
/// only inputs change, each from the element type of every output (the
/// builder casts an input to the output's type; the patch extends it back to
/// the type it had). The contractions and poolings with low inputs and an
/// f32 accumulator, nearly every named op the painting makes low.
static bool patchMatchesRegionBuilder(linalg::LinalgOp linalgOp,
                                      const RetypeState::Plan &plan) {
  Operation *op = linalgOp;
  if (!llvm::equal(op->getResultTypes(), plan.resultTypes))
    return false;
  Type outElement;
  for (OpOperand &init : linalgOp.getDpsInitsMutable()) {
    Type element = getElementTypeOrSelf(init.get().getType());
    if (plan.operandTypes[init.getOperandNumber()] != init.get().getType() ||
        (outElement && element != outElement))
      return false;
    outElement = element;
  }
  for (OpOperand *input : linalgOp.getDpsInputOperands()) {
    Type have = input->get().getType();
    if (plan.operandTypes[input->getOperandNumber()] != have &&
        getElementTypeOrSelf(have) != outElement)
      return false;
  }
  return outElement != nullptr;
}

/// An explicit linalg body (linalg.generic) that the patch is known to fix
/// up is retyped in place: the common case, with no copy and no trial. So is
/// a named op whose patched body is the one its region builder would build.
struct RetypeExplicitLinalgBody
    : public OpInterfaceRewritePattern<linalg::LinalgOp> {
  RetypeExplicitLinalgBody(MLIRContext *ctx, RetypeState &state)
      : OpInterfaceRewritePattern(ctx, /*benefit=*/2), state(state) {}

  LogicalResult matchAndRewrite(linalg::LinalgOp linalgOp,
                                PatternRewriter &rewriter) const override {
    Operation *op = linalgOp;
    auto it = state.plans.find(op);
    if (it == state.plans.end() ||
        (linalgOp.getRegionBuilder() &&
         !patchMatchesRegionBuilder(linalgOp, it->second)) ||
        !canPatchExplicitLinalgBody(op, it->second.operandTypes,
                                    it->second.resultTypes))
      return failure();
    RetypeState::Plan plan = *takePlan(state, op);
    SmallVector<Type> oldResultTypes(op->getResultTypes());
    rewriter.modifyOpInPlace(op, [&] {
      for (auto [result, type] : llvm::zip(op->getResults(), plan.resultTypes))
        result.setType(type);
      patchExplicitLinalgBody(rewriter, op, plan.operandTypes,
                              &state.yieldRoundings);
    });
    recordRetyped(state, op, plan.operandTypes, oldResultTypes);
    return success();
  }

  RetypeState &state;
};

/// Regions that yield the element of a low result (tensor.pad): the f32
/// values their terminators yield are truncated inside the region. The
/// truncations made are added to `created` if given.
static void truncateYieldedF32(Operation *target, FloatType lowType,
                               SmallVectorImpl<Operation *> *created) {
  OpBuilder inner(target->getContext());
  for (Region &region : target->getRegions())
    for (Block &block : region) {
      if (block.empty() || !block.back().hasTrait<OpTrait::IsTerminator>())
        continue;
      Operation *terminator = &block.back();
      inner.setInsertionPoint(terminator);
      for (OpOperand &operand : terminator->getOpOperands())
        if (operand.get().getType().isF32()) {
          auto trunc = arith::TruncFOp::create(inner, operand.get().getLoc(),
                                               lowType, operand.get());
          if (created)
            created->push_back(trunc);
          operand.set(trunc);
        }
    }
}

/// Values captured by the target's regions that an earlier retype made low
/// (a tensor.extract of a low tensor read in a linalg body or a tensor.pad
/// region): the ops in the region still compute in f32 and the cast
/// insertion gives them an extf of the value later, so the trial reads a
/// detached f32 stand-in there, the type they verified with before. Values
/// that were low in the input and the region terminators are left alone.
/// The uses changed are added to `captured`, the stand-ins to `standIns`.
static void
standInCaptured(Operation *target, const RetypeState &state,
                SmallVectorImpl<Operation *> &standIns,
                SmallVectorImpl<std::pair<OpOperand *, Value>> &captured) {
  if (target->getNumRegions() == 0)
    return;
  OpBuilder detached(target->getContext());
  Type f32 = Float32Type::get(target->getContext());
  target->walk([&](Operation *inner) {
    if (inner == target || (inner->getParentOp() == target &&
                            inner->hasTrait<OpTrait::IsTerminator>()))
      return;
    for (OpOperand &use : inner->getOpOperands()) {
      Value value = use.get();
      if (!state.retypedValues.contains(value) ||
          getElementTypeOrSelf(value.getType()) != state.lowType ||
          target->isAncestor(value.getParentRegion()->getParentOp()))
        continue;
      auto standIn = UnrealizedConversionCastOp::create(
          detached, value.getLoc(), withElementType(value.getType(), f32),
          value);
      standIns.push_back(standIn);
      captured.emplace_back(&use, value);
      use.set(standIn.getResult(0));
    }
  });
}

/// Gives `target` (a painted op or its detached clone) the types of `plan`
/// and verifies it: a named linalg body is rebuilt by its own region
/// builder, an explicit one patched, regions that yield the element of a low
/// result truncate it, and f32 attributes are converted where the op then
/// verifies (`originalAttrs` gives them back otherwise). The target's
/// operands are the original values again afterwards, whatever the outcome:
/// the trial reads detached stand-ins of the new types. The truncations
/// added to its regions are added to `bodyCasts` if given (an in-place
/// trial removes them when it fails; a clone is simply dropped).
static bool retypeAndVerify(Operation *target, const RetypeState::Plan &plan,
                            const RetypeState &state,
                            function_ref<DictionaryAttr()> originalAttrs,
                            SmallVectorImpl<Operation *> *bodyCasts = nullptr) {
  MLIRContext *ctx = target->getContext();
  OpBuilder detached(ctx);
  SmallVector<Value> operands(target->getOperands());
  SmallVector<Operation *> standIns;
  SmallVector<std::pair<OpOperand *, Value>> captured;
  for (auto [index, type] : llvm::enumerate(plan.operandTypes)) {
    if (operands[index].getType() == type)
      continue;
    auto standIn = UnrealizedConversionCastOp::create(
        detached, target->getLoc(), type, operands[index]);
    standIns.push_back(standIn);
    target->setOperand(index, standIn.getResult(0));
  }
  for (auto [result, type] : llvm::zip(target->getResults(), plan.resultTypes))
    result.setType(type);

  bool ok;
  {
    // A failed trial is not an error: the op just stays f32. Only this
    // thread's diagnostics are silenced: other scopes may be painted at the
    // same time, and theirs must reach the pass's handlers.
    uint64_t thread = llvm::get_threadid();
    ScopedDiagnosticHandler silence(ctx, [thread](Diagnostic &) {
      return success(llvm::get_threadid() == thread);
    });
    if (auto linalgOp = dyn_cast<linalg::LinalgOp>(target)) {
      if (linalgOp.getRegionBuilder()) {
        rebuildNamedLinalgBody(target);
      } else {
        // (The target is detached here: nobody listens to its rewrite.)
        IRRewriter rewriter(ctx);
        patchExplicitLinalgBody(rewriter, target, plan.operandTypes);
        standInCaptured(target, state, standIns, captured);
      }
      ok = succeeded(verifyRetypedLinalgOp(linalgOp));
    } else {
      if (llvm::any_of(plan.resultTypes, [&](Type type) {
            return getElementTypeOrSelf(type) == state.lowType;
          }))
        truncateYieldedF32(target, state.lowType, bodyCasts);
      standInCaptured(target, state, standIns, captured);
      // f32 attributes usually follow the element type (tosa.clamp's
      // bounds); an op whose f32 attributes do not (an epsilon, a scale) is
      // tried again with them unchanged.
      bool converted = convertFloatAttrs(target, state.lowType);
      ok = succeeded(verifyInvariants(target));
      if (!ok && converted) {
        target->setAttrs(originalAttrs());
        ok = succeeded(verifyInvariants(target));
      }
    }
  }
  target->setOperands(operands);
  for (auto [use, value] : captured)
    use->set(value);
  for (Operation *standIn : standIns)
    standIn->erase();
  return ok;
}

/// A painted op that is not an explicit linalg op (those have their own
/// patterns) is retyped in place if it verifies with the new types, and left
/// exactly as it was otherwise: a named linalg body is set aside and put
/// back, the truncations added to other regions (tensor.pad's) removed.
/// Trying is the only general test: this is what lets the pass run ops of
/// any dialect low without knowing them.
struct RetypeInPlaceByTrial : public RewritePattern {
  RetypeInPlaceByTrial(MLIRContext *ctx, RetypeState &state)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, ctx), state(state) {}

  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
    bool named = linalgOp && linalgOp.getRegionBuilder();
    if ((linalgOp && !named) || !state.plans.count(op))
      return failure();
    RetypeState::Plan plan = *takePlan(state, op);
    SmallVector<Type> oldResultTypes(op->getResultTypes());
    // What the trial may change besides types: the body of a named op (set
    // aside, not copied) and the attributes of any other op.
    std::unique_ptr<Region> body;
    if (named) {
      body = std::make_unique<Region>();
      body->takeBody(op->getRegion(0));
    }
    // Only attributes the trial may convert need a snapshot.
    DictionaryAttr attrs = named || f32AttrNames(op).empty()
                               ? DictionaryAttr()
                               : op->getAttrDictionary();
    rewriter.startOpModification(op);
    SmallVector<Operation *> bodyCasts;
    if (!retypeAndVerify(
            op, plan, state, [&] { return attrs; }, &bodyCasts)) {
      for (auto [result, type] : llvm::zip(op->getResults(), oldResultTypes))
        result.setType(type);
      for (Operation *cast : bodyCasts) {
        cast->getResult(0).replaceAllUsesWith(cast->getOperand(0));
        cast->erase();
      }
      if (named)
        op->getRegion(0).takeBody(*body);
      else if (attrs)
        op->setAttrs(attrs);
      rewriter.cancelOpModification(op);
      state.keptF32.push_back(op);
      return failure();
    }
    rewriter.finalizeOpModification(op);
    recordRetyped(state, op, plan.operandTypes, oldResultTypes);
    return success();
  }

  RetypeState &state;
};

/// An explicit linalg op whose body the patch cannot fix up on its own is
/// retyped on a detached clone, which replaces it if it verifies.
struct RetypeCloneByTrial : public RewritePattern {
  RetypeCloneByTrial(MLIRContext *ctx, RetypeState &state)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/0, ctx), state(state) {}

  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    std::optional<RetypeState::Plan> plan = takePlan(state, op);
    if (!plan)
      return failure();
    Operation *clone = op->clone();
    if (!retypeAndVerify(clone, *plan, state,
                         [&] { return op->getAttrDictionary(); })) {
      clone->erase();
      state.keptF32.push_back(op);
      return failure();
    }
    SmallVector<Type> oldResultTypes(op->getResultTypes());
    rewriter.setInsertionPoint(op);
    rewriter.insert(clone);
    rewriter.replaceOp(op, clone->getResults());
    recordRetyped(state, clone, plan->operandTypes, oldResultTypes);
    return success();
  }

  RetypeState &state;
};

} // namespace

void mlir::amp::populateRetypePaintedOpsPatterns(RewritePatternSet &patterns,
                                                 RetypeState &state) {
  patterns
      .add<RetypeExplicitLinalgBody, RetypeInPlaceByTrial, RetypeCloneByTrial>(
          patterns.getContext(), state);
}
