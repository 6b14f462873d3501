//===- ReadRoundingsWide.h - Skip roundings read back wide ------*- C++ -*-===//
//
// A cast-economy rewrite of amp-auto-mixed-precision as a pattern, for other
// compilers that want it after their own mixed-precision rewrite.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_TRANSFORMS_READROUNDINGSWIDE_H
#define AMP_TRANSFORMS_READROUNDINGSWIDE_H

#include "mlir/IR/PatternMatch.h"

namespace mlir::amp {

/// A pattern on a tensor `arith.truncf` whose every reader is an elementwise
/// linalg op (all loops parallel: generic, map) that extends the rounded
/// element straight back to the truncf's input type: each reader takes the
/// wide tensor instead and uses the wide element, and the truncf goes. The
/// readers computed in the wide type already; they now skip one rounding (a
/// result at least as accurate), and the tensor cast, with the bytes it
/// reads and writes, disappears. Typical case: a convolution's f32
/// accumulator rounded to bf16 for the batch norm that follows it.
///
/// The wide tensor then lives until the last reader instead of the narrow
/// one, so the pattern applies only where that is free: every reader sits
/// in the truncf's block, and no op between the truncf and its last reader
/// produces a tensor of half its size or more (a forward activation read
/// again by the backward pass keeps its low copy).
void populateReadRoundingsWidePatterns(RewritePatternSet &patterns);

} // namespace mlir::amp

#endif // AMP_TRANSFORMS_READROUNDINGSWIDE_H
