//===- RoundingCopy.cpp - The rounding epilogue of a contraction ----------===//
//
// Shared by amp-tile-for-threads (which keeps it whole) and
// amp-lower-to-runtime (which folds it into the runtime call).
//
//===----------------------------------------------------------------------===//

#include "amp/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"

using namespace mlir;

bool mlir::amp::isRoundingCopy(Operation *op) {
  auto generic = dyn_cast<linalg::GenericOp>(op);
  if (!generic || generic.getNumDpsInputs() != 1 ||
      generic.getNumDpsInits() != 1 ||
      generic.getNumParallelLoops() != generic.getNumLoops() ||
      !llvm::all_of(generic.getIndexingMapsArray(),
                    [](AffineMap map) { return map.isIdentity(); }))
    return false;
  Block &body = *generic.getBlock();
  if (!llvm::hasSingleElement(body.without_terminator()))
    return false;
  auto trunc = dyn_cast<arith::TruncFOp>(body.front());
  return trunc && trunc.getIn() == body.getArgument(0) &&
         !trunc.getRoundingmodeAttr() &&
         body.getTerminator()->getOperands() == ValueRange(trunc.getResult());
}
