//===- ScaleTrainingStep.cpp - Loss scaling of one training step ---------===//
//
// The rewrite of one training step by amp-loss-scaling (docs/loss-scaling.md):
//
//   * the seed becomes the loss scale S (a splat of S of the loss's type);
//   * every amp.param_grad becomes g * (1/S) in f32, and every unscaled
//     gradient feeds one all-finite flag: per gradient a reduction of
//     acc + g * 0.0 (0 if every element is finite, NaN otherwise), the
//     reductions summed and compared with 0;
//   * every amp.state_update %old, %new becomes select(flag, %new, %old);
//   * mode=dynamic: S and the good-step counter follow PyTorch GradScaler's
//     update rule; they live in appended arguments / results (state=args) or
//     in ml_program globals (state=globals).
//
//===----------------------------------------------------------------------===//

#include "ScaleTrainingStep.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MLProgram/IR/MLProgram.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <limits>

using namespace mlir;
using namespace mlir::amp;

std::string mlir::amp::formatScaleValue(double value) {
  return llvm::formatv("{0}", llvm::format("%g", value)).str();
}

/// `f16`, without the quotes a diagnostic puts around a streamed type.
static std::string getTypeName(Type type) {
  std::string name;
  llvm::raw_string_ostream os(name);
  type.print(os);
  return name;
}

/// Returns true if `value` is not finite once rounded to `type`.
static bool overflowsIn(double value, FloatType type) {
  APFloat converted(value);
  bool losesInfo;
  converted.convert(type.getFloatSemantics(),
                    llvm::RoundingMode::NearestTiesToEven, &losesInfo);
  return !converted.isFinite();
}

/// `type` (a float or a ranked tensor of floats) with element type `element`.
static Type withElement(Type type, Type element) {
  if (auto tensorType = dyn_cast<RankedTensorType>(type))
    return tensorType.clone(element);
  return element;
}

/// `value` converted to the float type `to` (truncf or extf).
static Value convertFloat(OpBuilder &builder, Location loc, Value value,
                          FloatType to) {
  auto from = cast<FloatType>(value.getType());
  if (from == to)
    return value;
  if (from.getWidth() > to.getWidth())
    return arith::TruncFOp::create(builder, loc, to, value);
  return arith::ExtFOp::create(builder, loc, to, value);
}

/// The scalar `scalar` broadcast to the type of `like` (a scalar or a ranked
/// tensor, whose dynamic sizes are read from `like`).
static Value splatLike(OpBuilder &builder, Location loc, Value scalar,
                       Value like) {
  auto tensorType = dyn_cast<RankedTensorType>(like.getType());
  if (!tensorType)
    return scalar;
  SmallVector<Value> sizes;
  for (auto [dim, size] : llvm::enumerate(tensorType.getShape()))
    if (ShapedType::isDynamic(size))
      sizes.push_back(tensor::DimOp::create(builder, loc, like, dim));
  return tensor::SplatOp::create(builder, loc, scalar,
                                 tensorType.clone(scalar.getType()), sizes);
}

/// A scalar that is 0 if every element of `value` (a float or a ranked
/// tensor of floats) is finite and NaN otherwise: the sum of value * 0.0.
static Value buildNonFiniteProbe(OpBuilder &builder, Location loc, Value value,
                                 Value zero) {
  auto elementType = cast<FloatType>(getElementTypeOrSelf(value.getType()));
  auto tensorType = dyn_cast<RankedTensorType>(value.getType());
  if (!tensorType)
    return arith::MulFOp::create(builder, loc, value, zero);
  auto accType = RankedTensorType::get({}, elementType);
  Value empty = tensor::EmptyOp::create(builder, loc, accType, ValueRange{});
  Value init = linalg::FillOp::create(builder, loc, zero, empty).getResult(0);
  unsigned rank = tensorType.getRank();
  MLIRContext *ctx = builder.getContext();
  SmallVector<AffineMap> maps = {AffineMap::getMultiDimIdentityMap(rank, ctx),
                                 AffineMap::get(rank, 0, ctx)};
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::reduction);
  auto reduction = linalg::GenericOp::create(
      builder, loc, TypeRange{accType}, ValueRange{value}, ValueRange{init},
      maps, iterators,
      [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
        Value times0 = arith::MulFOp::create(nested, nestedLoc, args[0], zero);
        Value sum = arith::AddFOp::create(nested, nestedLoc, args[1], times0);
        linalg::YieldOp::create(nested, nestedLoc, sum);
      });
  return tensor::ExtractOp::create(builder, loc, reduction.getResult(0),
                                   ValueRange{});
}

namespace {
/// The rewrite of one training step, in the order of its named steps:
/// load the scale, seed the backward pass with it, unscale and probe every
/// gradient, build the all-finite flag, guard the state updates, update the
/// scale and return the new state.
class StepScaler {
public:
  StepScaler(func::FuncOp func, StepMarkers &markers,
             const ScaleOptions &options)
      : func(func), markers(markers), options(options), ctx(func.getContext()),
        body(func.getBody().front()), loc(markers.seeds.front().getLoc()),
        f32(Float32Type::get(ctx)), scaleType(RankedTensorType::get({}, f32)),
        counterType(RankedTensorType::get({}, IntegerType::get(ctx, 32))),
        builder(ctx) {}

  /// Rewrites the step; returns the number of gradients unscaled and of
  /// updates guarded.
  std::pair<uint64_t, uint64_t> run() {
    loadScale();
    seedWithScale();
    SmallVector<Value> probes = unscaleGradients();
    Value allFinite = buildAllFiniteFlag(probes);
    guardStateUpdates(allFinite);
    updateScaleAndReturn(allFinite);
    return {probes.size(), guarded};
  }

private:
  DictionaryAttr role(StringRef name) {
    return DictionaryAttr::get(ctx,
                               {NamedAttribute(StringAttr::get(ctx, "amp.role"),
                                               StringAttr::get(ctx, name))});
  }
  Value f32Constant(double value) {
    return arith::ConstantOp::create(builder, loc,
                                     builder.getF32FloatAttr(value));
  }
  Value i32Constant(int64_t value) {
    return arith::ConstantOp::create(builder, loc,
                                     builder.getI32IntegerAttr(value));
  }

  void loadScale();
  void loadScaleState(Value &scaleTensor, Value &counterTensor);
  void seedWithScale();
  void warnIfScaleOverflows(GradSeedOp seed, FloatType lossType);
  SmallVector<Value> unscaleGradients();
  Value unscaleGradient(ParamGradOp grad);
  Value buildAllFiniteFlag(ArrayRef<Value> probes);
  void guardStateUpdates(Value allFinite);
  std::pair<Value, Value> nextScaleAndCount(Value allFinite);
  void updateScaleAndReturn(Value allFinite);

  func::FuncOp func;
  StepMarkers &markers;
  const ScaleOptions &options;
  MLIRContext *ctx;
  Block &body;
  Location loc;
  FloatType f32;
  RankedTensorType scaleType, counterType;
  OpBuilder builder;

  Value scale, counter, inverseScale, zero;
  FlatSymbolRefAttr scaleGlobal, counterGlobal;
  /// The op after which the all-finite flag can be computed.
  Operation *flagPoint = nullptr;
  uint64_t guarded = 0;
};
} // namespace

/// The scale S (and with mode=dynamic the good-step counter) at the entry of
/// the function, with 1/S and 0.0.
void StepScaler::loadScale() {
  builder.setInsertionPointToStart(&body);
  if (options.mode == ScalingMode::Static) {
    scale = f32Constant(options.initScale);
  } else {
    Value scaleTensor, counterTensor;
    loadScaleState(scaleTensor, counterTensor);
    scale = tensor::ExtractOp::create(builder, loc, scaleTensor, ValueRange{});
    counter =
        tensor::ExtractOp::create(builder, loc, counterTensor, ValueRange{});
  }
  inverseScale = arith::DivFOp::create(builder, loc, f32Constant(1.0), scale);
  zero = f32Constant(0.0);
  flagPoint = inverseScale.getDefiningOp();
}

/// mode=dynamic: the scale and counter tensors, from appended arguments
/// (state=args) or from new ml_program globals (state=globals).
void StepScaler::loadScaleState(Value &scaleTensor, Value &counterTensor) {
  if (options.state == ScaleStateKind::Args) {
    unsigned index = func.getNumArguments();
    (void)func.insertArgument(index, scaleType, role("loss_scale"), loc);
    (void)func.insertArgument(index + 1, counterType, role("good_steps"), loc);
    scaleTensor = body.getArgument(index);
    counterTensor = body.getArgument(index + 1);
    return;
  }
  SymbolTable symbols(func->getParentOfType<ModuleOp>());
  OpBuilder detached(ctx);
  auto addGlobal = [&](StringRef suffix, RankedTensorType type,
                       Attribute value) {
    auto global = ml_program::GlobalOp::create(
        detached, loc, (func.getName() + suffix).str(), type,
        /*is_mutable=*/true, value, StringAttr::get(ctx, "private"));
    symbols.insert(global, Block::iterator(func));
    return FlatSymbolRefAttr::get(global.getSymNameAttr());
  };
  scaleGlobal =
      addGlobal("_loss_scale", scaleType,
                DenseElementsAttr::get(
                    scaleType, builder.getF32FloatAttr(options.initScale)));
  counterGlobal = addGlobal(
      "_good_steps", counterType,
      DenseElementsAttr::get(counterType, builder.getI32IntegerAttr(0)));
  scaleTensor =
      ml_program::GlobalLoadOp::create(builder, loc, scaleType, scaleGlobal);
  counterTensor = ml_program::GlobalLoadOp::create(builder, loc, counterType,
                                                   counterGlobal);
}

/// Every amp.grad_seed becomes S in the loss's type.
void StepScaler::seedWithScale() {
  for (GradSeedOp seed : markers.seeds) {
    OpBuilder seedBuilder(seed);
    auto lossType = cast<FloatType>(getElementTypeOrSelf(seed.getType()));
    if (options.mode == ScalingMode::Static)
      warnIfScaleOverflows(seed, lossType);
    Value seedValue =
        splatLike(seedBuilder, seed.getLoc(),
                  convertFloat(seedBuilder, seed.getLoc(), scale, lossType),
                  seed.getLoss());
    seed.replaceAllUsesWith(seedValue);
    seed.erase();
  }
}

/// A constant scale that a narrower type cannot hold makes every step
/// overflow (a dynamic one backs off below it after one skipped step).
void StepScaler::warnIfScaleOverflows(GradSeedOp seed, FloatType lossType) {
  double initScale = options.initScale;
  if (overflowsIn(initScale, lossType))
    seed.emitWarning() << "amp-loss-scaling: the loss is "
                       << getTypeName(lossType) << ", where the scale "
                       << formatScaleValue(initScale)
                       << " overflows: every step will be skipped";
  for (Operation *user : seed->getUsers()) {
    auto trunc = dyn_cast<arith::TruncFOp>(user);
    if (!trunc)
      continue;
    auto to = cast<FloatType>(getElementTypeOrSelf(trunc.getType()));
    if (overflowsIn(initScale, to))
      trunc.emitWarning() << "amp-loss-scaling: the seed is truncated to "
                          << getTypeName(to) << " here, where the scale "
                          << formatScaleValue(initScale)
                          << " overflows: every step will be skipped (use a "
                             "smaller init-scale or mode=dynamic)";
  }
}

/// Every amp.param_grad becomes g * (1/S) in f32 (at least); returns one
/// probe per gradient, 0 if it is all finite and NaN otherwise.
SmallVector<Value> StepScaler::unscaleGradients() {
  SmallVector<Value> probes;
  for (ParamGradOp grad : markers.grads)
    probes.push_back(unscaleGradient(grad));
  return probes;
}

Value StepScaler::unscaleGradient(ParamGradOp grad) {
  Location gradLoc = grad.getLoc();
  OpBuilder gradBuilder(ctx);
  gradBuilder.setInsertionPointAfter(grad);
  Value value = grad.getGrad();
  auto elementType = cast<FloatType>(getElementTypeOrSelf(value.getType()));
  FloatType computeType = elementType.getWidth() < 32 ? f32 : elementType;
  Type unscaledType = withElement(value.getType(), computeType);
  if (elementType != computeType)
    value = arith::ExtFOp::create(gradBuilder, gradLoc, unscaledType, value);
  Value factor = splatLike(
      gradBuilder, gradLoc,
      convertFloat(gradBuilder, gradLoc, inverseScale, computeType), value);
  Value unscaled = arith::MulFOp::create(gradBuilder, gradLoc, value, factor);
  Value computeZero = computeType == f32
                          ? zero
                          : arith::ConstantOp::create(
                                gradBuilder, gradLoc,
                                gradBuilder.getFloatAttr(computeType, 0.0));
  Value probe =
      buildNonFiniteProbe(gradBuilder, gradLoc, unscaled, computeZero);
  probe = convertFloat(gradBuilder, gradLoc, probe, f32);
  flagPoint = probe.getDefiningOp();

  // Users get the f32 gradient: an arith.extf to f32 of the marker is the
  // unscaled value itself; other users of a narrower gradient get it
  // truncated back.
  Value truncated;
  for (OpOperand &use : llvm::make_early_inc_range(grad->getUses())) {
    if (unscaled.getType() == grad.getType()) {
      use.set(unscaled);
      continue;
    }
    auto ext = dyn_cast<arith::ExtFOp>(use.getOwner());
    if (ext && ext.getType() == unscaledType) {
      ext.replaceAllUsesWith(unscaled);
      ext.erase();
      continue;
    }
    if (!truncated) {
      OpBuilder truncBuilder(ctx);
      truncBuilder.setInsertionPointAfter(unscaled.getDefiningOp());
      truncated = arith::TruncFOp::create(truncBuilder, gradLoc, grad.getType(),
                                          unscaled);
    }
    use.set(truncated);
  }
  grad.erase();
  return probe;
}

/// One all-finite flag after the last gradient: the probes summed and
/// compared with 0.
Value StepScaler::buildAllFiniteFlag(ArrayRef<Value> probes) {
  builder.setInsertionPointAfter(flagPoint);
  if (probes.empty())
    return arith::ConstantOp::create(builder, loc, builder.getBoolAttr(true));
  Value sum = probes.front();
  for (Value probe : probes.drop_front())
    sum = arith::AddFOp::create(builder, loc, sum, probe);
  return arith::CmpFOp::create(builder, loc, arith::CmpFPredicate::OEQ, sum,
                               zero);
}

/// Every amp.state_update %old, %new becomes select(flag, %new, %old) (or
/// %new without skip-on-overflow).
void StepScaler::guardStateUpdates(Value allFinite) {
  Operation *flagOp = allFinite.getDefiningOp();
  for (StateUpdateOp update : markers.updates) {
    Value replacement = update.getNewValue();
    if (options.skipOnOverflow) {
      OpBuilder updateBuilder(ctx);
      Operation *ancestor = body.findAncestorOpInBlock(*update);
      if (flagOp->isBeforeInBlock(ancestor))
        updateBuilder.setInsertionPoint(update);
      else
        updateBuilder.setInsertionPointAfter(flagOp);
      replacement =
          arith::SelectOp::create(updateBuilder, update.getLoc(), allFinite,
                                  update.getNewValue(), update.getState());
      ++guarded;
    }
    update.replaceAllUsesWith(replacement);
    update.erase();
  }
}

/// PyTorch GradScaler's rule. Overflow: back off, at least min-scale, and
/// restart counting. Good step: count; at growth-interval grow (if finite,
/// at most max-scale) and restart counting.
std::pair<Value, Value> StepScaler::nextScaleAndCount(Value allFinite) {
  Value zeroCount = i32Constant(0);
  Value backedOff = arith::MaximumFOp::create(
      builder, loc,
      arith::MulFOp::create(builder, loc, scale,
                            f32Constant(options.backoffFactor)),
      f32Constant(options.minScale));
  Value next = arith::AddIOp::create(builder, loc, counter, i32Constant(1));
  Value grow = arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::sge,
                                     next, i32Constant(options.growthInterval));
  Value grown = arith::MulFOp::create(builder, loc, scale,
                                      f32Constant(options.growthFactor));
  Value grownFinite = arith::CmpFOp::create(
      builder, loc, arith::CmpFPredicate::OLT, grown,
      f32Constant(std::numeric_limits<double>::infinity()));
  Value clamped = arith::MinimumFOp::create(builder, loc, grown,
                                            f32Constant(options.maxScale));
  Value grownScale =
      arith::SelectOp::create(builder, loc, grownFinite, clamped, scale);
  Value goodScale =
      arith::SelectOp::create(builder, loc, grow, grownScale, scale);
  Value goodCount =
      arith::SelectOp::create(builder, loc, grow, zeroCount, next);
  return {
      arith::SelectOp::create(builder, loc, allFinite, goodScale, backedOff),
      arith::SelectOp::create(builder, loc, allFinite, goodCount, zeroCount)};
}

/// Before the return: the new scale and counter (stored to the globals or
/// returned) and, with state=args, the step_ok flag as results.
void StepScaler::updateScaleAndReturn(Value allFinite) {
  auto ret = cast<func::ReturnOp>(body.getTerminator());
  builder.setInsertionPoint(ret);
  SmallVector<std::pair<Value, DictionaryAttr>> results;
  Value stepOk;
  if (options.state == ScaleStateKind::Args)
    stepOk = tensor::FromElementsOp::create(
        builder, loc, RankedTensorType::get({}, builder.getI1Type()),
        ValueRange{allFinite});
  if (options.mode == ScalingMode::Dynamic) {
    auto [newScale, newCount] = nextScaleAndCount(allFinite);
    Value newScaleTensor = tensor::FromElementsOp::create(
        builder, loc, scaleType, ValueRange{newScale});
    Value newCountTensor = tensor::FromElementsOp::create(
        builder, loc, counterType, ValueRange{newCount});
    if (options.state == ScaleStateKind::Globals) {
      ml_program::GlobalStoreOp::create(builder, loc, scaleGlobal,
                                        newScaleTensor);
      ml_program::GlobalStoreOp::create(builder, loc, counterGlobal,
                                        newCountTensor);
    } else {
      results.push_back({newScaleTensor, role("loss_scale")});
      results.push_back({newCountTensor, role("good_steps")});
    }
  }
  if (stepOk)
    results.push_back({stepOk, role("step_ok")});
  for (auto [value, attrs] : results) {
    unsigned index = func.getNumResults();
    (void)func.insertResult(index, value.getType(), attrs);
    ret.getOperandsMutable().append(value);
  }
}

ScaleCounts mlir::amp::scaleTrainingStep(func::FuncOp func,
                                         StepMarkers &markers,
                                         const ScaleOptions &options) {
  auto [unscaled, guarded] = StepScaler(func, markers, options).run();
  return {unscaled, guarded};
}
