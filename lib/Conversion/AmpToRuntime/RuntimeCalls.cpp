//===- RuntimeCalls.cpp - Which libamp_rt entry point runs an op ----------===//
//
// The entry point, operand types and scalar arguments of the libamp_rt call
// that implements a linalg matmul or convolution on memrefs (RuntimeCalls.h),
// and the op kinds amp-lower-to-runtime considers (AmpToRuntime.h).
//
//===----------------------------------------------------------------------===//

#include "RuntimeCalls.h"

#include "amp/Conversion/AmpToRuntime/AmpToRuntime.h"
#include "amp/Transforms/BlockedConv.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/AffineExpr.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::amp;

StringRef mlir::amp::getRuntimeTypeName(Type type) {
  if (type.isF16())
    return "f16";
  if (type.isBF16())
    return "bf16";
  if (type.isF32())
    return "f32";
  return "";
}

MemRefType mlir::amp::getDynamicStridedType(MemRefType type) {
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

/// Which runtime entry point family `op` calls ("matmul", "conv2d_nchw_fchw",
/// ...), with its scalar arguments (transposes, strides and paddings) set
/// in `call`.
static FailureOr<StringRef> matchRuntimeKind(linalg::LinalgOp op,
                                             ArrayRef<MemRefType> types,
                                             RuntimeCall &call,
                                             std::string &why) {
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
           : blockedForm == BlockedConvForm::FilterGradient
               ? "conv2d_backward_filter_nchw16c"
           : blockedForm == BlockedConvForm::PlainInputFilterGradient
               ? "conv2d_backward_filter_nchw_nchw16c"
               : "conv2d_nchw16c_fchw";
    call.scalarTypes.assign(4, IntegerType::get(ctx, 64));
    call.scalars.assign(scalars.begin(), scalars.end());
  } else {
    why = "not a runtime op";
    return failure();
  }
  return kind;
}

FailureOr<RuntimeCall> mlir::amp::matchRuntimeCall(linalg::LinalgOp op,
                                                   bool includeF32,
                                                   std::string &why) {
  FailureOr<SmallVector<MemRefType, 3>> operandTypes =
      getStridedOperandTypes(op, why);
  if (failed(operandTypes))
    return failure();
  ArrayRef<MemRefType> types = *operandTypes;
  Type in = types[0].getElementType();
  StringRef inName = getRuntimeTypeName(in);
  StringRef outName = getRuntimeTypeName(types[2].getElementType());
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
  FailureOr<StringRef> kind = matchRuntimeKind(op, types, call, why);
  if (failed(kind))
    return failure();
  call.callee = ("amp_rt_" + *kind + "_" + inName + "_" + outName).str();
  return call;
}

bool mlir::amp::isRuntimeContractionKind(Operation *op) {
  return isa<linalg::MatmulOp, linalg::BatchMatmulOp, linalg::Conv2DNhwcHwcfOp,
             linalg::Conv2DNchwFchwOp, linalg::Conv2DNgchwGfchwOp,
             linalg::DepthwiseConv2DNhwcHwcOp,
             linalg::DepthwiseConv2DNchwChwOp>(op) ||
         (isa<linalg::GenericOp>(op) && op->hasAttr(kBlockedConvAttrName));
}
