//===- PrecisionAnnotations.h - Painting decisions in the IR ----*- C++ -*-===//
//
// amp-auto-mixed-precision{annotate=true} attaches to every op it classified
// (constants, empty tensors and casts excepted) a discardable attribute
//
//   amp.decision = {class = "deny", precision = "f32", reason = "..."}
//
// with the reason `explain=true` prints. The rewrite clones ops with their
// attributes, so the decisions reach amp-report-write, which reads and strips
// them.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_ANALYSIS_PRECISIONANNOTATIONS_H
#define AMP_ANALYSIS_PRECISIONANNOTATIONS_H

#include "amp/Analysis/PrecisionPainting.h"

#include <optional>
#include <string>

namespace mlir::amp {

/// The discardable attribute holding an op's decision.
constexpr StringLiteral kDecisionAttrName = "amp.decision";

struct PrecisionDecision {
  PrecisionClass cls = PrecisionClass::Unlisted;
  /// What the painting decided (the rewrite may still keep an op f32 when
  /// its low-precision form does not verify).
  bool low = false;
  std::string reason;
};

/// Attaches the decision of every classified op node of `painting`.
void annotatePrecisionDecisions(const PrecisionPainting &painting);

/// The decision attached to `op`, if any.
std::optional<PrecisionDecision> getPrecisionDecision(Operation *op);

/// Removes every decision attribute nested in `root`.
void stripPrecisionDecisions(Operation *root);

} // namespace mlir::amp

#endif // AMP_ANALYSIS_PRECISIONANNOTATIONS_H
