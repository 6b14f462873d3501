//===- Program.cpp - Loss, optimizer, the step and eval functions ---------===//

#include "Program.h"

using namespace mlir;

namespace amp_gen {

using Args = ArrayRef<BlockArgument>;

namespace {
/// The loss and the gradient of the logits that starts the backward pass.
struct LossHead {
  Value loss, dlogits;
};
} // namespace

static LossHead lossHead(FuncBuilder &fn, const Options &o, Value logits,
                         Value y) {
  ArrayRef<int64_t> sp = FuncBuilder::shapeOf(logits);
  int64_t bn = sp[0];
  SmallVector<AffineExpr> ij = fn.dims(2), i = {fn.d(0)};
  if (o.head == "classifier") {
    // Softmax cross-entropy: loss = -1/B sum_ij y log softmax(logits).
    Value m = fn.generic(
        "lmax", sp, {{logits, ij}}, {0},
        [](BodyBuilder &bb, Args v) { return bb.max(v[0], v[1]); }, -INFINITY);
    Value sh =
        fn.generic("shifted", sp, {{logits, ij}, {m, i}}, {0, 1},
                   [](BodyBuilder &bb, Args v) { return bb.sub(v[0], v[1]); });
    Value ex = fn.unary("math.exp", sh, "ex");
    Value s = fn.generic(
        "sumex", sp, {{ex, ij}}, {0},
        [](BodyBuilder &bb, Args v) { return bb.add(v[0], v[1]); }, 0.0);
    Value lse = fn.unary("math.log", s, "lse");
    Value logp =
        fn.generic("logp", sp, {{sh, ij}, {lse, i}}, {0, 1},
                   [](BodyBuilder &bb, Args v) { return bb.sub(v[0], v[1]); });
    Value p =
        fn.generic("softmax", sp, {{ex, ij}, {s, i}}, {0, 1},
                   [](BodyBuilder &bb, Args v) { return bb.div(v[0], v[1]); });
    Value ylogp = fn.ew("arith.mulf", y, logp, "ylogp");
    Value total = fn.reduceSum(ylogp, {0, 1}, "total");
    Value negInv = fn.splat(-1.0 / bn, {}, "neg_inv_batch");
    Value loss = fn.ew("arith.mulf", total, negInv, "loss");
    Value seed = fn.gradSeed(loss);
    // dlogits = (softmax - y) * seed / B
    bool bug = o.bug("xent-grad");
    double w = o.lossWeight / bn;
    Value dl = fn.generic("dlogits", sp, {{p, ij}, {y, ij}, {seed, {}}}, {0, 1},
                          [&](BodyBuilder &bb, Args v) {
                            Value pv = bug ? bb.c(0.0) : Value(v[0]);
                            Value t = bb.mul(bb.sub(pv, v[1]), v[2]);
                            Value inv = bb.c(w, "inv_batch");
                            return bb.mul(t, inv);
                          });
    return {loss, dl};
  }
  // Mean squared error: loss = 1/n sum_ij (pred - y)^2.
  int64_t n = bn * sp[1];
  Value diff = fn.ew("arith.subf", logits, y, "err");
  Value sq = fn.ew("arith.mulf", diff, diff, "sqerr");
  Value total = fn.reduceSum(sq, {0, 1}, "total");
  Value inv = fn.splat(1.0 / n, {}, "inv_count");
  Value loss = fn.ew("arith.mulf", total, inv, "loss");
  Value seed = fn.gradSeed(loss);
  // dpred = 2 (pred - y) * seed / n
  double w = 2.0 * o.lossWeight / n;
  Value dl = fn.generic("dpred", sp, {{diff, ij}, {seed, {}}}, {0, 1},
                        [&](BodyBuilder &bb, Args v) {
                          Value t = bb.mul(v[0], v[1]);
                          return bb.mul(t, bb.c(w));
                        });
  return {loss, dl};
}

std::vector<StateSpec> stateSpecs(const Options &o,
                                  const std::vector<ParamSpec> &params) {
  std::vector<StateSpec> st;
  if (o.optimizer == "momentum") {
    for (const ParamSpec &p : params)
      st.push_back({"v_" + p.name, p.shape, p.name, "velocity"});
  } else if (o.optimizer == "adam") {
    for (const ParamSpec &p : params) {
      st.push_back({"m_" + p.name, p.shape, p.name, "m"});
      st.push_back({"v_" + p.name, p.shape, p.name, "v"});
    }
    st.push_back({"step", {}, "", "step"});
  }
  return st;
}

/// Adam: t' = t + 1; lr_t = lr sqrt(1 - b2^t') / (1 - b1^t');
/// m' = b1 m + (1 - b1) g; v' = b2 v + (1 - b2) g^2;
/// w' = w - lr_t m' / (sqrt(v') + eps)
static void adamUpdate(FuncBuilder &fn, const Options &o, const ValueMap &p,
                       const ValueMap &s, const ValueMap &grads,
                       const std::vector<ParamSpec> &params, double lr,
                       ValueMap &next) {
  double b1 = o.beta1, b2 = o.beta2, eps = o.adamEps;
  Value one = fn.splat(1.0, {}, "one_t");
  Value t2 = fn.ew("arith.addf", s.at("step"), one, "next_step");
  next["step"] = t2;
  Value p1 = fn.powf(fn.splat(b1, {}, "beta1_t"), t2, "b1_pow");
  Value p2 = fn.powf(fn.splat(b2, {}, "beta2_t"), t2, "b2_pow");
  Value lrt = fn.generic("lr_t", {}, {{p1, {}}, {p2, {}}}, {},
                         [&](BodyBuilder &bb, Args v) {
                           Value one = bb.c(1.0);
                           Value lrc = bb.c(lr, "lr");
                           Value root = bb.sqrt(bb.sub(one, v[1]));
                           Value num = bb.mul(lrc, root);
                           return bb.div(num, bb.sub(one, v[0]));
                         });
  for (const ParamSpec &ps : params) {
    const std::string &n = ps.name;
    SmallVector<AffineExpr> all = fn.dims(ps.shape.size());
    SmallVector<unsigned> outDims =
        llvm::to_vector(llvm::seq(0u, unsigned(ps.shape.size())));
    Value m2 = fn.generic(
        "next_m_" + n, ps.shape, {{s.at("m_" + n), all}, {grads.at(n), all}},
        outDims, [&](BodyBuilder &bb, Args v) {
          Value bm = bb.mul(bb.c(b1, "beta1"), v[0]);
          Value bg = bb.mul(bb.c(1.0 - b1, "one_m_beta1"), v[1]);
          return bb.add(bm, bg);
        });
    Value v2 = fn.generic("next_v_" + n, ps.shape,
                          {{s.at("v_" + n), all}, {grads.at(n), all}}, outDims,
                          [&](BodyBuilder &bb, Args v) {
                            Value bv = bb.mul(bb.c(b2, "beta2"), v[0]);
                            Value c2 = bb.c(1.0 - b2, "one_m_beta2");
                            Value bg = bb.mul(c2, bb.mul(v[1], v[1]));
                            return bb.add(bv, bg);
                          });
    next["m_" + n] = m2;
    next["v_" + n] = v2;
    next[n] = fn.generic("next_" + n, ps.shape,
                         {{p.at(n), all}, {m2, all}, {v2, all}, {lrt, {}}},
                         outDims, [&](BodyBuilder &bb, Args v) {
                           Value root = bb.sqrt(v[2]);
                           Value den = bb.add(root, bb.c(eps, "adam_eps"));
                           Value upd = bb.mul(v[3], bb.div(v[1], den));
                           return bb.sub(v[0], upd);
                         });
  }
}

/// The new values of the parameters and the optimizer states.
static ValueMap optimizer(FuncBuilder &fn, const Options &o, const ValueMap &p,
                          const ValueMap &s, const ValueMap &grads,
                          const std::vector<ParamSpec> &params) {
  ValueMap next;
  // The gradients carry --loss-weight; SGD and momentum divide it out of the
  // learning rate, so the f32 step is unchanged (exactly, for powers of two).
  double lr = o.lr / o.lossWeight;
  if (o.optimizer == "sgd") {
    for (const ParamSpec &ps : params) {
      Value lrs = fn.splat(lr, ps.shape, "lr");
      Value step =
          fn.ew("arith.mulf", lrs, grads.at(ps.name), "step_" + ps.name);
      next[ps.name] =
          fn.ew("arith.subf", p.at(ps.name), step, "next_" + ps.name);
    }
    return next;
  }
  if (o.optimizer == "momentum") {
    // v' = mu v + g, w' = w - lr v'
    for (const ParamSpec &ps : params) {
      const std::string &n = ps.name;
      Value mu = fn.splat(o.momentum, ps.shape, "mu");
      Value mv = fn.ew("arith.mulf", mu, s.at("v_" + n), "mv_" + n);
      Value v2 = fn.ew("arith.addf", mv, grads.at(n), "next_v_" + n);
      next["v_" + n] = v2;
      Value lrs = fn.splat(lr, ps.shape, "lr");
      Value step = fn.ew("arith.mulf", lrs, v2, "step_" + n);
      next[n] = fn.ew("arith.subf", p.at(n), step, "next_" + n);
    }
    return next;
  }
  adamUpdate(fn, o, p, s, grads, params, lr, next);
  return next;
}

void emitStep(ModuleOp module, const Options &o, Model &model, FloatType ft) {
  FuncBuilder fn(module, o.name, ft, /*markers=*/!o.noMarkers);
  std::vector<ParamSpec> params = model.paramSpecs();
  std::vector<StateSpec> states = stateSpecs(o, params);
  Value x = fn.arg("x", model.inputShape(), fn.role("input"));
  Value y = fn.arg("y", {model.batch(), model.outputs()}, fn.role("label"));
  ValueMap p, s;
  std::map<std::string, int64_t> index;
  int64_t argNo = 2;
  for (const ParamSpec &ps : params) {
    p[ps.name] = fn.arg(ps.name, ps.shape, fn.role("param"));
    index[ps.name] = argNo++;
  }
  for (const StateSpec &ss : states) {
    s[ss.name] = fn.arg(ss.name, ss.shape, fn.role("opt_state"));
    index[ss.name] = argNo++;
  }
  Value logits = model.forward(fn, x, p);
  LossHead head = lossHead(fn, o, logits, y);
  ValueMap grads = model.backward(fn, head.dlogits, p);
  ValueMap next = optimizer(fn, o, p, s, grads, params);
  fn.ret(head.loss, fn.role("loss"));
  std::vector<std::pair<std::string, Value>> outs;
  for (const ParamSpec &ps : params)
    outs.emplace_back(ps.name, fn.stateUpdate(p.at(ps.name), next.at(ps.name),
                                              "new_" + ps.name));
  for (const StateSpec &ss : states)
    outs.emplace_back(ss.name, fn.stateUpdate(s.at(ss.name), next.at(ss.name),
                                              "new_" + ss.name));
  for (auto &[name, v] : outs)
    fn.ret(v, fn.role("update", index.at(name)));
  if (o.emitGrads)
    for (const ParamSpec &ps : params)
      fn.ret(grads.at(ps.name), fn.role("grad"));
  fn.finish();
}

void emitPredict(ModuleOp module, const Options &o, Model &model,
                 FloatType ft) {
  FuncBuilder fn(module, o.predictName, ft);
  Value x = fn.arg("x", model.inputShape(), fn.role("input"));
  ValueMap p;
  for (const ParamSpec &ps : model.paramSpecs())
    p[ps.name] = fn.arg(ps.name, ps.shape, fn.role("param"));
  fn.ret(model.forward(fn, x, p), fn.role("logits"));
  fn.finish();
}

} // namespace amp_gen
