//===- RoundingCopy.cpp - The rounding epilogue of a contraction ----------===//
//
// Shared by amp-fuse-elementwise (which leaves it unfused),
// amp-tile-for-threads (which keeps it whole) and amp-lower-to-runtime
// (which folds it into the runtime call).
//
//===----------------------------------------------------------------------===//

#include "amp/Transforms/Passes.h"

#include "amp/Transforms/BlockedConv.h"

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

bool mlir::amp::isLibraryContraction(Operation *op) {
  if (isa<linalg::ConvolutionOpInterface>(op))
    return llvm::any_of(op->getRegion(0).getOps(), [](Operation &inner) {
      return isa<arith::MulFOp, arith::MulIOp>(inner);
    });
  return isa<linalg::ContractionOpInterface>(op) ||
         !matchBlockedConv(op).empty();
}

bool mlir::amp::isRoundingOfLibraryResult(Operation *op) {
  if (!isRoundingCopy(op))
    return false;
  Operation *producer =
      cast<linalg::GenericOp>(op).getDpsInputs()[0].getDefiningOp();
  return producer && isLibraryContraction(producer) && producer->hasOneUse();
}
