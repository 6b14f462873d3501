//===- amp-opt.cpp - The amp-opt driver -----------------------------------===//
//
// mlir-opt with every upstream dialect and pass plus amp-opt's passes, the
// `--amp` / `--amp-explain` pipelines, the amp dialect (the training-step
// markers) and the test dialect of the lit tests.
//
//===----------------------------------------------------------------------===//

#include "TestDialect.h"
#include "amp/Dialect/Amp/AmpDialect.h"
#include "amp/Transforms/Passes.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::registerAllPasses();
  mlir::amp::registerAMPPasses();
  mlir::amp::registerAmpPipelines();

  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  registry.insert<mlir::amp::AmpDialect>();
  mlir::amp::test::registerTestDialect(registry);

  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "amp-opt: automatic mixed precision for MLIR\n", registry));
}
