//===- AmpPrecisionOpInterface.cpp - AMP precision class of an op ---------===//

#include "amp/Interfaces/AmpPrecisionOpInterface.h"

#include "llvm/ADT/StringSwitch.h"

using namespace mlir;
using namespace mlir::amp;

llvm::StringRef mlir::amp::stringifyPrecisionClass(PrecisionClass cls) {
  switch (cls) {
  case PrecisionClass::Allow:
    return "allow";
  case PrecisionClass::Infer:
    return "infer";
  case PrecisionClass::Clear:
    return "clear";
  case PrecisionClass::Deny:
    return "deny";
  case PrecisionClass::Unlisted:
    return "unlisted";
  }
  llvm_unreachable("unknown precision class");
}

std::optional<PrecisionClass>
mlir::amp::symbolizePrecisionClass(llvm::StringRef name) {
  return llvm::StringSwitch<std::optional<PrecisionClass>>(name)
      .Case("allow", PrecisionClass::Allow)
      .Case("infer", PrecisionClass::Infer)
      .Case("clear", PrecisionClass::Clear)
      .Case("deny", PrecisionClass::Deny)
      .Case("unlisted", PrecisionClass::Unlisted)
      .Default(std::nullopt);
}

#include "amp/Interfaces/AmpPrecisionOpInterface.cpp.inc"
