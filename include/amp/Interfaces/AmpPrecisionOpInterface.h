//===- AmpPrecisionOpInterface.h - AMP precision class of an op -*- C++ -*-===//

#ifndef AMP_INTERFACES_AMPPRECISIONOPINTERFACE_H
#define AMP_INTERFACES_AMPPRECISIONOPINTERFACE_H

#include "amp/Interfaces/PrecisionClass.h"
#include "mlir/IR/OpDefinition.h"

#include "amp/Interfaces/AmpPrecisionOpInterface.h.inc"

#endif // AMP_INTERFACES_AMPPRECISIONOPINTERFACE_H
