//===- FuncBuilder.h - Tensor-level builder of one generated function -----===//
//
// amp-gen-model writes training steps with MLIR's builders. FuncBuilder owns
// one func.func under construction: arguments with names and attributes,
// scalar and splat constants created once at the top of the body, and the
// tensor ops the models are made of (linalg named ops, generics with a body
// callback, reshapes, pads and the amp training-step markers). Every value
// carries a NameLoc, printed as its SSA name (`printNameLocAsPrefix`), so
// the output reads like hand-written IR.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_GEN_MODEL_FUNCBUILDER_H
#define AMP_GEN_MODEL_FUNCBUILDER_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/AffineExpr.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <variant>
#include <vector>

namespace amp_gen {

using mlir::AffineExpr;
using mlir::Value;

/// Builds the scalar region of a linalg.generic / linalg.reduce. Constants
/// come from the enclosing function (hoisted to its top), as in hand-written
/// IR.
class FuncBuilder;
class BodyBuilder {
public:
  BodyBuilder(FuncBuilder &fn, mlir::OpBuilder &b, mlir::Location loc)
      : fn(fn), b(b), loc(loc) {}

  Value c(double v, llvm::StringRef hint = {});
  Value op(llvm::StringRef name, mlir::ValueRange operands,
           mlir::Type type = {});
  Value add(Value x, Value y) { return op("arith.addf", {x, y}); }
  Value sub(Value x, Value y) { return op("arith.subf", {x, y}); }
  Value mul(Value x, Value y) { return op("arith.mulf", {x, y}); }
  Value div(Value x, Value y) { return op("arith.divf", {x, y}); }
  Value max(Value x, Value y) { return op("arith.maximumf", {x, y}); }
  Value exp(Value x) { return op("math.exp", {x}); }
  Value tanh(Value x) { return op("math.tanh", {x}); }
  Value sqrt(Value x) { return op("math.sqrt", {x}); }
  Value cmp(mlir::arith::CmpFPredicate pred, Value x, Value y);
  Value select(Value cond, Value x, Value y);
  /// Integer and index arithmetic of the driver's initialisers.
  Value index(int64_t dim);
  Value intConst(int64_t v, mlir::Type type);
  mlir::OpBuilder &builder() { return b; }
  mlir::Location location() { return loc; }

private:
  FuncBuilder &fn;
  mlir::OpBuilder &b;
  mlir::Location loc;
};

/// The body of a generic: called with the block arguments (inputs, then the
/// output), returns the value to yield.
using BodyFn =
    std::function<Value(BodyBuilder &, llvm::ArrayRef<mlir::BlockArgument>)>;

/// An input of a generic: the tensor and one affine expression of the loop
/// dimensions per tensor dimension.
struct GenericInput {
  Value value;
  llvm::SmallVector<AffineExpr> exprs;
};

/// The initial value of a generic's output: none (tensor.empty), a float
/// (linalg.fill) or a tensor.
using Init = std::variant<std::monostate, double, Value>;

class FuncBuilder {
public:
  FuncBuilder(mlir::ModuleOp module, llvm::StringRef name, mlir::FloatType ft,
              bool markers = true, bool isPrivate = false);

  mlir::MLIRContext *context() { return ctx; }
  mlir::FloatType floatType() { return ft; }
  mlir::OpBuilder &builder() { return b; }
  mlir::Location loc(llvm::StringRef hint);
  mlir::RankedTensorType tensorType(llvm::ArrayRef<int64_t> shape,
                                    mlir::Type elt = {});
  static llvm::ArrayRef<int64_t> shapeOf(Value v);
  /// The name a value was given (its NameLoc).
  static std::string nameOf(Value v);

  /// Function arguments and results, with their attributes
  /// (`amp.role = "..."`); the function type is set by finish().
  Value arg(llvm::StringRef hint, llvm::ArrayRef<int64_t> shape,
            mlir::DictionaryAttr attrs = {});
  Value arg(llvm::StringRef hint, mlir::Type type);
  void ret(Value v, mlir::DictionaryAttr attrs = {});
  mlir::DictionaryAttr role(llvm::StringRef role,
                            std::optional<int64_t> updates = std::nullopt);
  void finish();

  /// Constants, created once at the top of the function.
  Value c(double value, llvm::StringRef hint = {});
  Value splat(double value, llvm::ArrayRef<int64_t> shape,
              llvm::StringRef hint = "cst");
  Value ci(int64_t n);

  // Tensor ops.
  Value empty(llvm::ArrayRef<int64_t> shape, llvm::StringRef hint = "e");
  Value full(double value, llvm::ArrayRef<int64_t> shape,
             llvm::StringRef hint = "init");
  /// linalg.generic over the loops of sizes `space`; `outDims` are the
  /// result's dimensions (parallel loops), the others are reductions.
  Value generic(llvm::StringRef hint, llvm::ArrayRef<int64_t> space,
                llvm::ArrayRef<GenericInput> ins,
                llvm::ArrayRef<unsigned> outDims, const BodyFn &body,
                Init init = {});
  Value reduceSum(Value x, llvm::ArrayRef<int64_t> dims, llvm::StringRef hint);
  Value ew(llvm::StringRef opName, Value x, Value y, llvm::StringRef hint);
  Value unary(llvm::StringRef opName, Value x, llvm::StringRef hint);
  Value powf(Value x, Value y, llvm::StringRef hint);
  Value matmul(Value x, Value y, llvm::StringRef hint);
  Value batchMatmul(Value x, Value y, llvm::StringRef hint);
  Value transpose(Value x, llvm::ArrayRef<int64_t> perm, llvm::StringRef hint);
  /// The transpose of a matrix, named after it (`xT`) by default.
  Value t2(Value x, llvm::StringRef hint = {});
  Value collapse(Value x, llvm::ArrayRef<llvm::SmallVector<int64_t, 2>> groups,
                 llvm::StringRef hint);
  Value expand(Value x, llvm::ArrayRef<llvm::SmallVector<int64_t, 2>> groups,
               llvm::ArrayRef<int64_t> shape, llvm::StringRef hint);
  Value pad(Value x, llvm::ArrayRef<int64_t> low, llvm::ArrayRef<int64_t> high,
            llvm::StringRef hint);
  Value conv(Value x, Value k, llvm::StringRef hint);
  Value maxpool2(Value x, llvm::StringRef hint);

  // Layers made of the above.
  Value biasAdd(Value z, Value bias, llvm::StringRef hint);
  Value relu(Value a, llvm::StringRef hint);
  Value reluBwd(Value g, Value a, llvm::StringRef hint, bool wrongMask);
  Value dense(Value x, Value w, Value bias, llvm::StringRef hint);
  Value scale(Value x, double s, llvm::StringRef hint);

  // Training-step markers (docs/training-step.md); without markers the
  // values the marker-free program has instead.
  Value gradSeed(Value loss);
  Value paramGrad(Value g, llvm::StringRef pname);
  Value stateUpdate(Value oldValue, Value newValue, llvm::StringRef hint);

  /// The loop dimension `i` of a generic.
  AffineExpr d(unsigned i) { return mlir::getAffineDimExpr(i, ctx); }
  /// d0, ..., d{rank-1}.
  llvm::SmallVector<AffineExpr> dims(unsigned rank);

private:
  Value insertConstant(llvm::StringRef hint, mlir::TypedAttr value);

  mlir::MLIRContext *ctx;
  mlir::func::FuncOp func;
  mlir::FloatType ft;
  bool markers;
  mlir::OpBuilder b;
  mlir::Operation *lastConstant = nullptr;
  // (kind, value bits, shape or hint) -> constant
  std::map<std::tuple<char, uint64_t, std::string>, Value> constants;
  llvm::SmallVector<mlir::DictionaryAttr> argAttrs;
  llvm::SmallVector<Value> results;
  llvm::SmallVector<mlir::DictionaryAttr> resultAttrs;
};

} // namespace amp_gen

#endif // AMP_GEN_MODEL_FUNCBUILDER_H
