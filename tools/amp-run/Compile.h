//===- Compile.h - Lowering and JIT compilation of amp-run ----------*- C++
//-*-===//
//
// The module amp-run trains with goes through the amp-lower-to-llvm pipeline
// (buildAmpLowerToLLVMPipeline, the same one scripts/lower-to-llvm.sh runs
// through amp-opt) and MLIR's ExecutionEngine, with the shared libraries
// the lowered code calls (libamp_rt, LLVM's OpenMP runtime, MLIR's runner
// utilities).
//
//===----------------------------------------------------------------------===//

#ifndef AMP_RUN_COMPILE_H
#define AMP_RUN_COMPILE_H

#include "amp/Support/OptionEnums.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <string>
#include <vector>

namespace mlir {
class ModuleOp;
class OpPassManager;
namespace func {
class FuncOp;
} // namespace func
} // namespace mlir

namespace amp::run {

struct CompileOptions {
  /// Contractions call libamp_rt (--lower-to-runtime, --fast).
  bool runtime = false;
  /// The fast pipeline (--fast).
  bool fast = false;
  /// Loops split over threads (--parallel) and how many (0: all).
  bool parallel = false;
  unsigned threads = 0;
  /// NCHW convolutions on blocked activations (--block-convs, with --fast).
  bool blockConvs = true;
  /// How f32 -> bf16 roundings are compiled (--bf16-conversions).
  mlir::amp::Bf16ConversionsOption bf16Conversions =
      mlir::amp::Bf16ConversionsOption::Auto;
  /// How 16-bit contraction inputs reach libamp_rt (--low-contractions).
  mlir::amp::LowContractionsOption lowContractions =
      mlir::amp::LowContractionsOption::Auto;
  /// Results with `amp.updates` reuse their argument's buffer.
  bool donateState = false;
  unsigned optLevel = 2;
  /// Extra shared libraries (--shared-libs), libamp_rt (--runtime-lib).
  std::vector<std::string> sharedLibs;
  std::string runtimeLib;
  /// --dump-object-file: keep the JIT's object file (the caller writes it
  /// once its functions are looked up, i.e. compiled).
  std::string dumpObject;
  /// --timing: say which kernels the runtime picked.
  bool timing = false;
};

/// Adds amp-lower-to-llvm with the options of `options` to `pm`.
void buildLoweringPipeline(mlir::OpPassManager &pm,
                           const CompileOptions &options);

/// Makes `fn` callable from amp-run: public, with a C interface, without the
/// role attributes (and without `amp.updates` unless the state is donated).
void prepareForJit(mlir::func::FuncOp fn, const CompileOptions &options);

/// Lowers `module` to the LLVM dialect; fails if anything else is left.
llvm::Error lowerToLLVM(mlir::ModuleOp module, const CompileOptions &options);

/// JIT-compiles the lowered `module` for the host with the libraries its
/// code calls, and registers amp-run's tracked allocator with it.
llvm::Expected<std::unique_ptr<mlir::ExecutionEngine>>
jitCompile(mlir::ModuleOp module, const CompileOptions &options);

/// Looks up `_mlir_ciface_NAME` in `engine`.
llvm::Expected<void (*)(void **)> lookupFunction(mlir::ExecutionEngine &engine,
                                                 llvm::StringRef name);

} // namespace amp::run

#endif // AMP_RUN_COMPILE_H
