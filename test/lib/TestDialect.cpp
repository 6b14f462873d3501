//===- TestDialect.cpp - amp_test dialect ---------------------------------===//

#include "TestDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace mlir::amp;
using namespace mlir::amp::test;

#include "TestDialect.cpp.inc"

#define GET_OP_CLASSES
#include "TestOps.cpp.inc"

void AmpTestDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "TestOps.cpp.inc"
      >();
}

PrecisionClass MatmulOp::getAmpPrecisionClass() {
  return PrecisionClass::Allow;
}
bool MatmulOp::isAmpAccumulatorOperand(unsigned index) { return index == 2; }
bool MatmulOp::isAmpAccumulatorResult(unsigned) { return true; }

namespace {
/// What a plugin registers for an op it does not own.
struct ScaleDenyModel
    : public AmpPrecisionOpInterface::ExternalModel<ScaleDenyModel, ScaleOp> {
  PrecisionClass getAmpPrecisionClass(Operation *) const {
    return PrecisionClass::Deny;
  }
};
} // namespace

void mlir::amp::test::registerTestDialect(DialectRegistry &registry) {
  registry.insert<AmpTestDialect>();
  registry.addExtension(+[](MLIRContext *ctx, AmpTestDialect *) {
    ScaleOp::attachInterface<ScaleDenyModel>(*ctx);
  });
}
