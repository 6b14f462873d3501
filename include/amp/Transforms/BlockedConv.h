//===- BlockedConv.h - NCHW convolutions on nChw16c activations -*- C++ -*-===//
//
// amp-block-convs rewrites linalg.conv_2d_nchw_fchw and
// linalg.depthwise_conv_2d_nchw_chw as linalg.generics on activations
// blocked by 16 channels (oneDNN's nChw16c), and the weight gradients that
// autodiff writes as convolutions of transposed activations likewise;
// amp-lower-to-runtime recognises those generics by these maps and calls
// libamp_rt's conv2d_nchw16c_fchw / depthwise_conv2d_nchw16c_chw /
// conv2d_backward_filter_nchw16c entry points.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_TRANSFORMS_BLOCKEDCONV_H
#define AMP_TRANSFORMS_BLOCKEDCONV_H

#include "mlir/Dialect/Utils/StructuredOpsUtils.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

namespace mlir::amp {

/// The attribute (array<i64: stride_h, stride_w, dilation_h, dilation_w>)
/// that marks such a generic; the amp dialect verifies its form.
inline constexpr llvm::StringLiteral kBlockedConvAttrName = "amp.blocked_conv";

/// Channels per block.
inline constexpr int64_t kChannelBlock = 16;

/// The indexing maps of the generic over the loops (n, kb, p, q, ki, cb, ci,
/// r, s): input (n, cb, p * sh + r * dh, q * sw + s * dw, ci), filter
/// FCHW (kb * 16 + ki, cb * 16 + ci, r, s), output (n, kb, p, q, ki).
llvm::SmallVector<AffineMap>
getBlockedConvIndexingMaps(MLIRContext *context,
                           llvm::ArrayRef<int64_t> stridesAndDilations);

/// Five parallel loops, then four reductions.
llvm::SmallVector<utils::IteratorType> getBlockedConvIteratorTypes();

/// The same for linalg.depthwise_conv_2d_nchw_chw, over the loops (n, cb, p,
/// q, ci, r, s): input (n, cb, p * sh + r * dh, q * sw + s * dw, ci), filter
/// CHW (cb * 16 + ci, r, s), output (n, cb, p, q, ci).
llvm::SmallVector<AffineMap> getBlockedDepthwiseConvIndexingMaps(
    MLIRContext *context, llvm::ArrayRef<int64_t> stridesAndDilations);

/// Five parallel loops, then two reductions.
llvm::SmallVector<utils::IteratorType> getBlockedDepthwiseConvIteratorTypes();

/// The same for linalg.conv_2d_nchw_fchw whose input channels 16 does not
/// divide (a stem on RGB images): the input stays NCHW. Over the loops (n,
/// kb, p, q, ki, c, r, s): input (n, c, p * sh + r * dh, q * sw + s * dw),
/// filter FCHW (kb * 16 + ki, c, r, s), output (n, kb, p, q, ki).
llvm::SmallVector<AffineMap> getPlainInputBlockedConvIndexingMaps(
    MLIRContext *context, llvm::ArrayRef<int64_t> stridesAndDilations);

/// Five parallel loops, then three reductions.
llvm::SmallVector<utils::IteratorType> getPlainInputBlockedConvIteratorTypes();

/// The weight gradient of linalg.conv_2d_nchw_fchw on blocked activations,
/// over the loops (kb, ki, cb, ci, r, s, n, p, q): input (n, cb, p * sh +
/// r * dh, q * sw + s * dw, ci), output gradient (n, kb, p, q, ki), filter
/// gradient FCHW (kb * 16 + ki, cb * 16 + ci, r, s); (sh, sw, dh, dw) are
/// the forward convolution's strides and dilations.
llvm::SmallVector<AffineMap>
getBlockedFilterGradIndexingMaps(MLIRContext *context,
                                 llvm::ArrayRef<int64_t> stridesAndDilations);

/// Six parallel loops, then three reductions.
llvm::SmallVector<utils::IteratorType> getBlockedFilterGradIteratorTypes();

/// The same for an input whose channels 16 does not divide (a stem on RGB
/// images): the input stays NCHW. Over the loops (kb, ki, c, r, s, n, p,
/// q): input (n, c, p * sh + r * dh, q * sw + s * dw), output gradient (n,
/// kb, p, q, ki), filter gradient FCHW (kb * 16 + ki, c, r, s).
llvm::SmallVector<AffineMap> getPlainInputFilterGradIndexingMaps(
    MLIRContext *context, llvm::ArrayRef<int64_t> stridesAndDilations);

/// Five parallel loops, then three reductions.
llvm::SmallVector<utils::IteratorType> getPlainInputFilterGradIteratorTypes();

/// The forms of the blocked generics.
enum class BlockedConvForm {
  Dense,
  Depthwise,
  PlainInput,
  FilterGradient,
  PlainInputFilterGradient
};

/// The strides and dilations of `op` if it is such a generic: the
/// attribute, the maps and iterators of one of the forms, ranks 5 / 4 / 5
/// (depthwise: 5 / 3 / 5, plain input: 4 / 4 / 5, filter gradient: 5 / 5 /
/// 4, its plain-input form 4 / 5 / 4) with 16 channels per block, and a
/// multiply-accumulate body; `form` (if given) says which. Anything else:
/// empty.
llvm::SmallVector<int64_t> matchBlockedConv(Operation *op,
                                            BlockedConvForm *form = nullptr);

} // namespace mlir::amp

#endif // AMP_TRANSFORMS_BLOCKEDCONV_H
