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

} // namespace mlir::amp

#endif // AMP_ANALYSIS_BODYPATTERNS_H
