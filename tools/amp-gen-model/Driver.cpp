//===- Driver.cpp - @main for the gradient checks (--driver) --------------===//
//
// @main runs one step on deterministic inputs (an integer hash of each
// element's index, the same in f32 and f64) and prints the loss, w - w' of
// every parameter, every optimizer state before and after the step (and,
// for momentum buffers and Adam first moments, the gradient up to a factor),
// and for each --probe the central finite difference of the loss and the
// difference of the one-sided ones (large at a ReLU or max-pool kink).
// test/Examples/gradcheck.py reads what it prints.
//
//===----------------------------------------------------------------------===//

#include "Program.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <cmath>

using namespace mlir;

namespace amp_gen {

using Args = ArrayRef<BlockArgument>;

/// offset + scale * u, u uniform in [-1, 1) (or u^2 with `square`), from an
/// integer hash of the flat index and the seed.
static Value initTensor(FuncBuilder &fn, ArrayRef<int64_t> shape, int64_t seed,
                        double scale, double offset = 0.0, bool square = false,
                        StringRef hint = "init") {
  unsigned rank = shape.size();
  SmallVector<unsigned> all = llvm::to_vector(llvm::seq(0u, rank));
  SmallVector<int64_t> dims(shape);
  return fn.generic(hint, shape, {}, all, [&](BodyBuilder &bb, Args) {
    OpBuilder &b = bb.builder();
    Location loc = bb.location();
    Type i64 = b.getI64Type();
    auto ic = [&](int64_t v) { return bb.intConst(v, i64); };
    auto iop = [&](StringRef name, Value x, Value y) {
      return bb.op(name, {x, y});
    };
    Value lin;
    int64_t stride = 1;
    for (int k = int(rank) - 1; k >= 0; --k) {
      Value ix = bb.index(k);
      Value iv = arith::IndexCastOp::create(b, loc, i64, ix);
      if (stride != 1) {
        Value sv = ic(stride);
        iv = iop("arith.muli", iv, sv);
      }
      lin = lin ? iop("arith.addi", lin, iv) : iv;
      stride *= dims[k];
    }
    if (!lin)
      lin = ic(0);
    Value mask = ic(0xFFFFFFFF);
    Value mul = iop("arith.muli", lin, ic(2654435761));
    Value h = iop("arith.addi", mul, ic((seed * 40503 + 12345) & 0xFFFFFFFF));
    h = iop("arith.andi", h, mask);
    const std::pair<int64_t, int64_t> rounds[] = {
        {16, 0x7FEB352D}, {15, 0x846CA68B}, {16, 0}};
    for (auto [shift, factor] : rounds) {
      Value sh = iop("arith.shrui", h, ic(shift));
      h = iop("arith.xori", h, sh);
      if (factor) {
        Value m = iop("arith.muli", h, ic(factor));
        h = iop("arith.andi", m, mask);
      }
    }
    Value top = iop("arith.shrui", h, ic(8)); // 24 bits
    Value f = arith::UIToFPOp::create(b, loc, fn.floatType(), top);
    Value u = bb.mul(f, bb.c(2.0 / (1 << 24)));
    u = bb.sub(u, bb.c(1.0));
    if (square)
      u = bb.mul(u, u);
    Value scaled = bb.mul(u, bb.c(scale));
    return bb.add(scaled, bb.c(offset));
  });
}

/// @loss_of(step args...) -> the loss, as a scalar.
static void emitLossOf(ModuleOp module, const Options &o, ValueRange args,
                       TypeRange resultTypes, FloatType ft) {
  FuncBuilder fn(module, "loss_of", ft, true, /*isPrivate=*/true);
  SmallVector<Value> av;
  for (Value a : args)
    av.push_back(fn.arg(FuncBuilder::nameOf(a), a.getType()));
  OpBuilder &b = fn.builder();
  auto call = func::CallOp::create(b, fn.loc("r"), o.name, resultTypes, av);
  Value l = tensor::ExtractOp::create(b, fn.loc("l"), call.getResult(0),
                                      ValueRange{});
  fn.ret(l);
  fn.finish();
}

/// @fd_<param>(step args..., L0, indices...) -> (central difference,
/// forward - backward difference) of the loss for one element.
static std::string emitFdHelper(ModuleOp module, const Options &o, size_t param,
                                const ParamSpec &spec, ValueRange args,
                                FloatType ft) {
  std::string name = "fd_" + spec.name;
  FuncBuilder fn(module, name, ft, true, /*isPrivate=*/true);
  SmallVector<Value> av;
  for (Value a : args)
    av.push_back(fn.arg(FuncBuilder::nameOf(a), a.getType()));
  Value l0 = fn.arg("l0", ft);
  SmallVector<Value> idx;
  for (size_t k = 0; k < spec.shape.size(); ++k)
    idx.push_back(fn.arg("i" + std::to_string(k), fn.builder().getIndexType()));
  OpBuilder &b = fn.builder();
  Value w = av[2 + param];
  Value v = tensor::ExtractOp::create(b, fn.loc("w"), w, idx);
  Value ends[2][2]; // (w +- eps, L(w +- eps))
  for (int side = 0; side < 2; ++side) {
    std::string sfx = side == 0 ? "p" : "m";
    Value eps = fn.c(o.eps, "eps");
    Value vv = side == 0
                   ? Value(arith::AddFOp::create(b, fn.loc("w" + sfx), v, eps))
                   : Value(arith::SubFOp::create(b, fn.loc("w" + sfx), v, eps));
    Value wt =
        tensor::InsertOp::create(b, fn.loc(spec.name + "_" + sfx), vv, w, idx);
    SmallVector<Value> argv(av);
    argv[2 + param] = wt;
    Value lv = func::CallOp::create(b, fn.loc("l" + sfx), "loss_of",
                                    TypeRange{ft}, argv)
                   .getResult(0);
    ends[side][0] = vv;
    ends[side][1] = lv;
  }
  Value vp = ends[0][0], lp = ends[0][1], vm = ends[1][0], lm = ends[1][1];
  auto sub = [&](Value x, Value y, StringRef hint) -> Value {
    return arith::SubFOp::create(b, fn.loc(hint), x, y);
  };
  auto div = [&](Value x, Value y, StringRef hint) -> Value {
    return arith::DivFOp::create(b, fn.loc(hint), x, y);
  };
  Value dl = sub(lp, lm, "dl");
  Value g = div(dl, sub(vp, vm, "dw"), "fd");
  Value dlp = sub(lp, l0, "dlp");
  Value fwd = div(dlp, sub(vp, v, "dwp"), "fwd");
  Value dlm = sub(l0, lm, "dlm");
  Value bwd = div(dlm, sub(v, vm, "dwm"), "bwd");
  fn.ret(g);
  fn.ret(sub(fwd, bwd, "kink"));
  fn.finish();
  return name;
}

namespace {
/// The step's deterministic arguments in @main.
struct DriverArgs {
  ValueMap params, states;
  SmallVector<Value> all; // x, y, the params, the states
};
} // namespace

/// x, one-hot labels (class (7 i + 3) mod C) or regression targets, the
/// parameters scaled by their fan-in, and the optimizer states.
static DriverArgs initArguments(FuncBuilder &fn, const Options &o, Model &model,
                                ArrayRef<ParamSpec> params,
                                ArrayRef<StateSpec> states) {
  int64_t seed = 0;
  int64_t bn = model.batch(), classes = model.outputs();
  Value x = initTensor(fn, model.inputShape(), ++seed, 1.0, 0.0, false, "x");
  Value y;
  if (o.head == "classifier") {
    y = fn.generic("y", {bn, classes}, {}, {0, 1}, [&](BodyBuilder &bb, Args) {
      Value i = bb.index(0);
      Value j = bb.index(1);
      Value r = bb.op("arith.muli", {i, fn.ci(7)});
      Value r2 = bb.op("arith.addi", {r, fn.ci(3)});
      Value cl = bb.op("arith.remui", {r2, fn.ci(classes)});
      Value hit = arith::CmpIOp::create(bb.builder(), bb.location(),
                                        arith::CmpIPredicate::eq, cl, j);
      Value one = bb.c(1.0);
      return bb.select(hit, one, bb.c(0.0));
    });
  } else {
    y = initTensor(fn, {bn, classes}, ++seed, 1.0, 0.0, false, "y");
  }
  DriverArgs a;
  a.all = {x, y};
  for (const ParamSpec &ps : params) {
    double scale = ps.fanIn ? std::sqrt(3.0 / ps.fanIn) : 0.1;
    a.params[ps.name] =
        initTensor(fn, ps.shape, ++seed, scale, 0.0, false, ps.name);
    a.all.push_back(a.params[ps.name]);
  }
  for (const StateSpec &ss : states) {
    Value v;
    if (ss.kind == "step")
      v = fn.splat(3.0, {}, "t0");
    else if (ss.kind == "v")
      v = initTensor(fn, ss.shape, ++seed, 1e-4, 1e-5, /*square=*/true,
                     ss.name);
    else
      v = initTensor(fn, ss.shape, ++seed, 1e-2, 0.0, false, ss.name);
    a.states[ss.name] = v;
    a.all.push_back(v);
  }
  return a;
}

/// For each --probe, the central finite difference of the loss and the
/// forward minus backward one (large at a kink), computed by one
/// @fd_<param> helper per parameter in a loop over a table of the probed
/// elements. Returns the two tensors, one element per probe.
static std::pair<Value, Value> emitProbes(ModuleOp module, FuncBuilder &fn,
                                          const Options &o,
                                          ArrayRef<ParamSpec> params,
                                          ValueRange args,
                                          TypeRange resultTypes, Value loss) {
  OpBuilder &b = fn.builder();
  FloatType ft = fn.floatType();
  int64_t nk = o.probes.size();
  Value fd = fn.empty({nk}, "fd");
  Value kink = fn.empty({nk}, "kink");
  Value l0 = tensor::ExtractOp::create(b, fn.loc("l0"), loss, ValueRange{});
  emitLossOf(module, o, args, resultTypes, ft);
  std::map<int64_t, std::vector<std::pair<int64_t, int64_t>>> groups;
  for (auto [q, probe] : llvm::enumerate(o.probes))
    groups[probe.first].push_back({int64_t(q), probe.second});
  for (auto &[param, items] : groups) {
    const ParamSpec &spec = params[param];
    std::string helper = emitFdHelper(module, o, param, spec, args, ft);
    // Rows: the element's indices, then its position in fd.
    int64_t nr = items.size(), width = spec.shape.size() + 1;
    SmallVector<int64_t> table;
    for (auto [q, flat] : items) {
      SmallVector<int64_t> idx(spec.shape.size());
      for (int d = int(spec.shape.size()) - 1; d >= 0; --d) {
        idx[d] = flat % spec.shape[d];
        flat /= spec.shape[d];
      }
      table.append(idx);
      table.push_back(q);
    }
    auto tableType = RankedTensorType::get({nr, width}, b.getI64Type());
    Value tab = arith::ConstantOp::create(
        b, fn.loc("probes_" + spec.name),
        DenseElementsAttr::get(tableType, ArrayRef<int64_t>(table)));
    Value lb = fn.ci(0), ub = fn.ci(nr), st = fn.ci(1);
    auto loop = scf::ForOp::create(
        b, fn.loc("fd_" + spec.name), lb, ub, st, ValueRange{fd, kink},
        [&](OpBuilder &nb, Location loc, Value iv, ValueRange acc) {
          SmallVector<Value> cols;
          for (int64_t j = 0; j < width; ++j) {
            Value e =
                tensor::ExtractOp::create(nb, fn.loc("e" + std::to_string(j)),
                                          tab, ValueRange{iv, fn.ci(j)});
            cols.push_back(arith::IndexCastOp::create(
                nb, fn.loc("ix" + std::to_string(j)), nb.getIndexType(), e));
          }
          SmallVector<Value> argv(args);
          argv.push_back(l0);
          argv.append(cols.begin(), cols.end() - 1);
          auto r = func::CallOp::create(nb, fn.loc("rfd"), helper,
                                        TypeRange{ft, ft}, argv);
          Value f1 =
              tensor::InsertOp::create(nb, fn.loc("fd_next"), r.getResult(0),
                                       acc[0], ValueRange{cols.back()});
          Value k1 =
              tensor::InsertOp::create(nb, fn.loc("kink_next"), r.getResult(1),
                                       acc[1], ValueRange{cols.back()});
          scf::YieldOp::create(nb, loc, ValueRange{f1, k1});
        });
    fd = loop.getResult(0);
    kink = loop.getResult(1);
  }
  return {fd, kink};
}

void emitDriver(ModuleOp module, const Options &o, Model &model, FloatType ft) {
  FuncBuilder fn(module, "main", ft);
  OpBuilder &b = fn.builder();
  auto mainFunc = cast<func::FuncOp>(b.getInsertionBlock()->getParentOp());
  std::vector<ParamSpec> params = model.paramSpecs();
  std::vector<StateSpec> states = stateSpecs(o, params);
  DriverArgs args = initArguments(fn, o, model, params, states);

  auto step = module.lookupSymbol<func::FuncOp>(o.name);
  TypeRange resultTypes = step.getFunctionType().getResults();
  auto call =
      func::CallOp::create(b, fn.loc("r"), o.name, resultTypes, args.all);
  StringRef printName = ft.isF32() ? "printMemrefF32" : "printMemrefF64";
  auto unranked = UnrankedTensorType::get(ft);
  auto print = [&](Value v) {
    // Print a copy: printMemref might write to its argument, and `v` may be
    // used again.
    Value e = fn.empty(FuncBuilder::shapeOf(v), "e_copy");
    Value copy = linalg::CopyOp::create(b, fn.loc("copy"), v, e).getResult(0);
    Value u = tensor::CastOp::create(b, fn.loc("u"), unranked, copy);
    func::CallOp::create(b, fn.loc("print"), printName, TypeRange{},
                         ValueRange{u});
  };
  // The loss; w - w' per parameter; s, s' per state.
  print(call.getResult(0));
  unsigned k = 1;
  for (const ParamSpec &ps : params)
    print(fn.ew("arith.subf", args.params[ps.name], call.getResult(k++),
                "delta_" + ps.name));
  for (const StateSpec &ss : states) {
    Value old = args.states[ss.name];
    print(old);
    Value next = call.getResult(k++);
    print(next);
    if (ss.kind == "velocity" || ss.kind == "m") {
      // The gradient, up to a factor, without the rounding of printing.
      double coef = ss.kind == "velocity" ? o.momentum : o.beta1;
      Value c = fn.splat(coef, ss.shape, "coef");
      Value scaled = fn.ew("arith.mulf", c, old, "old_" + ss.name);
      print(fn.ew("arith.subf", next, scaled, "grad_" + ss.name));
    }
  }
  if (!o.probes.empty()) {
    auto [fd, kink] = emitProbes(module, fn, o, params, args.all, resultTypes,
                                 call.getResult(0));
    print(fd);
    print(kink);
  }
  fn.finish();
  // The helpers precede @main, and the printer's declaration ends the module.
  mainFunc->moveBefore(module.getBody(), module.getBody()->end());
  b.setInsertionPointToEnd(module.getBody());
  auto decl =
      func::FuncOp::create(b, UnknownLoc::get(fn.context()), printName,
                           FunctionType::get(fn.context(), {unranked}, {}));
  decl.setPrivate();
}

} // namespace amp_gen
