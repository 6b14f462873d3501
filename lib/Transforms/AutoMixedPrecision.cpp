//===- AutoMixedPrecision.cpp - The amp-auto-mixed-precision pass ---------===//
//
// Builds the policy from the pass options, paints the module
// (PrecisionPainting) and rewrites it: low ops and carried values are retyped
// in place, and one cast per value and target type is inserted wherever a
// producer and a consumer disagree.
//
//===----------------------------------------------------------------------===//

#include "amp/Analysis/PrecisionAnnotations.h"
#include "amp/Analysis/PrecisionPainting.h"
#include "amp/Analysis/PrecisionPolicy.h"
#include "amp/Analysis/TargetPrecision.h"
#include "amp/Transforms/PassStatistics.h"
#include "amp/Transforms/Passes.h"
#include "amp/Transforms/ReadRoundingsWide.h"
#include "amp/Transforms/RetypePaintedOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Rewrite/PatternApplicator.h"

#include <memory>

namespace mlir::amp {
#define GEN_PASS_DEF_AUTOMIXEDPRECISIONPASS
#include "amp/Transforms/Passes.h.inc"
} // namespace mlir::amp

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

struct AutoMixedPrecisionPass
    : public amp::impl::AutoMixedPrecisionPassBase<AutoMixedPrecisionPass> {
  using Base::Base;

  /// Checks the options and builds the policy before any IR is touched: a
  /// bad option is one error line, not a diagnostic on the module.
  LogicalResult initialize(MLIRContext *ctx) override;
  void runOnOperation() override;

private:
  FailureOr<PrecisionPolicy> buildPolicy(MLIRContext *ctx, AmpMode modeValue);
  /// Fails if a low op would read a value computed from the loss scale of
  /// amp-loss-scaling's output (the pass ran first).
  LogicalResult checkLossScaleOrder(const PrecisionPainting &painting);
  /// Paints the module and rewrites it: retyped ops, carried values, casts,
  /// specialised function signatures.
  LogicalResult checkContractionOperands(ModuleOp module);
  LogicalResult paintAndRewrite(const PrecisionPolicy &policy,
                                AmpMode modeValue, AmpLevel levelValue);

  // Set by initialize(); shared by clones of the pass.
  AmpMode modeValue = AmpMode::F16;
  /// mode=auto: what was chosen and why (no mode: nothing pays, f32).
  std::optional<AutoPrecision> autoChoice;
  AmpLevel levelValue = AmpLevel::Default;
  std::shared_ptr<PrecisionPolicy> policy;
};

} // namespace

FailureOr<PrecisionPolicy>
AutoMixedPrecisionPass::buildPolicy(MLIRContext *ctx, AmpMode modeValue) {
  Location loc = UnknownLoc::get(ctx);
  PrecisionPolicy policy(modeValue);
  std::string error;
  // Warnings (names of dialects this tool does not have) do not stop the
  // pass; unknown names of known dialects do.
  SmallVector<std::string> warnings;
  auto checkKey = [&](StringRef key) -> std::optional<std::string> {
    std::optional<PolicyKeyProblem> problem = checkPolicyKey(ctx, key);
    if (!problem)
      return std::nullopt;
    if (!problem->warning)
      return problem->message;
    warnings.push_back(problem->message);
    return std::nullopt;
  };
  if (!policyFile.empty() &&
      failed(policy.loadFile(policyFile, error, checkKey))) {
    emitError(loc) << "amp-auto-mixed-precision: " << error;
    return failure();
  }
  for (const std::string &warning : warnings)
    emitWarning(loc) << "amp-auto-mixed-precision: policy file '" << policyFile
                     << "': " << warning;
  struct Edit {
    PrecisionClass cls;
    const char *flag;
    ListOption<std::string> &add, &remove;
  } edits[] = {
      {PrecisionClass::Allow, "allow", allowAdd, allowRemove},
      {PrecisionClass::Infer, "infer", inferAdd, inferRemove},
      {PrecisionClass::Clear, "clear", clearAdd, clearRemove},
      {PrecisionClass::Deny, "deny", denyAdd, denyRemove},
  };
  bool badName = false;
  for (Edit &edit : edits)
    for (auto [suffix, names] : {std::make_pair("-add", &edit.add),
                                 std::make_pair("-remove", &edit.remove)})
      for (const std::string &name : *names)
        if (std::optional<PolicyKeyProblem> problem =
                checkPolicyKey(ctx, name)) {
          (problem->warning ? emitWarning(loc) : emitError(loc))
              << "amp-auto-mixed-precision: " << edit.flag << suffix << ": "
              << problem->message;
          badName |= !problem->warning;
        }
  if (badName)
    return failure();
  for (Edit &edit : edits)
    policy.removeFrom(edit.cls, edit.remove);
  for (Edit &edit : edits)
    policy.addTo(edit.cls, edit.add, (Twine(edit.flag) + "-add").str());
  if (failed(policy.verifyNoConflicts(error))) {
    emitError(loc) << "amp-auto-mixed-precision: " << error;
    return failure();
  }
  return policy;
}

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

  void run() {
    SmallVector<Operation *> planned = planRetypes();
    applyRetypes(planned);
    retypeCarriedValues();
    SmallVector<Operation *> casts = insertCasts();
    if (castEconomy)
      readRoundingsWide(casts);
    specializeSignatures();
  }

  // Plain counters: Debian's Release MLIR compiles Statistic to a no-op.
  uint64_t opsLow = 0, opsF32 = 0, carried = 0, castsInserted = 0,
           roundingsReadWide = 0;

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
        ++opsF32;
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
  opsF32 += state.keptF32.size() + state.plans.size();
  opsLow += state.retyped.size();
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
    ++carried;
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
  castsInserted = inserted;
  return SmallVector<Operation *>(casts.getCreated());
}

void PaintingRewriter::readRoundingsWide(ArrayRef<Operation *> casts) {
  // Only the roundings this rewrite made: a truncf the program had is a
  // rounding its author asked for.
  RewritePatternSet patterns(lowType.getContext());
  populateReadRoundingsWidePatterns(patterns);
  roundingsReadWide = applyPatternsToOps(std::move(patterns), casts);
}

void PaintingRewriter::specializeSignatures() {
  // Specialised functions take the types of their entry block and returns.
  for (Operation *funcOp : painting.getSpecializable()) {
    auto func = cast<func::FuncOp>(funcOp);
    SmallVector<Type> results(func.getResultTypes());
    func.walk([&](func::ReturnOp ret) {
      results.assign(ret.getOperandTypes().begin(),
                     ret.getOperandTypes().end());
    });
    func.setType(FunctionType::get(
        func.getContext(), func.getBody().front().getArgumentTypes(), results));
  }
}

LogicalResult AutoMixedPrecisionPass::paintAndRewrite(
    const PrecisionPolicy &policy, AmpMode modeValue, AmpLevel levelValue) {
  ModuleOp module = getOperation();
  MLIRContext *ctx = &getContext();
  PaintingOptions paintingOptions;
  paintingOptions.mode = modeValue;
  paintingOptions.level = levelValue;
  paintingOptions.keepPublicSignatures = keepPublicSignatures;
  paintingOptions.castEconomy = castEconomy;
  PrecisionPainting painting(module, policy, paintingOptions);
  if (failed(checkLossScaleOrder(painting)))
    return failure();

  if (explain) {
    for (const PrecisionPainting::Node &node : painting.getNodes()) {
      StringRef precision = node.low ? "low" : "f32";
      if (node.op)
        node.op->emitRemark()
            << "amp: " << precision << ": " << painting.explain(node);
      else
        emitRemark(node.getLoc()) << "amp: carried value " << precision << ": "
                                  << painting.explain(node);
    }
  }
  // For amp-report-write: attributes on the ops, which the rewrite keeps.
  if (annotate)
    annotatePrecisionDecisions(painting);

  FloatType lowType = modeValue == AmpMode::F16
                          ? FloatType(Float16Type::get(ctx))
                          : FloatType(BFloat16Type::get(ctx));
  PaintingRewriter rewriter(painting, lowType, castEconomy);
  rewriter.run();
  numOpsLow += rewriter.opsLow;
  numOpsF32 += rewriter.opsF32;
  numValuesCarried += rewriter.carried;
  numCastsInserted += rewriter.castsInserted;
  numRoundingsReadWide += rewriter.roundingsReadWide;
  if (printStats)
    printPassStatistics(getArgument(),
                        {{"ops-converted", rewriter.opsLow},
                         {"ops-kept-f32", rewriter.opsF32},
                         {"casts-inserted", rewriter.castsInserted},
                         {"roundings-read-wide", rewriter.roundingsReadWide},
                         {"carried-values-low", rewriter.carried}});
  return success();
}

LogicalResult
AutoMixedPrecisionPass::checkLossScaleOrder(const PrecisionPainting &painting) {
  // The scale of amp-loss-scaling{state=args} is an argument with
  // `amp.role = "loss_scale"`. The scale itself, moved by clear ops
  // (tensor.extract, splats, broadcasts: the seed), must stay f32 (65536 is
  // an infinity in f16); values computed from it (scaled gradients) may run
  // low, that is what loss scaling is for. A constant scale (mode=static) is
  // kept f32 by the painting's range check.
  for (auto func : getOperation().getOps<func::FuncOp>()) {
    if (func.isExternal())
      continue;
    for (BlockArgument arg : func.getArguments()) {
      auto role =
          func.getArgAttrOfType<StringAttr>(arg.getArgNumber(), "amp.role");
      if (!role || role.getValue() != "loss_scale")
        continue;
      SmallVector<Value> worklist{arg};
      DenseSet<Value> seen{arg};
      while (!worklist.empty()) {
        Value value = worklist.pop_back_val();
        for (OpOperand &use : value.getUses()) {
          Operation *user = use.getOwner();
          bool low = false;
          if (const PrecisionPainting::Node *group =
                  painting.lookupGroup(use)) {
            low = group->low;
          } else if (const PrecisionPainting::Node *node =
                         painting.lookupOp(user)) {
            low = node->low &&
                  PrecisionPainting::operandRole(
                      *node, use.getOperandNumber()) == SlotRole::Painted;
          }
          if (low) {
            InFlightDiagnostic diag =
                user->emitError()
                << "amp-auto-mixed-precision: this op would run in low "
                   "precision on the loss scale of amp-loss-scaling's output "
                   "(the scale must stay f32: 65536 is an infinity in f16); "
                   "run amp-loss-scaling after amp-auto-mixed-precision (as "
                   "--amp does)";
            diag.attachNote(arg.getLoc()) << "the loss scale";
            return diag;
          }
          const PrecisionPainting::Node *node = painting.lookupOp(user);
          if (!node || node->classification.cls != PrecisionClass::Clear)
            continue;
          for (Value result : user->getResults())
            if (isF32Like(result.getType()) && seen.insert(result).second)
              worklist.push_back(result);
        }
      }
    }
  }
  return success();
}

LogicalResult AutoMixedPrecisionPass::initialize(MLIRContext *ctx) {
  Location loc = UnknownLoc::get(ctx);
  std::optional<AmpMode> parsedMode = parseAmpMode(mode);
  if (mode == "auto") {
    autoChoice = chooseAutoPrecision(target, cpuFeatures);
    if (!autoChoice)
      return emitError(loc)
             << "amp-auto-mixed-precision: unknown target '" << target
             << "' for mode=auto (expected " << listPrecisionTargets() << ")";
    parsedMode = autoChoice->mode.value_or(AmpMode::F16);
  } else if (!cpuFeatures.empty() || (target != "cpu" && emit != "iree")) {
    return emitError(loc) << "amp-auto-mixed-precision: target and "
                             "cpu-features choose the type of mode=auto "
                             "(and target what emit=iree keeps f32); "
                             "mode is '"
                          << mode << "'";
  }
  if (emit != "mlir" && emit != "iree")
    return emitError(loc) << "amp-auto-mixed-precision: unknown emit '" << emit
                          << "' (expected mlir or iree)";
  if (emit == "iree" && !chooseAutoPrecision(target, {}))
    return emitError(loc) << "amp-auto-mixed-precision: unknown target '"
                          << target << "' for emit=iree (expected "
                          << listPrecisionTargets() << ")";
  if (!parsedMode)
    return emitError(loc) << "amp-auto-mixed-precision: unknown mode '" << mode
                          << "' (expected f16, bf16 or auto)";
  std::optional<AmpLevel> parsedLevel = parseAmpLevel(level);
  if (!parsedLevel)
    return emitError(loc) << "amp-auto-mixed-precision: unknown level '"
                          << level
                          << "' (expected default, tensor-cores-only or "
                             "treat-infer-as-deny)";
  FailureOr<PrecisionPolicy> built = buildPolicy(ctx, *parsedMode);
  if (failed(built))
    return failure();
  if (*parsedLevel == AmpLevel::TreatInferAsDeny)
    built->treatInferAsDeny();
  // IREE's llvm-cpu runs a bf16 convolution 4.4x slower than the f32 one
  // (NCHW; NHWC as fast at best, and convolutions are not data-tiled), so
  // on a CPU target they stay f32 (docs/downstream.md).
  if (emit == "iree" && target == "cpu")
    built->denyDefaultConvolutions(
        "emit=iree target=cpu: IREE's llvm-cpu has no fast 16-bit "
        "convolution");
  modeValue = *parsedMode;
  levelValue = *parsedLevel;
  policy = std::make_shared<PrecisionPolicy>(std::move(*built));
  return success();
}

/// Whether `op` computes a tensor that nobody reads, without side effects
/// (an op with regions, e.g. scf.if, only if nothing inside has any).
static bool isDeadTensorOp(Operation *op) {
  return llvm::any_of(op->getResultTypes(), llvm::IsaPred<TensorType>) &&
         isOpTriviallyDead(op);
}

/// Erases the tensor ops nobody reads, and the tensor ops that only they
/// read.
static void eraseDeadTensorOps(Operation *root) {
  SmallVector<Operation *> worklist;
  root->walk([&](Operation *op) {
    if (isDeadTensorOp(op))
      worklist.push_back(op);
  });
  DenseSet<Operation *> erased;
  while (!worklist.empty()) {
    Operation *op = worklist.pop_back_val();
    // An op inside one already erased, or listed twice.
    if (erased.contains(op) || !isDeadTensorOp(op))
      continue;
    // The producers of what the op reads, inside its regions too (an
    // scf.for body reads values from above).
    SmallVector<Operation *> producers;
    op->walk([&](Operation *nested) {
      erased.insert(nested);
      for (Value operand : nested->getOperands())
        if (Operation *producer = operand.getDefiningOp())
          if (!op->isAncestor(producer))
            producers.push_back(producer);
    });
    op->erase();
    for (Operation *producer : producers)
      if (!erased.contains(producer) && isDeadTensorOp(producer))
        worklist.push_back(producer);
  }
}

/// A contraction of a policy file that names an accumulator operand its op
/// does not have is a mistake in the file: an error at the op, before any IR
/// is touched. (A name lookup per op: the full classification of every op,
/// body patterns included, is the painting's job.)
LogicalResult
AutoMixedPrecisionPass::checkContractionOperands(ModuleOp module) {
  WalkResult result = module.walk([&](Operation *op) {
    const ContractionSpec *spec =
        policy->lookupContraction(op->getName().getStringRef());
    if (!spec)
      return WalkResult::advance();
    for (unsigned index : spec->accumulatorOperands)
      if (index >= op->getNumOperands()) {
        op->emitError() << "amp-auto-mixed-precision: the policy declares '"
                        << op->getName() << "' a contraction with accumulator "
                        << "operand " << index << ", but this op has "
                        << op->getNumOperands() << " operands";
        return WalkResult::interrupt();
      }
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

void AutoMixedPrecisionPass::runOnOperation() {
  ModuleOp module = getOperation();
  if (printPolicy)
    policy->print(llvm::outs());
  bool keepF32 = autoChoice && !autoChoice->mode;
  if (autoChoice && (explain || printStats || keepF32))
    module.emitRemark() << "amp-auto-mixed-precision: mode=auto target="
                        << target << ": "
                        << (autoChoice->mode
                                ? (*autoChoice->mode == AmpMode::BF16 ? "bf16"
                                                                      : "f16")
                                : "f32, nothing rewritten")
                        << " (" << autoChoice->reason << ")";
  if (keepF32)
    return;
  if (policy->hasContractions() && failed(checkContractionOperands(module)))
    return signalPassFailure();

  // With the cast cleanup on, the output keeps no tensor op that nobody
  // reads, no cast chain the cleanup can fold, and no tensor extension
  // that only generic bodies read (the cleanup moves it into them). A
  // second run on the output paints that program, so the first run paints
  // it too: it erases every side-effect-free tensor op nobody reads, then
  // runs the cleanup on its input. Each was a fuzzer-found idempotence bug:
  // an op read only by a dead cast chain or a dead generic reading an f32
  // extension was painted as used on the first run
  // (test/Fuzz/dead-cast-chain-idempotence.mlir,
  // dead-generic-fused-ext-idempotence.mlir); a live generic reading an
  // extended bf16 argument was painted f32, then low once the extension was
  // in its body (extension-into-body-idempotence.mlir); an allow-listed
  // fill read through an f16 round trip the cleanup folded away was kept
  // f32, then painted low (fill-round-trip-idempotence.mlir).
  if (optimizeCasts) {
    eraseDeadTensorOps(module);
    (void)amp::optimizeCasts(module);
  }

  // The painting and the rewrite's maps live in paintAndRewrite(), so they
  // are freed before the cast cleanup: on large graphs they are a large
  // share of the peak memory.
  if (failed(paintAndRewrite(*policy, modeValue, levelValue)))
    return signalPassFailure();

  if (optimizeCasts) {
    CastOptimizationStats castStats = amp::optimizeCasts(module);
    if (printStats)
      printCastOptimizationStats(castStats);
  }
}
