//===- AmpToRuntime.cpp - Matmuls and convolutions to libamp_rt -----------===//
//
// After bufferization, amp-lower-to-runtime replaces low-precision
// linalg.matmul / linalg.batch_matmul / linalg.conv_2d_nhwc_hwcf /
// linalg.conv_2d_nchw_fchw / linalg.conv_2d_ngchw_gfchw /
// linalg.depthwise_conv_2d_{nhwc_hwc,nchw_chw} on memrefs (and, with
// include-f32, f32 ones too) by calls into libamp_rt
// (runtime/include/amp_rt.h). The entry points take fully dynamic strided
// memrefs through the C interface
// (`llvm.emit_c_interface`, so the runtime receives `_mlir_ciface_`
// descriptors), which is why every operand is first `memref.cast` to that
// layout. Ops that no entry point implements stay for the upstream lowering.
// Which entry point implements an op is RuntimeCalls.cpp's.
//
// amp-fold-transposes-into-contractions (Transforms) prepares the tensors
// for it: a transposed matmul operand is read through the op's indexing
// maps, which the runtime call expresses as transA / transB, instead of
// being copied by a linalg.transpose.
//
//===----------------------------------------------------------------------===//

#include "amp/Conversion/AmpToRuntime/AmpToRuntime.h"
#include "RuntimeCalls.h"
#include "amp/Conversion/Passes.h"
#include "amp/Transforms/BlockedConv.h"
#include "amp/Transforms/PassStatistics.h"
#include "amp/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Utils/MemRefUtils.h"
#include "mlir/IR/AffineExpr.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>

namespace mlir::amp {
#define GEN_PASS_DEF_LOWERTORUNTIMEPASS
#include "amp/Conversion/Passes.h.inc"
} // namespace mlir::amp

#define DEBUG_TYPE "amp-lower-to-runtime"

using namespace mlir;
using namespace mlir::amp;

/// The `linalg.fill` with zero that initializes `op`'s output right before
/// `op`, or null. The output must be a fresh `memref.alloc` (or a reshape of
/// one) that nothing reads, writes or views between the fill and `op`: the
/// runtime call then overwrites it (beta = 0, the `_overwrite` entry point) and
/// the fill goes, which saves a pass over the output and the library re-reading
/// it.
static linalg::FillOp getZeroFillOfOutput(linalg::LinalgOp op) {
  Value out = op.getDpsInitOperand(0)->get();
  // The output may be a reshaped view of the buffer (a 5-D grouped
  // convolution's output of a 4-D tensor): `views` runs from the alloc to
  // `out`, each view the only user of the one before.
  SmallVector<Value, 3> views = {out};
  while (Operation *def = views.back().getDefiningOp()) {
    if (!isa<memref::ExpandShapeOp, memref::CollapseShapeOp>(def))
      break;
    views.push_back(def->getOperand(0));
  }
  if (!views.back().getDefiningOp<memref::AllocOp>())
    return {};
  linalg::FillOp fill;
  for (Operation *prev = op->getPrevNode(); prev && !fill;
       prev = prev->getPrevNode()) {
    auto candidate = dyn_cast<linalg::FillOp>(prev);
    if (candidate && candidate.hasPureBufferSemantics() &&
        candidate.getOutputs().front() == out)
      fill = candidate;
  }
  if (!fill || !matchPattern(fill.getInputs().front(), m_AnyZeroFloat()))
    return {};
  // Uses after `op` (a view of the result, its consumers) are fine; any
  // other use could read the zeros or alias the buffer.
  Block *block = op->getBlock();
  for (auto [i, value] : llvm::enumerate(views)) {
    for (Operation *user : value.getUsers()) {
      if (user == fill.getOperation() || user == op.getOperation() ||
          (i > 0 && user == views[i - 1].getDefiningOp()))
        continue;
      Operation *inBlock = block->findAncestorOpInBlock(*user);
      if (!inBlock || !op->isBeforeInBlock(inBlock))
        return {};
    }
  }
  return fill;
}

/// The declaration of runtime entry point `name` with `type` in `module`:
/// the existing one, or a new private one with the C interface, placed after
/// the declarations at the top of the module (so they keep the order of
/// first use). Fails (with an error) when `name` is taken by something else.
static FailureOr<func::FuncOp> getOrDeclare(RewriterBase &rewriter,
                                            ModuleOp module, StringRef name,
                                            FunctionType type) {
  if (Operation *existing = SymbolTable::lookupSymbolIn(module, name)) {
    auto fn = dyn_cast<func::FuncOp>(existing);
    if (fn && fn.getFunctionType() == type)
      return fn;
    existing->emitError() << "amp-lower-to-runtime: @" << name
                          << " is already defined, but not as the runtime "
                             "entry point of type "
                          << type;
    return failure();
  }
  Block *body = module.getBody();
  auto pos = body->begin();
  while (pos != body->end()) {
    auto fn = dyn_cast<func::FuncOp>(&*pos);
    if (!fn || !fn.isDeclaration() || !fn.getSymName().starts_with("amp_rt_"))
      break;
    ++pos;
  }
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(body, pos);
  auto fn = func::FuncOp::create(rewriter, module.getLoc(), name, type);
  fn.setPrivate();
  fn->setAttr("llvm.emit_c_interface", rewriter.getUnitAttr());
  return fn;
}

/// The one call that uses `wide` besides `rounding` (directly or through a
/// single-use cast to the runtime's strided layout, returned in `castOp`),
/// or null if `wide` has any other user.
static func::CallOp getOnlyCallBesides(Value wide, Operation *rounding,
                                       memref::CastOp &castOp) {
  func::CallOp call;
  for (Operation *user : wide.getUsers()) {
    if (user == rounding)
      continue;
    if (auto viewCast = dyn_cast<memref::CastOp>(user);
        viewCast && !castOp && viewCast->hasOneUse()) {
      castOp = viewCast;
      user = *viewCast->getUsers().begin();
    }
    auto userCall = dyn_cast<func::CallOp>(user);
    if (!userCall || call)
      return {};
    call = userCall;
  }
  return call;
}

/// Whether `call` (before `rounding` in its block) may store its result in
/// `narrow`, the rounding's output. The library reads A and B while it
/// stores D, so D must not be one of them: bufferization may give the
/// rounding the buffer of an input that is dead after the contraction (the
/// rounding alone never reads it); views of one allocation (casts,
/// collapses, subviews) count as it. Nothing may use D between the two.
static bool canCallWrite(func::CallOp call, Value narrow, Operation *rounding) {
  Value narrowBase = memref::skipViewLikeOps(cast<MemrefValue>(narrow));
  for (auto [index, operand] : llvm::enumerate(call.getOperands()))
    if (index != 2 && isa<MemRefType>(operand.getType()) &&
        memref::skipViewLikeOps(cast<MemrefValue>(operand)) == narrowBase)
      return false;
  Block *block = rounding->getBlock();
  return llvm::none_of(narrow.getUsers(), [&](Operation *user) {
    Operation *inBlock = block->findAncestorOpInBlock(*user);
    return user != rounding &&
           (!inBlock || (call->isBeforeInBlock(inBlock) &&
                         inBlock->isBeforeInBlock(rounding)));
  });
}

/// Whether every op that uses `value`, or a view made from it, before
/// `rounding` (in `rounding`'s block) has no user past the rounding: the
/// uses past the rounding are then direct uses of `value` itself.
static bool hasNoEarlyViewUsedLater(Value value, Operation *rounding) {
  Block *block = rounding->getBlock();
  auto isLater = [&](Operation *user) {
    Operation *inBlock = block->findAncestorOpInBlock(*user);
    return !inBlock || rounding->isBeforeInBlock(inBlock);
  };
  SmallVector<Value> views{value};
  while (!views.empty()) {
    Value view = views.pop_back_val();
    for (Operation *user : view.getUsers()) {
      if (user == rounding || (view == value && isLater(user)))
        continue;
      if (view != value && isLater(user))
        return false;
      for (Value result : user->getResults())
        if (isa<BaseMemRefType>(result.getType()))
          views.push_back(result);
    }
  }
  return true;
}

namespace {

/// Replaces a contraction on memrefs that has a libamp_rt entry point by a
/// call to it (as upstream's LinalgOpToLibraryCallRewrite does for library
/// calls in general, with libamp_rt's names, scalar arguments and the
/// overwrite variant for a dropped zero fill).
struct ContractionToRuntimeCall final
    : OpInterfaceRewritePattern<linalg::LinalgOp> {
  ContractionToRuntimeCall(MLIRContext *context,
                           const LowerToRuntimeOptions &options,
                           LowerToRuntimeCounts *counts)
      : OpInterfaceRewritePattern(context), options(options), counts(counts) {}

  LogicalResult matchAndRewrite(linalg::LinalgOp op,
                                PatternRewriter &rewriter) const override {
    auto module =
        dyn_cast_or_null<ModuleOp>(SymbolTable::getNearestSymbolTable(op));
    if (!isRuntimeContractionKind(op) || !op.hasPureBufferSemantics() ||
        !module)
      return rewriter.notifyMatchFailure(op, "not a runtime candidate");
    // f32 contractions are not Tensor Core work: unless include-f32 asks
    // for them, never touched or counted.
    Type in = getElementTypeOrSelf(op->getOperand(0).getType());
    if (!in.isF16() && !in.isBF16() && !(options.includeF32 && in.isF32())) {
      if (options.explain)
        op->emitRemark() << "amp-lower-to-runtime: left for the upstream "
                            "lowering: inputs are not f16 / bf16"
                         << (options.includeF32 ? " / f32" : "");
      return rewriter.notifyMatchFailure(op, "inputs not f16 / bf16");
    }
    std::string why;
    FailureOr<RuntimeCall> call = matchRuntimeCall(op, options.includeF32, why);
    if (failed(call)) {
      if (counts)
        ++counts->left;
      if (options.explain)
        op->emitRemark() << "amp-lower-to-runtime: left for the upstream "
                            "lowering: "
                         << why;
      return rewriter.notifyMatchFailure(op, why);
    }

    // Before the casts below, which use the output too.
    linalg::FillOp zeroFill = getZeroFillOfOutput(op);
    std::string callee = call->callee + (zeroFill ? "_overwrite" : "");
    Location loc = op.getLoc();
    SmallVector<Value> args;
    SmallVector<Type> argTypes;
    for (Value operand : op->getOperands()) {
      MemRefType target =
          getDynamicStridedType(cast<MemRefType>(operand.getType()));
      args.push_back(
          operand.getType() == target
              ? operand
              : memref::CastOp::create(rewriter, loc, target, operand)
                    .getResult());
      argTypes.push_back(target);
    }
    for (auto [type, value] : llvm::zip(call->scalarTypes, call->scalars)) {
      args.push_back(arith::ConstantOp::create(
          rewriter, loc, rewriter.getIntegerAttr(type, value)));
      argTypes.push_back(type);
    }
    FailureOr<func::FuncOp> fn = getOrDeclare(
        rewriter, module, callee, rewriter.getFunctionType(argTypes, {}));
    if (failed(fn)) {
      if (counts)
        ++counts->nameConflicts;
      return failure();
    }
    func::CallOp::create(rewriter, loc, *fn, args);
    if (options.explain)
      op->emitRemark() << "amp-lower-to-runtime: lowered to @" << callee
                       << (zeroFill ? " (the zero fill of its output is "
                                      "dropped)"
                                    : "");
    rewriter.eraseOp(op);
    if (zeroFill)
      rewriter.eraseOp(zeroFill);
    if (counts)
      ++counts->lowered;
    return success();
  }

  LowerToRuntimeOptions options;
  LowerToRuntimeCounts *counts;
};

/// Folds the rounding of a contraction's f32 result into the runtime call
/// that computed it: `amp_rt_<op>_<t>_f32_overwrite(A, B, C)` followed by a
/// generic that only rounds C into D (of type <t>) becomes
/// `amp_rt_<op>_<t>_<t>_overwrite(A, B, D)`, when C is a fresh buffer that
/// nothing else uses. Where D is A or B, or used between the call and the
/// rounding, the call stores into a fresh buffer that replaces D from the
/// rounding on.
/// The library accumulates in f32 and rounds once as it stores, which is
/// what the generic computed; the f32 buffer and the pass over it go.
/// Rooted at the rounding, which comes after the call, so that the walk
/// driver has already lowered the contraction.
struct RoundingIntoRuntimeCall final : OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::GenericOp rounding,
                                PatternRewriter &rewriter) const override {
    if (!isRoundingCopy(rounding) || !rounding.hasPureBufferSemantics())
      return rewriter.notifyMatchFailure(rounding, "not a rounding copy");
    Value wide = rounding.getDpsInputs()[0];
    Value narrow = rounding.getDpsInits()[0];
    auto wideAlloc = wide.getDefiningOp<memref::AllocOp>();
    auto narrowAlloc = narrow.getDefiningOp<memref::AllocOp>();
    if (!wideAlloc || !narrowAlloc || !narrowAlloc->getOperands().empty() ||
        narrowAlloc->getBlock() != rounding->getBlock())
      return rewriter.notifyMatchFailure(rounding, "not two fresh buffers");
    memref::CastOp castOp;
    func::CallOp call = getOnlyCallBesides(wide, rounding, castOp);
    auto narrowType = cast<MemRefType>(narrow.getType());
    StringRef narrowName = getRuntimeTypeName(narrowType.getElementType());
    std::string suffix = ("_" + narrowName + "_f32_overwrite").str();
    if (!call || narrowName.empty() || narrowName == "f32" ||
        !call.getCallee().starts_with("amp_rt_") ||
        !call.getCallee().ends_with(suffix) || call.getNumOperands() < 3 ||
        call.getOperand(2) != (castOp ? castOp.getResult() : wide) ||
        call->getBlock() != rounding->getBlock() ||
        !call->isBeforeInBlock(rounding))
      return rewriter.notifyMatchFailure(rounding, "not after its call");
    auto module =
        dyn_cast_or_null<ModuleOp>(SymbolTable::getNearestSymbolTable(call));
    if (!module)
      return rewriter.notifyMatchFailure(rounding, "no module");
    if (!canCallWrite(call, narrow, rounding)) {
      // Bufferization gave the rounding a buffer that is an input of the
      // call, or used before the rounding (the attention's P.V product
      // rounded into the dead buffer of V). The call stores into a fresh
      // one, which the rounding and every later use take: the rounding
      // wrote all of D, so they read what it would have written.
      if (!hasNoEarlyViewUsedLater(narrow, rounding))
        return rewriter.notifyMatchFailure(
            rounding, "D is an input or used in between, and a view of it "
                      "made before the rounding is read after it");
      rewriter.setInsertionPoint(call);
      auto fresh =
          memref::AllocOp::create(rewriter, narrowAlloc.getLoc(), narrowType,
                                  narrowAlloc.getAlignmentAttr());
      Block *block = rounding->getBlock();
      rewriter.replaceUsesWithIf(narrow, fresh, [&](OpOperand &use) {
        Operation *inBlock = block->findAncestorOpInBlock(*use.getOwner());
        return !inBlock || inBlock == rounding ||
               rounding->isBeforeInBlock(inBlock);
      });
      narrowAlloc = fresh;
      narrow = fresh;
    }

    if (call->isBeforeInBlock(narrowAlloc))
      rewriter.moveOpBefore(narrowAlloc, call);
    rewriter.setInsertionPoint(call);
    MemRefType target = getDynamicStridedType(narrowType);
    Value output =
        narrow.getType() == target
            ? narrow
            : memref::CastOp::create(rewriter, call.getLoc(), target, narrow)
                  .getResult();
    SmallVector<Value> args(call.getOperands());
    args[2] = output;
    std::string callee = (call.getCallee().drop_back(suffix.size()) + "_" +
                          narrowName + "_" + narrowName + "_overwrite")
                             .str();
    FailureOr<func::FuncOp> fn =
        getOrDeclare(rewriter, module, callee,
                     rewriter.getFunctionType(ValueRange(args).getTypes(), {}));
    if (failed(fn))
      return failure();
    func::CallOp::create(rewriter, call.getLoc(), *fn, args);
    rewriter.eraseOp(call);
    if (castOp)
      rewriter.eraseOp(castOp);
    rewriter.eraseOp(rounding);
    rewriter.eraseOp(wideAlloc);
    return success();
  }
};

struct LowerToRuntimePass
    : public amp::impl::LowerToRuntimePassBase<LowerToRuntimePass> {
  using Base::Base;

  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    LowerToRuntimeCounts counts;
    populateLowerToRuntimePatterns(patterns, {includeF32, explain}, &counts);
    // One visit per op: a contraction is lowered or left once, so the counts
    // are exact.
    walkAndApplyPatterns(getOperation(), std::move(patterns));
    // A name taken by something else than the entry point was reported.
    if (counts.nameConflicts)
      return signalPassFailure();
    numLowered += counts.lowered;
    numLeft += counts.left;
    if (printStats)
      printPassStatistics(getArgument(), {{"ops-lowered", counts.lowered},
                                          {"ops-left", counts.left}});
    if (counts.lowered == 0)
      markAllAnalysesPreserved();
  }
};

} // namespace

void mlir::amp::populateLowerToRuntimePatterns(
    RewritePatternSet &patterns, const LowerToRuntimeOptions &options,
    LowerToRuntimeCounts *counts) {
  patterns.add<ContractionToRuntimeCall>(patterns.getContext(), options,
                                         counts);
  patterns.add<RoundingIntoRuntimeCall>(patterns.getContext());
}
