//===- MLP.cpp - Dense layers + ReLU, then a dense output layer -----------===//

#include "Models.h"

#include "llvm/Support/FormatVariadic.h"

using namespace mlir;

namespace amp_gen {
namespace {

class MLP : public Model {
public:
  explicit MLP(const Options &o) : Model(o) {
    dims.push_back(o.inputs);
    for (int64_t l = 0; l < o.layers; ++l)
      dims.push_back(o.width);
    dims.push_back(o.classes);
  }

  std::string kind() const override { return "mlp"; }

  std::string describe() const override {
    std::string chain;
    for (auto [i, d] : llvm::enumerate(dims))
      chain += (i ? " -> " : "") + std::to_string(d);
    return llvm::formatv("an MLP {0}, batch {1}", chain, batch()).str();
  }

  std::vector<std::string> doc() const override {
    int64_t n = dims.size() - 2;
    std::string io =
        llvm::formatv("x[{0}x{1}], y[{0}x{2}]", batch(), dims[0], outputs());
    if (n == 0)
      return {io, "forward:  logits = x . w1 + b1",
              "backward: dw1 = x^T . dlogits, db1 = sum_i dlogits"};
    std::string ns = std::to_string(n), n1 = std::to_string(n + 1);
    return {io,
            "forward:  h0 = x; a_l = h_{l-1} . w_l + b_l, h_l = relu(a_l) "
            "(l = 1.." +
                ns + ")",
            "          logits = h_" + ns + " . w" + n1 + " + b" + n1,
            "backward: dw_l = h_{l-1}^T . da_l, db_l = sum_i da_l,",
            "          da_{l-1} = (da_l . w_l^T) * (a_{l-1} > 0)  (da_" + n1 +
                " = dlogits)"};
  }

  SmallVector<int64_t> inputShape() const override {
    return {batch(), dims[0]};
  }

  std::vector<ParamSpec> paramSpecs() const override {
    std::vector<ParamSpec> ps;
    for (size_t l = 1; l < dims.size(); ++l) {
      ps.push_back(
          {"w" + std::to_string(l), {dims[l - 1], dims[l]}, dims[l - 1]});
      ps.push_back({"b" + std::to_string(l), {dims[l]}, 0});
    }
    return ps;
  }

  Value forward(FuncBuilder &fn, Value x, const ValueMap &p) override {
    size_t last = dims.size() - 1;
    hs = {x};
    acts.clear();
    Value h = x;
    for (size_t l = 1; l <= last; ++l) {
      std::string n = std::to_string(l);
      Value a = fn.dense(h, p.at("w" + n), p.at("b" + n),
                         l < last ? "a" + n : "logits");
      if (l == last)
        return a;
      acts.push_back(a);
      h = fn.relu(a, "h" + n);
      hs.push_back(h);
    }
    llvm_unreachable("an MLP has an output layer");
  }

  ValueMap backward(FuncBuilder &fn, Value g, const ValueMap &p) override {
    ValueMap grads;
    for (size_t l = dims.size() - 1; l >= 1; --l) {
      std::string n = std::to_string(l);
      Value hT = fn.t2(hs[l - 1]);
      Value dw = fn.matmul(hT, g, "dw" + n);
      grads["w" + n] = fn.paramGrad(dw, "w" + n);
      Value db = fn.reduceSum(g, {0}, "db" + n);
      grads["b" + n] = fn.paramGrad(db, "b" + n);
      if (l > 1) {
        Value wT = fn.t2(p.at("w" + n));
        Value dh = fn.matmul(g, wT, "dh" + std::to_string(l - 1));
        g = fn.reluBwd(dh, acts[l - 2], "da" + std::to_string(l - 1),
                       opts.bug("relu-mask"));
      }
    }
    return grads;
  }

private:
  SmallVector<int64_t> dims;
  SmallVector<Value> hs, acts;
};

} // namespace

std::unique_ptr<Model> makeMLP(const Options &o) {
  return std::make_unique<MLP>(o);
}

} // namespace amp_gen
