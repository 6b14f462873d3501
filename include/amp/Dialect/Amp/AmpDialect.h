//===- AmpDialect.h - The amp dialect ---------------------------*- C++ -*-===//
//
// The amp dialect: the markers of the training-step contract
// (docs/training-step.md).
//
//===----------------------------------------------------------------------===//

#ifndef AMP_DIALECT_AMP_AMPDIALECT_H
#define AMP_DIALECT_AMP_AMPDIALECT_H

#include "mlir/IR/Dialect.h"

#include "amp/Dialect/Amp/AmpDialect.h.inc"

#endif // AMP_DIALECT_AMP_AMPDIALECT_H
