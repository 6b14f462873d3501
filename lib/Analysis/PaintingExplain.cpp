//===- PaintingExplain.cpp - Why the painting made a value f32 or low ----===//
//
// The remark text of every decision of PrecisionPainting (--amp-explain,
// the report's per-op reasons), rendered from the structured Node::Why the
// painting records, so that painting itself builds no strings.
//
//===----------------------------------------------------------------------===//

#include "amp/Analysis/PrecisionPainting.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::amp;

static std::string describe(const PrecisionPainting::Node &node) {
  std::string text;
  llvm::raw_string_ostream os(text);
  if (node.op)
    os << node.op->getName() << " at " << node.op->getLoc();
  else
    os << "carried value at " << node.getLoc();
  return text;
}

std::string PrecisionPainting::explain(const Node &node) const {
  std::string cls = stringifyPrecisionClass(node.classification.cls).str();
  std::string why = node.classification.reason.str();
  switch (node.why) {
  case Node::Why::Source:
    return "source: kept f32, amp-optimize-casts folds its casts";
  case Node::Why::Unlisted:
    return "unlisted (" + why + "): kept f32";
  case Node::Why::LevelLimit:
    return cls + ": level=tensor-cores-only, only allow ops run low";
  case Node::Why::Allow:
    return "allow (" + why + "): low-precision inputs, f32 accumulation";
  case Node::Why::Deny:
    return "deny (" + why + ")";
  case Node::Why::Tainted:
    return cls + ": fed by " + describe(nodes[node.related]) +
           " through infer/clear ops, kept f32";
  case Node::Why::InferBetween:
    return "infer: between allow ops, runs low";
  case Node::Why::InferFollows:
    return "infer: follows allow op " + describe(nodes[node.related]) +
           " (bf16), runs low";
  case Node::Why::ClearNeighbour:
    return "clear: next to low-precision " + describe(nodes[node.related]);
  case Node::Why::InferNotBetween:
    return "infer: not between allow ops, kept f32";
  case Node::Why::ClearAlone:
    return "clear: no low-precision neighbour, kept f32";
  case Node::Why::Economy:
    return "clear: kept f32, its casts would move more bytes than running "
           "it in f32 (" +
           std::to_string(node.costF32) + " vs " +
           std::to_string(node.costLow) + " bytes/step)";
  case Node::Why::Unranked:
    return cls + ": reads or produces an unranked tensor, kept f32 (casts "
                 "go on the ranked side)";
  case Node::Why::Call:
    return cls + ": call, keeps the callee's signature";
  case Node::Why::OutOfRange:
    return cls + ": reads " + describe(nodes[node.related]) +
           ", whose values the low-precision type cannot hold, kept f32";
  case Node::Why::Unused:
    return cls + ": result unused, follows its operands, " +
           (node.low ? "runs low" : "kept f32");
  case Node::Why::AccumulatorSlice:
    return "clear: slice of the f32 accumulator of " +
           describe(nodes[node.related]) + ", kept f32 (casts go after it)";
  case Node::Why::AccumulatorPad:
    return cls + ": only read as an f32 accumulator, kept f32";
  case Node::Why::BatchStatistic:
    return cls + ": computes from the batch statistic " +
           describe(nodes[node.related]) + " (no larger than it), kept f32";
  case Node::Why::FeedsNormalization:
    return cls + ": feeds the normalization statistic " +
           describe(nodes[node.related]) + ", kept f32";
  case Node::Why::FeedsEquality:
    return cls + ": compared for equality by " + describe(nodes[node.related]) +
           " with values it reads unrounded, kept f32";
  case Node::Why::SummedProduct:
    if (auto sum = dyn_cast_or_null<linalg::LinalgOp>(node.op);
        sum && sum.getNumReductionLoops() > 0)
      return cls + ": sums the product " + describe(nodes[node.related]) +
             " unrounded, kept f32";
    return cls + ": a product that only f32 sums such as " +
           describe(nodes[node.related]) +
           " read (rounding its terms defeats their f32 accumulation), kept "
           "f32";
  case Node::Why::Undecided:
    break;
  }
  return cls;
}
