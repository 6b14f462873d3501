//===- RewritePainting.h - Rewriting a painted module -----------*- C++ -*-===//
//
// The rewrite step of amp-auto-mixed-precision, after the painting.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_TRANSFORMS_REWRITEPAINTING_H
#define AMP_TRANSFORMS_REWRITEPAINTING_H

#include "amp/Analysis/PrecisionPainting.h"
#include "mlir/IR/BuiltinTypes.h"

#include <cstdint>

namespace mlir::amp {

/// What one rewrite did (plain counters: Debian's Release MLIR compiles
/// Statistic to a no-op).
struct PaintingRewriteStats {
  uint64_t opsLow = 0, opsF32 = 0, carried = 0, castsInserted = 0,
           roundingsReadWide = 0;

  PaintingRewriteStats &operator+=(const PaintingRewriteStats &other) {
    opsLow += other.opsLow;
    opsF32 += other.opsF32;
    carried += other.carried;
    castsInserted += other.castsInserted;
    roundingsReadWide += other.roundingsReadWide;
    return *this;
  }
};

/// Gives every op and carried value that `painting` made low the type
/// `lowType`, inserts one cast per value and type wherever a producer and a
/// consumer disagree, and specialises the signatures of the functions the
/// painting specialised. With `castEconomy`, low elementwise readers of an
/// inserted rounding that only extend it back read the f32 value instead
/// (ReadRoundingsWide.h).
PaintingRewriteStats rewritePaintedModule(const PrecisionPainting &painting,
                                          FloatType lowType, bool castEconomy);

} // namespace mlir::amp

#endif // AMP_TRANSFORMS_REWRITEPAINTING_H
