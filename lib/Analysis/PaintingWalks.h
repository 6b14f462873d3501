//===- PaintingWalks.h - What the painting visits ---------------*- C++ -*-===//
//
// Walks shared by the painting's graph construction: functions without
// entering their bodies, and the region-branch ops whose regions hold
// painted values.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_LIB_ANALYSIS_PAINTINGWALKS_H
#define AMP_LIB_ANALYSIS_PAINTINGWALKS_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

namespace mlir::amp {

/// Calls `callback` on every function (any FunctionOpInterface op: func.func,
/// ml_program.func, ...) under `module`, without entering function bodies
/// (a full walk of a large graph costs as much as a step of the painting).
inline void forEachFunction(ModuleOp module,
                            function_ref<void(FunctionOpInterface)> callback) {
  module->walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (auto func = dyn_cast<FunctionOpInterface>(op)) {
      callback(func);
      return WalkResult::skip();
    }
    return WalkResult::advance();
  });
}

/// Calls `callback` on the region-branch ops of `region` and, nested, of
/// their regions: the ops whose regions buildOpNodes() enters. Other regions
/// (linalg bodies) hold no painted value.
inline void
forEachRegionBranch(Region &region,
                    function_ref<void(RegionBranchOpInterface)> callback) {
  for (Block &block : region)
    for (Operation &op : block)
      if (auto branch = dyn_cast<RegionBranchOpInterface>(op)) {
        callback(branch);
        for (Region &nested : op.getRegions())
          forEachRegionBranch(nested, callback);
      }
}

/// The ops that return from `func`: the return-like terminators of the
/// blocks of its body (func.return, ml_program.return, ...).
inline SmallVector<Operation *> getReturns(FunctionOpInterface func) {
  SmallVector<Operation *> returns;
  for (Block &block : func.getFunctionBody())
    if (!block.empty() && block.back().hasTrait<OpTrait::ReturnLike>())
      returns.push_back(&block.back());
  return returns;
}

} // namespace mlir::amp

#endif // AMP_LIB_ANALYSIS_PAINTINGWALKS_H
