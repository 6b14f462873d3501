//===- Compile.cpp - Lowering and JIT compilation of amp-run --------------===//

#include "Compile.h"
#include "Error.h"
#include "TrackedAlloc.h"

#include "amp/Pipelines/Pipelines.h"
#include "amp/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/OpenMP/OpenMPDialect.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <dlfcn.h>

using namespace amp::run;
using llvm::StringRef;

void amp::run::buildLoweringPipeline(mlir::OpPassManager &pm,
                                     const CompileOptions &options) {
  mlir::amp::AmpLowerToLLVMOptions pipeline;
  pipeline.runtime = options.runtime;
  pipeline.fast = options.fast;
  pipeline.parallel = options.parallel;
  pipeline.threads = options.threads;
  pipeline.donateState = options.donateState;
  pipeline.blockConvs = options.blockConvs;
  pipeline.bf16Conversions = options.bf16Conversions;
  pipeline.lowContractions = options.lowContractions;
  mlir::amp::buildAmpLowerToLLVMPipeline(pm, pipeline);
}

void amp::run::prepareForJit(mlir::func::FuncOp fn,
                             const CompileOptions &options) {
  mlir::MLIRContext *context = fn.getContext();
  fn.setPublic();
  fn->setAttr("llvm.emit_c_interface", mlir::UnitAttr::get(context));
  // The roles are read; keep them out of the LLVM IR. amp.updates stays
  // for amp-update-state-in-place under --donate-state.
  for (unsigned i = 0, e = fn.getNumArguments(); i < e; ++i)
    fn.removeArgAttr(i, "amp.role");
  for (unsigned i = 0, e = fn.getNumResults(); i < e; ++i) {
    fn.removeResultAttr(i, mlir::StringAttr::get(context, "amp.role"));
    if (!options.donateState)
      fn.removeResultAttr(i, mlir::StringAttr::get(context, "amp.updates"));
  }
}

llvm::Error amp::run::lowerToLLVM(mlir::ModuleOp module,
                                  const CompileOptions &options) {
  mlir::PassManager pm(module.getContext(), mlir::ModuleOp::getOperationName(),
                       mlir::OpPassManager::Nesting::Implicit);
  buildLoweringPipeline(pm, options);
  if (failed(pm.run(module)))
    return makeError("lowering to the LLVM dialect failed (the pipeline of "
                     "scripts/lower-to-llvm.sh; see the diagnostics above)");
  mlir::Operation *stray = nullptr;
  module.walk([&](mlir::Operation *op) {
    // OpenMP ops (--parallel) translate to LLVM IR as they are.
    if (op != module &&
        !llvm::isa<mlir::LLVM::LLVMDialect, mlir::omp::OpenMPDialect>(
            op->getDialect()))
      if (!stray)
        stray = op;
  });
  if (stray)
    return makeError("lowering left '" + stray->getName().getStringRef() +
                     "' in the module; amp-run lowers func, arith, math, "
                     "tensor, linalg and scf ops on static shapes");
  return llvm::Error::success();
}

/// The libamp_rt that --lower-to-runtime and --fast load.
static std::string runtimeLibPath(const CompileOptions &options) {
  if (!options.runtimeLib.empty())
    return options.runtimeLib;
#ifdef AMP_RUN_RUNTIME_LIB
  return AMP_RUN_RUNTIME_LIB;
#else
  return "libamp_rt.so";
#endif
}

/// The shared libraries the lowered code calls, in load order.
static llvm::Expected<std::vector<std::string>>
sharedLibraries(const CompileOptions &options) {
  std::vector<std::string> libs;
#ifdef AMP_RUN_MLIR_LIB_DIR
  // --parallel's loops call LLVM's OpenMP runtime (__kmpc_fork_call). It is
  // loaded first and globally, so that oneDNN's GNU OpenMP calls (GOMP_*,
  // which libomp also implements) bind to it too: one thread team serves
  // both, instead of two teams spinning on the same cores.
  if (options.parallel || options.fast)
    libs.push_back(AMP_RUN_MLIR_LIB_DIR "/libomp.so");
#endif
  libs.insert(libs.end(), options.sharedLibs.begin(), options.sharedLibs.end());
#ifdef AMP_RUN_MLIR_LIB_DIR
  // memrefCopy (copies of strided memrefs) and the f16/bf16 conversions
  // that some CPUs and compiler runtimes lack.
  for (StringRef lib :
       {"libmlir_c_runner_utils.so", "libmlir_float16_utils.so"})
    if (llvm::sys::fs::exists(AMP_RUN_MLIR_LIB_DIR "/" + lib.str()))
      libs.push_back(AMP_RUN_MLIR_LIB_DIR "/" + lib.str());
#endif
  if (options.runtime) {
    std::string rt = runtimeLibPath(options);
    if (!llvm::sys::fs::exists(rt))
      return makeError("runtime library '" + rt +
                       "' not found (build libamp_rt, or pass "
                       "--runtime-lib=PATH)");
    libs.push_back(rt);
  }
  for (const std::string &lib : libs)
    if (!llvm::sys::fs::exists(lib))
      return makeError("shared library '" + lib + "' not found");
  return libs;
}

/// Prints what the runtime says about its CPU kernels, if it says anything:
/// `const char *amp_rt_cpu_kernels(void)`, looked up in the already loaded
/// library so that a runtime without it still works.
static void printRuntimeKernels(const std::string &path) {
  void *handle = dlopen(path.c_str(), RTLD_LAZY | RTLD_NOLOAD);
  if (!handle)
    return;
  using KernelsFn = const char *(*)();
  auto kernels =
      reinterpret_cast<KernelsFn>(dlsym(handle, "amp_rt_cpu_kernels"));
  if (kernels)
    if (const char *text = kernels())
      llvm::errs() << "amp-run: runtime kernels: " << text << "\n";
  dlclose(handle);
}

llvm::Expected<std::unique_ptr<mlir::ExecutionEngine>>
amp::run::jitCompile(mlir::ModuleOp module, const CompileOptions &options) {
  auto tmBuilder = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!tmBuilder)
    return tmBuilder.takeError();
  auto tm = tmBuilder->createTargetMachine();
  if (!tm)
    return tm.takeError();
  auto libs = sharedLibraries(options);
  if (!libs)
    return libs.takeError();
  // OpenBLAS (under libamp_rt's CPU backend) reads OPENBLAS_CORETYPE once,
  // when it is loaded, and then uses that core's kernels instead of the
  // ones it detects: an inherited OPENBLAS_CORETYPE=Haswell halves sgemm on
  // Zen 5. The engine loads libamp_rt below; drop the variable first.
  if (options.runtime)
    unsetenv("OPENBLAS_CORETYPE");
  llvm::SmallVector<StringRef> libRefs(libs->begin(), libs->end());
  mlir::ExecutionEngineOptions engineOptions;
  engineOptions.transformer = mlir::makeOptimizingTransformer(
      options.optLevel, /*sizeLevel=*/0, tm->get());
  engineOptions.jitCodeGenOptLevel =
      static_cast<llvm::CodeGenOptLevel>(options.optLevel);
  engineOptions.sharedLibPaths = libRefs;
  engineOptions.enableGDBNotificationListener = false;
  // perf(1) symbols for the JIT-compiled code: `perf record -k 1`, then
  // `perf inject --jit` (LLVM's PerfJITEventListener writes jit-PID.dump).
  engineOptions.enablePerfNotificationListener =
      getenv("AMP_RUN_PERF") != nullptr;
  engineOptions.enableObjectDump = !options.dumpObject.empty();
  auto engine =
      mlir::ExecutionEngine::create(module, engineOptions, std::move(*tm));
  if (!engine)
    return engine.takeError();
  if (options.timing && options.runtime)
    printRuntimeKernels(libs->back());
  registerTrackedAllocator(**engine);
  (*engine)->initialize();
  return std::move(*engine);
}

llvm::Expected<void (*)(void **)>
amp::run::lookupFunction(mlir::ExecutionEngine &engine, StringRef name) {
  auto packed = engine.lookupPacked(("_mlir_ciface_" + name).str());
  if (!packed)
    return makeError("cannot JIT-compile @" + name + ": " +
                     llvm::toString(packed.takeError()));
  return *packed;
}
