//===- OpCost.cpp - FLOPs and bytes of one op for the AMP report ----------===//
//
// Contractions: 2 x the product of the loop bounds of a linalg contraction or
// convolution (matmul 2*M*N*K, batch_matmul 2*B*M*N*K, conv_2d_nhwc_hwcf
// 2*N*OH*OW*F*KH*KW*C, a contraction linalg.generic from its loop bounds) and
// the same products for the TOSA contractions. Other ops: one FLOP per
// element per float op of their body. Bytes: every tensor operand the op
// reads and every result it writes, except for ops that only change
// metadata (reshapes, empty tensors, constants, markers), which move none.
//
//===----------------------------------------------------------------------===//

#include "amp/Reports/OpCost.h"
#include "amp/Analysis/PrecisionPainting.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/BuiltinTypes.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::amp;

bool mlir::amp::isLowFloat(Type elementType) {
  return elementType.isF16() || elementType.isBF16();
}

static std::optional<int64_t> elementBytes(Type type) {
  if (auto complex = dyn_cast<ComplexType>(type)) {
    std::optional<int64_t> part = elementBytes(complex.getElementType());
    return part ? std::optional<int64_t>(2 * *part) : std::nullopt;
  }
  if (type.isIndex())
    return 8;
  if (type.isIntOrFloat())
    return (type.getIntOrFloatBitWidth() + 7) / 8;
  return std::nullopt;
}

std::optional<int64_t> mlir::amp::getNumElements(Type type) {
  if (auto shaped = dyn_cast<ShapedType>(type)) {
    if (!shaped.hasStaticShape())
      return std::nullopt;
    return shaped.getNumElements();
  }
  return 1;
}

std::optional<int64_t> mlir::amp::getStorageBytes(Type type) {
  std::optional<int64_t> size = elementBytes(getElementTypeOrSelf(type));
  std::optional<int64_t> count = getNumElements(type);
  if (!size || !count)
    return std::nullopt;
  return *size * *count;
}

namespace {
/// Accumulates bytes; remembers a dynamic shape.
struct ByteCounter {
  int64_t bytes = 0;
  bool unknown = false;
  void add(Type type, int64_t times = 1) {
    // Scalars live in registers.
    if (!isa<ShapedType>(type))
      return;
    if (std::optional<int64_t> size = getStorageBytes(type))
      bytes += times * *size;
    else
      unknown = true;
  }
};
} // namespace

/// Ops that move no data: they only change metadata, create nothing that is
/// stored, or are identities.
static bool isMetadataOnly(Operation *op) {
  if (op->hasTrait<OpTrait::ConstantLike>() ||
      op->hasTrait<OpTrait::IsTerminator>())
    return true;
  if (isa<tensor::EmptyOp, tensor::ExpandShapeOp, tensor::CollapseShapeOp,
          tensor::ReshapeOp, tensor::CastOp, tensor::BitcastOp, tensor::DimOp,
          tensor::RankOp, tosa::ReshapeOp, func::CallOp>(op))
    return true;
  // The training-step markers are identities.
  return op->getName().getDialectNamespace() == "amp";
}

/// Float ops in a linalg body, per iteration.
static int64_t bodyFlops(Block &body) {
  int64_t count = 0;
  for (Operation &op : body.without_terminator()) {
    if (isFloatCast(&op) || op.hasTrait<OpTrait::ConstantLike>() ||
        isa<linalg::IndexOp>(op))
      continue;
    if (llvm::any_of(op.getResultTypes(),
                     [](Type t) { return isa<FloatType>(t); }))
      ++count;
  }
  return count;
}

static int64_t product(ArrayRef<int64_t> sizes) {
  int64_t result = 1;
  for (int64_t size : sizes)
    result *= size;
  return result;
}

/// Matmuls, convolutions and their generic forms: multiply-accumulates over
/// reduction loops (pooling windows match the convolution interface but do
/// not multiply).
static bool isContraction(linalg::LinalgOp linalgOp) {
  Operation *op = linalgOp.getOperation();
  if (linalgOp.getNumReductionLoops() == 0 || op->getNumRegions() != 1 ||
      op->getRegion(0).empty())
    return false;
  if (linalg::isaContractionOpInterface(linalgOp))
    return true;
  return linalg::isaConvolutionOpInterface(linalgOp) &&
         llvm::any_of(op->getRegion(0).front(), [](Operation &bodyOp) {
           return isa<arith::MulFOp, arith::MulIOp>(bodyOp);
         });
}

static OpCost linalgCost(linalg::LinalgOp linalgOp) {
  OpCost cost;
  Operation *op = linalgOp.getOperation();
  SmallVector<int64_t> loops = linalgOp.getStaticLoopRanges();
  if (llvm::any_of(loops, ShapedType::isDynamic)) {
    cost.unknown = true;
    return cost;
  }
  int64_t iterations = product(loops);
  if (isContraction(linalgOp)) {
    cost.contraction = true;
    cost.flops = 2 * iterations;
    if (linalgOp.getNumDpsInputs() > 0)
      cost.inputElementType =
          getElementTypeOrSelf(linalgOp.getDpsInputOperand(0)->get());
  } else if (op->getNumRegions() == 1 && !op->getRegion(0).empty()) {
    cost.flops = iterations * bodyFlops(op->getRegion(0).front());
  }
  ByteCounter counter;
  for (OpOperand *input : linalgOp.getDpsInputOperands())
    counter.add(input->get().getType());
  // An init is read only when the body reads it (accumulators, not the
  // `outs` of an elementwise op).
  for (OpOperand &init : linalgOp.getDpsInitsMutable())
    if (linalgOp.payloadUsesValueFromOperand(&init))
      counter.add(init.get().getType());
  for (Type type : op->getResultTypes())
    counter.add(type);
  cost.bytes = counter.bytes;
  cost.unknown = counter.unknown;
  return cost;
}

/// 2 x output elements x multiply-adds per output element, for a TOSA
/// contraction; nullopt if `op` is none or a shape is dynamic.
static std::optional<OpCost> tosaContractionCost(Operation *op) {
  auto staticType = [](Value value) -> ShapedType {
    auto type = dyn_cast<ShapedType>(value.getType());
    return type && type.hasStaticShape() ? type : ShapedType();
  };
  if (!isa<tosa::MatMulOp, tosa::Conv2DOp, tosa::Conv3DOp,
           tosa::DepthwiseConv2DOp, tosa::TransposeConv2DOp>(op))
    return std::nullopt;
  OpCost cost;
  cost.contraction = true;
  cost.inputElementType = getElementTypeOrSelf(op->getOperand(0));
  ShapedType lhs = staticType(op->getOperand(0));
  ShapedType rhs = staticType(op->getOperand(1));
  ShapedType out = staticType(op->getResult(0));
  if (!lhs || !rhs || !out) {
    cost.unknown = true;
    return cost;
  }
  int64_t macs = 0;
  if (isa<tosa::MatMulOp>(op)) {
    // [N, H, C] x [N, C, W] -> [N, H, W]
    macs = out.getNumElements() * lhs.getDimSize(2);
  } else if (isa<tosa::Conv2DOp, tosa::Conv3DOp>(op)) {
    // Weights [OC, KH, KW, (KD,) IC]: each output takes KH*KW*IC MACs.
    macs = out.getNumElements() * (rhs.getNumElements() / rhs.getDimSize(0));
  } else if (isa<tosa::DepthwiseConv2DOp>(op)) {
    // Weights [KH, KW, C, M]: KH*KW MACs per output.
    macs = out.getNumElements() * rhs.getDimSize(0) * rhs.getDimSize(1);
  } else {
    // Transposed conv scatters every input pixel through OC*KH*KW weights.
    macs = lhs.getNumElements() * rhs.getNumElements() / lhs.getDimSize(3);
  }
  cost.flops = 2 * macs;
  ByteCounter counter;
  counter.add(lhs);
  counter.add(rhs);
  counter.add(out);
  cost.bytes = counter.bytes;
  return cost;
}

OpCost mlir::amp::estimateOpCost(Operation *op) {
  if (isMetadataOnly(op))
    return OpCost();
  if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op))
    return linalgCost(linalgOp);
  if (std::optional<OpCost> cost = tosaContractionCost(op))
    return *cost;

  OpCost cost;
  ByteCounter counter;
  if (auto extract = dyn_cast<tensor::ExtractSliceOp>(op)) {
    // Reads and writes the slice only.
    counter.add(extract.getType(), 2);
  } else if (auto insert = dyn_cast<tensor::InsertSliceOp>(op)) {
    // Updates the destination in place.
    counter.add(insert.getSourceType(), 2);
  } else if (isa<tensor::ExtractOp, tensor::InsertOp>(op)) {
    // One element.
  } else {
    for (Type type : op->getOperandTypes())
      counter.add(type);
    for (Type type : op->getResultTypes())
      counter.add(type);
  }
  cost.bytes = counter.bytes;
  cost.unknown = counter.unknown;

  // Elementwise arith / math / TOSA ops: one FLOP per element of their
  // largest float operand or result (reductions read more than they write).
  // linalg.softmax: max, subtract, exp, sum and divide per element.
  if (isFloatCast(op) || isa<tensor::TensorDialect>(op->getDialect()))
    return cost;
  int64_t elements = 0;
  bool floats = false;
  auto visit = [&](Type type) {
    if (!isa<FloatType>(getElementTypeOrSelf(type)))
      return;
    floats = true;
    if (std::optional<int64_t> count = getNumElements(type))
      elements = std::max(elements, *count);
  };
  llvm::for_each(op->getOperandTypes(), visit);
  llvm::for_each(op->getResultTypes(), visit);
  if (!floats)
    return cost;
  cost.flops = elements * (isa<linalg::SoftmaxOp>(op) ? 5 : 1);
  return cost;
}

double mlir::amp::getPeakFlops(const OpCost &cost, const GpuTarget &target) {
  if (cost.contraction && cost.inputElementType) {
    double tensor = cost.inputElementType.isF16()    ? target.peakF16Tensor
                    : cost.inputElementType.isBF16() ? target.peakBF16Tensor
                                                     : 0;
    if (tensor > 0)
      return tensor;
  }
  return target.peakF32;
}

double mlir::amp::getRooflineSeconds(const OpCost &cost,
                                     const GpuTarget &target) {
  return std::max(static_cast<double>(cost.flops) / getPeakFlops(cost, target),
                  static_cast<double>(cost.bytes) / target.bandwidth);
}
