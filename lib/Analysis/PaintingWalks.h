//===- PaintingWalks.h - What the painting visits ---------------*- C++ -*-===//
//
// Walks shared by the painting's graph construction: functions without
// entering their bodies, and the region-branch ops whose regions hold
// painted values.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_LIB_ANALYSIS_PAINTINGWALKS_H
#define AMP_LIB_ANALYSIS_PAINTINGWALKS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"

namespace mlir::amp {

/// Calls `callback` on every func.func under `module`, without entering
/// function bodies (a full walk of a large graph costs as much as a step of
/// the painting).
inline void forEachFunction(ModuleOp module,
                            function_ref<void(func::FuncOp)> callback) {
  module->walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (auto func = dyn_cast<func::FuncOp>(op)) {
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

} // namespace mlir::amp

#endif // AMP_LIB_ANALYSIS_PAINTINGWALKS_H
