//===- StoreBf16Bits.cpp - Store bf16 vectors as their integer bits -------===//
//
// amp-store-bf16-bits: an `llvm.store` of bf16 values whose i16 bits are at
// hand (a bitcast from i16, a constant) stores the bits instead. LLVM 22
// scalarizes a stored <N x bfloat> on x86 without AVX512_BF16
// (docs/passes.md), also one its loop vectorizer makes from scalar bf16
// stores, and its InstCombine leaves the bitcast in place; the integer
// store is one instruction.
//
//===----------------------------------------------------------------------===//

#include "amp/Transforms/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"

namespace mlir::amp {
#define GEN_PASS_DEF_STOREBF16BITSPASS
#include "amp/Transforms/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;

/// `type` with its bf16 elements (or itself, when it is bf16) as i16.
static Type asI16(Type type) {
  Type i16 = IntegerType::get(type.getContext(), 16);
  if (auto vector = dyn_cast<VectorType>(type))
    return vector.clone(i16);
  return i16;
}

static bool isBf16OrVectorOfBf16(Type type) {
  return getElementTypeOrSelf(type).isBF16();
}

/// The i16 bits `stored` holds, when they are at hand: the source of a
/// bitcast from i16 lanes, or a bf16 constant's bits as a new constant.
static Value bitsOf(Value stored, PatternRewriter &rewriter) {
  if (auto cast = stored.getDefiningOp<LLVM::BitcastOp>()) {
    Type from = cast.getArg().getType();
    return from == asI16(stored.getType()) ? cast.getArg() : Value();
  }
  auto constant = stored.getDefiningOp<LLVM::ConstantOp>();
  if (!constant)
    return Value();
  Type bits = asI16(stored.getType());
  Attribute value;
  if (auto scalar = dyn_cast<FloatAttr>(constant.getValue()))
    value = rewriter.getIntegerAttr(bits, scalar.getValue().bitcastToAPInt());
  else if (auto dense = dyn_cast<DenseFPElementsAttr>(constant.getValue()))
    value = dense.bitcast(rewriter.getIntegerType(16));
  if (!value)
    return Value();
  return LLVM::ConstantOp::create(rewriter, constant.getLoc(), bits,
                                  cast<TypedAttr>(value));
}

namespace {

/// store (bitcast %x : i16 lanes to bf16 lanes) -> store %x; store of a
/// bf16 constant -> store of its bits. Scalars too: LLVM's loop vectorizer
/// makes <N x bfloat> stores of them.
struct StoreBitsOfBf16 : OpRewritePattern<LLVM::StoreOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(LLVM::StoreOp op,
                                PatternRewriter &rewriter) const override {
    Value stored = op.getValue();
    if (!isBf16OrVectorOfBf16(stored.getType()))
      return rewriter.notifyMatchFailure(op, "not a bf16 store");
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPoint(op);
    Value bits = bitsOf(stored, rewriter);
    if (!bits)
      return rewriter.notifyMatchFailure(op, "no i16 bits at hand");
    rewriter.modifyOpInPlace(op, [&] { op.getValueMutable().assign(bits); });
    return success();
  }
};

struct StoreBf16BitsPass
    : public amp::impl::StoreBf16BitsPassBase<StoreBf16BitsPass> {
  using Base::Base;

  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<StoreBitsOfBf16>(&getContext());
    walkAndApplyPatterns(getOperation(), std::move(patterns));
    // The bitcasts and constants the stores no longer use (erased after
    // the walk: the driver must not lose ops it has yet to visit).
    getOperation()->walk([](Operation *op) {
      if (isa<LLVM::BitcastOp, LLVM::ConstantOp>(op) &&
          isBf16OrVectorOfBf16(op->getResult(0).getType()) &&
          isOpTriviallyDead(op))
        op->erase();
    });
  }
};

} // namespace
