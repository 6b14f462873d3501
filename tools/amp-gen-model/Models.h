//===- Models.h - The reference models of amp-gen-model ---------*- C++ -*-===//
//
// Each model describes itself (the header comment, --describe), lists its
// parameters, and builds its forward pass and hand-written backward pass
// with a FuncBuilder. The step around them (loss, optimizer, signature) is
// in Program.cpp; docs/examples.md describes the models.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_GEN_MODEL_MODELS_H
#define AMP_GEN_MODEL_MODELS_H

#include "FuncBuilder.h"

#include "llvm/ADT/StringMap.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace amp_gen {

/// The command line, checked (amp-gen-model.cpp).
struct Options {
  std::string model = "mlp";
  // mlp
  int64_t layers = 1, width = 128, inputs = 64;
  // cnn
  int64_t imageH = 8, imageW = 8, channels = 1, kernel = 3;
  std::vector<int64_t> filters = {8};
  // transformer
  int64_t seq = 8, dmodel = 16, heads = 2, ffn = 32;
  // all models
  int64_t batch = 32, classes = 10;
  std::string head = "classifier", optimizer = "sgd";
  double lr = 0.1, momentum = 0.9, beta1 = 0.9, beta2 = 0.999, adamEps = 1e-8;
  double lossWeight = 1.0;
  bool emitGrads = false, noMarkers = false, noPredict = false;
  std::string name = "train_step", predictName = "predict";
  std::string dtype = "f32";
  // testing
  bool driver = false;
  std::vector<std::pair<int64_t, int64_t>> probes;
  double eps = 1e-3;
  std::string injectBug;

  bool bug(llvm::StringRef which) const { return injectBug == which; }
};

struct ParamSpec {
  std::string name;
  llvm::SmallVector<int64_t> shape;
  int64_t fanIn = 0; // 0: a bias or gain (no fan-in)
};

/// Values by parameter (or state) name.
using ValueMap = std::map<std::string, Value>;

class Model {
public:
  explicit Model(const Options &o) : opts(o) {}
  virtual ~Model() = default;

  virtual std::string kind() const = 0;
  virtual std::string describe() const = 0;
  virtual std::vector<std::string> doc() const = 0;
  virtual llvm::SmallVector<int64_t> inputShape() const = 0;
  virtual std::vector<ParamSpec> paramSpecs() const = 0;
  /// Builds the forward pass to the logits; keeps what backward() needs.
  virtual Value forward(FuncBuilder &fn, Value x, const ValueMap &p) = 0;
  /// Builds the backward pass from dlogits; returns the (marked) gradient
  /// of every parameter.
  virtual ValueMap backward(FuncBuilder &fn, Value g, const ValueMap &p) = 0;

  int64_t batch() const { return opts.batch; }
  int64_t outputs() const { return opts.classes; }

protected:
  const Options &opts;
};

std::unique_ptr<Model> makeMLP(const Options &o);
std::unique_ptr<Model> makeCNN(const Options &o);
std::unique_ptr<Model> makeTransformer(const Options &o);
std::unique_ptr<Model> makeModel(const Options &o);

/// Python's repr() of a float: the shortest text that reads back to `v`,
/// as the header's command line and the docs print numbers.
std::string reprFloat(double v);

} // namespace amp_gen

#endif // AMP_GEN_MODEL_MODELS_H
