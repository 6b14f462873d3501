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

/// Two patterns. One on a tensor `arith.truncf` whose every reader only
/// extends the rounded element straight back to the truncf's input type: an
/// elementwise linalg op (generic, map) through its body, or an extf of the
/// tensor, directly or through expand / collapse_shape. Each reader takes
/// the wide tensor instead, and the truncf goes. Typical case: a
/// convolution's f32 accumulator rounded to bf16 for the batch norm that
/// follows it. The other on an elementwise linalg.generic that computes a
/// result wide and truncates it on yield, with such readers: it yields the
/// wide element into a wide result. Along a chain of low elementwise ops
/// (a batch norm's four, a bias add and a residual add) the chain then
/// rounds once, at its end. The readers computed in the wide type already;
/// they skip roundings (results at least as accurate), and tensor casts,
/// with the bytes they read and write, disappear.
///
/// The wide tensor then lives until the last reader instead of the narrow
/// one, so the patterns apply only where that is cheap: every reader sits
/// in the rounding's block, and no op in between produces a tensor of half
/// its elements or more (a forward activation read again by the backward
/// pass keeps its low copy), or, for a value an f32 op reads too (the f32
/// tensor exists anyway), unless one has at least twice its bytes (a
/// transformer's residual stream across an attention block, which PyTorch's
/// autocast keeps f32 all along). Contractions keep their low inputs.
void populateReadRoundingsWidePatterns(RewritePatternSet &patterns);

} // namespace mlir::amp

#endif // AMP_TRANSFORMS_READROUNDINGSWIDE_H
