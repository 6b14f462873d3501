//===- TestDialect.h - amp_test dialect -------------------------*- C++ -*-===//

#ifndef AMP_TEST_TESTDIALECT_H
#define AMP_TEST_TESTDIALECT_H

#include "amp/Interfaces/AmpPrecisionOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "TestDialect.h.inc"

#define GET_OP_CLASSES
#include "TestOps.h.inc"

namespace mlir::amp::test {
/// Registers amp_test and, as a plugin would, an external
/// AmpPrecisionOpInterface model for amp_test.scale.
void registerTestDialect(DialectRegistry &registry);
} // namespace mlir::amp::test

#endif // AMP_TEST_TESTDIALECT_H
