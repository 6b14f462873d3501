//===- Program.cpp - One module for amp-run: parsed, found, JIT-compiled --===//

#include "Program.h"

#include "Error.h"
#include "Stopwatch.h"

#include "amp/Transforms/Passes.h"

#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"

using namespace amp::run;
using llvm::StringRef;

/// The function named `name`, or else the one with a result of amp.role
/// `role` (an error if several have one, or if none has and `required`).
static llvm::Expected<mlir::func::FuncOp>
selectFunction(mlir::ModuleOp module, StringRef name, StringRef role,
               StringRef flag, bool required) {
  if (!name.empty()) {
    auto fn = module.lookupSymbol<mlir::func::FuncOp>(name);
    if (!fn)
      return makeError("no function @" + name + " (from --" + flag +
                       ") in the module");
    return fn;
  }
  llvm::SmallVector<mlir::func::FuncOp> candidates;
  for (auto fn : module.getOps<mlir::func::FuncOp>())
    if (hasResultRole(fn, role))
      candidates.push_back(fn);
  if (candidates.size() > 1) {
    std::string names;
    for (auto fn : candidates)
      names += " @" + fn.getSymName().str();
    return makeError("several functions have a result of amp.role \"" + role +
                     "\":" + names + "; choose one with --" + flag + "=NAME");
  }
  if (candidates.empty()) {
    if (required)
      return makeError("no function has a result of amp.role \"" + role +
                       "\"; annotate the training step (docs/training-step.md) "
                       "or name it with --" +
                       flag + "=NAME");
    return mlir::func::FuncOp();
  }
  return candidates.front();
}

llvm::Expected<Roles> amp::run::findRoles(mlir::ModuleOp module,
                                          StringRef stepName,
                                          StringRef evalName) {
  Roles roles;
  auto stepFn = selectFunction(module, stepName, "loss", "step", true);
  if (!stepFn)
    return stepFn.takeError();
  roles.stepFn = *stepFn;
  auto step = analyzeStep(roles.stepFn);
  if (!step)
    return step.takeError();
  roles.step = std::move(*step);
  if (evalName == "none")
    return roles;
  auto evalFn = selectFunction(module, evalName, "logits", "eval", false);
  if (!evalFn)
    return evalFn.takeError();
  roles.evalFn = *evalFn;
  if (roles.evalFn == roles.stepFn)
    return makeError("the step and the eval function are both @" +
                     roles.step.name);
  if (roles.evalFn) {
    auto eval = analyzeEval(roles.evalFn, roles.step);
    if (!eval)
      return eval.takeError();
    roles.eval = std::move(*eval);
  }
  return roles;
}

llvm::Expected<mlir::OwningOpRef<mlir::ModuleOp>>
amp::run::parseProgram(mlir::MLIRContext &context, llvm::SourceMgr &sourceMgr,
                       const std::string &filename, bool carryRoundedParams) {
  std::string errorMessage;
  auto file = mlir::openInputFile(filename, &errorMessage);
  if (!file)
    return makeError("cannot open '" + filename + "': " + errorMessage);
  sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceFile<mlir::ModuleOp>(sourceMgr, &context);
  if (!module)
    return makeError("cannot parse '" + filename +
                     "' (see the diagnostics above; amp dialect markers must "
                     "be lowered first, e.g. by amp-opt --amp)");
  if (carryRoundedParams) {
    mlir::PassManager pm(&context);
    pm.addPass(mlir::amp::createCarryRoundedParamsPass());
    if (mlir::failed(pm.run(*module)))
      return makeError("amp-carry-rounded-params failed (see above)");
  }
  return module;
}

llvm::Error amp::run::jitFunctions(mlir::ModuleOp module, const Roles &roles,
                                   const CompileOptions &compile,
                                   CompiledFunctions &out) {
  Stopwatch jitting;
  auto engine = jitCompile(module, compile);
  if (!engine)
    return engine.takeError();
  out.engine = std::move(*engine);
  auto stepPacked = lookupFunction(*out.engine, roles.step.name);
  if (!stepPacked)
    return stepPacked.takeError();
  out.step.emplace(roles.step, *stepPacked);
  if (roles.eval) {
    auto packed = lookupFunction(*out.engine, roles.eval->name);
    if (!packed)
      return packed.takeError();
    out.eval.emplace(*roles.eval, *packed);
  }
  if (!compile.dumpObject.empty())
    out.engine->dumpToObjectFile(compile.dumpObject);
  out.jitMs = jitting.ms();
  return llvm::Error::success();
}
