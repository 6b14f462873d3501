//===- Error.h - amp-run's error values ---------------------------*- C++
//-*-===//
//
// amp-run reports every failure as an llvm::Error whose message is printed
// once, as `amp-run: error: MESSAGE`, by main().
//
//===----------------------------------------------------------------------===//

#ifndef AMP_RUN_ERROR_H
#define AMP_RUN_ERROR_H

#include "llvm/Support/Error.h"

namespace amp::run {

inline llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

} // namespace amp::run

#endif // AMP_RUN_ERROR_H
