//===- AmpDialect.cpp - The amp dialect -----------------------------------===//

#include "amp/Dialect/Amp/AmpDialect.h"
#include "amp/Dialect/Amp/AmpOps.h"

using namespace mlir;
using namespace mlir::amp;

#include "amp/Dialect/Amp/AmpDialect.cpp.inc"

void AmpDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "amp/Dialect/Amp/AmpOps.cpp.inc"
      >();
}
