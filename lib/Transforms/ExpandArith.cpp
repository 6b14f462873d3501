//===- ExpandArith.cpp - The amp-expand-arith pass ------------------------===//
//
// Upstream's arith expansions (arith::populateArithExpandOpsPatterns) for
// the ops LLVM cannot lower, except the f32 / f64 min / max ops, which stay
// whole for LLVM's vectorizable intrinsics, and optionally upstream's bf16
// conversion expansions (docs/passes.md), with truncations of values that
// are bf16 values already reduced to a shift.
//
//===----------------------------------------------------------------------===//

#include "amp/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::amp {
#define GEN_PASS_DEF_EXPANDARITHPASS
#include "amp/Transforms/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;

/// Whether amp-expand-arith leaves `op` to LLVM: a float min / max on f32
/// or f64 (scalars or vectors).
static bool isMinMaxLLVMVectorizes(Operation *op) {
  if (!isa<arith::MaximumFOp, arith::MinimumFOp, arith::MaxNumFOp,
           arith::MinNumFOp>(op))
    return false;
  Type element = getElementTypeOrSelf(op->getResult(0).getType());
  return element.isF32() || element.isF64();
}

/// Whether every value `v` can take is a bf16 value widened to f32 (its low
/// 16 bits zero, a NaN quiet or with its payload in the high half): a
/// widened bf16, or a max / min / negation / absolute value / select /
/// sign copy of such values, or a constant that bf16 holds exactly. A max
/// of two bf16 values is one of them, and the NaNs these ops make are
/// quiet, their quiet bit in the high half. Looks `depth` ops up.
static bool holdsBf16Values(Value v, int depth = 8) {
  if (depth == 0)
    return false;
  Operation *def = v.getDefiningOp();
  if (!def)
    return false;
  if (auto ext = dyn_cast<arith::ExtFOp>(def))
    return getElementTypeOrSelf(ext.getIn().getType()).isBF16();
  if (auto constant = dyn_cast<arith::ConstantOp>(def)) {
    auto exact = [](const APFloat &value) {
      return (value.bitcastToAPInt().getZExtValue() & 0xffff) == 0;
    };
    if (auto scalar = dyn_cast<FloatAttr>(constant.getValue()))
      return exact(scalar.getValue());
    if (auto dense = dyn_cast<DenseFPElementsAttr>(constant.getValue()))
      return llvm::all_of(dense.getValues<APFloat>(), exact);
    return false;
  }
  if (isa<arith::MaximumFOp, arith::MinimumFOp, arith::MaxNumFOp,
          arith::MinNumFOp, math::CopySignOp>(def))
    return holdsBf16Values(def->getOperand(0), depth - 1) &&
           holdsBf16Values(def->getOperand(1), depth - 1);
  if (isa<arith::NegFOp, math::AbsFOp>(def))
    return holdsBf16Values(def->getOperand(0), depth - 1);
  if (auto select = dyn_cast<arith::SelectOp>(def))
    return holdsBf16Values(select.getTrueValue(), depth - 1) &&
           holdsBf16Values(select.getFalseValue(), depth - 1);
  return false;
}

namespace {

/// `truncf` f32 -> bf16 of a value that is a bf16 value already (a ReLU or
/// a max-pool on bf16 data, computed in f32): its high half, with none of
/// the rounding and NaN select of upstream's expansion. Inside a max-pool
/// window loop whose accumulator LLVM keeps in registers, that select of
/// 16-bit lanes was scalarized (a fifth of resnet18's bf16 forward on a
/// CPU without AVX512_BF16).
struct TruncateBf16Values : OpRewritePattern<arith::TruncFOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(arith::TruncFOp op,
                                PatternRewriter &rewriter) const override {
    Type in = op.getIn().getType();
    if (!getElementTypeOrSelf(in).isF32() ||
        !getElementTypeOrSelf(op.getType()).isBF16() ||
        !holdsBf16Values(op.getIn()))
      return rewriter.notifyMatchFailure(op, "not a bf16 value in f32");
    auto like = [&](Type element) -> Type {
      if (auto shaped = dyn_cast<ShapedType>(in))
        return shaped.clone(element);
      return element;
    };
    Location loc = op.getLoc();
    Type i32 = like(rewriter.getI32Type());
    Value bits = arith::BitcastOp::create(rewriter, loc, i32, op.getIn());
    Value sixteen = createScalarOrSplatConstant(rewriter, loc, i32, 16);
    Value high = arith::ShRUIOp::create(rewriter, loc, bits, sixteen);
    Value half = arith::TruncIOp::create(rewriter, loc,
                                         like(rewriter.getI16Type()), high);
    rewriter.replaceOpWithNewOp<arith::BitcastOp>(op, op.getType(), half);
    return success();
  }
};

/// amp-expand-arith: upstream's arith expansions, except for the f32 / f64
/// min / max ops, which stay whole for LLVM's intrinsics.
struct ExpandArithPass
    : public amp::impl::ExpandArithPassBase<ExpandArithPass> {
  using Base::Base;

  void runOnOperation() override {
    // Roundings of values that are bf16 values already first, while their
    // operands' extf are still there to be recognized.
    if (includeBf16 && failed(applyToArithOps(RewritePatternSet(
                           &getContext(), std::make_unique<TruncateBf16Values>(
                                              &getContext())))))
      return signalPassFailure();
    RewritePatternSet patterns(&getContext());
    arith::populateArithExpandOpsPatterns(patterns);
    if (includeBf16)
      arith::populateExpandBFloat16Patterns(patterns);
    if (failed(applyToArithOps(std::move(patterns))))
      return signalPassFailure();
  }

  /// Applies `patterns` to the arith ops there are now, except the min /
  /// max ops that LLVM vectorizes: the expansions create nothing that
  /// needs expanding.
  LogicalResult applyToArithOps(RewritePatternSet &&patterns) {
    SmallVector<Operation *> ops;
    getOperation()->walk([&](Operation *op) {
      if (op->getName().getDialectNamespace() ==
              arith::ArithDialect::getDialectNamespace() &&
          !isMinMaxLLVMVectorizes(op))
        ops.push_back(op);
    });
    GreedyRewriteConfig config;
    config.setStrictness(GreedyRewriteStrictness::ExistingOps);
    return applyOpPatternsGreedily(ops, std::move(patterns), config);
  }
};

} // namespace
