//===- CNN.cpp - Convolutions + ReLU, max pool, dense ---------------------===//
//
// [conv KxK (linalg.conv_2d_nhwc_hwcf, valid) + bias + ReLU] x N, 2x2 max
// pool (linalg.pooling_nhwc_max), flatten, dense. The backward convolutions
// are convolutions too: the filter gradient one of the input with batch and
// channels swapped, the input gradient a full convolution with the filter
// flipped.
//
//===----------------------------------------------------------------------===//

#include "Models.h"

#include "llvm/Support/FormatVariadic.h"

using namespace mlir;

namespace amp_gen {
namespace {

class CNN : public Model {
public:
  explicit CNN(const Options &o) : Model(o) {
    int64_t h = o.imageH, w = o.imageW;
    for (size_t l = 0; l < o.filters.size(); ++l) {
      h -= o.kernel - 1;
      w -= o.kernel - 1;
    }
    poolH = h / 2;
    poolW = w / 2;
    flat = poolH * poolW * o.filters.back();
  }

  std::string kind() const override { return "cnn"; }

  std::string describe() const override {
    std::string s = llvm::formatv("a CNN {0}x{1}x{2}", opts.imageH, opts.imageW,
                                  opts.channels);
    for (int64_t f : opts.filters)
      s += llvm::formatv(" -> conv {0}x{0}/{1} + relu", opts.kernel, f).str();
    s += llvm::formatv(" -> maxpool 2x2 ({0}x{1}x{2}) -> dense {3} -> {4}, "
                       "batch {5}",
                       poolH, poolW, opts.filters.back(), flat, outputs(),
                       batch())
             .str();
    return s;
  }

  SmallVector<int64_t> inputShape() const override {
    return {batch(), opts.imageH, opts.imageW, opts.channels};
  }

  std::vector<std::string> doc() const override {
    std::string nl = std::to_string(opts.filters.size());
    return {
        llvm::formatv("x[{0}x{1}x{2}x{3}] (NHWC), y[{0}x{4}]", batch(),
                      opts.imageH, opts.imageW, opts.channels, outputs()),
        "forward:  a_l = conv(h_{l-1}, k_l) + kb_l, h_l = relu(a_l)  (h0 = x, "
        "l = 1.." +
            nl + ";",
        "          linalg.conv_2d_nhwc_hwcf, valid, stride 1)",
        "          p = maxpool 2x2/2 (h_" + nl +
            "), logits = flatten(p) . wd + bd",
        "backward: dp = unflatten(dlogits . wd^T)",
        "          dh_" + nl + " = dp where h_" + nl +
            " equals its window's max (h == p), else 0",
        "          da_l = dh_l * (a_l > 0), dkb_l = sum_{n,y,x} da_l",
        "          dk_l = conv(h_{l-1} with batch <-> channels, da_l as the "
        "filter)",
        "          dh_{l-1} = conv(da_l padded by K-1, k_l flipped with c <-> "
        "f)"};
  }

  std::vector<ParamSpec> paramSpecs() const override {
    std::vector<ParamSpec> ps;
    int64_t c = opts.channels, k = opts.kernel;
    for (auto [i, f] : llvm::enumerate(opts.filters)) {
      std::string n = std::to_string(i + 1);
      ps.push_back({"k" + n, {k, k, c, f}, k * k * c});
      ps.push_back({"kb" + n, {f}, 0});
      c = f;
    }
    ps.push_back({"wd", {flat, outputs()}, flat});
    ps.push_back({"bd", {outputs()}, 0});
    return ps;
  }

  Value forward(FuncBuilder &fn, Value x, const ValueMap &p) override {
    hs = {x};
    acts.clear();
    Value h = x;
    for (size_t l = 1; l <= opts.filters.size(); ++l) {
      std::string n = std::to_string(l);
      Value z = fn.conv(h, p.at("k" + n), "conv" + n);
      Value a = fn.biasAdd(z, p.at("kb" + n), "a" + n);
      acts.push_back(a);
      h = fn.relu(a, "h" + n);
      hs.push_back(h);
    }
    pool = fn.maxpool2(h, "pool");
    flatValue = fn.collapse(pool, {{0}, {1, 2, 3}}, "flat");
    return fn.dense(flatValue, p.at("wd"), p.at("bd"), "logits");
  }

  ValueMap backward(FuncBuilder &fn, Value g, const ValueMap &p) override {
    ValueMap grads;
    Value flatT = fn.t2(flatValue);
    Value dwd = fn.matmul(flatT, g, "dwd");
    grads["wd"] = fn.paramGrad(dwd, "wd");
    Value dbd = fn.reduceSum(g, {0}, "dbd");
    grads["bd"] = fn.paramGrad(dbd, "bd");
    Value wdT = fn.t2(p.at("wd"));
    Value dflat = fn.matmul(g, wdT, "dflat");
    Value dp =
        fn.expand(dflat, {{0}, {1, 2, 3}}, FuncBuilder::shapeOf(pool), "dpool");

    // Max pool: the gradient goes to the window's maximum (every position
    // equal to it).
    size_t nl = opts.filters.size();
    Value hL = hs[nl];
    SmallVector<AffineExpr> d4 = fn.dims(4);
    SmallVector<AffineExpr> win = {fn.d(0), fn.d(1).floorDiv(2),
                                   fn.d(2).floorDiv(2), fn.d(3)};
    bool poolBug = opts.bug("pool-mask");
    Value dh =
        fn.generic("dh" + std::to_string(nl), FuncBuilder::shapeOf(hL),
                   {{hL, d4}, {pool, win}, {dp, win}}, {0, 1, 2, 3},
                   [&](BodyBuilder &bb, ArrayRef<BlockArgument> v) -> Value {
                     if (poolBug)
                       return v[2];
                     Value hit = bb.cmp(arith::CmpFPredicate::OEQ, v[0], v[1]);
                     return bb.select(hit, v[2], bb.c(0.0));
                   });

    for (size_t l = nl; l >= 1; --l) {
      std::string n = std::to_string(l);
      Value k = p.at("k" + n);
      ArrayRef<int64_t> ks = FuncBuilder::shapeOf(k);
      int64_t kk = ks[0], c = ks[2], f = ks[3];
      Value da = fn.reluBwd(dh, acts[l - 1], "da" + n, opts.bug("relu-mask"));
      Value dkb = fn.reduceSum(da, {0, 1, 2}, "dkb" + n);
      grads["kb" + n] = fn.paramGrad(dkb, "kb" + n);
      // dk[kh,kw,c,f] = sum_{n,oh,ow} h[n,oh+kh,ow+kw,c] da[n,oh,ow,f]: a
      // convolution of h^T (channels as batch) with da^T as the filter.
      Value hT = fn.transpose(hs[l - 1], {3, 1, 2, 0},
                              "h" + std::to_string(l - 1) + "T");
      Value daT = fn.transpose(da, {1, 2, 0, 3}, "da" + n + "T");
      Value dkT = fn.conv(hT, daT, "dk" + n + "T");
      Value dk = fn.transpose(dkT, {1, 2, 0, 3}, "dk" + n);
      grads["k" + n] = fn.paramGrad(dk, "k" + n);
      if (l == 1)
        break;
      // dh[n,y,x,c] = sum da[n,y-kh,x-kw,f] k[kh,kw,c,f]: a full
      // convolution: da padded by K-1, the filter flipped, c <-> f.
      Value dap = fn.pad(da, {0, kk - 1, kk - 1, 0}, {0, kk - 1, kk - 1, 0},
                         "da" + n + "pad");
      SmallVector<AffineExpr> kexprs;
      if (opts.bug("conv-flip"))
        kexprs = {fn.d(0), fn.d(1), fn.d(3), fn.d(2)};
      else
        kexprs = {kk - 1 - fn.d(0), kk - 1 - fn.d(1), fn.d(3), fn.d(2)};
      Value kf = fn.generic(
          "k" + n + "flip", {kk, kk, f, c}, {{k, kexprs}}, {0, 1, 2, 3},
          [](BodyBuilder &, ArrayRef<BlockArgument> v) { return Value(v[0]); });
      dh = fn.conv(dap, kf, "dh" + std::to_string(l - 1));
    }
    return grads;
  }

private:
  int64_t poolH, poolW, flat;
  SmallVector<Value> hs, acts;
  Value pool, flatValue;
};

} // namespace

std::unique_ptr<Model> makeCNN(const Options &o) {
  return std::make_unique<CNN>(o);
}

} // namespace amp_gen
