//===- Passes.h - amp-opt reporting passes ----------------------*- C++ -*-===//

#ifndef AMP_REPORTS_PASSES_H
#define AMP_REPORTS_PASSES_H

#include "amp/Support/OptionEnums.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

#include <memory>

namespace mlir::amp {

#define GEN_PASS_DECL
#include "amp/Reports/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "amp/Reports/Passes.h.inc"

} // namespace mlir::amp

#endif // AMP_REPORTS_PASSES_H
