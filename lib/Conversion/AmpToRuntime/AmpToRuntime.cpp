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
//
// amp-fold-transposes-into-contractions (Transforms) prepares the tensors
// for it: a transposed matmul operand is read through the op's indexing
// maps, which the runtime call expresses as transA / transB, instead of
// being copied by a linalg.transpose.
//
//===----------------------------------------------------------------------===//

#include "amp/Conversion/AmpToRuntime/AmpToRuntime.h"
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

namespace {

/// One runtime call: the callee and the trailing scalar arguments after the
/// three memrefs (i32 transA, transB for GEMMs; i64 strides and dilations
/// for convolutions).
struct RuntimeCall {
  std::string callee;
  SmallVector<Type, 4> scalarTypes;
  SmallVector<int64_t, 4> scalars;
};

} // namespace

/// The runtime's name of an element type, or "" if it has no entry points
/// for it.
static StringRef getTypeName(Type type) {
  if (type.isF16())
    return "f16";
  if (type.isBF16())
    return "bf16";
  if (type.isF32())
    return "f32";
  return "";
}

/// The fully dynamic strided memref of `type`'s rank and element type: the
/// parameter type of every entry point.
static MemRefType getDynamicStridedType(MemRefType type) {
  int64_t rank = type.getRank();
  SmallVector<int64_t> dynamic(rank, ShapedType::kDynamic);
  auto layout =
      StridedLayoutAttr::get(type.getContext(), ShapedType::kDynamic, dynamic);
  return MemRefType::get(dynamic, type.getElementType(), layout);
}

/// Whether `map`'s results are exactly the loop dimensions `dims`.
static bool isDimList(AffineMap map, ArrayRef<unsigned> dims) {
  if (map.getNumResults() != dims.size())
    return false;
  for (auto [expr, dim] : llvm::zip(map.getResults(), dims)) {
    auto dimExpr = dyn_cast<AffineDimExpr>(expr);
    if (!dimExpr || dimExpr.getPosition() != dim)
      return false;
  }
  return true;
}

/// transA / transB of a matmul or batch_matmul from its indexing maps: A is
/// [b,] m×k or k×m, B is [b,] k×n or n×k, C must be [b,] m×n. Fails on
/// anything else (broadcasts, permuted outputs, several m/n/k dims).
static FailureOr<std::pair<int64_t, int64_t>> getTransposes(linalg::LinalgOp op,
                                                            std::string &why) {
  FailureOr<linalg::ContractionDimensions> dims =
      linalg::inferContractionDims(op);
  bool batched = isa<linalg::BatchMatmulOp>(op.getOperation());
  if (failed(dims) || dims->m.size() != 1 || dims->n.size() != 1 ||
      dims->k.size() != 1 || dims->batch.size() != (batched ? 1u : 0u)) {
    why = "indexing maps are not a plain (batched) GEMM";
    return failure();
  }
  auto with = [&](unsigned a, unsigned b) {
    SmallVector<unsigned, 3> list(dims->batch.begin(), dims->batch.end());
    list.push_back(a);
    list.push_back(b);
    return list;
  };
  unsigned m = dims->m[0], n = dims->n[0], k = dims->k[0];
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  int64_t transA, transB;
  if (isDimList(maps[0], with(m, k)))
    transA = 0;
  else if (isDimList(maps[0], with(k, m)))
    transA = 1;
  else {
    why = "the indexing map of A is neither MxK nor KxM";
    return failure();
  }
  if (isDimList(maps[1], with(k, n)))
    transB = 0;
  else if (isDimList(maps[1], with(n, k)))
    transB = 1;
  else {
    why = "the indexing map of B is neither KxN nor NxK";
    return failure();
  }
  if (!isDimList(maps[2], with(m, n))) {
    why = "the indexing map of C is not MxN";
    return failure();
  }
  return std::make_pair(transA, transB);
}

/// Strides and dilations (H, W) of a 2-D convolution.
template <typename ConvOp>
static SmallVector<int64_t, 4> getConvScalars(ConvOp conv) {
  auto strides =
      llvm::to_vector(conv.getStrides().template getValues<int64_t>());
  auto dilations =
      llvm::to_vector(conv.getDilations().template getValues<int64_t>());
  return {strides[0], strides[1], dilations[0], dilations[1]};
}

/// The memref types of `op`'s two inputs and output, or the reason they
/// cannot be passed to libamp_rt.
static FailureOr<SmallVector<MemRefType, 3>>
getStridedOperandTypes(linalg::LinalgOp op, std::string &why) {
  if (op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1) {
    why = "not two inputs and one output";
    return failure();
  }
  SmallVector<MemRefType, 3> types;
  for (Value operand : op->getOperands()) {
    auto type = dyn_cast<MemRefType>(operand.getType());
    if (!type) {
      why = "an operand is not a ranked memref";
      return failure();
    }
    if (type.getMemorySpace()) {
      why = "an operand is not in the default memory space";
      return failure();
    }
    if (!type.isStrided()) {
      why = "an operand has a non-strided layout";
      return failure();
    }
    types.push_back(type);
  }
  return types;
}

/// Whether dimensions `dim` and `dim + 1` of the rank-5 `type` are one
/// strided run (collapsible into one dimension).
static bool isCollapsiblePair(MemRefType type, int64_t dim) {
  SmallVector<ReassociationIndices> groups;
  for (int64_t i = 0; i < 5; ++i)
    if (i != dim + 1)
      groups.push_back(i == dim ? ReassociationIndices{i, i + 1}
                                : ReassociationIndices{i});
  return memref::CollapseShapeOp::isGuaranteedCollapsible(type, groups);
}

/// The runtime call implementing `op`, or the reason there is none. f32
/// inputs have an entry point (f32 x f32 -> f32) only with `includeF32`.
static FailureOr<RuntimeCall>
matchRuntimeCall(linalg::LinalgOp op, bool includeF32, std::string &why) {
  FailureOr<SmallVector<MemRefType, 3>> operandTypes =
      getStridedOperandTypes(op, why);
  if (failed(operandTypes))
    return failure();
  ArrayRef<MemRefType> types = *operandTypes;
  Type in = types[0].getElementType();
  StringRef inName = getTypeName(in);
  StringRef outName = getTypeName(types[2].getElementType());
  if (in != types[1].getElementType() || inName.empty() ||
      (inName == "f32" && !includeF32)) {
    why = "no runtime entry point for inputs of these types";
    return failure();
  }
  // runtime/include/amp_rt.h: the output is f32 or the input type (no
  // f16 -> bf16, bf16 -> f16 or f32 -> f16/bf16 entry points).
  if (outName != "f32" && outName != inName) {
    llvm::raw_string_ostream os(why);
    os << "no runtime entry point for " << inName << " inputs and an "
       << types[2].getElementType() << " output";
    return failure();
  }

  RuntimeCall call;
  MLIRContext *ctx = op.getContext();
  StringRef kind;
  BlockedConvForm blockedForm = BlockedConvForm::Dense;
  if (isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op.getOperation())) {
    kind = isa<linalg::MatmulOp>(op.getOperation()) ? "matmul" : "batch_matmul";
    FailureOr<std::pair<int64_t, int64_t>> trans = getTransposes(op, why);
    if (failed(trans))
      return failure();
    call.scalarTypes.assign(2, IntegerType::get(ctx, 32));
    call.scalars = {trans->first, trans->second};
  } else if (auto conv =
                 dyn_cast<linalg::Conv2DNhwcHwcfOp>(op.getOperation())) {
    kind = "conv2d_nhwc_hwcf";
    call.scalarTypes.assign(4, IntegerType::get(ctx, 64));
    call.scalars = getConvScalars(conv);
  } else if (auto conv =
                 dyn_cast<linalg::Conv2DNchwFchwOp>(op.getOperation())) {
    kind = "conv2d_nchw_fchw";
    call.scalarTypes.assign(4, IntegerType::get(ctx, 64));
    call.scalars = getConvScalars(conv);
  } else if (auto conv =
                 dyn_cast<linalg::Conv2DNgchwGfchwOp>(op.getOperation())) {
    // The runtime merges (G, C) of I, (G, F) of the filter and (G, F) of O
    // into the channels of a grouped NCHW convolution.
    if (!isCollapsiblePair(types[0], 1) || !isCollapsiblePair(types[1], 0) ||
        !isCollapsiblePair(types[2], 1)) {
      why = "the group and channel dimensions of an operand are not one "
            "strided run";
      return failure();
    }
    kind = "conv2d_ngchw_gfchw";
    call.scalarTypes.assign(4, IntegerType::get(ctx, 64));
    call.scalars = getConvScalars(conv);
  } else if (auto conv = dyn_cast<linalg::DepthwiseConv2DNhwcHwcOp>(
                 op.getOperation())) {
    kind = "depthwise_conv2d_nhwc_hwc";
    call.scalarTypes.assign(4, IntegerType::get(ctx, 64));
    call.scalars = getConvScalars(conv);
  } else if (auto conv = dyn_cast<linalg::DepthwiseConv2DNchwChwOp>(
                 op.getOperation())) {
    kind = "depthwise_conv2d_nchw_chw";
    call.scalarTypes.assign(4, IntegerType::get(ctx, 64));
    call.scalars = getConvScalars(conv);
  } else if (SmallVector<int64_t> scalars = matchBlockedConv(op, &blockedForm);
             !scalars.empty()) {
    kind = blockedForm == BlockedConvForm::Depthwise
               ? "depthwise_conv2d_nchw16c_chw"
           : blockedForm == BlockedConvForm::PlainInput
               ? "conv2d_nchw_fchw_nchw16c"
               : "conv2d_nchw16c_fchw";
    call.scalarTypes.assign(4, IntegerType::get(ctx, 64));
    call.scalars.assign(scalars.begin(), scalars.end());
  } else {
    why = "not a runtime op";
    return failure();
  }
  call.callee = ("amp_rt_" + kind + "_" + inName + "_" + outName).str();
  return call;
}

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
/// nothing else uses, D is not A or B, and nothing uses D between the call
/// and the rounding.
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
    StringRef narrowName = getTypeName(narrowType.getElementType());
    std::string suffix = ("_" + narrowName + "_f32_overwrite").str();
    if (!call || narrowName.empty() || narrowName == "f32" ||
        !call.getCallee().starts_with("amp_rt_") ||
        !call.getCallee().ends_with(suffix) || call.getNumOperands() < 3 ||
        call.getOperand(2) != (castOp ? castOp.getResult() : wide) ||
        call->getBlock() != rounding->getBlock() ||
        !call->isBeforeInBlock(rounding))
      return rewriter.notifyMatchFailure(rounding, "not after its call");
    if (!canCallWrite(call, narrow, rounding))
      return rewriter.notifyMatchFailure(rounding,
                                         "D is an input or used in between");
    auto module =
        dyn_cast_or_null<ModuleOp>(SymbolTable::getNearestSymbolTable(call));
    if (!module)
      return rewriter.notifyMatchFailure(rounding, "no module");

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

bool mlir::amp::isRuntimeContractionKind(Operation *op) {
  return isa<linalg::MatmulOp, linalg::BatchMatmulOp, linalg::Conv2DNhwcHwcfOp,
             linalg::Conv2DNchwFchwOp, linalg::Conv2DNgchwGfchwOp,
             linalg::DepthwiseConv2DNhwcHwcOp,
             linalg::DepthwiseConv2DNchwChwOp>(op) ||
         (isa<linalg::GenericOp>(op) && op->hasAttr(kBlockedConvAttrName));
}

void mlir::amp::populateLowerToRuntimePatterns(
    RewritePatternSet &patterns, const LowerToRuntimeOptions &options,
    LowerToRuntimeCounts *counts) {
  patterns.add<ContractionToRuntimeCall>(patterns.getContext(), options,
                                         counts);
  patterns.add<RoundingIntoRuntimeCall>(patterns.getContext());
}
