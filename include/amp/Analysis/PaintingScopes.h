//===- PaintingScopes.h - Functions painted together ------------*- C++ -*-===//
//
// Splits a module into the sets of functions whose painting depends on each
// other: a private function called only directly (whose signature the
// rewrite may specialise) is painted with its callers; every other function
// is painted on its own. The painting and rewrite of one scope read and write
// nothing outside it, so amp-auto-mixed-precision runs the scopes in
// parallel.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_ANALYSIS_PAINTINGSCOPES_H
#define AMP_ANALYSIS_PAINTINGSCOPES_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

namespace mlir::amp {

/// A specialisable function and its calls (all direct, all in its scope or
/// outside every function).
struct SpecializableFunction {
  FunctionOpInterface func;
  SmallVector<CallOpInterface> calls;
};

/// Functions painted together, in module order.
struct PaintingScope {
  SmallVector<FunctionOpInterface> functions;
  SmallVector<SpecializableFunction> specializable;
};

/// The scopes of `module`, ordered by their first function. Every function
/// under `module` (nested modules included, bodies not entered) is in
/// exactly one. A function is specialisable when it has a body, sits
/// directly in `module`, is private or `keepPublicSignatures` is off, and is
/// used only as the callee of calls that pass exactly its arguments.
SmallVector<PaintingScope>
partitionIntoPaintingScopes(ModuleOp module, bool keepPublicSignatures);

} // namespace mlir::amp

#endif // AMP_ANALYSIS_PAINTINGSCOPES_H
