//===- amp-opt.cpp - The amp-opt driver -----------------------------------===//
//
// mlir-opt with every upstream dialect and pass plus amp-opt's passes, the
// `--amp` / `--amp-explain` pipelines, the amp dialect (the training-step
// markers) and the test dialect of the lit tests.
//
//===----------------------------------------------------------------------===//

#include "ReportFlags.h"
#include "TestDialect.h"
#include "amp/Conversion/Passes.h"
#include "amp/Dialect/Amp/AmpDialect.h"
#include "amp/Pipelines/Pipelines.h"
#include "amp/Reports/Passes.h"
#include "amp/Transforms/Passes.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

int main(int argc, char **argv) {
  mlir::registerAllPasses();
  mlir::amp::registerAMPPasses();
  mlir::amp::registerAMPConversionPasses();
  mlir::amp::registerAMPReportsPasses();
  mlir::amp::registerAmpPipelines();

  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  registry.insert<mlir::amp::AmpDialect>();
  mlir::amp::test::registerTestDialect(registry);

  // --amp-report=<file> & co. are shorthands for options of --amp.
  std::vector<std::string> args(argv, argv + argc);
  std::string error;
  if (!mlir::amp::expandReportShorthands(args, error)) {
    llvm::errs() << argv[0] << ": " << error << "\n";
    return 1;
  }
  std::vector<char *> expanded;
  for (std::string &arg : args)
    expanded.push_back(arg.data());
  expanded.push_back(nullptr);

  return mlir::asMainReturnCode(mlir::MlirOptMain(
      static_cast<int>(args.size()), expanded.data(),
      "amp-opt: automatic mixed precision for MLIR\n", registry));
}
