//===- PrecisionAnnotations.cpp - Painting decisions kept in the IR -------===//

#include "amp/Analysis/PrecisionAnnotations.h"

#include "amp/Analysis/PrecisionPainting.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"

using namespace mlir;
using namespace mlir::amp;

void mlir::amp::annotatePrecisionDecisions(const PrecisionPainting &painting) {
  for (const PrecisionPainting::Node &node : painting.getNodes()) {
    // Sources and casts are reported apart (constants are folded, casts
    // counted); annotating casts would also keep amp-optimize-casts from
    // merging two casts whose attributes differ.
    if (!node.op || node.source || isFloatCast(node.op))
      continue;
    Builder builder(node.op->getContext());
    NamedAttribute entries[] = {
        builder.getNamedAttr(
            "class", builder.getStringAttr(
                         stringifyPrecisionClass(node.classification.cls))),
        builder.getNamedAttr("precision",
                             builder.getStringAttr(node.low ? "low" : "f32")),
        builder.getNamedAttr("reason",
                             builder.getStringAttr(painting.explain(node))),
    };
    node.op->setAttr(kDecisionAttrName, builder.getDictionaryAttr(entries));
  }
}

std::optional<PrecisionDecision>
mlir::amp::getPrecisionDecision(Operation *op) {
  auto dict = op->getAttrOfType<DictionaryAttr>(kDecisionAttrName);
  if (!dict)
    return std::nullopt;
  auto cls = dict.getAs<StringAttr>("class");
  auto precision = dict.getAs<StringAttr>("precision");
  auto reason = dict.getAs<StringAttr>("reason");
  if (!cls || !precision)
    return std::nullopt;
  std::optional<PrecisionClass> parsed = symbolizePrecisionClass(cls);
  if (!parsed)
    return std::nullopt;
  PrecisionDecision decision;
  decision.cls = *parsed;
  decision.low = precision.getValue() == "low";
  if (reason)
    decision.reason = reason.str();
  return decision;
}

void mlir::amp::stripPrecisionDecisions(Operation *root) {
  root->walk(
      [](Operation *op) { op->removeDiscardableAttr(kDecisionAttrName); });
}
