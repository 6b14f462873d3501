//===- FuncBuilder.cpp - Tensor-level builder of one generated function ---===//

#include "FuncBuilder.h"

#include "amp/Dialect/Amp/AmpOps.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinAttributes.h"

#include <cmath>

using namespace mlir;

namespace amp_gen {

//===----------------------------------------------------------------------===//
// BodyBuilder
//===----------------------------------------------------------------------===//

Value BodyBuilder::c(double v, StringRef hint) { return fn.c(v, hint); }

Value BodyBuilder::op(StringRef name, ValueRange operands, Type type) {
  OperationState state(loc, name);
  state.addOperands(operands);
  state.addTypes(type ? type : operands.front().getType());
  return b.create(state)->getResult(0);
}

Value BodyBuilder::cmp(arith::CmpFPredicate pred, Value x, Value y) {
  return arith::CmpFOp::create(b, loc, pred, x, y);
}

Value BodyBuilder::select(Value cond, Value x, Value y) {
  return arith::SelectOp::create(b, loc, cond, x, y);
}

Value BodyBuilder::index(int64_t dim) {
  return linalg::IndexOp::create(b, loc, dim);
}

Value BodyBuilder::intConst(int64_t v, Type type) {
  return arith::ConstantOp::create(b, loc, IntegerAttr::get(type, v));
}

//===----------------------------------------------------------------------===//
// FuncBuilder: plumbing
//===----------------------------------------------------------------------===//

FuncBuilder::FuncBuilder(ModuleOp module, StringRef name, FloatType ft,
                         bool markers, bool isPrivate)
    : ctx(module.getContext()), ft(ft), markers(markers), b(ctx) {
  b.setInsertionPointToEnd(module.getBody());
  func = func::FuncOp::create(b, UnknownLoc::get(ctx), name,
                              FunctionType::get(ctx, {}, {}));
  if (isPrivate)
    func.setPrivate();
  b.setInsertionPointToStart(func.addEntryBlock());
}

Location FuncBuilder::loc(StringRef hint) {
  return NameLoc::get(StringAttr::get(ctx, hint));
}

RankedTensorType FuncBuilder::tensorType(ArrayRef<int64_t> shape, Type elt) {
  return RankedTensorType::get(shape, elt ? elt : Type(ft));
}

ArrayRef<int64_t> FuncBuilder::shapeOf(Value v) {
  return cast<RankedTensorType>(v.getType()).getShape();
}

std::string FuncBuilder::nameOf(Value v) {
  if (auto name = dyn_cast<NameLoc>(v.getLoc()))
    return name.getName().str();
  return "v";
}

SmallVector<AffineExpr> FuncBuilder::dims(unsigned rank) {
  SmallVector<AffineExpr> exprs;
  for (unsigned i = 0; i < rank; ++i)
    exprs.push_back(d(i));
  return exprs;
}

Value FuncBuilder::arg(StringRef hint, ArrayRef<int64_t> shape,
                       DictionaryAttr attrs) {
  Value v = arg(hint, tensorType(shape));
  argAttrs.back() = attrs;
  return v;
}

Value FuncBuilder::arg(StringRef hint, Type type) {
  argAttrs.push_back(nullptr);
  return func.getBody().front().addArgument(type, loc(hint));
}

void FuncBuilder::ret(Value v, DictionaryAttr attrs) {
  results.push_back(v);
  resultAttrs.push_back(attrs);
}

DictionaryAttr FuncBuilder::role(StringRef role,
                                 std::optional<int64_t> updates) {
  SmallVector<NamedAttribute> attrs;
  attrs.emplace_back(StringAttr::get(ctx, "amp.role"),
                     StringAttr::get(ctx, role));
  if (updates)
    attrs.emplace_back(StringAttr::get(ctx, "amp.updates"),
                       b.getI64IntegerAttr(*updates));
  return DictionaryAttr::get(ctx, attrs);
}

void FuncBuilder::finish() {
  func::ReturnOp::create(b, UnknownLoc::get(ctx), results);
  Block &entry = func.getBody().front();
  func.setFunctionType(FunctionType::get(ctx, entry.getArgumentTypes(),
                                         ValueRange(results).getTypes()));
  // All at once: one attribute list per call of setArgAttrs(i, ...) would
  // be quadratic in the number of arguments.
  auto orEmpty = [&](ArrayRef<DictionaryAttr> attrs) {
    return llvm::map_to_vector(attrs, [&](DictionaryAttr a) {
      return a ? a : DictionaryAttr::get(ctx);
    });
  };
  func.setAllArgAttrs(orEmpty(argAttrs));
  func.setAllResultAttrs(orEmpty(resultAttrs));
}

//===----------------------------------------------------------------------===//
// Constants
//===----------------------------------------------------------------------===//

Value FuncBuilder::insertConstant(StringRef hint, TypedAttr value) {
  OpBuilder::InsertionGuard guard(b);
  if (lastConstant)
    b.setInsertionPointAfter(lastConstant);
  else
    b.setInsertionPointToStart(&func.getBody().front());
  auto op = arith::ConstantOp::create(b, loc(hint), value);
  lastConstant = op;
  return op;
}

/// The bits of `value` rounded to `ft`: constants that round to the same
/// element are one constant.
static uint64_t roundedBits(FloatType ft, double value) {
  return FloatAttr::get(ft, value).getValue().bitcastToAPInt().getZExtValue();
}

Value FuncBuilder::c(double value, StringRef hint) {
  auto key = std::make_tuple('f', roundedBits(ft, value), hint.str());
  auto it = constants.find(key);
  if (it != constants.end())
    return it->second;
  std::string name = hint.str();
  if (name.empty())
    name = value == 0.0                     ? "zero"
           : value == 1.0                   ? "one"
           : std::isinf(value) && value < 0 ? "ninf"
                                            : "cst";
  Value v = insertConstant(name, FloatAttr::get(ft, value));
  constants[key] = v;
  return v;
}

Value FuncBuilder::splat(double value, ArrayRef<int64_t> shape,
                         StringRef hint) {
  std::string shapeKey;
  for (int64_t s : shape)
    shapeKey += std::to_string(s) + "x";
  auto key = std::make_tuple('t', roundedBits(ft, value), shapeKey);
  auto it = constants.find(key);
  if (it != constants.end())
    return it->second;
  RankedTensorType type = tensorType(shape);
  Value v = insertConstant(
      hint, DenseElementsAttr::get(type, FloatAttr::get(ft, value)));
  constants[key] = v;
  return v;
}

Value FuncBuilder::ci(int64_t n) {
  auto key = std::make_tuple('i', uint64_t(n), std::string());
  auto it = constants.find(key);
  if (it != constants.end())
    return it->second;
  Value v = insertConstant("c" + std::to_string(n), b.getIndexAttr(n));
  constants[key] = v;
  return v;
}

//===----------------------------------------------------------------------===//
// Tensor ops
//===----------------------------------------------------------------------===//

Value FuncBuilder::empty(ArrayRef<int64_t> shape, StringRef hint) {
  return tensor::EmptyOp::create(b, loc(hint), shape, ft);
}

Value FuncBuilder::full(double value, ArrayRef<int64_t> shape, StringRef hint) {
  Value e = empty(shape, ("e_" + hint).str());
  Location l = loc(hint);
  return linalg::FillOp::create(b, l, ValueRange{c(value)}, ValueRange{e})
      .getResult(0);
}

Value FuncBuilder::generic(StringRef hint, ArrayRef<int64_t> space,
                           ArrayRef<GenericInput> ins,
                           ArrayRef<unsigned> outDims, const BodyFn &body,
                           Init init) {
  SmallVector<int64_t> shape;
  SmallVector<AffineExpr> outExprs;
  for (unsigned dim : outDims) {
    shape.push_back(space[dim]);
    outExprs.push_back(d(dim));
  }
  Value out;
  if (auto *v = std::get_if<Value>(&init))
    out = *v;
  else if (auto *f = std::get_if<double>(&init))
    out = full(*f, shape, ("init_" + hint).str());
  else
    out = empty(shape, ("e_" + hint).str());
  assert(shapeOf(out) == ArrayRef<int64_t>(shape) && "bad generic init");

  SmallVector<AffineMap> maps;
  SmallVector<Value> inputs;
  for (const GenericInput &in : ins) {
    assert(in.exprs.size() == shapeOf(in.value).size() && "bad input map");
    maps.push_back(AffineMap::get(space.size(), 0, in.exprs, ctx));
    inputs.push_back(in.value);
  }
  maps.push_back(AffineMap::get(space.size(), 0, outExprs, ctx));
  SmallVector<utils::IteratorType> iterators;
  for (unsigned dim = 0; dim < space.size(); ++dim)
    iterators.push_back(llvm::is_contained(outDims, dim)
                            ? utils::IteratorType::parallel
                            : utils::IteratorType::reduction);
  auto op = linalg::GenericOp::create(
      b, loc(hint), TypeRange{out.getType()}, inputs, ValueRange{out}, maps,
      iterators, [&](OpBuilder &nested, Location, ValueRange) {
        // The body's values print as linalg names them (%in, %out, %0...).
        Location l = UnknownLoc::get(ctx);
        Block *block = nested.getInsertionBlock();
        for (BlockArgument arg : block->getArguments())
          arg.setLoc(l);
        BodyBuilder bb(*this, nested, l);
        Value y = body(bb, block->getArguments());
        linalg::YieldOp::create(nested, l, y);
      });
  return op.getResult(0);
}

Value FuncBuilder::reduceSum(Value x, ArrayRef<int64_t> dims, StringRef hint) {
  SmallVector<int64_t> shape;
  for (auto [i, s] : llvm::enumerate(shapeOf(x)))
    if (!llvm::is_contained(dims, int64_t(i)))
      shape.push_back(s);
  Value init = full(0.0, shape, ("init_" + hint).str());
  auto op = linalg::ReduceOp::create(
      b, loc(hint), ValueRange{x}, ValueRange{init}, dims,
      [](OpBuilder &nested, Location l, ValueRange args) {
        Value sum = arith::AddFOp::create(nested, l, args[0], args[1]);
        linalg::YieldOp::create(nested, l, sum);
      });
  return op.getResult(0);
}

Value FuncBuilder::ew(StringRef opName, Value x, Value y, StringRef hint) {
  assert(x.getType() == y.getType() && "elementwise op on two shapes");
  OperationState state(loc(hint), opName);
  state.addOperands({x, y});
  state.addTypes(x.getType());
  return b.create(state)->getResult(0);
}

Value FuncBuilder::unary(StringRef opName, Value x, StringRef hint) {
  OperationState state(loc(hint), opName);
  state.addOperands(x);
  state.addTypes(x.getType());
  return b.create(state)->getResult(0);
}

Value FuncBuilder::powf(Value x, Value y, StringRef hint) {
  return math::PowFOp::create(b, loc(hint), x, y);
}

Value FuncBuilder::matmul(Value x, Value y, StringRef hint) {
  ArrayRef<int64_t> a = shapeOf(x), w = shapeOf(y);
  assert(a[1] == w[0] && "matmul shapes");
  Value acc = full(0.0, {a[0], w[1]}, ("acc_" + hint).str());
  return linalg::MatmulOp::create(b, loc(hint), TypeRange{acc.getType()},
                                  ValueRange{x, y}, ValueRange{acc})
      .getResult(0);
}

Value FuncBuilder::batchMatmul(Value x, Value y, StringRef hint) {
  ArrayRef<int64_t> a = shapeOf(x), w = shapeOf(y);
  assert(a[0] == w[0] && a[2] == w[1] && "batch_matmul shapes");
  Value acc = full(0.0, {a[0], a[1], w[2]}, ("acc_" + hint).str());
  return linalg::BatchMatmulOp::create(b, loc(hint), TypeRange{acc.getType()},
                                       ValueRange{x, y}, ValueRange{acc})
      .getResult(0);
}

Value FuncBuilder::transpose(Value x, ArrayRef<int64_t> perm, StringRef hint) {
  SmallVector<int64_t> shape;
  for (int64_t p : perm)
    shape.push_back(shapeOf(x)[p]);
  Value e = empty(shape, ("e_" + hint).str());
  return linalg::TransposeOp::create(b, loc(hint), x, e, perm).getResult()[0];
}

Value FuncBuilder::t2(Value x, StringRef hint) {
  return transpose(x, {1, 0}, hint.empty() ? nameOf(x) + "T" : hint.str());
}

static SmallVector<ReassociationIndices>
reassociation(ArrayRef<SmallVector<int64_t, 2>> groups) {
  SmallVector<ReassociationIndices> r;
  for (const auto &g : groups)
    r.emplace_back(g.begin(), g.end());
  return r;
}

Value FuncBuilder::collapse(Value x, ArrayRef<SmallVector<int64_t, 2>> groups,
                            StringRef hint) {
  SmallVector<int64_t> shape;
  for (const auto &g : groups) {
    int64_t n = 1;
    for (int64_t i : g)
      n *= shapeOf(x)[i];
    shape.push_back(n);
  }
  return tensor::CollapseShapeOp::create(b, loc(hint), tensorType(shape), x,
                                         reassociation(groups));
}

Value FuncBuilder::expand(Value x, ArrayRef<SmallVector<int64_t, 2>> groups,
                          ArrayRef<int64_t> shape, StringRef hint) {
  SmallVector<OpFoldResult> outShape;
  for (int64_t s : shape)
    outShape.push_back(b.getIndexAttr(s));
  return tensor::ExpandShapeOp::create(b, loc(hint), tensorType(shape), x,
                                       reassociation(groups), outShape);
}

Value FuncBuilder::pad(Value x, ArrayRef<int64_t> low, ArrayRef<int64_t> high,
                       StringRef hint) {
  SmallVector<int64_t> shape;
  SmallVector<OpFoldResult> lo, hi;
  for (auto [s, l, h] : llvm::zip_equal(shapeOf(x), low, high)) {
    shape.push_back(s + l + h);
    lo.push_back(b.getIndexAttr(l));
    hi.push_back(b.getIndexAttr(h));
  }
  Value zero = c(0.0);
  return tensor::PadOp::create(b, loc(hint), tensorType(shape), x, lo, hi,
                               zero);
}

/// strides / dilations of the named convolution and pooling ops.
static DenseIntElementsAttr pair(OpBuilder &b, int64_t v) {
  return DenseIntElementsAttr::get(RankedTensorType::get({2}, b.getI64Type()),
                                   ArrayRef<int64_t>{v, v});
}

Value FuncBuilder::conv(Value x, Value k, StringRef hint) {
  ArrayRef<int64_t> xs = shapeOf(x), ks = shapeOf(k);
  assert(xs[3] == ks[2] && "conv channels");
  Value acc = full(0.0, {xs[0], xs[1] - ks[0] + 1, xs[2] - ks[1] + 1, ks[3]},
                   ("acc_" + hint).str());
  return linalg::Conv2DNhwcHwcfOp::create(
             b, loc(hint), TypeRange{acc.getType()}, ValueRange{x, k},
             ValueRange{acc}, pair(b, 1), pair(b, 1))
      .getResult(0);
}

Value FuncBuilder::maxpool2(Value x, StringRef hint) {
  ArrayRef<int64_t> xs = shapeOf(x);
  Value window = empty({2, 2}, "window");
  Value acc = full(-INFINITY, {xs[0], xs[1] / 2, xs[2] / 2, xs[3]},
                   ("init_" + hint).str());
  return linalg::PoolingNhwcMaxOp::create(
             b, loc(hint), TypeRange{acc.getType()}, ValueRange{x, window},
             ValueRange{acc}, pair(b, 2), pair(b, 1))
      .getResult(0);
}

//===----------------------------------------------------------------------===//
// Layers
//===----------------------------------------------------------------------===//

Value FuncBuilder::biasAdd(Value z, Value bias, StringRef hint) {
  unsigned rank = shapeOf(z).size();
  SmallVector<unsigned> all = llvm::to_vector(llvm::seq(0u, rank));
  return generic(hint, shapeOf(z), {{z, dims(rank)}, {bias, {d(rank - 1)}}},
                 all, [](BodyBuilder &bb, ArrayRef<BlockArgument> a) {
                   return bb.add(a[0], a[1]);
                 });
}

Value FuncBuilder::relu(Value a, StringRef hint) {
  unsigned rank = shapeOf(a).size();
  SmallVector<unsigned> all = llvm::to_vector(llvm::seq(0u, rank));
  return generic(hint, shapeOf(a), {{a, dims(rank)}}, all,
                 [](BodyBuilder &bb, ArrayRef<BlockArgument> v) {
                   Value zero = bb.c(0.0);
                   return bb.max(v[0], zero);
                 });
}

Value FuncBuilder::reluBwd(Value g, Value a, StringRef hint, bool wrongMask) {
  unsigned rank = shapeOf(a).size();
  SmallVector<unsigned> all = llvm::to_vector(llvm::seq(0u, rank));
  return generic(hint, shapeOf(a), {{g, dims(rank)}, {a, dims(rank)}}, all,
                 [&](BodyBuilder &bb, ArrayRef<BlockArgument> v) {
                   Value zero = bb.c(0.0);
                   Value pos = bb.cmp(wrongMask ? arith::CmpFPredicate::OLT
                                                : arith::CmpFPredicate::OGT,
                                      v[1], zero);
                   return bb.select(pos, v[0], bb.c(0.0));
                 });
}

Value FuncBuilder::dense(Value x, Value w, Value bias, StringRef hint) {
  Value z = matmul(x, w, ("z_" + hint).str());
  return biasAdd(z, bias, hint);
}

Value FuncBuilder::scale(Value x, double s, StringRef hint) {
  unsigned rank = shapeOf(x).size();
  SmallVector<unsigned> all = llvm::to_vector(llvm::seq(0u, rank));
  return generic(hint, shapeOf(x), {{x, dims(rank)}}, all,
                 [&](BodyBuilder &bb, ArrayRef<BlockArgument> v) {
                   Value cs = bb.c(s);
                   return bb.mul(v[0], cs);
                 });
}

//===----------------------------------------------------------------------===//
// Markers
//===----------------------------------------------------------------------===//

Value FuncBuilder::gradSeed(Value loss) {
  if (markers)
    return amp::GradSeedOp::create(b, loc("seed"), loss.getType(), loss);
  return arith::ConstantOp::create(
      b, loc("seed"),
      DenseElementsAttr::get(cast<ShapedType>(loss.getType()),
                             FloatAttr::get(ft, 1.0)));
}

Value FuncBuilder::paramGrad(Value g, StringRef pname) {
  if (!markers)
    return g;
  return amp::ParamGradOp::create(b, loc(("g_" + pname).str()), g.getType(), g);
}

Value FuncBuilder::stateUpdate(Value oldValue, Value newValue, StringRef hint) {
  if (!markers)
    return newValue;
  return amp::StateUpdateOp::create(b, loc(hint), newValue.getType(), oldValue,
                                    newValue);
}

} // namespace amp_gen
