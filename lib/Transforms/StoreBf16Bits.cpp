//===- StoreBf16Bits.cpp - Store bf16 vectors as their integer bits -------===//
//
// amp-store-bf16-bits: an `llvm.store` of a bf16 vector that a bitcast made
// from an i16 vector stores the i16 vector instead. LLVM 22 scalarizes a
// stored <N x bfloat> on x86 without AVX512_BF16 (docs/lowering.md), and
// its InstCombine leaves the bitcast in place; the integer store is one
// instruction.
//
//===----------------------------------------------------------------------===//

#include "amp/Transforms/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"

namespace mlir::amp {
#define GEN_PASS_DEF_STOREBF16BITSPASS
#include "amp/Transforms/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;

namespace {

/// store (bitcast %x : vector<N x i16> to vector<N x bf16>) -> store %x.
struct StoreBitcastSource : OpRewritePattern<LLVM::StoreOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(LLVM::StoreOp op,
                                PatternRewriter &rewriter) const override {
    auto cast = op.getValue().getDefiningOp<LLVM::BitcastOp>();
    if (!cast)
      return rewriter.notifyMatchFailure(op, "not a stored bitcast");
    auto to = dyn_cast<VectorType>(cast.getType());
    auto from = dyn_cast<VectorType>(cast.getArg().getType());
    if (!to || !from || !to.getElementType().isBF16() ||
        !from.getElementType().isInteger(16))
      return rewriter.notifyMatchFailure(op, "not an i16 -> bf16 vector");
    rewriter.modifyOpInPlace(
        op, [&] { op.getValueMutable().assign(cast.getArg()); });
    if (cast->use_empty())
      rewriter.eraseOp(cast);
    return success();
  }
};

struct StoreBf16BitsPass
    : public amp::impl::StoreBf16BitsPassBase<StoreBf16BitsPass> {
  using Base::Base;

  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<StoreBitcastSource>(&getContext());
    walkAndApplyPatterns(getOperation(), std::move(patterns));
  }
};

} // namespace
