//===- PassStatistics.h - Printing amp pass statistics ----------*- C++ -*-===//
//
// Debian's LLVM 22 is a Release build without LLVM_ENABLE_STATS, so
// `--mlir-pass-statistics` prints nothing for any pass (upstream `--cse`
// included). The amp passes still declare their statistics in TableGen (they
// show on builds with statistics) and also print them themselves when their
// `stats` option is set.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_TRANSFORMS_PASSSTATISTICS_H
#define AMP_TRANSFORMS_PASSSTATISTICS_H

#include "mlir/Support/LLVM.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>

namespace mlir::amp {

struct NamedCount {
  StringRef name;
  uint64_t value;
};

/// Prints "<pass> statistics:" and one "  <value> <name>" line per counter.
inline void printPassStatistics(StringRef passArgument,
                                ArrayRef<NamedCount> counts,
                                raw_ostream &os = llvm::errs()) {
  os << passArgument << " statistics:\n";
  for (const NamedCount &count : counts)
    os << "  " << count.value << " " << count.name << "\n";
}

} // namespace mlir::amp

#endif // AMP_TRANSFORMS_PASSSTATISTICS_H
