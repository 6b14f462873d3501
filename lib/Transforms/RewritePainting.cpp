//===- RewritePainting.cpp - A painted module to its types and casts ------===//
//
// The rewrite of a module painted by PrecisionPainting, in its steps: the
// painted ops retyped (RetypePaintedOps' patterns), the carried values
// retyped, one cast per value and type wherever a producer and a consumer
// disagree, roundings read wide (cast-economy), and the signatures of the
// specialised functions.
//
//===----------------------------------------------------------------------===//

#include "amp/Transforms/RewritePainting.h"

#include "amp/Transforms/ReadRoundingsWide.h"
#include "amp/Transforms/RetypePaintedOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Rewrite/PatternApplicator.h"

using namespace mlir;
using namespace mlir::amp;

namespace {

/// Inserts at most one cast per (value, target type), right after the value
/// is defined so that every user (in any nested region) can share it.
class CastCache {
public:
  Value get(Value value, Type target, unsigned &inserted) {
    auto key = std::make_pair(value, target);
    auto it = casts.find(key);
    if (it != casts.end())
      return it->second;
    OpBuilder builder(value.getContext());
    if (auto arg = dyn_cast<BlockArgument>(value))
      builder.setInsertionPointToStart(arg.getOwner());
    else
      builder.setInsertionPointAfter(value.getDefiningOp());
    Type from = getElementTypeOrSelf(value.getType());
    Type to = getElementTypeOrSelf(target);
    Value cast;
    if (from.getIntOrFloatBitWidth() > to.getIntOrFloatBitWidth())
      cast = arith::TruncFOp::create(builder, value.getLoc(), target, value);
    else
      cast = arith::ExtFOp::create(builder, value.getLoc(), target, value);
    ++inserted;
    casts[key] = cast;
    created.push_back(cast.getDefiningOp());
    return cast;
  }

  /// The casts made, in order.
  ArrayRef<Operation *> getCreated() const { return created; }

private:
  DenseMap<std::pair<Value, Type>, Value> casts;
  SmallVector<Operation *> created;
};

} // namespace

namespace {

/// The rewrite of a painted module, in its steps: the painted ops retyped
/// (RetypePaintedOps' patterns), the carried values retyped, one cast per
/// value and type wherever a producer and a consumer disagree, and the
/// specialised functions' signatures.
class PaintingRewriter {
public:
  PaintingRewriter(const PrecisionPainting &painting, FloatType lowType,
                   bool castEconomy)
      : painting(painting), lowType(lowType),
        f32(Float32Type::get(lowType.getContext())), castEconomy(castEconomy) {}

  PaintingRewriteStats run() {
    SmallVector<Operation *> planned = planRetypes();
    applyRetypes(planned);
    retypeCarriedValues();
    SmallVector<Operation *> casts = insertCasts();
    if (castEconomy)
      readRoundingsWide(casts);
    specializeSignatures();
    return stats;
  }

private:
  /// A graph has few distinct tensor types; uniquing each new one in the
  /// context costs more than this lookup.
  Type withElement(Type type, Type element) {
    auto [it, inserted] = typeMemo.try_emplace({type, element});
    if (inserted)
      it->second = withElementType(type, element);
    return it->second;
  }
  Type lowOf(Type type) { return withElement(type, lowType); }
  Type f32Of(Type type) { return withElement(type, f32); }

  /// The new types of every low op, from the IR as painted: retyping an op
  /// changes the types its users see, and a slot's role depends on its type
  /// (a low value in the `outs` of a contraction is still its f32
  /// accumulator: it gets an extf). Returns the ops in program order.
  SmallVector<Operation *> planRetypes();
  void applyRetypes(ArrayRef<Operation *> planned);
  void retypeCarriedValues();
  /// Returns the casts inserted, in order.
  SmallVector<Operation *> insertCasts();
  void readRoundingsWide(ArrayRef<Operation *> casts);
  void specializeSignatures();

  const PrecisionPainting &painting;
  FloatType lowType;
  Type f32;
  bool castEconomy;
  DenseMap<std::pair<Type, Type>, Type> typeMemo;
  RetypeState state;
  /// Desired operand types of the retyped ops; values whose type changed;
  /// the operands where a cast may be needed.
  DenseMap<Operation *, SmallVector<Type>> desiredOperands;
  SmallVector<Value> retyped;
  SmallVector<OpOperand *> slots;
  PaintingRewriteStats stats;
};

} // namespace

SmallVector<Operation *> PaintingRewriter::planRetypes() {
  state.lowType = lowType;
  SmallVector<Operation *> planned;
  for (const PrecisionPainting::Node &node : painting.getNodes()) {
    if (!node.op)
      continue;
    Operation *op = node.op;
    if (!node.low) {
      if (!node.source)
        ++stats.opsF32;
      continue;
    }
    planned.push_back(op);
    RetypeState::Plan &plan = state.plans[op];
    for (OpOperand &operand : op->getOpOperands()) {
      Type type = operand.get().getType();
      bool low = PrecisionPainting::operandRole(
                     node, operand.getOperandNumber()) == SlotRole::Painted;
      plan.operandTypes.push_back(low ? lowOf(type) : type);
    }
    for (OpResult result : op->getResults()) {
      bool low = PrecisionPainting::resultRole(
                     node, result.getResultNumber()) == SlotRole::Painted;
      plan.resultTypes.push_back(low ? lowOf(result.getType())
                                     : result.getType());
    }
  }
  return planned;
}

/// Applies `patterns` once to each of `ops` in order (defining ops before the
/// regions that read their values), as walkAndApplyPatterns would, without
/// visiting the other ops: most ops are in linalg bodies, and matching each
/// of them costs about 5% of the pass. A rewrite may erase only the op it
/// matched among `ops`. Returns how many ops were rewritten.
static unsigned applyPatternsToOps(RewritePatternSet &&patterns,
                                   ArrayRef<Operation *> ops) {
  PatternRewriter rewriter(patterns.getContext());
  FrozenRewritePatternSet frozen(std::move(patterns));
  PatternApplicator applicator(frozen);
  applicator.applyDefaultCostModel();
  unsigned rewritten = 0;
  for (Operation *op : ops) {
    rewriter.setInsertionPoint(op);
    rewritten += succeeded(applicator.matchAndRewrite(op, rewriter));
  }
  return rewritten;
}

void PaintingRewriter::applyRetypes(ArrayRef<Operation *> planned) {
  RewritePatternSet patterns(lowType.getContext());
  populateRetypePaintedOpsPatterns(patterns, state);
  (void)applyPatternsToOps(std::move(patterns), planned);
  for (Operation *op : state.keptF32)
    op->emitWarning() << "amp: cannot run " << op->getName() << " in "
                      << lowType << " (the op does not verify with " << lowType
                      << " types); kept f32";
  stats.opsF32 += state.keptF32.size() + state.plans.size();
  stats.opsLow += state.retyped.size();
  for (auto &[op, operandTypes] : state.retyped) {
    for (OpOperand &operand : op->getOpOperands())
      slots.push_back(&operand);
    desiredOperands[op] = std::move(operandTypes);
  }
  retyped.assign(state.retypedValues.begin(), state.retypedValues.end());
}

void PaintingRewriter::retypeCarriedValues() {
  for (const PrecisionPainting::Node &node : painting.getNodes()) {
    if (node.op || !node.low)
      continue;
    ++stats.carried;
    for (Value member : node.members) {
      member.setType(lowOf(member.getType()));
      retyped.push_back(member);
    }
    for (OpOperand *operand : node.forwarded)
      slots.push_back(operand);
  }
  for (Value value : retyped)
    for (OpOperand &use : value.getUses())
      slots.push_back(&use);
}

SmallVector<Operation *> PaintingRewriter::insertCasts() {
  CastCache casts;
  unsigned inserted = 0;
  for (OpOperand *slot : slots) {
    Type have = slot->get().getType();
    Type want;
    auto it = desiredOperands.find(slot->getOwner());
    if (it != desiredOperands.end()) {
      want = it->second[slot->getOperandNumber()];
    } else if (const PrecisionPainting::Node *group =
                   painting.lookupGroup(*slot)) {
      want = group->low ? lowOf(have) : f32Of(have);
    } else if (slot->getOwner()->hasTrait<OpTrait::IsTerminator>() &&
               desiredOperands.count(slot->getOwner()->getParentOp())) {
      // What a low op's region yields was fixed up by the retyping.
      want = have;
    } else {
      want = f32Of(have);
    }
    if (have != want)
      slot->set(casts.get(slot->get(), want, inserted));
  }
  stats.castsInserted = inserted;
  return SmallVector<Operation *>(casts.getCreated());
}

void PaintingRewriter::readRoundingsWide(ArrayRef<Operation *> casts) {
  // Only the roundings this rewrite made: a truncf the program had is a
  // rounding its author asked for (also where the cast cleanup before the
  // painting moved it into the body of the generic that computes it). The
  // casts first: a retyped op's yield read wide erases the extf casts of
  // its result.
  SmallVector<Operation *> ops(casts);
  for (auto &[op, operandTypes] : state.retyped) {
    auto generic = dyn_cast<linalg::GenericOp>(op);
    if (generic &&
        llvm::all_of(generic.getBody()->getTerminator()->getOperands(),
                     [&](Value yielded) {
                       auto trunc = yielded.getDefiningOp<arith::TruncFOp>();
                       return !trunc || state.yieldRoundings.contains(trunc);
                     }))
      ops.push_back(op);
  }
  RewritePatternSet patterns(lowType.getContext());
  populateReadRoundingsWidePatterns(patterns);
  stats.roundingsReadWide = applyPatternsToOps(std::move(patterns), ops);
}

void PaintingRewriter::specializeSignatures() {
  // Specialised functions take the types of their entry block and returns.
  for (Operation *funcOp : painting.getSpecializable()) {
    auto func = cast<FunctionOpInterface>(funcOp);
    SmallVector<Type> results(func.getResultTypes());
    for (Block &block : func.getFunctionBody())
      if (!block.empty() && block.back().hasTrait<OpTrait::ReturnLike>())
        results.assign(block.back().getOperandTypes().begin(),
                       block.back().getOperandTypes().end());
    func.setType(FunctionType::get(
        func.getContext(), func.getFunctionBody().front().getArgumentTypes(),
        results));
  }
}

PaintingRewriteStats
mlir::amp::rewritePaintedModule(const PrecisionPainting &painting,
                                FloatType lowType, bool castEconomy) {
  return PaintingRewriter(painting, lowType, castEconomy).run();
}
