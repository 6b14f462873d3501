//===- AMPPlugin.cpp - amp-opt's passes as an mlir-opt plugin -------------===//
//
//   mlir-opt --load-pass-plugin=lib/AMPPlugin.so \
//            --pass-pipeline='builtin.module(amp-auto-mixed-precision)'
//   mlir-opt --load-dialect-plugin=lib/AMPPlugin.so --amp
//
// The dialect plugin entry point also registers the amp dialect, so that
// mlir-opt parses the training-step markers (amp.grad_seed, ...).
//
// Never load it into amp-opt itself, which registers the same passes.
//
//===----------------------------------------------------------------------===//

#include "amp/Conversion/Passes.h"
#include "amp/Dialect/Amp/AmpDialect.h"
#include "amp/Pipelines/Pipelines.h"
#include "amp/Reports/Passes.h"
#include "amp/Transforms/Passes.h"

#include "mlir/Tools/Plugins/DialectPlugin.h"
#include "mlir/Tools/Plugins/PassPlugin.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/Compiler.h"

using namespace mlir;

static void registerAmpPluginPasses() {
  amp::registerAMPPasses();
  amp::registerAMPConversionPasses();
  amp::registerAMPReportsPasses();
  amp::registerAmpPipelines();
}

extern "C" LLVM_ATTRIBUTE_WEAK PassPluginLibraryInfo mlirGetPassPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "AMPPasses", LLVM_VERSION_STRING,
          registerAmpPluginPasses};
}

extern "C" LLVM_ATTRIBUTE_WEAK DialectPluginLibraryInfo
mlirGetDialectPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "AMPDialects", LLVM_VERSION_STRING,
          [](DialectRegistry *registry) {
            registry->insert<amp::AmpDialect>();
            registerAmpPluginPasses();
          }};
}
