//===- BlockConvs.cpp - The amp-block-convs pass --------------------------===//
//
// Keeps the activations of NCHW convolution chains in oneDNN's nChw16c
// layout: each linalg.conv_2d_nchw_fchw (and depthwise_conv_2d_nchw_chw)
// becomes a linalg.generic on
// channel-blocked tensors between a linalg.pack and a linalg.unpack, and
// upstream's data-layout propagation moves those through the elementwise
// ops in between until they cancel.
//
//===----------------------------------------------------------------------===//

#include "amp/Transforms/BlockedConv.h"
#include "amp/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/AffineExpr.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"

#include <type_traits>

namespace mlir::amp {
#define GEN_PASS_DEF_BLOCKCONVSPASS
#include "amp/Transforms/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;
using namespace mlir::amp;

SmallVector<AffineMap>
mlir::amp::getBlockedConvIndexingMaps(MLIRContext *context,
                                      ArrayRef<int64_t> stridesAndDilations) {
  AffineExpr n, kb, p, q, ki, cb, ci, r, s;
  bindDims(context, n, kb, p, q, ki, cb, ci, r, s);
  int64_t sh = stridesAndDilations[0], sw = stridesAndDilations[1],
          dh = stridesAndDilations[2], dw = stridesAndDilations[3];
  auto map = [&](ArrayRef<AffineExpr> results) {
    return AffineMap::get(9, 0, results, context);
  };
  return {map({n, cb, p * sh + r * dh, q * sw + s * dw, ci}),
          map({kb * kChannelBlock + ki, cb * kChannelBlock + ci, r, s}),
          map({n, kb, p, q, ki})};
}

SmallVector<utils::IteratorType> mlir::amp::getBlockedConvIteratorTypes() {
  SmallVector<utils::IteratorType> types(5, utils::IteratorType::parallel);
  types.append(4, utils::IteratorType::reduction);
  return types;
}

SmallVector<AffineMap> mlir::amp::getBlockedDepthwiseConvIndexingMaps(
    MLIRContext *context, ArrayRef<int64_t> stridesAndDilations) {
  AffineExpr n, cb, p, q, ci, r, s;
  bindDims(context, n, cb, p, q, ci, r, s);
  int64_t sh = stridesAndDilations[0], sw = stridesAndDilations[1],
          dh = stridesAndDilations[2], dw = stridesAndDilations[3];
  auto map = [&](ArrayRef<AffineExpr> results) {
    return AffineMap::get(7, 0, results, context);
  };
  return {map({n, cb, p * sh + r * dh, q * sw + s * dw, ci}),
          map({cb * kChannelBlock + ci, r, s}), map({n, cb, p, q, ci})};
}

SmallVector<utils::IteratorType>
mlir::amp::getBlockedDepthwiseConvIteratorTypes() {
  SmallVector<utils::IteratorType> types(5, utils::IteratorType::parallel);
  types.append(2, utils::IteratorType::reduction);
  return types;
}

SmallVector<AffineMap> mlir::amp::getPlainInputBlockedConvIndexingMaps(
    MLIRContext *context, ArrayRef<int64_t> stridesAndDilations) {
  AffineExpr n, kb, p, q, ki, c, r, s;
  bindDims(context, n, kb, p, q, ki, c, r, s);
  int64_t sh = stridesAndDilations[0], sw = stridesAndDilations[1],
          dh = stridesAndDilations[2], dw = stridesAndDilations[3];
  auto map = [&](ArrayRef<AffineExpr> results) {
    return AffineMap::get(8, 0, results, context);
  };
  return {map({n, c, p * sh + r * dh, q * sw + s * dw}),
          map({kb * kChannelBlock + ki, c, r, s}), map({n, kb, p, q, ki})};
}

SmallVector<utils::IteratorType>
mlir::amp::getPlainInputBlockedConvIteratorTypes() {
  SmallVector<utils::IteratorType> types(5, utils::IteratorType::parallel);
  types.append(3, utils::IteratorType::reduction);
  return types;
}

SmallVector<AffineMap> mlir::amp::getBlockedFilterGradIndexingMaps(
    MLIRContext *context, ArrayRef<int64_t> stridesAndDilations) {
  AffineExpr kb, ki, cb, ci, r, s, n, p, q;
  bindDims(context, kb, ki, cb, ci, r, s, n, p, q);
  int64_t sh = stridesAndDilations[0], sw = stridesAndDilations[1],
          dh = stridesAndDilations[2], dw = stridesAndDilations[3];
  auto map = [&](ArrayRef<AffineExpr> results) {
    return AffineMap::get(9, 0, results, context);
  };
  return {map({n, cb, p * sh + r * dh, q * sw + s * dw, ci}),
          map({n, kb, p, q, ki}),
          map({kb * kChannelBlock + ki, cb * kChannelBlock + ci, r, s})};
}

SmallVector<utils::IteratorType>
mlir::amp::getBlockedFilterGradIteratorTypes() {
  SmallVector<utils::IteratorType> types(6, utils::IteratorType::parallel);
  types.append(3, utils::IteratorType::reduction);
  return types;
}

SmallVector<AffineMap> mlir::amp::getPlainInputFilterGradIndexingMaps(
    MLIRContext *context, ArrayRef<int64_t> stridesAndDilations) {
  AffineExpr kb, ki, c, r, s, n, p, q;
  bindDims(context, kb, ki, c, r, s, n, p, q);
  int64_t sh = stridesAndDilations[0], sw = stridesAndDilations[1],
          dh = stridesAndDilations[2], dw = stridesAndDilations[3];
  auto map = [&](ArrayRef<AffineExpr> results) {
    return AffineMap::get(8, 0, results, context);
  };
  return {map({n, c, p * sh + r * dh, q * sw + s * dw}), map({n, kb, p, q, ki}),
          map({kb * kChannelBlock + ki, c, r, s})};
}

SmallVector<utils::IteratorType>
mlir::amp::getPlainInputFilterGradIteratorTypes() {
  SmallVector<utils::IteratorType> types(5, utils::IteratorType::parallel);
  types.append(3, utils::IteratorType::reduction);
  return types;
}

SmallVector<int64_t> mlir::amp::matchBlockedConv(Operation *op,
                                                 BlockedConvForm *form) {
  auto generic = dyn_cast<linalg::GenericOp>(op);
  auto attr = op->getAttrOfType<DenseI64ArrayAttr>(kBlockedConvAttrName);
  if (!generic || !attr || attr.size() != 4 || generic.getNumDpsInputs() != 2 ||
      generic.getNumDpsInits() != 1)
    return {};
  SmallVector<int64_t> scalars(attr.asArrayRef());
  if (llvm::any_of(scalars, [](int64_t v) { return v < 1; }))
    return {};
  MLIRContext *context = op->getContext();
  SmallVector<AffineMap> maps = generic.getIndexingMapsArray();
  SmallVector<utils::IteratorType> iterators = generic.getIteratorTypesArray();
  std::optional<BlockedConvForm> matched;
  if (maps == getBlockedConvIndexingMaps(context, scalars) &&
      iterators == getBlockedConvIteratorTypes())
    matched = BlockedConvForm::Dense;
  else if (maps == getBlockedDepthwiseConvIndexingMaps(context, scalars) &&
           iterators == getBlockedDepthwiseConvIteratorTypes())
    matched = BlockedConvForm::Depthwise;
  else if (maps == getPlainInputBlockedConvIndexingMaps(context, scalars) &&
           iterators == getPlainInputBlockedConvIteratorTypes())
    matched = BlockedConvForm::PlainInput;
  else if (maps == getBlockedFilterGradIndexingMaps(context, scalars) &&
           iterators == getBlockedFilterGradIteratorTypes())
    matched = BlockedConvForm::FilterGradient;
  else if (maps == getPlainInputFilterGradIndexingMaps(context, scalars) &&
           iterators == getPlainInputFilterGradIteratorTypes())
    matched = BlockedConvForm::PlainInputFilterGradient;
  if (!matched)
    return {};
  auto rankOf = [](Value v) {
    auto type = dyn_cast<ShapedType>(v.getType());
    return type ? type.getRank() : -1;
  };
  auto blocked = [&](Value v) {
    return rankOf(v) == 5 &&
           cast<ShapedType>(v.getType()).getDimSize(4) == kChannelBlock;
  };
  bool plainInput = *matched == BlockedConvForm::PlainInput;
  if (*matched == BlockedConvForm::FilterGradient ||
      *matched == BlockedConvForm::PlainInputFilterGradient) {
    bool plainX = *matched == BlockedConvForm::PlainInputFilterGradient;
    if (!(plainX ? rankOf(op->getOperand(0)) == 4
                 : blocked(op->getOperand(0))) ||
        !blocked(op->getOperand(1)) || rankOf(op->getOperand(2)) != 4)
      return {};
  } else {
    int64_t filterRank = *matched == BlockedConvForm::Depthwise ? 3 : 4;
    if (!(plainInput ? rankOf(op->getOperand(0)) == 4
                     : blocked(op->getOperand(0))) ||
        !blocked(op->getOperand(2)) || rankOf(op->getOperand(1)) != filterRank)
      return {};
  }
  auto mulAdd = [](Operation *first, Operation *second) {
    return isa<arith::MulFOp>(first) && isa<arith::AddFOp>(second);
  };
  if (!linalg::detail::isContractionBody(*generic.getBlock(), mulAdd))
    return {};
  if (form)
    *form = *matched;
  return scalars;
}

namespace {

/// `value` (N x C x ...) packed into N x C/16 x ... x 16.
Value packChannels(OpBuilder &b, Location loc, Value value) {
  SmallVector<OpFoldResult> tiles = {b.getIndexAttr(kChannelBlock)};
  Value dest =
      linalg::PackOp::createDestinationTensor(b, loc, value, tiles, {1}, {});
  return linalg::PackOp::create(b, loc, value, dest, {1}, tiles).getResult();
}

/// `blocked` (N x C/16 x ... x 16) unpacked into a tensor of `plain`'s type.
Value unpackChannels(OpBuilder &b, Location loc, Value blocked,
                     RankedTensorType plain) {
  Value dest =
      tensor::EmptyOp::create(b, loc, plain.getShape(), plain.getElementType());
  SmallVector<OpFoldResult> tiles = {b.getIndexAttr(kChannelBlock)};
  return linalg::UnPackOp::create(b, loc, blocked, dest, {1}, tiles)
      .getResult();
}

/// conv_2d_nchw_fchw(x, w) into y  ->  unpack(generic(pack(x), w, pack(y))),
/// and likewise depthwise_conv_2d_nchw_chw (the filter stays CHW).
template <typename ConvOp> struct BlockConv final : OpRewritePattern<ConvOp> {
  using OpRewritePattern<ConvOp>::OpRewritePattern;
  static constexpr bool kDepthwise =
      std::is_same_v<ConvOp, linalg::DepthwiseConv2DNchwChwOp>;

  LogicalResult matchAndRewrite(ConvOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.hasPureTensorSemantics())
      return rewriter.notifyMatchFailure(op, "not on tensors");
    auto x = cast<RankedTensorType>(op.getInputs()[0].getType());
    auto w = cast<RankedTensorType>(op.getInputs()[1].getType());
    auto y = cast<RankedTensorType>(op.getOutputs()[0].getType());
    if (!x.hasStaticShape() || !w.hasStaticShape() || !y.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "dynamic shape");
    if (y.getDimSize(1) % kChannelBlock)
      return rewriter.notifyMatchFailure(op, "channels not blocks of 16");
    // Input channels that 16 does not divide (a stem on RGB images) stay
    // NCHW: the convolution starts a blocked chain (oneDNN's first-layer
    // kernels read NCHW and write nChw16c). Not for depthwise ones, whose
    // input and output channels are the same.
    const bool plainInput = x.getDimSize(1) % kChannelBlock != 0;
    if (plainInput && kDepthwise)
      return rewriter.notifyMatchFailure(op, "channels not blocks of 16");
    // A filter larger than the output is a weight gradient written as a
    // convolution; libamp_rt runs those as oneDNN's backward-weights on the
    // plain tensors. (Autodiff writes no depthwise one that way.)
    if (!kDepthwise &&
        w.getDimSize(2) * w.getDimSize(3) > y.getDimSize(2) * y.getDimSize(3))
      return rewriter.notifyMatchFailure(op, "a weight gradient");
    SmallVector<int64_t> scalars;
    for (int64_t v : op.getStrides().template getValues<int64_t>())
      scalars.push_back(v);
    for (int64_t v : op.getDilations().template getValues<int64_t>())
      scalars.push_back(v);
    Location loc = op.getLoc();
    Value input = plainInput ? op.getInputs()[0]
                             : packChannels(rewriter, loc, op.getInputs()[0]);
    Value init = packChannels(rewriter, loc, op.getOutputs()[0]);
    MLIRContext *context = rewriter.getContext();
    SmallVector<AffineMap> maps =
        kDepthwise   ? getBlockedDepthwiseConvIndexingMaps(context, scalars)
        : plainInput ? getPlainInputBlockedConvIndexingMaps(context, scalars)
                     : getBlockedConvIndexingMaps(context, scalars);
    SmallVector<utils::IteratorType> iterators =
        kDepthwise   ? getBlockedDepthwiseConvIteratorTypes()
        : plainInput ? getPlainInputBlockedConvIteratorTypes()
                     : getBlockedConvIteratorTypes();
    auto generic = linalg::GenericOp::create(
        rewriter, loc, init.getType(), ValueRange{input, op.getInputs()[1]},
        ValueRange{init}, maps, iterators);
    // The convolution's own body: its block arguments are the elements of
    // the input, the filter and the output, as the generic's are.
    rewriter.cloneRegionBefore(op.getRegion(), generic.getRegion(),
                               generic.getRegion().end());
    generic->setAttr(kBlockedConvAttrName,
                     rewriter.getDenseI64ArrayAttr(scalars));
    rewriter.replaceOp(op,
                       unpackChannels(rewriter, loc, generic.getResult(0), y));
    return success();
  }
};

/// The tensor `src` whose first two of four dimensions `v` swaps
/// (v[i, j, h, w] == src[j, i, h, w]): a linalg.transpose, possibly between
/// reshapes that only add or drop unit dimensions (amp-ungroup-summed-convs'
/// form of a strided convolution's output gradient). Null otherwise.
Value getSwappedSource(Value v) {
  auto vType = dyn_cast<RankedTensorType>(v.getType());
  if (!vType || vType.getRank() != 4 || !vType.hasStaticShape())
    return {};
  // dimOf[i]: the dimension of `v` that dimension i of `cur` holds, or -1.
  SmallVector<int64_t> dimOf = {0, 1, 2, 3};
  Value cur = v;
  // Of a group of dimensions that are one dimension on the other side of a
  // reshape, the one that is not a unit (the first if all are); none when
  // two are not units.
  auto holderOf = [](ArrayRef<int64_t> group, RankedTensorType type) {
    int64_t holder = -1;
    for (int64_t d : group) {
      if (type.getDimSize(d) == 1)
        continue;
      if (holder >= 0)
        return int64_t(-2);
      holder = d;
    }
    return holder >= 0 ? holder : group.front();
  };
  // Whether `cur` is the swapped source: the non-unit dimensions of `v`
  // each held by the swapped dimension of `cur`, and the swapped shapes.
  auto isSwapped = [&]() {
    auto type = dyn_cast<RankedTensorType>(cur.getType());
    if (!type || type.getRank() != 4 || !type.hasStaticShape())
      return false;
    const int64_t swap[4] = {1, 0, 2, 3};
    for (int64_t d = 0; d < 4; ++d) {
      if (type.getDimSize(d) != vType.getDimSize(swap[d]))
        return false;
      if (type.getDimSize(d) != 1 && dimOf[d] != swap[d])
        return false;
    }
    return true;
  };
  bool transposed = false;
  for (int step = 0; step < 4; ++step) {
    Operation *def = cur.getDefiningOp();
    if (auto transpose = dyn_cast_or_null<linalg::TransposeOp>(def)) {
      if (!transpose.hasPureTensorSemantics())
        return {};
      // Dimension i of the result is dimension perm[i] of the input.
      SmallVector<int64_t> next(dimOf.size(), -1);
      for (auto [i, p] : llvm::enumerate(transpose.getPermutation()))
        next[p] = dimOf[i];
      dimOf = std::move(next);
      cur = transpose.getInput();
      transposed = true;
    } else if (auto collapse = dyn_cast_or_null<tensor::CollapseShapeOp>(def)) {
      RankedTensorType srcType = collapse.getSrcType();
      SmallVector<int64_t> next(srcType.getRank(), -1);
      for (auto [g, group] :
           llvm::enumerate(collapse.getReassociationIndices())) {
        int64_t holder = holderOf(group, srcType);
        if (holder < 0)
          return {};
        next[holder] = dimOf[g];
      }
      dimOf = std::move(next);
      cur = collapse.getSrc();
    } else if (auto expand = dyn_cast_or_null<tensor::ExpandShapeOp>(def)) {
      RankedTensorType resultType = expand.getResultType();
      SmallVector<int64_t> next(expand.getSrcType().getRank(), -1);
      for (auto [g, group] :
           llvm::enumerate(expand.getReassociationIndices())) {
        int64_t holder = holderOf(group, resultType);
        if (holder < 0)
          return {};
        next[g] = dimOf[holder];
      }
      dimOf = std::move(next);
      cur = expand.getSrc();
    } else {
      break;
    }
    if (transposed && isSwapped())
      return cur;
  }
  return {};
}

/// The weight gradient that autodiff (torch-mlir) writes as a convolution
/// of the transposed, padded input by the transposed output gradient,
///   g = conv_2d_nchw_fchw {strides = d, dilations = s}
///         (pad(transpose(x)), transpose(dy)) : C x K x R x S,
/// (read through a transpose to K x C x R x S), becomes
///   generic(pack(pad(x)), pack(dy)) : K x C x R x S
/// on blocked x and dy (getBlockedFilterGradIndexingMaps, with the forward
/// convolution's strides s and dilations d), so that the activations and
/// gradients of a blocked chain reach libamp_rt's backward-weights without
/// being unblocked and transposed in loops (and reordered back into the
/// blocked layout by oneDNN). A slice that trims the padded input's last
/// rows and columns is dropped: the generic reads what it needs. An input
/// whose channels 16 does not divide (a stem's image) stays NCHW
/// (getPlainInputFilterGradIndexingMaps).
struct BlockFilterGradient final : OpRewritePattern<linalg::Conv2DNchwFchwOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::Conv2DNchwFchwOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.hasPureTensorSemantics())
      return rewriter.notifyMatchFailure(op, "not on tensors");
    auto g = cast<RankedTensorType>(op.getOutputs()[0].getType());
    if (!g.hasStaticShape() || g.getDimSize(1) % kChannelBlock)
      return rewriter.notifyMatchFailure(op, "channels not blocks of 16");
    // Input channels that 16 does not divide (a stem's RGB input) stay
    // NCHW, as in the forward convolution (oneDNN's first-layer kernels).
    const bool plainInput = g.getDimSize(0) % kChannelBlock != 0;
    // The input: [extract_slice of the last rows / columns] [pad of the
    // rows and columns] of the transposed x.
    Value in = op.getInputs()[0];
    if (auto slice = in.getDefiningOp<tensor::ExtractSliceOp>()) {
      if (!slice.hasZeroOffset() || !slice.hasUnitStride() ||
          slice.getSourceType().getRank() != 4 ||
          slice.getType().getRank() != 4 ||
          slice.getSourceType().getDimSize(0) !=
              slice.getType().getDimSize(0) ||
          slice.getSourceType().getDimSize(1) != slice.getType().getDimSize(1))
        return rewriter.notifyMatchFailure(op, "not a trimming slice");
      in = slice.getSource();
    }
    tensor::PadOp pad = in.getDefiningOp<tensor::PadOp>();
    Value padValue;
    SmallVector<int64_t> low, high;
    if (pad) {
      padValue = pad.getConstantPaddingValue();
      std::optional<SmallVector<int64_t>> lo =
          getConstantIntValues(pad.getMixedLowPad());
      std::optional<SmallVector<int64_t>> hi =
          getConstantIntValues(pad.getMixedHighPad());
      if (!padValue || !lo || !hi || (*lo)[0] || (*lo)[1] || (*hi)[0] ||
          (*hi)[1])
        return rewriter.notifyMatchFailure(op, "not a pad of rows / columns");
      low = *lo, high = *hi;
      in = pad.getSource();
    }
    Value x = getSwappedSource(in);
    Value dy = getSwappedSource(op.getInputs()[1]);
    if (!x || !dy)
      return rewriter.notifyMatchFailure(op, "not a transposed weight "
                                             "gradient");
    // Forward strides and dilations: the gradient's dilations and strides.
    SmallVector<int64_t> scalars;
    for (int64_t v : op.getDilations().getValues<int64_t>())
      scalars.push_back(v);
    for (int64_t v : op.getStrides().getValues<int64_t>())
      scalars.push_back(v);

    Location loc = op.getLoc();
    if (pad) {
      auto xType = cast<RankedTensorType>(x.getType());
      SmallVector<int64_t> shape(xType.getShape());
      for (int d = 2; d < 4; ++d)
        shape[d] += low[d] + high[d];
      x = tensor::PadOp::create(
          rewriter, loc, RankedTensorType::get(shape, xType.getElementType()),
          x, getAsIndexOpFoldResult(rewriter.getContext(), low),
          getAsIndexOpFoldResult(rewriter.getContext(), high), padValue);
    }
    // The K x C x R x S output's initial value: the fill it was, or the
    // transposed initial value.
    SmallVector<int64_t> kcrs = {g.getDimSize(1), g.getDimSize(0),
                                 g.getDimSize(2), g.getDimSize(3)};
    Value empty =
        tensor::EmptyOp::create(rewriter, loc, kcrs, g.getElementType());
    Value init;
    if (auto fill = op.getOutputs()[0].getDefiningOp<linalg::FillOp>();
        fill && fill.hasPureTensorSemantics())
      init = linalg::FillOp::create(rewriter, loc, fill.getInputs(),
                                    ValueRange{empty})
                 .getResult(0);
    else
      init = linalg::TransposeOp::create(rewriter, loc, op.getOutputs()[0],
                                         empty, ArrayRef<int64_t>{1, 0, 2, 3})
                 ->getResult(0);
    MLIRContext *context = rewriter.getContext();
    auto generic = linalg::GenericOp::create(
        rewriter, loc, init.getType(),
        ValueRange{plainInput ? x : packChannels(rewriter, loc, x),
                   packChannels(rewriter, loc, dy)},
        ValueRange{init},
        plainInput ? getPlainInputFilterGradIndexingMaps(context, scalars)
                   : getBlockedFilterGradIndexingMaps(context, scalars),
        plainInput ? getPlainInputFilterGradIteratorTypes()
                   : getBlockedFilterGradIteratorTypes());
    // The convolution's body: its arguments are the elements of the input,
    // the output gradient and the accumulator, as the generic's are.
    rewriter.cloneRegionBefore(op.getRegion(), generic.getRegion(),
                               generic.getRegion().end());
    generic->setAttr(kBlockedConvAttrName,
                     rewriter.getDenseI64ArrayAttr(scalars));
    // The C x K x R x S result is the transpose of the gradient; the
    // transpose that reads it back to K x C x R x S folds away with it.
    Value back = tensor::EmptyOp::create(rewriter, loc, g.getShape(),
                                         g.getElementType());
    rewriter.replaceOp(
        op, linalg::TransposeOp::create(rewriter, loc, generic.getResult(0),
                                        back, ArrayRef<int64_t>{1, 0, 2, 3})
                ->getResult(0));
    return success();
  }
};

/// pooling_nchw_max(x, window) into y  ->
/// unpack(generic(pack(x), window, pack(y))), the loops ordered (n, cb, p,
/// q, r, s, ci): 16 channels innermost, which amp-vectorize-elementwise
/// runs as one vector max. A max pool between blocked convolutions (a
/// ResNet stem) then stays in their layout: propagation folds its pack and
/// unpack into theirs.
struct BlockMaxPool final : OpRewritePattern<linalg::PoolingNchwMaxOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::PoolingNchwMaxOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.hasPureTensorSemantics())
      return rewriter.notifyMatchFailure(op, "not on tensors");
    auto x = cast<RankedTensorType>(op.getInputs()[0].getType());
    auto y = cast<RankedTensorType>(op.getOutputs()[0].getType());
    if (!x.hasStaticShape() || !y.hasStaticShape() ||
        x.getDimSize(1) % kChannelBlock != 0)
      return rewriter.notifyMatchFailure(op, "channels not blocks of 16");
    SmallVector<int64_t> sd;
    for (int64_t v : op.getStrides().getValues<int64_t>())
      sd.push_back(v);
    for (int64_t v : op.getDilations().getValues<int64_t>())
      sd.push_back(v);
    MLIRContext *context = rewriter.getContext();
    AffineExpr n, cb, p, q, r, s, ci;
    bindDims(context, n, cb, p, q, r, s, ci);
    auto map = [&](ArrayRef<AffineExpr> results) {
      return AffineMap::get(7, 0, results, context);
    };
    SmallVector<AffineMap> maps = {
        map({n, cb, p * sd[0] + r * sd[2], q * sd[1] + s * sd[3], ci}),
        map({r, s}), map({n, cb, p, q, ci})};
    SmallVector<utils::IteratorType> iterators(7,
                                               utils::IteratorType::parallel);
    iterators[4] = iterators[5] = utils::IteratorType::reduction;
    Location loc = op.getLoc();
    Value input = packChannels(rewriter, loc, op.getInputs()[0]);
    Value init = packChannels(rewriter, loc, op.getOutputs()[0]);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, init.getType(), ValueRange{input, op.getInputs()[1]},
        ValueRange{init}, maps, iterators);
    rewriter.cloneRegionBefore(op.getRegion(), generic.getRegion(),
                               generic.getRegion().end());
    rewriter.replaceOp(op,
                       unpackChannels(rewriter, loc, generic.getResult(0), y));
    return success();
  }
};

/// pack(insert_slice(%v into fill)) -> insert_slice(pack(%v) into the
/// fill of the packed shape), when the slice covers the packed (channel)
/// dimensions whole and the pack pads nothing. torch-mlir writes the input
/// of a data-gradient convolution as the output gradient inserted into
/// zeros (with strides, for a strided convolution), not as a `tensor.pad`,
/// which upstream's propagation moves packs across; afterwards the pack
/// meets the unpack of the gradient and both fold away.
struct BubblePackThroughInsertIntoFill final
    : OpRewritePattern<linalg::PackOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::PackOp pack,
                                PatternRewriter &rewriter) const override {
    auto insert = pack.getSource().getDefiningOp<tensor::InsertSliceOp>();
    if (!insert || !insert->hasOneUse() || pack.getPaddingValue() ||
        !pack.getOuterDimsPerm().empty() || !pack.hasPureTensorSemantics())
      return rewriter.notifyMatchFailure(pack, "not a pack of an insertion");
    auto fill = insert.getDest().getDefiningOp<linalg::FillOp>();
    RankedTensorType sourceType = insert.getSourceType();
    if (!fill || !fill.hasPureTensorSemantics() ||
        sourceType.getRank() != insert.getType().getRank() ||
        !sourceType.hasStaticShape())
      return rewriter.notifyMatchFailure(pack, "not an insertion into a fill");
    std::optional<SmallVector<int64_t>> tiles =
        getConstantIntValues(pack.getMixedTiles());
    if (!tiles)
      return rewriter.notifyMatchFailure(pack, "dynamic tiles");
    SmallVector<OpFoldResult> offsets = insert.getMixedOffsets();
    SmallVector<OpFoldResult> sizes = insert.getMixedSizes();
    SmallVector<OpFoldResult> strides = insert.getMixedStrides();
    for (auto [dim, tile] : llvm::zip(pack.getInnerDimsPos(), *tiles)) {
      int64_t size = sourceType.getDimSize(dim);
      if (!isConstantIntValue(offsets[dim], 0) ||
          !isConstantIntValue(strides[dim], 1) ||
          size != insert.getType().getDimSize(dim) || size % tile != 0)
        return rewriter.notifyMatchFailure(pack, "the slice cuts a tile");
      // The outer dimension holds whole tiles; the tile dimensions follow.
      sizes[dim] = rewriter.getIndexAttr(size / tile);
    }
    for (int64_t tile : *tiles) {
      offsets.push_back(rewriter.getIndexAttr(0));
      sizes.push_back(rewriter.getIndexAttr(tile));
      strides.push_back(rewriter.getIndexAttr(1));
    }
    Location loc = pack.getLoc();
    Value packedSourceInit = linalg::PackOp::createDestinationTensor(
        rewriter, loc, insert.getSource(), pack.getMixedTiles(),
        pack.getInnerDimsPos(), pack.getOuterDimsPerm());
    Value packedSource =
        linalg::PackOp::create(rewriter, loc, insert.getSource(),
                               packedSourceInit, pack.getInnerDimsPos(),
                               pack.getMixedTiles())
            .getResult();
    Value packedDest = linalg::FillOp::create(rewriter, loc, fill.getInputs(),
                                              ValueRange{pack.getDest()})
                           .getResult(0);
    rewriter.replaceOpWithNewOp<tensor::InsertSliceOp>(
        pack, packedSource, packedDest, offsets, sizes, strides);
    return success();
  }
};

/// Whether data-layout propagation may move a pack or unpack across the
/// op that owns or defines `operand`: never into a blocked convolution.
bool mayPropagate(OpOperand *operand) {
  Operation *owner = operand->getOwner();
  Operation *producer = operand->get().getDefiningOp();
  return !owner->hasAttr(kBlockedConvAttrName) &&
         !(producer && producer->hasAttr(kBlockedConvAttrName));
}

struct BlockConvsPass : public amp::impl::BlockConvsPassBase<BlockConvsPass> {
  using Base::Base;

  void runOnOperation() override {
    MLIRContext *context = &getContext();
    Operation *root = getOperation();
    {
      RewritePatternSet patterns(context);
      patterns.add<BlockConv<linalg::Conv2DNchwFchwOp>,
                   BlockConv<linalg::DepthwiseConv2DNchwChwOp>, BlockMaxPool,
                   BlockFilterGradient>(context);
      walkAndApplyPatterns(root, std::move(patterns));
    }
    // Move the packs and unpacks across the elementwise ops, pads and
    // reshapes between convolutions, and fold the pairs that meet.
    {
      RewritePatternSet patterns(context);
      linalg::populateDataLayoutPropagationPatterns(patterns, mayPropagate);
      patterns.add<BubblePackThroughInsertIntoFill>(context);
      linalg::populateSimplifyPackAndUnpackPatterns(patterns);
      // A generic that reads one value twice (train-mode batch norm's
      // square) has two unpacked operands, which upstream's propagation
      // refuses; merging the duplicates lets the unpack move past it.
      linalg::populateEraseUnusedOperandsAndResultsPatterns(patterns);
      linalg::populateFoldPackUnpackIntoTensorEmptyPatterns(patterns);
      linalg::PackOp::getCanonicalizationPatterns(patterns, context);
      linalg::UnPackOp::getCanonicalizationPatterns(patterns, context);
      linalg::FillOp::getCanonicalizationPatterns(patterns, context);
      linalg::TransposeOp::getCanonicalizationPatterns(patterns, context);
      tensor::EmptyOp::getCanonicalizationPatterns(patterns, context);
      if (failed(applyPatternsGreedily(root, std::move(patterns))))
        return signalPassFailure();
    }
    // What is left (at the ends of a chain) becomes transposes and reshapes
    // that the rest of the pipeline lowers.
    IRRewriter rewriter(context);
    SmallVector<Operation *> relayouts;
    root->walk([&](Operation *op) {
      if (isa<linalg::PackOp, linalg::UnPackOp>(op))
        relayouts.push_back(op);
    });
    for (Operation *op : relayouts) {
      rewriter.setInsertionPoint(op);
      if (auto pack = dyn_cast<linalg::PackOp>(op)) {
        FailureOr<linalg::LowerPackResult> lowered =
            linalg::lowerPack(rewriter, pack);
        if (failed(lowered))
          return signalPassFailure();
        // Channels that divide by 16 need no padding: drop the empty pad.
        tensor::PadOp pad = lowered->padOp;
        if (pad && pad.hasZeroLowPad() && pad.hasZeroHighPad() &&
            pad.getSourceType() == pad.getResultType())
          rewriter.replaceOp(pad, pad.getSource());
      } else {
        FailureOr<linalg::LowerUnPackOpResult> lowered =
            linalg::lowerUnPack(rewriter, cast<linalg::UnPackOp>(op));
        if (failed(lowered))
          return signalPassFailure();
        // The lowering ends with a linalg.copy into the unpack's
        // destination. Into an empty tensor that copy is the value itself
        // (bufferization would copy every unblocked activation once more).
        Value unpacked = lowered->extractSliceOp
                             ? lowered->extractSliceOp.getResult()
                             : lowered->collapseShapeOp.getResult();
        for (Operation *user :
             llvm::make_early_inc_range(unpacked.getUsers())) {
          auto copy = dyn_cast<linalg::CopyOp>(user);
          if (copy && copy.hasPureTensorSemantics() &&
              copy.getOutputs().front().getDefiningOp<tensor::EmptyOp>())
            rewriter.replaceOp(copy, unpacked);
        }
      }
    }
  }
};

} // namespace
