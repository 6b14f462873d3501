//===- WidenRuntimeInputs.cpp - 16-bit library inputs widened in the IR ---===//
//
// amp-widen-runtime-inputs: the f16 / bf16 inputs of the contractions that
// amp-lower-to-runtime sends to libamp_rt become f32 tensors in the IR, so
// that the library runs its f32 kernel. On a CPU without 16-bit dot
// products libamp_rt would widen them itself, call by call, into scratch
// buffers; widened in the IR, the extension fuses into the elementwise op
// that produced the 16-bit value (linalg elementwise fusion), which then
// rounds and stores f32 directly: the rounding the program asked for stays,
// the separate conversion pass over every activation goes.
//
//===----------------------------------------------------------------------===//

#include "amp/Conversion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Utils/Utils.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/TypeUtilities.h"

namespace mlir::amp {
#define GEN_PASS_DEF_WIDENRUNTIMEINPUTSPASS
#include "amp/Conversion/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;

/// Whether `pad` pads a static tensor with a constant +0 (what a
/// convolution's padding is).
static bool isZeroPadding(tensor::PadOp pad) {
  Value padding = pad.getConstantPaddingValue();
  auto constant =
      padding ? padding.getDefiningOp<arith::ConstantOp>() : nullptr;
  auto value =
      constant ? dyn_cast<FloatAttr>(constant.getValue()) : FloatAttr();
  return value && value.getValue().isPosZero() &&
         pad.getSourceType().hasStaticShape();
}

namespace {

struct WidenRuntimeInputsPass
    : public amp::impl::WidenRuntimeInputsPassBase<WidenRuntimeInputsPass> {
  using Base::Base;

  /// Whether the input `operand` of `op` can be read as f32 at no extra
  /// pass over it: a static tensor of a type the options widen, whose body
  /// argument is only extended to f32, made (through a zero padding) by an
  /// elementwise linalg.generic, into which the extension fuses (a copy of
  /// it where the 16-bit value has other readers: elementwise work is
  /// cheap next to the pass it saves). Other inputs (the weights a training
  /// step carries in 16 bits, the results of reductions, pools and
  /// contractions) would need a widened copy of their own, which costs what
  /// libamp_rt's widening costs, plus the memory: measured slower.
  bool isWidenable(linalg::LinalgOp op, OpOperand &operand) {
    auto type = dyn_cast<RankedTensorType>(operand.get().getType());
    if (!type || !type.hasStaticShape())
      return false;
    Value produced = operand.get();
    if (auto pad = produced.getDefiningOp<tensor::PadOp>()) {
      if (!isZeroPadding(pad))
        return false;
      produced = pad.getSource();
    }
    auto producer = produced.getDefiningOp<linalg::GenericOp>();
    if (!producer || !linalg::isElementwise(producer))
      return false;
    Type element = type.getElementType();
    if (!(element.isBF16() && bf16) && !(element.isF16() && f16))
      return false;
    BlockArgument arg = op.getMatchingBlockArgument(&operand);
    return llvm::all_of(arg.getUsers(), [](Operation *user) {
      auto ext = dyn_cast<arith::ExtFOp>(user);
      return ext && ext.getType().isF32();
    });
  }

  /// `low` as an f32 tensor: an elementwise linalg.generic of arith.extf
  /// right after `low`'s definition. A convolution's
  /// zero padding (`tensor.pad` of a constant) is made f32 too, around the
  /// widened source: the extension then meets the op that produced the
  /// source, and fuses into it.
  Value widen(OpBuilder &builder, Value low) {
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointAfterValue(low);
    auto type = cast<RankedTensorType>(low.getType());
    Type f32 = builder.getF32Type();
    Location loc = low.getLoc();
    // isWidenable let through only zero paddings.
    if (auto pad = low.getDefiningOp<tensor::PadOp>()) {
      Value source = widen(builder, pad.getSource());
      Value zero = arith::ConstantOp::create(builder, loc,
                                             builder.getF32FloatAttr(0.0f));
      return tensor::PadOp::create(builder, loc,
                                   RankedTensorType::get(type.getShape(), f32),
                                   source, pad.getMixedLowPad(),
                                   pad.getMixedHighPad(), zero, pad.getNofold())
          .getResult();
    }
    Value init = tensor::EmptyOp::create(builder, loc, type.getShape(), f32);
    AffineMap identity = builder.getMultiDimIdentityMap(type.getRank());
    auto generic = linalg::GenericOp::create(
        builder, loc, init.getType(), ValueRange{low}, ValueRange{init},
        ArrayRef<AffineMap>{identity, identity},
        SmallVector<utils::IteratorType>(type.getRank(),
                                         utils::IteratorType::parallel),
        [&](OpBuilder &body, Location bodyLoc, ValueRange args) {
          Value wide = arith::ExtFOp::create(body, bodyLoc, f32, args[0]);
          linalg::YieldOp::create(body, bodyLoc, wide);
        });
    return generic.getResult(0);
  }

  void runOnOperation() override {
    func::FuncOp fn = getOperation();
    if (!trainingSteps &&
        llvm::any_of(llvm::seq(fn.getNumResults()), [&](unsigned i) {
          return fn.getResultAttr(i, "amp.updates") != nullptr;
        })) {
      markAllAnalysesPreserved();
      return;
    }
    OpBuilder builder(&getContext());
    unsigned count = 0;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (!amp::isRuntimeContractionKind(op) || !op.hasPureTensorSemantics() ||
          op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1 ||
          !getElementTypeOrSelf(op.getDpsInitOperand(0)->get().getType())
               .isF32())
        return;
      // libamp_rt has no entry point for mixed f32 / 16-bit inputs: each
      // input is widened or f32 already.
      SmallVector<OpOperand *, 2> toWiden;
      for (OpOperand *input : op.getDpsInputOperands()) {
        if (isWidenable(op, *input))
          toWiden.push_back(input);
        else if (!getElementTypeOrSelf(input->get().getType()).isF32())
          return;
      }
      if (toWiden.empty())
        return;
      for (OpOperand *input : toWiden) {
        Value wide = widen(builder, input->get());
        BlockArgument arg = op.getMatchingBlockArgument(input);
        // The body read the argument only through extf to f32: it now reads
        // the f32 argument itself, as the named op's body would for f32.
        for (Operation *ext : llvm::make_early_inc_range(arg.getUsers())) {
          ext->getResult(0).replaceAllUsesWith(arg);
          ext->erase();
        }
        arg.setType(builder.getF32Type());
        input->set(wide);
      }
      ++count;
    });
    numWidened += count;
    if (count == 0)
      markAllAnalysesPreserved();
  }
};

} // namespace
