//===- AutoMixedPrecision.cpp - The amp-auto-mixed-precision pass ---------===//
//
// Builds the policy from the pass options, paints the module
// (PrecisionPainting) and rewrites it (RewritePainting.cpp).
//
//===----------------------------------------------------------------------===//

#include "amp/Analysis/PrecisionAnnotations.h"
#include "amp/Analysis/PrecisionPainting.h"
#include "amp/Analysis/PrecisionPolicy.h"
#include "amp/Analysis/TargetPrecision.h"
#include "amp/Transforms/PassStatistics.h"
#include "amp/Transforms/Passes.h"
#include "amp/Transforms/RewritePainting.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Threading.h"

#include <atomic>
#include <memory>
#include <optional>
#include <vector>

namespace mlir::amp {
#define GEN_PASS_DEF_AUTOMIXEDPRECISIONPASS
#include "amp/Transforms/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;
using namespace mlir::amp;

namespace {

/// The policies of the threads that paint scopes at the same time: classify()
/// fills caches, so no two threads share one, and none uses the pass's own
/// (clones of the pass share it, and may run at the same time on nested
/// modules). A copy is made when a slot is first used.
class PolicyPool {
public:
  PolicyPool(const PrecisionPolicy &lists, size_t threads)
      : lists(lists), copies(threads + 1), inUse(threads + 1) {}

  /// A policy no other thread holds while the lease lives.
  class Lease {
  public:
    explicit Lease(PolicyPool &pool) : pool(pool) {
      // failableParallelForEach runs at most the thread pool's concurrency
      // at once, plus the waiting thread if it is a pool worker itself.
      for (slot = 0; slot < pool.inUse.size(); ++slot) {
        bool expected = false;
        if (pool.inUse[slot].compare_exchange_strong(expected, true))
          return;
      }
    }
    ~Lease() {
      if (slot < pool.inUse.size())
        pool.inUse[slot].store(false);
    }
    const PrecisionPolicy &get() {
      std::optional<PrecisionPolicy> &copy =
          slot < pool.inUse.size() ? pool.copies[slot] : spare;
      return copy ? *copy : copy.emplace(pool.lists.cloneLists());
    }

  private:
    PolicyPool &pool;
    size_t slot;
    /// Only if every slot is taken, which the bound above rules out.
    std::optional<PrecisionPolicy> spare;
  };

private:
  const PrecisionPolicy &lists;
  std::vector<std::optional<PrecisionPolicy>> copies;
  std::vector<std::atomic<bool>> inUse;
};

/// What the pass did to one scope.
struct ScopeStats {
  PaintingRewriteStats rewrite;
  CastOptimizationStats casts;
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
  LogicalResult checkLossScaleOrder(const PaintingScope &scope,
                                    const PrecisionPainting &painting);
  LogicalResult checkContractionOperands(ModuleOp module);
  /// The whole pass on the functions of one scope, with `scopePolicy` (this
  /// thread's copy of the policy): the cleanup of its input, the painting
  /// and rewrite, the cleanup of its output.
  LogicalResult runOnScope(const PaintingScope &scope,
                           const PrecisionPolicy &scopePolicy,
                           ScopeStats &stats);
  /// Paints the scope and rewrites it: retyped ops, carried values, casts,
  /// specialised function signatures.
  LogicalResult paintAndRewrite(const PaintingScope &scope,
                                const PrecisionPolicy &scopePolicy,
                                PaintingRewriteStats &stats);

  // Set by initialize(); shared by clones of the pass.
  AmpMode modeValue = AmpMode::F16;
  /// mode=auto: what was chosen and why (no mode: nothing pays, f32).
  std::optional<AutoPrecision> autoChoice;
  std::shared_ptr<PrecisionPolicy> policy;
};

} // namespace

FailureOr<PrecisionPolicy>
AutoMixedPrecisionPass::buildPolicy(MLIRContext *ctx, AmpMode modeValue) {
  Location loc = UnknownLoc::get(ctx);
  PrecisionPolicy policy(modeValue);
  std::string error;
  // Warnings (names of dialects this tool does not have) do not stop the
  // pass; unknown names of known dialects do. A warning points at the
  // entry in the file.
  SmallVector<std::pair<Location, std::string>> warnings;
  auto checkKey = [&](StringRef key, unsigned line,
                      unsigned col) -> std::optional<std::string> {
    std::optional<PolicyKeyProblem> problem = checkPolicyKey(ctx, key);
    if (!problem)
      return std::nullopt;
    if (!problem->warning)
      return problem->message;
    warnings.emplace_back(FileLineColLoc::get(ctx, policyFile, line, col),
                          problem->message);
    return std::nullopt;
  };
  if (!policyFile.empty() &&
      failed(policy.loadFile(policyFile, error, checkKey))) {
    emitError(loc) << "amp-auto-mixed-precision: " << error;
    return failure();
  }
  for (const auto &[where, warning] : warnings)
    emitWarning(where) << "amp-auto-mixed-precision: policy file '"
                       << policyFile << "': " << warning;
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

LogicalResult
AutoMixedPrecisionPass::paintAndRewrite(const PaintingScope &scope,
                                        const PrecisionPolicy &scopePolicy,
                                        PaintingRewriteStats &stats) {
  MLIRContext *ctx = &getContext();
  PaintingOptions paintingOptions;
  paintingOptions.mode = modeValue;
  paintingOptions.level = level;
  paintingOptions.castEconomy = castEconomy;
  PrecisionPainting painting(scope, scopePolicy, paintingOptions);
  if (failed(checkLossScaleOrder(scope, painting)))
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
  stats = rewritePaintedModule(painting, lowType, castEconomy);
  return success();
}

LogicalResult
AutoMixedPrecisionPass::checkLossScaleOrder(const PaintingScope &scope,
                                            const PrecisionPainting &painting) {
  // The scale of amp-loss-scaling{state=args} is an argument with
  // `amp.role = "loss_scale"`. The scale itself, moved by clear ops
  // (tensor.extract, splats, broadcasts: the seed), must stay f32 (65536 is
  // an infinity in f16); values computed from it (scaled gradients) may run
  // low, that is what loss scaling is for. A constant scale (mode=static) is
  // kept f32 by the painting's range check.
  for (FunctionOpInterface func : scope.functions) {
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
  // The option parser already rejected unknown values; what is left is
  // options that do not go together.
  AmpMode lowMode = mode == AmpModeOption::BF16 ? AmpMode::BF16 : AmpMode::F16;
  autoChoice.reset();
  if (mode == AmpModeOption::Auto) {
    autoChoice = chooseAutoPrecision(target, cpuFeatures, emit);
    lowMode = autoChoice->mode.value_or(AmpMode::F16);
  } else if (!cpuFeatures.empty() ||
             (target != TargetOption::Cpu && emit != EmitOption::Iree)) {
    return emitError(UnknownLoc::get(ctx))
           << "amp-auto-mixed-precision: target and cpu-features choose the "
              "type of mode=auto (and target what emit=iree keeps f32); "
              "mode is '"
           << stringifyEnumOption<AmpModeOption>(mode) << "'";
  }
  FailureOr<PrecisionPolicy> built = buildPolicy(ctx, lowMode);
  if (failed(built))
    return failure();
  if (level == AmpLevel::TreatInferAsDeny)
    built->treatInferAsDeny();
  // IREE's llvm-cpu runs a bf16 convolution 4.4x slower than the f32 one
  // (NCHW; NHWC as fast at best, and convolutions are not data-tiled), so
  // on a CPU target they stay f32 (docs/downstream.md).
  if (emit == EmitOption::Iree && target == TargetOption::Cpu)
    built->denyDefaultConvolutions(
        "emit=iree target=cpu: IREE's llvm-cpu has no fast 16-bit "
        "convolution");
  modeValue = lowMode;
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
                        << stringifyEnumOption<TargetOption>(target) << ": "
                        << (autoChoice->mode
                                ? (*autoChoice->mode == AmpMode::BF16 ? "bf16"
                                                                      : "f16")
                                : "f32, nothing rewritten")
                        << " (" << autoChoice->reason << ")";
  if (keepF32)
    return;
  if (policy->hasContractions() && failed(checkContractionOperands(module)))
    return signalPassFailure();

  // Each scope is painted and rewritten by one thread; failableParallelForEach
  // orders the diagnostics by scope. A function that is not isolated from
  // above may read values of the region around it: then one thread.
  SmallVector<PaintingScope> scopes =
      partitionIntoPaintingScopes(module, keepPublicSignatures);
  bool isolated = llvm::all_of(scopes, [](const PaintingScope &scope) {
    return llvm::all_of(scope.functions, [](FunctionOpInterface func) {
      return func->hasTrait<OpTrait::IsIsolatedFromAbove>();
    });
  });
  MLIRContext *ctx = &getContext();
  PolicyPool policies(*policy, ctx->isMultithreadingEnabled() && isolated
                                   ? ctx->getThreadPool().getMaxConcurrency()
                                   : 1);
  SmallVector<ScopeStats> scopeStats(scopes.size());
  auto runScope = [&](size_t index) {
    PolicyPool::Lease lease(policies);
    return runOnScope(scopes[index], lease.get(), scopeStats[index]);
  };
  LogicalResult result = success();
  if (isolated)
    result = failableParallelForEachN(ctx, 0, scopes.size(), runScope);
  else
    for (size_t index = 0; index < scopes.size() && succeeded(result); ++index)
      result = runScope(index);
  if (failed(result))
    return signalPassFailure();

  ScopeStats total;
  for (const ScopeStats &stats : scopeStats) {
    total.rewrite += stats.rewrite;
    total.casts += stats.casts;
  }
  numOpsLow += total.rewrite.opsLow;
  numOpsF32 += total.rewrite.opsF32;
  numValuesCarried += total.rewrite.carried;
  numCastsInserted += total.rewrite.castsInserted;
  numRoundingsReadWide += total.rewrite.roundingsReadWide;
  if (printStats) {
    printPassStatistics(
        getArgument(),
        {{"ops-converted", total.rewrite.opsLow},
         {"ops-kept-f32", total.rewrite.opsF32},
         {"casts-inserted", total.rewrite.castsInserted},
         {"roundings-read-wide", total.rewrite.roundingsReadWide},
         {"carried-values-low", total.rewrite.carried}});
    if (optimizeCasts)
      printCastOptimizationStats(total.casts);
  }
}

LogicalResult
AutoMixedPrecisionPass::runOnScope(const PaintingScope &scope,
                                   const PrecisionPolicy &scopePolicy,
                                   ScopeStats &stats) {
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
  if (optimizeCasts)
    for (FunctionOpInterface func : scope.functions) {
      eraseDeadTensorOps(func);
      (void)amp::optimizeCasts(func);
    }

  // The painting and the rewrite's maps live in paintAndRewrite(), so they
  // are freed before the cast cleanup: on large graphs they are a large
  // share of the peak memory.
  if (failed(paintAndRewrite(scope, scopePolicy, stats.rewrite)))
    return failure();

  if (optimizeCasts)
    for (FunctionOpInterface func : scope.functions)
      stats.casts += amp::optimizeCasts(func);
  return success();
}
