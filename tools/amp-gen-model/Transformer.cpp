//===- Transformer.cpp - One pre-LN transformer block and a head ----------===//
//
// LN -> multi-head self-attention (scaled dot product, softmax) -> residual
// -> LN -> GELU (tanh) MLP -> residual, then mean-pool over the sequence and
// a dense head. Layer norm's gain is 1 + g so that g starts at zero
// (amp-run initialises rank-1 parameters to zeros).
//
//===----------------------------------------------------------------------===//

#include "Models.h"

#include "llvm/Support/FormatVariadic.h"

#include <cmath>

using namespace mlir;

namespace amp_gen {
namespace {

constexpr double kGeluK0 = 0.7978845608028654; // sqrt(2 / pi)
constexpr double kGeluK1 = 0.044715;
constexpr double kLayerNormEps = 1e-5;

using Args = ArrayRef<BlockArgument>;

class Transformer : public Model {
public:
  explicit Transformer(const Options &o)
      : Model(o), s(o.seq), dm(o.dmodel), nh(o.heads), f(o.ffn),
        dh(o.dmodel / o.heads) {}

  std::string kind() const override { return "transformer"; }

  std::string describe() const override {
    return llvm::formatv("a pre-LN transformer block: batch {0}, seq {1}, "
                         "d_model {2}, {3} heads ({4} each), ffn {5}, head {6}",
                         batch(), s, dm, nh, dh, f, outputs());
  }

  SmallVector<int64_t> inputShape() const override { return {batch(), s, dm}; }

  std::vector<std::string> doc() const override {
    return {
        llvm::formatv("x[{0}x{1}x{2}] (embeddings), y[{0}x{3}]", batch(), s, dm,
                      outputs()),
        "forward:  n1 = LN1(x); q, k, v = n1 . w{q,k,v} + b{q,k,v}",
        "          per head: p = softmax(q k^T / sqrt(" + std::to_string(dh) +
            ")), o = p . v",
        "          h = x + o . wo + bo; n2 = LN2(h)",
        "          out = h + gelu(n2 . w1 + b1) . w2 + b2",
        "          logits = mean_s(out) . wc + bc",
        "          LN(x) = (x - mean) / sqrt(var + 1e-5) * (1 + g) + b (g "
        "starts at 0)",
        "          gelu(u) = u/2 (1 + tanh(sqrt(2/pi) (u + 0.044715 u^3)))",
        "backward: matmuls: dA = dC . B^T, dB = A^T . dC; softmax: ds = p (dp "
        "- sum_j p dp)",
        "          LN: dx = rstd (dxh - mean(dxh) - xhat mean(dxh xhat)), dxh "
        "= dy (1 + g)",
        "          gelu: du = dy (0.5 (1 + t) + 0.5 u (1 - t^2) sqrt(2/pi) (1 "
        "+ 3 0.044715 u^2))"};
  }

  std::vector<ParamSpec> paramSpecs() const override {
    int64_t c = outputs();
    std::vector<ParamSpec> ps = {{"ln1_g", {dm}, 0}, {"ln1_b", {dm}, 0}};
    for (char n : std::string("qkvo")) {
      ps.push_back({std::string("w") + n, {dm, dm}, dm});
      ps.push_back({std::string("b") + n, {dm}, 0});
    }
    std::vector<ParamSpec> rest = {{"ln2_g", {dm}, 0},  {"ln2_b", {dm}, 0},
                                   {"w1", {dm, f}, dm}, {"b1", {f}, 0},
                                   {"w2", {f, dm}, f},  {"b2", {dm}, 0},
                                   {"wc", {dm, c}, dm}, {"bc", {c}, 0}};
    ps.insert(ps.end(), rest.begin(), rest.end());
    return ps;
  }

  Value forward(FuncBuilder &fn, Value x, const ValueMap &p) override;
  ValueMap backward(FuncBuilder &fn, Value g, const ValueMap &p) override;

private:
  struct LayerNormCache {
    Value xhat, rstd;
  };

  Value layerNorm(FuncBuilder &fn, Value x, Value g, Value b,
                  const std::string &hint, LayerNormCache &cache);
  /// Returns dx (when `needDx`); sets dg and db.
  Value layerNormBwd(FuncBuilder &fn, Value dy, Value g,
                     const LayerNormCache &cache, const std::string &hint,
                     Value &dg, Value &db, bool needDx = true);
  /// [B*S, D] -> [B*H, S, dh] and back.
  Value heads(FuncBuilder &fn, Value t, const std::string &hint);
  Value unheads(FuncBuilder &fn, Value t, const std::string &hint);
  static Value geluInner(BodyBuilder &bb, Value u);
  /// From the gradient of the attention block's output to that of its
  /// input n1 (the sum over q, k and v).
  Value attentionBwd(FuncBuilder &fn, Value dh1, const ValueMap &p,
                     ValueMap &grads);
  Value denseBwd(FuncBuilder &fn, Value x, Value dy, Value w,
                 const std::string &wname, const std::string &bname,
                 ValueMap &grads, bool needDx = true);

  int64_t s, dm, nh, f, dh;
  // What the backward pass reads.
  LayerNormCache ln1, ln2;
  Value n1, n2, qh, kh, vh, probs, att, u, gelu, pooled;
};

Value Transformer::layerNorm(FuncBuilder &fn, Value x, Value g, Value b,
                             const std::string &hint, LayerNormCache &cache) {
  ArrayRef<int64_t> sp = FuncBuilder::shapeOf(x);
  int64_t d = sp[1];
  SmallVector<AffineExpr> ij = fn.dims(2), i = {fn.d(0)}, j = {fn.d(1)};
  Value s1 = fn.generic(
      hint + "_sum", sp, {{x, ij}}, {0},
      [](BodyBuilder &bb, Args v) { return bb.add(v[0], v[1]); }, 0.0);
  Value mean = fn.scale(s1, 1.0 / d, hint + "_mean");
  Value xc =
      fn.generic(hint + "_xc", sp, {{x, ij}, {mean, i}}, {0, 1},
                 [](BodyBuilder &bb, Args v) { return bb.sub(v[0], v[1]); });
  Value s2 = fn.generic(
      hint + "_sqsum", sp, {{xc, ij}}, {0},
      [](BodyBuilder &bb, Args v) {
        Value sq = bb.mul(v[0], v[0]);
        return bb.add(sq, v[1]);
      },
      0.0);
  Value rstd = fn.generic(hint + "_rstd", {sp[0]}, {{s2, i}}, {0},
                          [&](BodyBuilder &bb, Args v) {
                            Value inv = bb.c(1.0 / d);
                            Value var = bb.mul(v[0], inv);
                            Value one = bb.c(1.0);
                            Value eps = bb.c(kLayerNormEps, "ln_eps");
                            Value sum = bb.add(var, eps);
                            return bb.div(one, bb.sqrt(sum));
                          });
  Value xhat =
      fn.generic(hint + "_xhat", sp, {{xc, ij}, {rstd, i}}, {0, 1},
                 [](BodyBuilder &bb, Args v) { return bb.mul(v[0], v[1]); });
  cache = {xhat, rstd};
  return fn.generic(hint, sp, {{xhat, ij}, {g, j}, {b, j}}, {0, 1},
                    [](BodyBuilder &bb, Args v) {
                      Value one = bb.c(1.0);
                      Value gain = bb.add(v[1], one);
                      return bb.add(bb.mul(v[0], gain), v[2]);
                    });
}

Value Transformer::layerNormBwd(FuncBuilder &fn, Value dy, Value g,
                                const LayerNormCache &cache,
                                const std::string &hint, Value &dg, Value &db,
                                bool needDx) {
  ArrayRef<int64_t> sp = FuncBuilder::shapeOf(dy);
  int64_t d = sp[1];
  SmallVector<AffineExpr> ij = fn.dims(2), i = {fn.d(0)}, j = {fn.d(1)};
  Value dyx = fn.ew("arith.mulf", dy, cache.xhat, hint + "_dyxhat");
  dg = fn.reduceSum(dyx, {0}, "d" + hint + "_g");
  db = fn.reduceSum(dy, {0}, "d" + hint + "_b");
  if (!needDx)
    return {};
  Value dxhat = fn.generic(hint + "_dxhat", sp, {{dy, ij}, {g, j}}, {0, 1},
                           [](BodyBuilder &bb, Args v) {
                             Value one = bb.c(1.0);
                             return bb.mul(v[0], bb.add(v[1], one));
                           });
  Value a1 = fn.generic(
      hint + "_dsum", sp, {{dxhat, ij}}, {0},
      [](BodyBuilder &bb, Args v) { return bb.add(v[0], v[1]); }, 0.0);
  Value a2 = fn.generic(
      hint + "_dxsum", sp, {{dxhat, ij}, {cache.xhat, ij}}, {0},
      [](BodyBuilder &bb, Args v) {
        Value prod = bb.mul(v[0], v[1]);
        return bb.add(prod, v[2]);
      },
      0.0);
  bool bug = opts.bug("ln-grad");
  // rstd * (dxhat - mean(dxhat) - xhat * mean(dxhat * xhat))
  return fn.generic(
      "d" + hint + "_x", sp,
      {{dxhat, ij}, {cache.xhat, ij}, {a1, i}, {a2, i}, {cache.rstd, i}},
      {0, 1}, [&](BodyBuilder &bb, Args v) {
        Value inv = bb.c(1.0 / d);
        Value t = bb.sub(v[0], bb.mul(v[2], inv));
        if (!bug) {
          Value m2 = bb.mul(v[3], inv);
          t = bb.sub(t, bb.mul(v[1], m2));
        }
        return bb.mul(t, v[4]);
      });
}

Value Transformer::heads(FuncBuilder &fn, Value t, const std::string &hint) {
  Value e =
      fn.expand(t, {{0, 1}, {2, 3}}, {batch(), s, nh, dh}, hint + "_bshd");
  Value tr = fn.transpose(e, {0, 2, 1, 3}, hint + "_bhsd");
  return fn.collapse(tr, {{0, 1}, {2}, {3}}, hint);
}

Value Transformer::unheads(FuncBuilder &fn, Value t, const std::string &hint) {
  Value e =
      fn.expand(t, {{0, 1}, {2}, {3}}, {batch(), nh, s, dh}, hint + "_bhsd");
  Value tr = fn.transpose(e, {0, 2, 1, 3}, hint + "_bshd");
  return fn.collapse(tr, {{0, 1}, {2, 3}}, hint);
}

Value Transformer::geluInner(BodyBuilder &bb, Value u) {
  Value u2 = bb.mul(u, u);
  Value u3 = bb.mul(u2, u);
  Value k0 = bb.c(kGeluK0, "gelu_k0");
  Value k1 = bb.c(kGeluK1, "gelu_k1");
  Value inner = bb.mul(k0, bb.add(u, bb.mul(k1, u3)));
  return bb.tanh(inner);
}

Value Transformer::forward(FuncBuilder &fn, Value x, const ValueMap &p) {
  int64_t n = batch() * s, bh = batch() * nh;
  Value x2 = fn.collapse(x, {{0, 1}, {2}}, "x2");
  n1 = layerNorm(fn, x2, p.at("ln1_g"), p.at("ln1_b"), "ln1", ln1);
  for (char c : std::string("qkv")) {
    std::string name(1, c);
    Value t = fn.dense(n1, p.at("w" + name), p.at("b" + name), name);
    (c == 'q' ? qh : c == 'k' ? kh : vh) = heads(fn, t, name + "h");
  }
  Value kT = fn.transpose(kh, {0, 2, 1}, "khT");
  Value scores = fn.batchMatmul(qh, kT, "scores");
  double scale = 1.0 / std::sqrt(double(dh));
  SmallVector<int64_t> sp3 = {bh, s, s};
  SmallVector<AffineExpr> bij = fn.dims(3), bi = {fn.d(0), fn.d(1)};
  Value scaled = fn.generic("scaled", sp3, {{scores, bij}}, {0, 1, 2},
                            [&](BodyBuilder &bb, Args v) {
                              Value sc = bb.c(scale, "att_scale");
                              return bb.mul(v[0], sc);
                            });
  // Softmax over the keys, max-subtracting.
  Value m = fn.generic(
      "att_max", sp3, {{scaled, bij}}, {0, 1},
      [](BodyBuilder &bb, Args v) { return bb.max(v[0], v[1]); }, -INFINITY);
  Value e = fn.generic(
      "att_exp", sp3, {{scaled, bij}, {m, bi}}, {0, 1, 2},
      [](BodyBuilder &bb, Args v) { return bb.exp(bb.sub(v[0], v[1])); });
  Value z = fn.generic(
      "att_sum", sp3, {{e, bij}}, {0, 1},
      [](BodyBuilder &bb, Args v) { return bb.add(v[0], v[1]); }, 0.0);
  probs =
      fn.generic("att_p", sp3, {{e, bij}, {z, bi}}, {0, 1, 2},
                 [](BodyBuilder &bb, Args v) { return bb.div(v[0], v[1]); });
  Value oh = fn.batchMatmul(probs, vh, "att_oh");
  att = unheads(fn, oh, "att");
  Value ao = fn.dense(att, p.at("wo"), p.at("bo"), "att_out");
  Value h = fn.ew("arith.addf", x2, ao, "res1");
  // Layer norm 2, GELU MLP, residual.
  n2 = layerNorm(fn, h, p.at("ln2_g"), p.at("ln2_b"), "ln2", ln2);
  u = fn.dense(n2, p.at("w1"), p.at("b1"), "ffn_u");
  gelu = fn.generic("gelu", {n, f}, {{u, fn.dims(2)}}, {0, 1},
                    [](BodyBuilder &bb, Args v) {
                      Value t = geluInner(bb, v[0]);
                      Value half = bb.c(0.5, "half");
                      Value hu = bb.mul(half, v[0]);
                      Value one = bb.c(1.0);
                      return bb.mul(hu, bb.add(one, t));
                    });
  Value mo = fn.dense(gelu, p.at("w2"), p.at("b2"), "ffn_out");
  Value out = fn.ew("arith.addf", h, mo, "res2");
  // Mean over the sequence, classifier.
  Value out3 = fn.expand(out, {{0, 1}, {2}}, {batch(), s, dm}, "res2_bsd");
  Value ssum = fn.generic(
      "seq_sum", {batch(), s, dm}, {{out3, fn.dims(3)}}, {0, 2},
      [](BodyBuilder &bb, Args v) { return bb.add(v[0], v[1]); }, 0.0);
  pooled = fn.scale(ssum, 1.0 / s, "pooled");
  return fn.dense(pooled, p.at("wc"), p.at("bc"), "logits");
}

Value Transformer::denseBwd(FuncBuilder &fn, Value x, Value dy, Value w,
                            const std::string &wname, const std::string &bname,
                            ValueMap &grads, bool needDx) {
  Value xT = fn.t2(x);
  Value dw = fn.matmul(xT, dy, "d" + wname);
  grads[wname] = fn.paramGrad(dw, wname);
  Value db = fn.reduceSum(dy, {0}, "d" + bname);
  grads[bname] = fn.paramGrad(db, bname);
  if (!needDx)
    return {};
  Value wT = fn.t2(w);
  return fn.matmul(dy, wT, "d" + FuncBuilder::nameOf(x));
}

Value Transformer::attentionBwd(FuncBuilder &fn, Value dh1, const ValueMap &p,
                                ValueMap &grads) {
  int64_t bh = batch() * nh;
  // Attention output projection; o = p . v.
  Value datt = denseBwd(fn, att, dh1, p.at("wo"), "wo", "bo", grads);
  Value doh = heads(fn, datt, "datt_oh");
  Value vhT = fn.transpose(vh, {0, 2, 1}, "vhT");
  Value dp = fn.batchMatmul(doh, vhT, "datt_p");
  Value pT = fn.transpose(probs, {0, 2, 1}, "att_pT");
  Value dvh = fn.batchMatmul(pT, doh, "dvh");
  // Softmax: ds = p * (dp - sum_j dp * p), times the scale.
  SmallVector<int64_t> sp3 = {bh, s, s};
  SmallVector<AffineExpr> bij = fn.dims(3), bi = {fn.d(0), fn.d(1)};
  Value r = fn.generic(
      "datt_dot", sp3, {{dp, bij}, {probs, bij}}, {0, 1},
      [](BodyBuilder &bb, Args v) {
        Value prod = bb.mul(v[0], v[1]);
        return bb.add(prod, v[2]);
      },
      0.0);
  double scale = 1.0 / std::sqrt(double(dh));
  bool smBug = opts.bug("softmax-grad");
  Value dsc = fn.generic("dscores", sp3, {{probs, bij}, {dp, bij}, {r, bi}},
                         {0, 1, 2}, [&](BodyBuilder &bb, Args v) {
                           Value rv = smBug ? bb.c(0.0) : Value(v[2]);
                           Value t = bb.mul(v[0], bb.sub(v[1], rv));
                           Value sc = bb.c(scale, "att_scale");
                           return bb.mul(t, sc);
                         });
  // scores = q . k^T
  Value dqh = fn.batchMatmul(dsc, kh, "dqh");
  Value dscT = fn.transpose(dsc, {0, 2, 1}, "dscoresT");
  Value dkh = fn.batchMatmul(dscT, qh, "dkh");
  // q, k, v projections.
  Value dn1;
  for (auto [name, dxh] :
       {std::pair<std::string, Value>{"q", dqh}, {"k", dkh}, {"v", dvh}}) {
    Value dt = unheads(fn, dxh, "d" + name);
    Value dn =
        denseBwd(fn, n1, dt, p.at("w" + name), "w" + name, "b" + name, grads);
    dn1 = dn1 ? fn.ew("arith.addf", dn1, dn, "dln1") : dn;
  }
  return dn1;
}

ValueMap Transformer::backward(FuncBuilder &fn, Value g, const ValueMap &p) {
  int64_t n = batch() * s;
  ValueMap grads;
  // Classifier, mean over the sequence.
  Value dpooled = denseBwd(fn, pooled, g, p.at("wc"), "wc", "bc", grads);
  Value dout3 =
      fn.generic("dres2_bsd", {batch(), s, dm}, {{dpooled, {fn.d(0), fn.d(2)}}},
                 {0, 1, 2}, [&](BodyBuilder &bb, Args v) {
                   Value inv = bb.c(1.0 / s);
                   return bb.mul(v[0], inv);
                 });
  Value dout = fn.collapse(dout3, {{0, 1}, {2}}, "dres2");
  // MLP: second dense, GELU, first dense.
  Value dgl = denseBwd(fn, gelu, dout, p.at("w2"), "w2", "b2", grads);
  bool geluBug = opts.bug("gelu-grad");
  // d/du 0.5 u (1 + t) = 0.5 (1 + t) + 0.5 u (1 - t^2) k0 (1 + 3 k1 u^2)
  Value du = fn.generic("dffn_u", {n, f}, {{dgl, fn.dims(2)}, {u, fn.dims(2)}},
                        {0, 1}, [&](BodyBuilder &bb, Args v) {
                          Value uv = v[1];
                          Value t = geluInner(bb, uv);
                          Value half = bb.c(0.5, "half");
                          Value one = bb.c(1.0);
                          Value a = bb.mul(half, bb.add(one, t));
                          Value sech2 = bb.sub(one, bb.mul(t, t));
                          Value k13 = bb.c(3.0 * kGeluK1, "gelu_3k1");
                          Value du2 = bb.mul(k13, bb.mul(uv, uv));
                          Value k0 = bb.c(kGeluK0, "gelu_k0");
                          Value dinner = bb.mul(k0, bb.add(one, du2));
                          Value hu = bb.mul(half, uv);
                          Value b = bb.mul(hu, bb.mul(sech2, dinner));
                          if (geluBug)
                            return bb.mul(v[0], a);
                          return bb.mul(v[0], bb.add(a, b));
                        });
  Value dn2 = denseBwd(fn, n2, du, p.at("w1"), "w1", "b1", grads);
  // Layer norm 2; the residual adds the MLP's gradient.
  Value dg, db;
  Value dhLn = layerNormBwd(fn, dn2, p.at("ln2_g"), ln2, "ln2", dg, db);
  grads["ln2_g"] = fn.paramGrad(dg, "ln2_g");
  grads["ln2_b"] = fn.paramGrad(db, "ln2_b");
  Value dh1 = fn.ew("arith.addf", dout, dhLn, "dres1");
  Value dn1 = attentionBwd(fn, dh1, p, grads);
  // Layer norm 1 (the input needs no gradient).
  layerNormBwd(fn, dn1, p.at("ln1_g"), ln1, "ln1", dg, db, /*needDx=*/false);
  grads["ln1_g"] = fn.paramGrad(dg, "ln1_g");
  grads["ln1_b"] = fn.paramGrad(db, "ln1_b");
  return grads;
}

} // namespace

std::unique_ptr<Model> makeTransformer(const Options &o) {
  return std::make_unique<Transformer>(o);
}

} // namespace amp_gen
