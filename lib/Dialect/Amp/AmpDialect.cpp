//===- AmpDialect.cpp - The amp dialect -----------------------------------===//

#include "amp/Dialect/Amp/AmpDialect.h"
#include "amp/Dialect/Amp/AmpOps.h"
#include "amp/Interfaces/PrecisionClass.h"

#include "mlir/IR/BuiltinOps.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace mlir::amp;

#include "amp/Dialect/Amp/AmpDialect.cpp.inc"

void AmpDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "amp/Dialect/Amp/AmpOps.cpp.inc"
      >();
}

/// The roles of a training step's or evaluation function's arguments and
/// results (docs/training-step.md; amp-run reads them).
static constexpr StringLiteral kRoles[] = {
    "input",      "label", "param",  "param_copy", "opt_state", "loss_scale",
    "good_steps", "loss",  "update", "step_ok",    "grad",      "logits"};

/// Where to report a bad attribute of argument `argIndex` of `op` (its
/// block argument's location when it has a body). A plain error, not an
/// op error: that would print the whole function after it.
static Location argLoc(Operation *op, unsigned regionIndex, unsigned argIndex) {
  Region &region = op->getRegion(regionIndex);
  if (!region.empty() && argIndex < region.front().getNumArguments())
    return region.front().getArgument(argIndex).getLoc();
  return op->getLoc();
}

static LogicalResult verifyRole(Location loc, NamedAttribute attr) {
  auto role = dyn_cast<StringAttr>(attr.getValue());
  if (role && llvm::is_contained(kRoles, role.getValue()))
    return success();
  return emitError(loc, "'amp.role' must be one of ")
         << llvm::join(ArrayRef(kRoles), ", ") << "; got " << attr.getValue();
}

/// An amp.* attribute name this dialect does not define: `where` says which
/// names it does define there.
static LogicalResult unknownAttribute(Location loc, StringRef name,
                                      StringRef where) {
  return emitError(loc, "unknown attribute '")
         << name << "' (the amp dialect defines " << where << ")";
}

static constexpr StringLiteral kArgAttrs =
    "amp.role, amp.rounded_from, amp.copy_of and amp.donated on function "
    "arguments";
static constexpr StringLiteral kResultAttrs =
    "amp.role and amp.updates on function results";

LogicalResult AmpDialect::verifyOperationAttribute(Operation *op,
                                                   NamedAttribute attr) {
  StringRef name = attr.getName().strref();
  Location loc = op->getLoc();
  if (name == "amp.decision") {
    // amp-auto-mixed-precision{annotate=true}: the painting's decision.
    auto dict = dyn_cast<DictionaryAttr>(attr.getValue());
    auto cls = dict ? dict.getAs<StringAttr>("class") : nullptr;
    auto precision = dict ? dict.getAs<StringAttr>("precision") : nullptr;
    auto reason = dict ? dict.getAs<StringAttr>("reason") : nullptr;
    if (!cls || !symbolizePrecisionClass(cls.getValue()) || !precision ||
        (precision.getValue() != "low" && precision.getValue() != "f32") ||
        !reason || dict.size() != 3)
      return emitError(loc, "'amp.decision' must be {class = <allow, infer, "
                            "clear, deny or unlisted>, precision = <low or "
                            "f32>, reason = <string>}; got ")
             << attr.getValue();
    return success();
  }
  if (name == "amp.blocked_conv") {
    // amp-block-convs: the strides and dilations (H, W) of the NCHW
    // convolution a linalg.generic on nChw16c activations computes.
    auto values = dyn_cast<DenseI64ArrayAttr>(attr.getValue());
    if (op->getName().getStringRef() != "linalg.generic" || !values ||
        values.size() != 4 ||
        llvm::any_of(values.asArrayRef(), [](int64_t v) { return v < 1; }))
      return emitError(loc, "'amp.blocked_conv' is array<i64: stride_h, "
                            "stride_w, dilation_h, dilation_w> (each >= 1) on "
                            "a linalg.generic; got ")
             << attr.getValue();
    return success();
  }
  if (name.starts_with("amp.report.")) {
    // amp-report-snapshot: a stage's metrics as JSON text, on the module.
    if (!isa<ModuleOp>(op) || !isa<StringAttr>(attr.getValue()))
      return emitError(loc, "'")
             << name << "' is the JSON text of a report snapshot on a module";
    return success();
  }
  return unknownAttribute(
      loc, name,
      ("amp.decision on ops, amp.blocked_conv on a linalg.generic and "
       "amp.report.<stage> on a module; " +
       Twine(kArgAttrs) + "; " + kResultAttrs)
          .str());
}

LogicalResult AmpDialect::verifyRegionArgAttribute(Operation *op,
                                                   unsigned regionIndex,
                                                   unsigned argIndex,
                                                   NamedAttribute attr) {
  StringRef name = attr.getName().strref();
  Location loc = argLoc(op, regionIndex, argIndex);
  if (name == "amp.role")
    return verifyRole(loc, attr);
  if (name == "amp.donated") {
    if (!isa<UnitAttr>(attr.getValue()))
      return emitError(loc, "'amp.donated' is a unit attribute");
    return success();
  }
  if (name == "amp.rounded_from") {
    // amp-low-precision-arguments: the caller passes this f32 tensor
    // rounded to the argument's 16-bit type, of the same shape.
    auto from = dyn_cast<TypeAttr>(attr.getValue());
    auto f32 = from ? dyn_cast<RankedTensorType>(from.getValue()) : nullptr;
    Region &region = op->getRegion(regionIndex);
    Type argType = region.empty()
                       ? Type()
                       : region.front().getArgument(argIndex).getType();
    if (auto function = dyn_cast<FunctionOpInterface>(op))
      argType = function.getArgumentTypes()[argIndex];
    auto low = dyn_cast_or_null<RankedTensorType>(argType);
    if (!f32 || !f32.getElementType().isF32() || !low ||
        !(low.getElementType().isF16() || low.getElementType().isBF16()) ||
        low.getShape() != f32.getShape())
      return emitError(loc, "'amp.rounded_from' on argument #")
             << argIndex
             << " must name the f32 tensor type of which the argument, an "
                "f16 or bf16 tensor of the same shape, is the rounding; got "
             << attr.getValue() << " on " << argType;
    return success();
  }
  if (name == "amp.copy_of") {
    // amp-carry-rounded-params: this argument is the 16-bit rounding of the
    // f32 argument it names, of the same shape.
    auto index = dyn_cast<IntegerAttr>(attr.getValue());
    auto function = dyn_cast<FunctionOpInterface>(op);
    // Tensors, or the memrefs that bufferization makes of them.
    auto copy =
        function ? dyn_cast<ShapedType>(function.getArgumentTypes()[argIndex])
                 : nullptr;
    auto source =
        function && index && !index.getValue().isNegative() &&
                index.getValue().ult(function.getNumArguments())
            ? dyn_cast<ShapedType>(function.getArgumentTypes()[index.getInt()])
            : nullptr;
    if (!copy || !source || !copy.hasRank() || !source.hasRank() ||
        !source.getElementType().isF32() ||
        !(copy.getElementType().isF16() || copy.getElementType().isBF16()) ||
        copy.getShape() != source.getShape())
      return emitError(loc, "'amp.copy_of' on argument #")
             << argIndex
             << " must be the index of an f32 tensor argument of which this "
                "argument, an f16 or bf16 tensor of the same shape, is the "
                "rounding; got "
             << attr.getValue();
    return success();
  }
  return unknownAttribute(loc, name, kArgAttrs);
}

LogicalResult AmpDialect::verifyRegionResultAttribute(Operation *op,
                                                      unsigned regionIndex,
                                                      unsigned resultIndex,
                                                      NamedAttribute attr) {
  StringRef name = attr.getName().strref();
  if (name == "amp.role")
    return verifyRole(op->getLoc(), attr);
  if (name == "amp.updates") {
    // The argument whose new value this result is.
    auto index = dyn_cast<IntegerAttr>(attr.getValue());
    auto function = dyn_cast<FunctionOpInterface>(op);
    if (!index || !function || index.getValue().isNegative() ||
        index.getValue().uge(function.getNumArguments()))
      return emitError(op->getLoc(), "'amp.updates' on result #")
             << resultIndex << " must be the index of an argument; got "
             << attr.getValue();
    return success();
  }
  return unknownAttribute(op->getLoc(), name, kResultAttrs);
}
