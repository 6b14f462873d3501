//===- DataflowDot.h - The dataflow graph as DOT ----------------*- C++ -*-===//
//
// Writes the dataflow graph of functions as Graphviz DOT: one node per op
// (constants and empty tensors left out) and per function argument, filled
// by precision (low, f32, cast, unlisted, no float), with the reason of the
// op's painting (amp.decision) as tooltip, and edges labelled with the types
// of the values they carry. docs/reports.md has the legend.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_ANALYSIS_DATAFLOWDOT_H
#define AMP_ANALYSIS_DATAFLOWDOT_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::amp {

/// Writes every func.func of `module`, or only the one named `function`
/// when it is not empty (failure if there is none of that name).
LogicalResult writeDataflowDot(ModuleOp module, StringRef function,
                               raw_ostream &os);

} // namespace mlir::amp

#endif // AMP_ANALYSIS_DATAFLOWDOT_H
