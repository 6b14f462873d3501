//===- AmpOps.cpp - The amp dialect's markers -----------------------------===//
//
// Verifiers and the assembly format of amp.state_update. Every marker must be
// in a function body (or structured control flow in it); a function has at
// most one amp.grad_seed.
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/Amp/AmpOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;
using namespace mlir::amp;

/// Markers describe a training step, which is a function: they sit in its
/// body, possibly inside structured control flow, never in the body of an
/// op that computes (a linalg op's scalar body, a tensor.pad region). That
/// is also what lets walkMarkers() skip those bodies.
static LogicalResult verifyInsideFunction(Operation *op) {
  Operation *parent = op->getParentOp();
  while (parent && !isa<FunctionOpInterface>(parent)) {
    if (!isa<RegionBranchOpInterface>(parent))
      break;
    parent = parent->getParentOp();
  }
  if (parent && isa<FunctionOpInterface>(parent))
    return success();
  if (op->getParentOfType<FunctionOpInterface>())
    return op->emitOpError()
           << "must be in a function body or in structured control flow "
              "(ops with RegionBranchOpInterface) in it, not in a region of '"
           << parent->getName() << "': it marks a value of the training step";
  return op->emitOpError()
         << "must be nested in a function (an op with FunctionOpInterface, "
            "e.g. func.func): it marks part of a training step";
}

void mlir::amp::walkMarkers(Operation *root,
                            function_ref<void(Operation *)> callback) {
  root->walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (isAmpMarker(op)) {
      callback(op);
      return WalkResult::skip();
    }
    // Regions where the verifier allows no marker.
    if (op != root && op->getNumRegions() &&
        !isa<FunctionOpInterface, RegionBranchOpInterface>(op) &&
        !op->hasTrait<OpTrait::SymbolTable>())
      return WalkResult::skip();
    return WalkResult::advance();
  });
}

PrecisionClass GradSeedOp::getAmpPrecisionClass() {
  return PrecisionClass::Deny;
}

LogicalResult GradSeedOp::verify() {
  if (failed(verifyInsideFunction(*this)))
    return failure();
  // The first seed of the function, in pre-order, not looking into nested
  // functions.
  auto function = (*this)->getParentOfType<FunctionOpInterface>();
  GradSeedOp first;
  function->walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (op != function.getOperation() && isa<FunctionOpInterface>(op))
      return WalkResult::skip();
    if (auto seed = dyn_cast<GradSeedOp>(op)) {
      first = seed;
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (first == *this)
    return success();
  InFlightDiagnostic diag = emitOpError()
                            << "is a second amp.grad_seed in one function: a "
                               "training step has one loss and one seed";
  diag.attachNote(first.getLoc()) << "the first amp.grad_seed is here";
  return diag;
}

LogicalResult ParamGradOp::verify() { return verifyInsideFunction(*this); }

LogicalResult StateUpdateOp::verify() {
  Type stateType = getState().getType();
  if (getNewValue().getType() != stateType)
    return emitOpError() << "new value has type " << getNewValue().getType()
                         << ", but the state it replaces has type " << stateType
                         << " (they must be the same)";
  if (getType() != stateType)
    return emitOpError() << "result has type " << getType()
                         << ", but the state it replaces has type " << stateType
                         << " (they must be the same)";
  return verifyInsideFunction(*this);
}

// amp.state_update %old, %new attr-dict : type
ParseResult StateUpdateOp::parse(OpAsmParser &parser, OperationState &result) {
  OpAsmParser::UnresolvedOperand oldValue, newValue;
  Type type;
  if (parser.parseOperand(oldValue) || parser.parseComma() ||
      parser.parseOperand(newValue) ||
      parser.parseOptionalAttrDict(result.attributes) ||
      parser.parseColonType(type) ||
      parser.resolveOperands({oldValue, newValue}, type, result.operands))
    return failure();
  result.addTypes(type);
  return success();
}

void StateUpdateOp::print(OpAsmPrinter &printer) {
  printer << ' ' << getState() << ", " << getNewValue();
  printer.printOptionalAttrDict((*this)->getAttrs());
  printer << " : " << getType();
}

#define GET_OP_CLASSES
#include "amp/Dialect/Amp/AmpOps.cpp.inc"
