//===- PrecisionClass.h - AMP precision classes -----------------*- C++ -*-===//
//
// The five classes of TensorFlow's AMP vocabulary, shared by the policy, the
// painting analysis and AmpPrecisionOpInterface.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_INTERFACES_PRECISIONCLASS_H
#define AMP_INTERFACES_PRECISIONCLASS_H

#include "llvm/ADT/StringRef.h"
#include <optional>

namespace mlir::amp {

enum class PrecisionClass { Allow, Infer, Clear, Deny, Unlisted };

/// Returns "allow", "infer", "clear", "deny" or "unlisted".
llvm::StringRef stringifyPrecisionClass(PrecisionClass cls);

/// Parses one of the names returned by stringifyPrecisionClass.
std::optional<PrecisionClass> symbolizePrecisionClass(llvm::StringRef name);

} // namespace mlir::amp

#endif // AMP_INTERFACES_PRECISIONCLASS_H
