//===- LossScaling.cpp - The amp-loss-scaling pass ------------------------===//
//
// Loss scaling around the backward pass of every training step (a func.func
// with an amp.grad_seed, docs/training-step.md):
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
// The rewrite of a function happens only once every function of the module
// passed the checks, so a failing module is left unchanged.
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/Amp/AmpOps.h"
#include "amp/Transforms/PassStatistics.h"
#include "amp/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MLProgram/IR/MLProgram.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>

namespace mlir::amp {
#define GEN_PASS_DEF_LOSSSCALINGPASS
#include "amp/Transforms/Passes.h.inc"
} // namespace mlir::amp

#define DEBUG_TYPE "amp-loss-scaling"

using namespace mlir;
using namespace mlir::amp;

namespace {

enum class ScalingMode { Dynamic, Static, None };
enum class StateKind { Args, Globals };

/// The markers of one function, in program order.
struct StepMarkers {
  SmallVector<GradSeedOp, 1> seeds;
  SmallVector<ParamGradOp> grads;
  SmallVector<StateUpdateOp> updates;
};

struct LossScalingPass
    : public amp::impl::LossScalingPassBase<LossScalingPass> {
  using Base::Base;

  /// Checks the options before any IR is touched: one error line, no dump
  /// of the module.
  LogicalResult initialize(MLIRContext *ctx) override;
  void runOnOperation() override;

private:
  LogicalResult checkStep(Operation *function, StepMarkers &markers);
  void scaleStep(func::FuncOp func, StepMarkers &markers);

  ScalingMode modeValue = ScalingMode::Dynamic;
  StateKind stateValue = StateKind::Args;
  // Plain counters: Debian's Release MLIR compiles Statistic to a no-op.
  uint64_t functionsScaled = 0, gradientsUnscaled = 0, updatesGuarded = 0;
};

} // namespace

static std::string formatDouble(double value) {
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

LogicalResult LossScalingPass::initialize(MLIRContext *ctx) {
  auto fail = [&]() {
    return emitError(UnknownLoc::get(ctx)) << "amp-loss-scaling: ";
  };
  if (mode == "dynamic")
    modeValue = ScalingMode::Dynamic;
  else if (mode == "static")
    modeValue = ScalingMode::Static;
  else if (mode == "none")
    modeValue = ScalingMode::None;
  else
    return fail() << "unknown mode '" << mode
                  << "' (expected dynamic, static or none)";
  if (state == "args")
    stateValue = StateKind::Args;
  else if (state == "globals")
    stateValue = StateKind::Globals;
  else
    return fail() << "unknown state '" << state
                  << "' (expected args or globals)";
  const double maxF32 = std::numeric_limits<float>::max();
  if (!(initScale > 0 && initScale <= maxF32))
    return fail() << "init-scale must be a finite f32 > 0 (got "
                  << formatDouble(initScale) << ")";
  if (!(growthFactor > 1 && growthFactor <= maxF32))
    return fail() << "growth-factor must be > 1 (got "
                  << formatDouble(growthFactor) << ")";
  if (!(backoffFactor > 0 && backoffFactor < 1))
    return fail() << "backoff-factor must be in (0, 1) (got "
                  << formatDouble(backoffFactor) << ")";
  if (growthInterval < 1 || growthInterval > INT32_MAX)
    return fail() << "growth-interval must be in [1, 2147483647] (got "
                  << static_cast<int64_t>(growthInterval) << ")";
  if (!(minScale > 0 && minScale <= maxF32))
    return fail() << "min-scale must be a finite f32 > 0 (got "
                  << formatDouble(minScale) << ")";
  if (!(maxScale > 0))
    return fail() << "max-scale must be > 0 (got " << formatDouble(maxScale)
                  << ")";
  if (minScale > maxScale)
    return fail() << "min-scale (" << formatDouble(minScale)
                  << ") must not exceed max-scale (" << formatDouble(maxScale)
                  << ")";
  return success();
}

LogicalResult LossScalingPass::checkStep(Operation *function,
                                         StepMarkers &markers) {
  if (markers.seeds.empty()) {
    // State updates alone are left to amp-strip-markers.
    if (markers.grads.empty())
      return success();
    return markers.grads.front().emitError()
           << "amp-loss-scaling: amp.param_grad in a function without "
              "amp.grad_seed: the scale of its gradients is unknown (mark "
              "the loss with amp.grad_seed)";
  }
  auto func = dyn_cast<func::FuncOp>(function);
  if (!func)
    return function->emitError()
           << "amp-loss-scaling: a training step must be a func.func (got '"
           << function->getName() << "')";
  if (!func.getBody().hasOneBlock())
    return func.emitError()
           << "amp-loss-scaling: training step @" << func.getName()
           << " has more than one block; only single-block bodies are "
              "supported (structured control flow: scf)";
  Block &body = func.getBody().front();
  for (ParamGradOp grad : markers.grads)
    if (grad->getBlock() != &body)
      return grad.emitError()
             << "amp-loss-scaling: amp.param_grad must be directly in the "
                "body of @"
             << func.getName()
             << ", not in a nested region: every gradient feeds the "
                "step's all-finite check";

  // Updates are guarded once every gradient is known: an update placed
  // before the last gradient is moved after it, which needs its uses to be
  // after it too.
  if (skipOnOverflow && !markers.grads.empty()) {
    Operation *lastGrad = markers.grads.front();
    for (ParamGradOp grad : markers.grads)
      if (lastGrad->isBeforeInBlock(grad))
        lastGrad = grad;
    for (StateUpdateOp update : markers.updates) {
      Operation *ancestor = body.findAncestorOpInBlock(*update);
      if (lastGrad->isBeforeInBlock(ancestor))
        continue;
      if (ancestor != update.getOperation()) {
        InFlightDiagnostic diag =
            update.emitError()
            << "amp-loss-scaling: amp.state_update in a nested region must "
               "come after the last amp.param_grad of the function: the "
               "update is skipped on overflow of any gradient";
        diag.attachNote(lastGrad->getLoc()) << "the last amp.param_grad";
        return diag;
      }
      for (Operation *user : update->getUsers()) {
        Operation *userAncestor = body.findAncestorOpInBlock(*user);
        if (lastGrad->isBeforeInBlock(userAncestor))
          continue;
        InFlightDiagnostic diag =
            update.emitError()
            << "amp-loss-scaling: the result of this amp.state_update is "
               "used before the last amp.param_grad of the function; the "
               "update can only be skipped once every gradient is known";
        diag.attachNote(user->getLoc()) << "used here";
        diag.attachNote(lastGrad->getLoc()) << "the last amp.param_grad";
        return diag;
      }
    }
  }

  // Appending the scale state changes the signature, which callers in the
  // module could not follow.
  if (stateValue == StateKind::Args) {
    ModuleOp module = getOperation();
    std::optional<SymbolTable::UseRange> uses =
        SymbolTable::getSymbolUses(func, module);
    if (uses && !uses->empty()) {
      InFlightDiagnostic diag =
          func.emitError()
          << "amp-loss-scaling{state=args}: training step @" << func.getName()
          << " gets loss-scale arguments and results, but it is referenced "
             "in the module; call it from outside the module or use "
             "state=globals";
      for (const SymbolTable::SymbolUse &use : *uses)
        diag.attachNote(use.getUser()->getLoc()) << "referenced here";
      return diag;
    }
  }
  return success();
}

void LossScalingPass::scaleStep(func::FuncOp func, StepMarkers &markers) {
  MLIRContext *ctx = &getContext();
  Block &body = func.getBody().front();
  Location loc = markers.seeds.front().getLoc();
  auto f32 = Float32Type::get(ctx);
  auto i32 = IntegerType::get(ctx, 32);
  auto scaleType = RankedTensorType::get({}, f32);
  auto counterType = RankedTensorType::get({}, i32);
  auto role = [&](StringRef name) {
    return DictionaryAttr::get(ctx,
                               {NamedAttribute(StringAttr::get(ctx, "amp.role"),
                                               StringAttr::get(ctx, name))});
  };
  auto f32Constant = [&](OpBuilder &builder, double value) -> Value {
    return arith::ConstantOp::create(builder, loc,
                                     builder.getF32FloatAttr(value));
  };
  auto i32Constant = [&](OpBuilder &builder, int64_t value) -> Value {
    return arith::ConstantOp::create(builder, loc,
                                     builder.getI32IntegerAttr(value));
  };

  // The scale S (and the counter) at the function entry.
  OpBuilder builder(ctx);
  builder.setInsertionPointToStart(&body);
  Value scale, counter;
  FlatSymbolRefAttr scaleGlobal, counterGlobal;
  if (modeValue == ScalingMode::Static) {
    scale = f32Constant(builder, initScale);
  } else {
    Value scaleTensor, counterTensor;
    if (stateValue == StateKind::Args) {
      unsigned index = func.getNumArguments();
      (void)func.insertArgument(index, scaleType, role("loss_scale"), loc);
      (void)func.insertArgument(index + 1, counterType, role("good_steps"),
                                loc);
      scaleTensor = body.getArgument(index);
      counterTensor = body.getArgument(index + 1);
    } else {
      ModuleOp module = getOperation();
      SymbolTable symbols(module);
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
                    DenseElementsAttr::get(scaleType,
                                           builder.getF32FloatAttr(initScale)));
      counterGlobal = addGlobal(
          "_good_steps", counterType,
          DenseElementsAttr::get(counterType, builder.getI32IntegerAttr(0)));
      scaleTensor = ml_program::GlobalLoadOp::create(builder, loc, scaleType,
                                                     scaleGlobal);
      counterTensor = ml_program::GlobalLoadOp::create(
          builder, loc, counterType, counterGlobal);
    }
    scale = tensor::ExtractOp::create(builder, loc, scaleTensor, ValueRange{});
    counter =
        tensor::ExtractOp::create(builder, loc, counterTensor, ValueRange{});
  }
  Value inverseScale =
      arith::DivFOp::create(builder, loc, f32Constant(builder, 1.0), scale);
  Value zero = f32Constant(builder, 0.0);
  Operation *flagPoint = inverseScale.getDefiningOp();

  // The seed is the scale.
  for (GradSeedOp seed : markers.seeds) {
    OpBuilder seedBuilder(seed);
    auto lossType = cast<FloatType>(getElementTypeOrSelf(seed.getType()));
    // A constant scale that a narrower type cannot hold makes every step
    // overflow (a dynamic one backs off below it after one skipped step).
    if (modeValue == ScalingMode::Static) {
      if (overflowsIn(initScale, lossType))
        seed.emitWarning() << "amp-loss-scaling: the loss is "
                           << getTypeName(lossType) << ", where the scale "
                           << formatDouble(initScale)
                           << " overflows: every step will be skipped";
      for (Operation *user : seed->getUsers()) {
        auto trunc = dyn_cast<arith::TruncFOp>(user);
        if (!trunc)
          continue;
        auto to = cast<FloatType>(getElementTypeOrSelf(trunc.getType()));
        if (overflowsIn(initScale, to))
          trunc.emitWarning()
              << "amp-loss-scaling: the seed is truncated to "
              << getTypeName(to) << " here, where the scale "
              << formatDouble(initScale)
              << " overflows: every step will be skipped (use a smaller "
                 "init-scale or mode=dynamic)";
      }
    }
    Value seedValue =
        splatLike(seedBuilder, seed.getLoc(),
                  convertFloat(seedBuilder, seed.getLoc(), scale, lossType),
                  seed.getLoss());
    seed.replaceAllUsesWith(seedValue);
    seed.erase();
  }

  // Unscale every gradient in f32 and probe it for inf / NaN.
  SmallVector<Value> probes;
  for (ParamGradOp grad : markers.grads) {
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
    probes.push_back(probe);
    flagPoint = probe.getDefiningOp();

    // Users get the f32 gradient: an arith.extf to f32 of the marker is
    // the unscaled value itself; other users of a narrower gradient get it
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
        truncated = arith::TruncFOp::create(truncBuilder, gradLoc,
                                            grad.getType(), unscaled);
      }
      use.set(truncated);
    }
    grad.erase();
    ++gradientsUnscaled;
  }

  // One all-finite flag after the last gradient.
  builder.setInsertionPointAfter(flagPoint);
  Value allFinite;
  if (probes.empty()) {
    allFinite = arith::ConstantOp::create(builder, loc, builder.getBoolAttr(1));
  } else {
    Value sum = probes.front();
    for (Value probe : ArrayRef(probes).drop_front())
      sum = arith::AddFOp::create(builder, loc, sum, probe);
    allFinite = arith::CmpFOp::create(builder, loc, arith::CmpFPredicate::OEQ,
                                      sum, zero);
  }
  Operation *flagOp = allFinite.getDefiningOp();

  // Skip the state updates of a step that overflowed.
  for (StateUpdateOp update : markers.updates) {
    Value replacement = update.getNewValue();
    if (skipOnOverflow) {
      OpBuilder updateBuilder(ctx);
      Operation *ancestor = body.findAncestorOpInBlock(*update);
      if (flagOp->isBeforeInBlock(ancestor))
        updateBuilder.setInsertionPoint(update);
      else
        updateBuilder.setInsertionPointAfter(flagOp);
      replacement =
          arith::SelectOp::create(updateBuilder, update.getLoc(), allFinite,
                                  update.getNewValue(), update.getState());
      ++updatesGuarded;
    }
    update.replaceAllUsesWith(replacement);
    update.erase();
  }

  // The scale update (GradScaler's rule) and the results, before the return.
  auto ret = cast<func::ReturnOp>(body.getTerminator());
  builder.setInsertionPoint(ret);
  Value stepOk = tensor::FromElementsOp::create(
      builder, loc, RankedTensorType::get({}, builder.getI1Type()),
      ValueRange{allFinite});
  SmallVector<std::pair<Value, DictionaryAttr>> results;
  if (modeValue == ScalingMode::Dynamic) {
    Value zeroCount = i32Constant(builder, 0);
    // Overflow: back off, at least min-scale, and restart counting.
    Value backedOff = arith::MaximumFOp::create(
        builder, loc,
        arith::MulFOp::create(builder, loc, scale,
                              f32Constant(builder, backoffFactor)),
        f32Constant(builder, minScale));
    // Good step: count; at growth-interval grow (if finite, at most
    // max-scale) and restart counting.
    Value next =
        arith::AddIOp::create(builder, loc, counter, i32Constant(builder, 1));
    Value grow =
        arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::sge, next,
                              i32Constant(builder, growthInterval));
    Value grown = arith::MulFOp::create(builder, loc, scale,
                                        f32Constant(builder, growthFactor));
    Value grownFinite = arith::CmpFOp::create(
        builder, loc, arith::CmpFPredicate::OLT, grown,
        f32Constant(builder, std::numeric_limits<double>::infinity()));
    Value clamped = arith::MinimumFOp::create(builder, loc, grown,
                                              f32Constant(builder, maxScale));
    Value grownScale =
        arith::SelectOp::create(builder, loc, grownFinite, clamped, scale);
    Value goodScale =
        arith::SelectOp::create(builder, loc, grow, grownScale, scale);
    Value goodCount =
        arith::SelectOp::create(builder, loc, grow, zeroCount, next);
    Value newScale =
        arith::SelectOp::create(builder, loc, allFinite, goodScale, backedOff);
    Value newCount =
        arith::SelectOp::create(builder, loc, allFinite, goodCount, zeroCount);
    Value newScaleTensor = tensor::FromElementsOp::create(
        builder, loc, scaleType, ValueRange{newScale});
    Value newCountTensor = tensor::FromElementsOp::create(
        builder, loc, counterType, ValueRange{newCount});
    if (stateValue == StateKind::Globals) {
      ml_program::GlobalStoreOp::create(builder, loc, scaleGlobal,
                                        newScaleTensor);
      ml_program::GlobalStoreOp::create(builder, loc, counterGlobal,
                                        newCountTensor);
    } else {
      results.push_back({newScaleTensor, role("loss_scale")});
      results.push_back({newCountTensor, role("good_steps")});
    }
  }
  if (stateValue == StateKind::Args)
    results.push_back({stepOk, role("step_ok")});
  else
    stepOk.getDefiningOp()->erase();
  for (auto [value, attrs] : results) {
    unsigned index = func.getNumResults();
    (void)func.insertResult(index, value.getType(), attrs);
    ret.getOperandsMutable().append(value);
  }
  ++functionsScaled;
}

void LossScalingPass::runOnOperation() {
  ModuleOp module = getOperation();
  functionsScaled = gradientsUnscaled = updatesGuarded = 0;
  auto printStatistics = [&]() {
    numFunctionsScaled += functionsScaled;
    numGradientsUnscaled += gradientsUnscaled;
    numUpdatesGuarded += updatesGuarded;
    if (printStats)
      printPassStatistics(getArgument(),
                          {{"functions-scaled", functionsScaled},
                           {"gradients-unscaled", gradientsUnscaled},
                           {"updates-guarded", updatesGuarded}});
  };

  if (modeValue == ScalingMode::None) {
    if (replaceMarkersByIdentities(module) == 0)
      markAllAnalysesPreserved();
    return printStatistics();
  }

  llvm::MapVector<Operation *, StepMarkers> steps;
  walkMarkers(module, [&](Operation *op) {
    StepMarkers &markers =
        steps[op->getParentOfType<FunctionOpInterface>().getOperation()];
    if (auto seed = dyn_cast<GradSeedOp>(op))
      markers.seeds.push_back(seed);
    else if (auto grad = dyn_cast<ParamGradOp>(op))
      markers.grads.push_back(grad);
    else
      markers.updates.push_back(cast<StateUpdateOp>(op));
  });
  if (steps.empty()) {
    markAllAnalysesPreserved();
    return printStatistics();
  }

  bool ok = true;
  for (auto &[function, markers] : steps)
    ok &= succeeded(checkStep(function, markers));
  if (!ok)
    return signalPassFailure();

  for (auto &[function, markers] : steps)
    if (!markers.seeds.empty())
      scaleStep(cast<func::FuncOp>(function), markers);
  printStatistics();
}
