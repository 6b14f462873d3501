//===- PadForTensorCores.cpp - The amp-pad-for-tensor-cores pass ----------===//
//
// Pads M, N, K of low-precision linalg.matmul / linalg.batch_matmul and the
// channels C, F of linalg.conv_2d_nhwc_hwcf / linalg.conv_2d_nchw_fchw on
// tensors to a multiple of 8 (16 for int8), the alignment Tensor Core
// kernels want, and slices the result back. Zero padding is exact: padded
// K / C entries multiply zeros, padded M / N / F entries of the result are
// sliced away. A cost rule (docs/tensor-cores.md) skips ops whose padded
// iteration space would grow by more than max-flop-growth.
//
//===----------------------------------------------------------------------===//

#include "amp/Transforms/Passes.h"

#include "amp/Transforms/PassStatistics.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StructuredOpsUtils.h"
#include "mlir/IR/AffineExpr.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <optional>
#include <string>

namespace mlir::amp {
#define GEN_PASS_DEF_PADFORTENSORCORESPASS
#include "amp/Transforms/Passes.h.inc"
} // namespace mlir::amp

#define DEBUG_TYPE "amp-pad-for-tensor-cores"

using namespace mlir;
using namespace mlir::amp;

namespace {

/// The loop dimensions of one op that Tensor Cores want aligned, with the
/// names the remarks use (M, N, K or C, F).
struct PadDims {
  SmallVector<unsigned, 3> dims;
  SmallVector<StringRef, 3> names;
};

/// The static size of every loop dimension to pad, and its padded size.
struct PadPlan {
  PadDims what;
  SmallVector<int64_t, 3> sizes;
  SmallVector<int64_t, 3> padded;

  /// Padded multiply-adds over original ones: the other loop dimensions
  /// are unchanged, so only the padded ones enter the ratio.
  double workRatio() const {
    double ratio = 1.0;
    for (auto [size, pad] : llvm::zip(sizes, padded))
      if (size != pad)
        ratio *= static_cast<double>(pad) / static_cast<double>(size);
    return ratio;
  }
  bool isAligned() const { return sizes == padded; }
};

} // namespace

/// M, N, K of a matmul / batch_matmul (whatever its indexing maps say), or
/// the input and output channels of a 2-D convolution. Batch, spatial and
/// window dimensions are never padded.
static std::optional<PadDims> getPadDims(linalg::LinalgOp op) {
  if (isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op.getOperation())) {
    FailureOr<linalg::ContractionDimensions> dims =
        linalg::inferContractionDims(op);
    if (failed(dims) || dims->m.size() != 1 || dims->n.size() != 1 ||
        dims->k.size() != 1)
      return std::nullopt;
    return PadDims{{dims->m[0], dims->n[0], dims->k[0]}, {"M", "N", "K"}};
  }
  if (isa<linalg::Conv2DNhwcHwcfOp, linalg::Conv2DNchwFchwOp>(
          op.getOperation())) {
    FailureOr<linalg::ConvolutionDimensions> dims =
        linalg::inferConvolutionDims(op);
    if (failed(dims) || dims->inputChannel.size() != 1 ||
        dims->outputChannel.size() != 1)
      return std::nullopt;
    return PadDims{{dims->inputChannel[0], dims->outputChannel[0]}, {"C", "F"}};
  }
  return std::nullopt;
}

static bool isTensorCoreFloat(Type type) {
  return isa<Float16Type, BFloat16Type>(type);
}

/// "M 30->32, K 70->72" for the dimensions that change.
static std::string describePadding(const PadPlan &plan) {
  std::string text;
  llvm::raw_string_ostream os(text);
  llvm::ListSeparator sep;
  for (auto [name, size, pad] :
       llvm::zip(plan.what.names, plan.sizes, plan.padded))
    if (size != pad)
      os << sep << name << " " << size << "->" << pad;
  return text;
}

static std::string formatNumber(double value) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << llvm::format("%g", value);
  return text;
}

static std::string formatPercent(double fraction) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << llvm::format("%.0f%%", fraction * 100.0);
  return text;
}

namespace {

struct PadForTensorCoresPass
    : public amp::impl::PadForTensorCoresPassBase<PadForTensorCoresPass> {
  using Base::Base;

  /// Checks the options before any IR is touched.
  LogicalResult initialize(MLIRContext *ctx) override;
  void runOnOperation() override;

private:
  /// Decides what to do with `op`; returns the plan if it is to be padded
  /// (counting and remarking the other outcomes).
  std::optional<PadPlan> plan(linalg::LinalgOp op);
  /// The multiple the op's inputs align to on Tensor Cores, if any.
  std::optional<int64_t> alignmentOf(linalg::LinalgOp op) const;
  /// Fills the static sizes of the dimensions to pad and their padded
  /// sizes; fails (with a remark for a dynamic one) if one is not static.
  LogicalResult planSizes(linalg::LinalgOp op, int64_t align, PadPlan &result);
  void pad(linalg::LinalgOp op, const PadPlan &plan);

  uint64_t padded = 0, aligned = 0, skippedCost = 0, skippedDynamic = 0;
};

} // namespace

std::optional<int64_t>
PadForTensorCoresPass::alignmentOf(linalg::LinalgOp op) const {
  Type lhs = getElementTypeOrSelf(op.getDpsInputOperand(0)->get().getType());
  Type rhs = getElementTypeOrSelf(op.getDpsInputOperand(1)->get().getType());
  if (isTensorCoreFloat(lhs) && isTensorCoreFloat(rhs))
    return int64_t(multiple);
  if (lhs.isInteger(8) && rhs.isInteger(8))
    return int64_t(int8Multiple);
  return std::nullopt; // f32 and other inputs: no Tensor Core alignment.
}

LogicalResult PadForTensorCoresPass::planSizes(linalg::LinalgOp op,
                                               int64_t align, PadPlan &result) {
  // Every operand dimension that is one of the loop dimensions to pad must
  // be static; a loop dimension used inside a compound index (never the
  // case for the named ops above) cannot be padded.
  for (auto [name, dim] : llvm::zip(result.what.names, result.what.dims)) {
    int64_t size = ShapedType::kDynamic;
    for (OpOperand &operand : op->getOpOperands()) {
      auto type = cast<RankedTensorType>(operand.get().getType());
      AffineMap map = op.getMatchingIndexingMap(&operand);
      for (auto [pos, expr] : llvm::enumerate(map.getResults())) {
        auto dimExpr = dyn_cast<AffineDimExpr>(expr);
        if (!dimExpr) {
          if (expr.isFunctionOfDim(dim))
            return failure();
          continue;
        }
        if (dimExpr.getPosition() != dim)
          continue;
        if (type.isDynamicDim(pos)) {
          ++numSkippedDynamic;
          ++skippedDynamic;
          op->emitRemark() << "amp-pad-for-tensor-cores: not padded: "
                           << "dimension " << name << " is dynamic";
          return failure();
        }
        size = type.getDimSize(pos);
      }
    }
    if (ShapedType::isDynamic(size))
      return failure();
    result.sizes.push_back(size);
    result.padded.push_back(llvm::alignTo(size, align));
  }
  return success();
}

std::optional<PadPlan> PadForTensorCoresPass::plan(linalg::LinalgOp op) {
  // On buffers a pad would need a copy and a new allocation: the pass works
  // before bufferization only.
  if (!op.hasPureTensorSemantics() || op.getNumDpsInputs() != 2 ||
      op.getNumDpsInits() != 1)
    return std::nullopt;
  std::optional<int64_t> align = alignmentOf(op);
  if (!align)
    return std::nullopt;
  std::optional<PadDims> what = getPadDims(op);
  if (!what) {
    if (explain)
      op->emitRemark() << "amp-pad-for-tensor-cores: not padded: the "
                          "indexing maps are not a GEMM / convolution with "
                          "one M, N, K / C, F dimension each";
    return std::nullopt;
  }
  // An empty operand means no work: nothing to gain, and an empty result
  // cannot be sliced.
  for (Value operand : op->getOperands()) {
    auto type = dyn_cast<RankedTensorType>(operand.getType());
    if (!type || llvm::is_contained(type.getShape(), 0))
      return std::nullopt;
  }
  PadPlan result{*what, {}, {}};
  if (failed(planSizes(op, *align, result)))
    return std::nullopt;

  if (result.isAligned()) {
    ++numAligned;
    ++aligned;
    if (explain)
      op->emitRemark() << "amp-pad-for-tensor-cores: already aligned to "
                       << *align;
    return std::nullopt;
  }
  double growth = result.workRatio() - 1.0;
  if (growth > maxFlopGrowth) {
    ++numSkippedCost;
    ++skippedCost;
    op->emitRemark() << "amp-pad-for-tensor-cores: not padded: "
                     << describePadding(result) << " would add "
                     << formatPercent(growth)
                     << " multiply-adds (max-flop-growth "
                     << formatPercent(maxFlopGrowth) << ")";
    return std::nullopt;
  }
  // The zero of every operand's element type must exist (f16, bf16, i8 and
  // the usual accumulators all have one).
  Builder builder(op.getContext());
  for (Value operand : op->getOperands())
    if (!builder.getZeroAttr(getElementTypeOrSelf(operand.getType())))
      return std::nullopt;
  if (explain)
    op->emitRemark() << "amp-pad-for-tensor-cores: padded "
                     << describePadding(result) << " (+"
                     << formatPercent(growth) << " multiply-adds)";
  return result;
}

/// Ours, not upstream's linalg::rewriteAsPaddedOp (LinalgPaddingOptions with
/// padToMultipleOf), which was tried on test/PadForTensorCores/pad.mlir with
/// MLIR 22: for an operand with a dynamic dimension that is not padded (a
/// batch) it computes a zero padding from tensor.dim + affine.apply and pads
/// that dimension too; it slices every result back even when only K / C was
/// padded (the result keeps its shape); and it creates a zero constant per
/// pad. The output needed a canonicalize + CSE to become what this writes
/// directly, and the painting of a second run saw the extra ops.
void PadForTensorCoresPass::pad(linalg::LinalgOp op, const PadPlan &plan) {
  OpBuilder builder(op);
  Location loc = op.getLoc();
  llvm::SmallDenseMap<unsigned, int64_t, 4> paddedSize;
  for (auto [dim, size] : llvm::zip(plan.what.dims, plan.padded))
    paddedSize[dim] = size;

  // One zero per element type, shared by the operands of this op.
  llvm::SmallDenseMap<Type, Value, 4> zeros;
  auto getZero = [&](Type elementType) {
    Value &zero = zeros[elementType];
    if (!zero)
      zero = arith::ConstantOp::create(
          builder, loc, cast<TypedAttr>(builder.getZeroAttr(elementType)));
    return zero;
  };

  SmallVector<Value> operands;
  for (OpOperand &operand : op->getOpOperands()) {
    auto type = cast<RankedTensorType>(operand.get().getType());
    AffineMap map = op.getMatchingIndexingMap(&operand);
    SmallVector<int64_t> shape(type.getShape());
    SmallVector<OpFoldResult> low, high;
    bool grows = false;
    for (auto [pos, expr] : llvm::enumerate(map.getResults())) {
      int64_t extra = 0;
      if (auto dimExpr = dyn_cast<AffineDimExpr>(expr)) {
        auto it = paddedSize.find(dimExpr.getPosition());
        if (it != paddedSize.end()) {
          extra = it->second - shape[pos];
          shape[pos] = it->second;
        }
      }
      grows |= extra != 0;
      low.push_back(builder.getIndexAttr(0));
      high.push_back(builder.getIndexAttr(extra));
    }
    if (!grows) {
      operands.push_back(operand.get());
      continue;
    }
    auto paddedType =
        RankedTensorType::get(shape, type.getElementType(), type.getEncoding());
    operands.push_back(tensor::PadOp::create(builder, loc, paddedType,
                                             operand.get(), low, high,
                                             getZero(type.getElementType())));
  }

  SmallVector<Type> resultTypes;
  for (OpOperand &init : op.getDpsInitsMutable())
    resultTypes.push_back(operands[init.getOperandNumber()].getType());
  Operation *paddedOp =
      mlir::clone(builder, op.getOperation(), resultTypes, operands);

  // Slice every result back to the shape of its original `outs`.
  for (auto [result, init, paddedResult] :
       llvm::zip(op->getResults(), op.getDpsInits(), paddedOp->getResults())) {
    auto type = cast<RankedTensorType>(result.getType());
    if (paddedResult.getType() == type) { // only K / C was padded
      result.replaceAllUsesWith(paddedResult);
      continue;
    }
    SmallVector<OpFoldResult> offsets(type.getRank(), builder.getIndexAttr(0));
    SmallVector<OpFoldResult> strides(type.getRank(), builder.getIndexAttr(1));
    SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(builder, loc, init);
    Value slice = tensor::ExtractSliceOp::create(
        builder, loc, type, paddedResult, offsets, sizes, strides);
    result.replaceAllUsesWith(slice);
  }
  op->erase();
}

LogicalResult PadForTensorCoresPass::initialize(MLIRContext *ctx) {
  Location loc = UnknownLoc::get(ctx);
  if (multiple < 1 || int8Multiple < 1)
    return emitError(loc) << "amp-pad-for-tensor-cores: multiple and "
                             "int8-multiple must be >= 1 (got multiple="
                          << static_cast<int64_t>(multiple)
                          << ", int8-multiple="
                          << static_cast<int64_t>(int8Multiple) << ")";
  if (!(maxFlopGrowth >= 0.0) || std::isinf(maxFlopGrowth))
    return emitError(loc) << "amp-pad-for-tensor-cores: max-flop-growth must "
                             "be a finite number >= 0 (got "
                          << formatNumber(maxFlopGrowth) << ")";
  return success();
}

void PadForTensorCoresPass::runOnOperation() {
  ModuleOp module = getOperation();
  padded = aligned = skippedCost = skippedDynamic = 0;
  SmallVector<std::pair<linalg::LinalgOp, PadPlan>> work;
  module.walk([&](linalg::LinalgOp op) {
    if (std::optional<PadPlan> p = plan(op))
      work.emplace_back(op, std::move(*p));
  });
  for (auto &[op, p] : work) {
    pad(op, p);
    ++numPadded;
    ++padded;
  }
  if (printStats)
    printPassStatistics(getArgument(),
                        {{"ops-padded", padded},
                         {"ops-aligned", aligned},
                         {"ops-skipped-cost", skippedCost},
                         {"ops-skipped-dynamic", skippedDynamic}});
  if (work.empty())
    markAllAnalysesPreserved();
}
