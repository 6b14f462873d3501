//===- CheckMasterWeights.cpp - The amp-check-master-weights pass ---------===//
//
// Mixed precision keeps an f32 master copy of every weight. This pass checks
// the amp.state_update markers of the training steps: an error for state
// stored in a float type narrower than f32, a warning for f32 state whose new
// value was computed in low precision and extended right before the update.
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/Amp/AmpOps.h"
#include "amp/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace mlir::amp {
#define GEN_PASS_DEF_CHECKMASTERWEIGHTSPASS
#include "amp/Transforms/Passes.h.inc"
} // namespace mlir::amp

#define DEBUG_TYPE "amp-check-master-weights"

using namespace mlir;
using namespace mlir::amp;

/// The float element type of `type` if it is narrower than f32.
static FloatType getLowFloatType(Type type) {
  auto floatType = dyn_cast<FloatType>(getElementTypeOrSelf(type));
  if (floatType && floatType.getWidth() < 32)
    return floatType;
  return nullptr;
}

/// `%arg2`, `%5`: the value as its function prints it.
static std::string getValueName(Value value, AsmState &state) {
  std::string name;
  llvm::raw_string_ostream os(name);
  value.printAsOperand(os, state);
  return name;
}

/// `f16`, without the quotes a diagnostic puts around a streamed type.
static std::string getTypeName(Type type) {
  std::string name;
  llvm::raw_string_ostream os(name);
  type.print(os);
  return name;
}

namespace {

struct CheckMasterWeightsPass
    : public amp::impl::CheckMasterWeightsPassBase<CheckMasterWeightsPass> {
  using Base::Base;

  void runOnOperation() override {
    markAllAnalysesPreserved();
    bool failed = false;
    // One numbering per function, built on the first diagnostic.
    DenseMap<Operation *, std::unique_ptr<AsmState>> states;
    auto nameOf = [&](StateUpdateOp update, Value value) {
      Operation *scope = update->getParentOfType<FunctionOpInterface>();
      std::unique_ptr<AsmState> &state = states[scope];
      if (!state)
        state = std::make_unique<AsmState>(scope,
                                           OpPrintingFlags().useLocalScope());
      return getValueName(value, *state);
    };
    for (Operation *op : getAnalysis<StepMarkerIndex>().markers) {
      auto update = dyn_cast<StateUpdateOp>(op);
      if (!update)
        continue;
      Value state = update.getState();
      if (FloatType low = getLowFloatType(state.getType())) {
        update.emitError() << "weight " << nameOf(update, state)
                           << " would be stored in " << getTypeName(low)
                           << "; keep the master copy in f32 (update it in "
                              "f32 and cast it where it is used)";
        failed = true;
        continue;
      }
      auto ext = update.getNewValue().getDefiningOp<arith::ExtFOp>();
      if (!ext)
        continue;
      if (FloatType low = getLowFloatType(ext.getIn().getType()))
        update.emitWarning()
            << "the update of " << nameOf(update, state) << " ran in "
            << getTypeName(low) << ": its new value is an arith.extf of a "
            << getTypeName(low)
            << " value; compute it in f32 from the f32 master copy";
    }
    if (failed)
      signalPassFailure();
  }
};

} // namespace
