//===- BodyPatterns.h - What the body of a linalg op computes ---*- C++ -*-===//
//
// The body patterns behind the `linalg.generic:<pattern>` policy keys
// (docs/policy.md).
//
//===----------------------------------------------------------------------===//

#ifndef AMP_ANALYSIS_BODYPATTERNS_H
#define AMP_ANALYSIS_BODYPATTERNS_H

#include "amp/Analysis/PrecisionPolicy.h"

#include <optional>

namespace mlir::amp {

/// Ops in a linalg body that say nothing about its numerics: constants,
/// casts, indices, the yield, integer and index arithmetic.
bool isNeutralBodyOp(Operation *op);

/// The pattern of the body of `op`, a linalg op with one region; nullopt for
/// any other op.
std::optional<BodyPattern> matchBodyPattern(Operation *op);

/// Whether the body of `op` compares for (in)equality a float it reads
/// from a tensor defined outside `op`: torch-mlir's max-pool indices, the
/// position whose input element equals the pooled maximum. Such a
/// comparison only holds when both sides carry the same rounding.
bool comparesCapturedFloats(Operation *op);

} // namespace mlir::amp

#endif // AMP_ANALYSIS_BODYPATTERNS_H
