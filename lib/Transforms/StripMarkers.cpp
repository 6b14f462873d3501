//===- StripMarkers.cpp - The amp-strip-markers pass ----------------------===//
//
// Replaces the amp markers by the identities they stand for, so that the
// output is upstream-only IR: amp.grad_seed by ones of the loss's type,
// amp.param_grad by its operand, amp.state_update by its new value.
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/Amp/AmpOps.h"
#include "amp/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/TypeUtilities.h"

namespace mlir::amp {
#define GEN_PASS_DEF_STRIPMARKERSPASS
#include "amp/Transforms/Passes.h.inc"
} // namespace mlir::amp

#define DEBUG_TYPE "amp-strip-markers"

using namespace mlir;
using namespace mlir::amp;

/// Ones of the type of `like` (a float or a ranked tensor of floats): a
/// constant, or a splat of one for a tensor with dynamic sizes.
static Value buildOnes(OpBuilder &builder, Location loc, Value like) {
  Type type = like.getType();
  auto elementType = cast<FloatType>(getElementTypeOrSelf(type));
  FloatAttr one = builder.getFloatAttr(elementType, 1.0);
  auto tensorType = dyn_cast<RankedTensorType>(type);
  if (!tensorType)
    return arith::ConstantOp::create(builder, loc, one);
  if (tensorType.hasStaticShape())
    return arith::ConstantOp::create(builder, loc,
                                     DenseElementsAttr::get(tensorType, one));
  Value scalar = arith::ConstantOp::create(builder, loc, one);
  SmallVector<Value> sizes;
  for (auto [dim, size] : llvm::enumerate(tensorType.getShape()))
    if (ShapedType::isDynamic(size))
      sizes.push_back(tensor::DimOp::create(builder, loc, like, dim));
  return tensor::SplatOp::create(builder, loc, scalar, tensorType, sizes);
}

void mlir::amp::replaceMarkersByIdentities(ArrayRef<Operation *> markers) {
  for (Operation *op : markers) {
    Value identity;
    if (auto seed = dyn_cast<GradSeedOp>(op)) {
      OpBuilder builder(op);
      identity = buildOnes(builder, op->getLoc(), seed.getLoss());
    } else if (auto grad = dyn_cast<ParamGradOp>(op)) {
      identity = grad.getGrad();
    } else {
      identity = cast<StateUpdateOp>(op).getNewValue();
    }
    op->getResult(0).replaceAllUsesWith(identity);
    op->erase();
  }
}

namespace {

struct StripMarkersPass
    : public amp::impl::StripMarkersPassBase<StripMarkersPass> {
  using Base::Base;

  void runOnOperation() override {
    ArrayRef<Operation *> markers = getAnalysis<StepMarkerIndex>().markers;
    if (markers.empty())
      return markAllAnalysesPreserved();
    replaceMarkersByIdentities(markers);
  }
};

} // namespace
