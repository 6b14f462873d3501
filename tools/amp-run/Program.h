//===- Program.h - One module for amp-run: parsed, found, JIT-compiled -*- C++
//-*-===//
//
// What amp-run does with each module it is given (the one it trains, and the
// one of --bench-against): parse it (with amp-carry-rounded-params), find its
// training step and evaluation function by their amp.role results (or by
// name), and JIT-compile the lowered module.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_RUN_PROGRAM_H
#define AMP_RUN_PROGRAM_H

#include "Compile.h"
#include "JitFunction.h"
#include "Signature.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/SourceMgr.h"

#include <memory>
#include <optional>
#include <string>

namespace amp::run {

/// The step (required) and the eval function (optional) of `module`, by
/// --step / --eval or by the roles of their results.
struct Roles {
  mlir::func::FuncOp stepFn, evalFn;
  Signature step;
  std::optional<Signature> eval;
};

/// The step (`stepName`, or else the function with a result of amp.role
/// "loss") and the eval function (`evalName`, "none" for none, or else the
/// function with a result of amp.role "logits", if any) of `module`; the
/// names are those of --step / --eval in the errors.
llvm::Expected<Roles> findRoles(mlir::ModuleOp module, llvm::StringRef stepName,
                                llvm::StringRef evalName);

/// Parses `filename` into the (new) `sourceMgr`, whose diagnostic handler
/// reports its errors, and with `carryRoundedParams` runs
/// amp-carry-rounded-params on it.
llvm::Expected<mlir::OwningOpRef<mlir::ModuleOp>>
parseProgram(mlir::MLIRContext &context, llvm::SourceMgr &sourceMgr,
             const std::string &filename, bool carryRoundedParams);

/// The step and eval functions, JIT-compiled.
struct CompiledFunctions {
  std::unique_ptr<mlir::ExecutionEngine> engine;
  std::optional<JitFunction> step, eval;
  double jitMs = 0;
};

/// JIT-compiles the lowered module and looks up the functions of `roles`.
llvm::Error jitFunctions(mlir::ModuleOp module, const Roles &roles,
                         const CompileOptions &compile, CompiledFunctions &out);

} // namespace amp::run

#endif // AMP_RUN_PROGRAM_H
