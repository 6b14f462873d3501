//===- TilingUtils.h - When upstream's tiling slices right ------*- C++ -*-===//
//
// The tiling interface of linalg ops computes each operand's slice from the
// indexing map's value at the first and the last point of a tile; the passes
// that tile (amp-tile-for-threads, amp-vectorize-elementwise) only tile ops
// whose maps make that right.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_TRANSFORMS_TILINGUTILS_H
#define AMP_TRANSFORMS_TILINGUTILS_H

#include "mlir/IR/AffineExpr.h"

namespace mlir::amp {

/// Whether `expr` never decreases when a loop index grows (dims, symbols and
/// constants, sums, products and divisions by non-negative constants): not
/// the `2 - d0` of a filter flip.
bool isNonDecreasing(AffineExpr expr);

} // namespace mlir::amp

#endif // AMP_TRANSFORMS_TILINGUTILS_H
