//===- amp-gen-model.cpp - Training steps of reference models as MLIR -----===//
//
// Writes f32 (or f64) training steps -- forward, loss, hand-written backward,
// optimizer -- of an MLP, a CNN or a transformer block, with the markers and
// `amp.role` attributes of docs/training-step.md, at any size, built with
// MLIR's builders and verified before they are printed. docs/examples.md
// describes the models and the flags; test/Examples/gradcheck.py checks the
// gradients (--driver, --probe, --dtype f64, --inject-bug).
//
//===----------------------------------------------------------------------===//

#include "Models.h"
#include "Program.h"

#include "amp/Dialect/Amp/AmpDialect.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/ToolOutputFile.h"

#include <cmath>
#include <cstdio>

using namespace mlir;
using namespace amp_gen;
namespace cl = llvm::cl;

namespace amp_gen {

std::string reprFloat(double v) {
  char buf[64];
  for (int digits = 1; digits <= 17; ++digits) {
    std::snprintf(buf, sizeof buf, "%.*e", digits - 1, v);
    if (std::strtod(buf, nullptr) != v)
      continue;
    int exp = std::atoi(std::strchr(buf, 'e') + 1);
    if (exp < -4 || exp >= 16)
      return buf; // 1e-08, 1.5e+16: as Python writes them
    std::snprintf(buf, sizeof buf, "%.*f", std::max(0, digits - 1 - exp), v);
    std::string s = buf;
    if (s.find('.') == std::string::npos)
      s += ".0";
    return s;
  }
  return std::to_string(v);
}

std::unique_ptr<Model> makeModel(const Options &o) {
  if (o.model == "cnn")
    return makeCNN(o);
  if (o.model == "transformer")
    return makeTransformer(o);
  return makeMLP(o);
}

} // namespace amp_gen

namespace {

const char *const kBugs[] = {"relu-mask",    "pool-mask", "conv-flip",
                             "softmax-grad", "ln-grad",   "gelu-grad",
                             "xent-grad"};

cl::OptionCategory modelCat("Model (--model mlp | cnn | transformer)");
cl::OptionCategory stepCat("All models");
cl::OptionCategory testCat("Testing");

cl::opt<std::string> modelOpt("model",
                              cl::desc("mlp (default), cnn or transformer"),
                              cl::init("mlp"), cl::cat(modelCat));
cl::opt<int64_t> layersOpt("layers",
                           cl::desc("mlp: hidden layers (default 1; 0: "
                                    "softmax regression)"),
                           cl::init(1), cl::cat(modelCat));
cl::opt<int64_t> widthOpt("width", cl::desc("mlp: hidden width (default 128)"),
                          cl::init(128), cl::cat(modelCat));
cl::opt<int64_t> inputsOpt("inputs",
                           cl::desc("mlp: input features (default 64)"),
                           cl::init(64), cl::cat(modelCat));
cl::opt<std::string> imageOpt("image", cl::desc("cnn: HxW (default 8x8)"),
                              cl::init("8x8"), cl::cat(modelCat));
cl::opt<int64_t> channelsOpt("channels",
                             cl::desc("cnn: input channels (default 1)"),
                             cl::init(1), cl::cat(modelCat));
cl::opt<std::string>
    filtersOpt("filters",
               cl::desc("cnn: filters per conv layer: N (every layer) or a "
                        "comma-separated list (default 8)"),
               cl::init("8"), cl::cat(modelCat));
cl::opt<int64_t> convLayersOpt("conv-layers",
                               cl::desc("cnn: conv layers (default 1, or the "
                                        "length of the --filters list)"),
                               cl::init(-1), cl::cat(modelCat));
cl::opt<int64_t> kernelOpt("kernel",
                           cl::desc("cnn: square filter size (default 3)"),
                           cl::init(3), cl::cat(modelCat));
cl::opt<int64_t> seqOpt("seq",
                        cl::desc("transformer: sequence length (default 8)"),
                        cl::init(8), cl::cat(modelCat));
cl::opt<int64_t> dmodelOpt("dmodel",
                           cl::desc("transformer: d_model (default 16)"),
                           cl::init(16), cl::cat(modelCat));
cl::opt<int64_t> headsOpt("heads", cl::desc("transformer: heads (default 2)"),
                          cl::init(2), cl::cat(modelCat));
cl::opt<int64_t> ffnOpt("ffn",
                        cl::desc("transformer: MLP hidden width (default 32)"),
                        cl::init(32), cl::cat(modelCat));

cl::opt<int64_t> batchOpt("batch", cl::desc("batch (default 32)"), cl::init(32),
                          cl::cat(stepCat));
cl::opt<int64_t> classesOpt("classes",
                            cl::desc("classes, or outputs of the regression "
                                     "head (default 10)"),
                            cl::init(10), cl::cat(stepCat));
cl::opt<std::string>
    headOpt("head",
            cl::desc("classifier (default: softmax "
                     "cross-entropy on one-hot labels) or regression (mean "
                     "squared error)"),
            cl::init("classifier"), cl::cat(stepCat));
cl::opt<std::string>
    optimizerOpt("optimizer",
                 cl::desc("sgd (default), momentum or adam (their "
                          "buffers are opt_state arguments)"),
                 cl::init("sgd"), cl::cat(stepCat));
cl::opt<double> lrOpt("lr", cl::desc("learning rate (default 0.1; adam 0.001)"),
                      cl::init(0.1), cl::cat(stepCat));
cl::opt<double>
    momentumOpt("momentum",
                cl::desc("mu of --optimizer momentum (default 0.9)"),
                cl::init(0.9), cl::cat(stepCat));
cl::opt<double> beta1Opt("beta1", cl::desc("Adam (default 0.9)"), cl::init(0.9),
                         cl::cat(stepCat));
cl::opt<double> beta2Opt("beta2", cl::desc("Adam (default 0.999)"),
                         cl::init(0.999), cl::cat(stepCat));
cl::opt<double> adamEpsOpt("adam-eps", cl::desc("Adam (default 1e-8)"),
                           cl::init(1e-8), cl::cat(stepCat));
cl::opt<double> lossWeightOpt(
    "loss-weight",
    cl::desc("multiply the gradients by W (a weighted loss; the loss "
             "returned stays unweighted) and divide the learning rate by W: "
             "small W makes gradients that underflow f16 (sgd, momentum)"),
    cl::init(1.0), cl::cat(stepCat));
cl::opt<bool> emitGradsOpt("emit-grads",
                           cl::desc("also return every parameter gradient "
                                    "with amp.role \"grad\""),
                           cl::cat(stepCat));
cl::opt<bool> noMarkersOpt("no-markers",
                           cl::desc("the marker-free program (what "
                                    "amp-strip-markers makes of the marked "
                                    "one)"),
                           cl::cat(stepCat));
cl::opt<std::string>
    nameOpt("name", cl::desc("step function name (default train_step)"),
            cl::init("train_step"), cl::cat(stepCat));
cl::opt<std::string>
    predictNameOpt("predict-name",
                   cl::desc("eval function name (default predict)"),
                   cl::init("predict"), cl::cat(stepCat));
cl::opt<bool> noPredictOpt("no-predict", cl::desc("no eval function"),
                           cl::cat(stepCat));
cl::opt<std::string>
    dtypeOpt("dtype",
             cl::desc("f32 (default) or f64 (precise gradient checks)"),
             cl::init("f32"), cl::cat(stepCat));

cl::opt<bool> driverOpt("driver",
                        cl::desc("add @main for mlir-runner (needs "
                                 "--no-markers)"),
                        cl::cat(testCat));
cl::list<std::string>
    probeOpt("probe",
             cl::desc("P:I: with --driver, the finite difference of the loss "
                      "for element I (flat) of parameter P (repeatable)"),
             cl::cat(testCat));
cl::opt<double> epsOpt("eps", cl::desc("finite-difference step (default 1e-3)"),
                       cl::init(1e-3), cl::cat(testCat));
cl::opt<std::string>
    injectBugOpt("inject-bug",
                 cl::desc("a deliberately wrong backward pass (negative "
                          "controls of the gradient check): relu-mask, "
                          "pool-mask, conv-flip, softmax-grad, ln-grad, "
                          "gelu-grad, xent-grad"),
                 cl::init(""), cl::cat(testCat));
cl::opt<bool> describeOpt("describe",
                          cl::desc("print a JSON summary of parameters and "
                                   "states"),
                          cl::cat(testCat));
cl::opt<std::string> outputOpt("o", cl::desc("output file"), cl::init("-"),
                               cl::value_desc("file"), cl::cat(testCat));

[[noreturn]] void usageError(const llvm::Twine &msg) {
  llvm::errs() << "amp-gen-model: error: " << msg << "\n";
  std::exit(2);
}

bool isIdentifier(StringRef s) {
  if (s.empty() || !(llvm::isAlpha(s[0]) || s[0] == '_'))
    return false;
  return llvm::all_of(s, [](char c) { return llvm::isAlnum(c) || c == '_'; });
}

/// --image HxW (or H) and --filters N | N1,N2,... with --conv-layers.
void readConvSizes(Options &o) {
  StringRef image = imageOpt;
  auto [hs, ws] = image.split('x');
  if (hs.getAsInteger(10, o.imageH) ||
      (ws.empty() ? (o.imageW = o.imageH, false)
                  : ws.getAsInteger(10, o.imageW)))
    usageError("--image: expected HxW, e.g. 8x8");
  o.filters.clear();
  SmallVector<StringRef> parts;
  StringRef(filtersOpt).split(parts, ',', -1, /*KeepEmpty=*/false);
  for (StringRef part : parts) {
    int64_t f;
    if (part.trim().getAsInteger(10, f))
      usageError("--filters: expected integers");
    o.filters.push_back(f);
  }
  if (o.filters.empty())
    usageError("--filters: expected integers");
  if (convLayersOpt == -1)
    return;
  if (convLayersOpt < 1)
    usageError("--conv-layers must be >= 1");
  if (o.filters.size() == 1)
    o.filters.assign(convLayersOpt, o.filters[0]);
  else if (int64_t(o.filters.size()) != convLayersOpt)
    usageError(llvm::formatv("--filters lists {0} layers, --conv-layers "
                             "says {1}",
                             o.filters.size(), int64_t(convLayersOpt)));
}

/// The options that take one of a few words.
void readChoices(Options &o) {
  o.model = modelOpt;
  if (o.model != "mlp" && o.model != "cnn" && o.model != "transformer")
    usageError("--model: expected mlp, cnn or transformer, got '" + o.model +
               "'");
  o.head = headOpt;
  if (o.head != "classifier" && o.head != "regression")
    usageError("--head: expected classifier or regression");
  o.optimizer = optimizerOpt;
  if (o.optimizer != "sgd" && o.optimizer != "momentum" &&
      o.optimizer != "adam")
    usageError("--optimizer: expected sgd, momentum or adam");
  o.dtype = dtypeOpt;
  if (o.dtype != "f32" && o.dtype != "f64")
    usageError("--dtype: expected f32 or f64");
  o.injectBug = injectBugOpt;
  if (!o.injectBug.empty() && !llvm::is_contained(kBugs, o.injectBug))
    usageError("--inject-bug: expected one of relu-mask, pool-mask, "
               "conv-flip, softmax-grad, ln-grad, gelu-grad, xent-grad");
}

/// Sizes >= 1, a CNN whose last conv output can be pooled, heads that
/// divide d_model, a usable learning rate and loss weight, identifiers.
void checkConsistency(const Options &o) {
  if (o.layers < 0)
    usageError("--layers must be >= 0");
  const std::pair<const char *, int64_t> positive[] = {
      {"width", o.width},    {"inputs", o.inputs}, {"channels", o.channels},
      {"kernel", o.kernel},  {"seq", o.seq},       {"dmodel", o.dmodel},
      {"heads", o.heads},    {"ffn", o.ffn},       {"batch", o.batch},
      {"classes", o.classes}};
  for (auto [name, value] : positive)
    if (value < 1)
      usageError(llvm::Twine("--") + name + " must be >= 1");
  if (std::min(o.imageH, o.imageW) < 1 || *llvm::min_element(o.filters) < 1)
    usageError("--image and --filters must be >= 1");
  if (o.model == "cnn") {
    int64_t shrink = int64_t(o.filters.size()) * (o.kernel - 1);
    int64_t h = o.imageH - shrink, w = o.imageW - shrink;
    if (h < 2 || w < 2 || h % 2 || w % 2)
      usageError(llvm::formatv(
          "cnn: the last conv output is {0}x{1}; the 2x2 max pool needs even "
          "sizes >= 2 (each valid {2}x{2} conv removes {3})",
          h, w, o.kernel, o.kernel - 1));
  }
  if (o.model == "transformer" && o.dmodel % o.heads)
    usageError("--dmodel must be a multiple of --heads");
  if (!(o.lr > 0))
    usageError("--lr must be > 0");
  if (!(o.lossWeight > 0 && std::isfinite(o.lossWeight)))
    usageError("--loss-weight must be a finite number > 0");
  if (o.lossWeight != 1.0 && o.optimizer == "adam")
    usageError("--loss-weight needs --optimizer sgd or momentum (Adam would "
               "not cancel it)");
  if (!isIdentifier(o.name) || !isIdentifier(o.predictName))
    usageError("function names must be identifiers");
  if (o.driver && !o.noMarkers)
    usageError("--driver needs --no-markers (mlir-runner cannot run the amp "
               "markers)");
}

/// --probe P:I, checked against the model's parameters.
void readProbes(Options &o) {
  if (!probeOpt.empty() && !o.driver)
    usageError("--probe needs --driver");
  std::vector<ParamSpec> specs = makeModel(o)->paramSpecs();
  for (StringRef probe : probeOpt) {
    auto [ps, is] = probe.split(':');
    int64_t p, i;
    if (ps.getAsInteger(10, p) || is.getAsInteger(10, i) || p < 0 || i < 0)
      usageError("--probe: expected PARAM:INDEX, e.g. 0:17");
    if (p >= int64_t(specs.size()) ||
        i >= ShapedType::getNumElements(specs[p].shape))
      usageError("--probe " + probe + " out of range");
    o.probes.push_back({p, i});
  }
}

/// Reads and checks the command line, as one-line errors.
Options readOptions() {
  Options o;
  readChoices(o);
  o.layers = layersOpt;
  o.width = widthOpt;
  o.inputs = inputsOpt;
  o.channels = channelsOpt;
  o.kernel = kernelOpt;
  readConvSizes(o);
  o.seq = seqOpt;
  o.dmodel = dmodelOpt;
  o.heads = headsOpt;
  o.ffn = ffnOpt;
  o.batch = batchOpt;
  o.classes = classesOpt;
  o.lr = lrOpt.getNumOccurrences() ? double(lrOpt)
                                   : (o.optimizer == "adam" ? 0.001 : 0.1);
  o.momentum = momentumOpt;
  o.beta1 = beta1Opt;
  o.beta2 = beta2Opt;
  o.adamEps = adamEpsOpt;
  o.lossWeight = lossWeightOpt;
  o.emitGrads = emitGradsOpt;
  o.noMarkers = noMarkersOpt;
  o.name = nameOpt;
  o.predictName = predictNameOpt;
  o.noPredict = noPredictOpt;
  o.driver = driverOpt;
  o.eps = epsOpt;
  checkConsistency(o);
  readProbes(o);
  return o;
}

/// The command line that writes the same program, for the header.
std::string commandLine(const Options &o) {
  std::string s = "amp-gen-model --model " + o.model;
  auto add = [&](StringRef flag, const llvm::Twine &value) {
    s += (" --" + flag + " " + value).str();
  };
  if (o.model == "mlp") {
    add("layers", llvm::Twine(o.layers));
    add("width", llvm::Twine(o.width));
    add("inputs", llvm::Twine(o.inputs));
  } else if (o.model == "cnn") {
    add("image", llvm::Twine(o.imageH) + "x" + llvm::Twine(o.imageW));
    add("channels", llvm::Twine(o.channels));
    add("filters",
        llvm::join(llvm::map_range(o.filters,
                                   [](int64_t f) { return std::to_string(f); }),
                   ","));
    add("conv-layers", llvm::Twine(o.filters.size()));
    add("kernel", llvm::Twine(o.kernel));
  } else {
    add("seq", llvm::Twine(o.seq));
    add("dmodel", llvm::Twine(o.dmodel));
    add("heads", llvm::Twine(o.heads));
    add("ffn", llvm::Twine(o.ffn));
  }
  add("batch", llvm::Twine(o.batch));
  add("classes", llvm::Twine(o.classes));
  if (o.head != "classifier")
    add("head", o.head);
  add("optimizer", o.optimizer);
  add("lr", reprFloat(o.lr));
  if (o.optimizer == "momentum")
    add("momentum", reprFloat(o.momentum));
  if (o.optimizer == "adam") {
    add("beta1", reprFloat(o.beta1));
    add("beta2", reprFloat(o.beta2));
    add("adam-eps", reprFloat(o.adamEps));
  }
  if (o.lossWeight != 1.0)
    add("loss-weight", reprFloat(o.lossWeight));
  if (o.emitGrads)
    s += " --emit-grads";
  if (o.noMarkers)
    s += " --no-markers";
  if (o.dtype != "f32")
    add("dtype", o.dtype);
  if (!o.injectBug.empty())
    add("inject-bug", o.injectBug);
  return s;
}

/// The comment the module starts with: the command, the model, the step.
std::string header(const Options &o, Model &model) {
  std::vector<ParamSpec> params = model.paramSpecs();
  std::vector<StateSpec> states = stateSpecs(o, params);
  std::vector<std::string> lines = {
      "Generated by:", "  " + commandLine(o), "",
      "One training step of " + model.describe() + ".", ""};
  for (const std::string &d : model.doc())
    lines.push_back("  " + d);
  bool classifier = o.head == "classifier";
  lines.push_back(std::string("  loss:     ") +
                  (classifier ? "softmax cross-entropy, mean over the batch "
                                "(max-subtracting)"
                              : "mean squared error"));
  std::string dl =
      classifier ? "(softmax - y) * seed / " + std::to_string(model.batch())
                 : "2 (pred - y) * seed / " +
                       std::to_string(model.batch() * model.outputs());
  if (o.lossWeight != 1.0)
    dl += " * " + reprFloat(o.lossWeight) +
          " (--loss-weight; the loss returned is unweighted, the lr divided "
          "by it)";
  lines.push_back("  dlogits:  " + dl);
  std::string opt =
      o.optimizer == "sgd" ? "SGD: w' = w - lr g"
      : o.optimizer == "momentum"
          ? "momentum: v' = " + reprFloat(o.momentum) + " v + g, w' = w - lr v'"
          : "Adam (bias-corrected; the step count is an opt_state)";
  lines.push_back("  update:   " + opt + ", lr " + reprFloat(o.lr));
  lines.push_back("");
  lines.push_back(
      llvm::formatv(
          "@{0}(x, y, {1} params, {2} optimizer states) "
          "-> (loss, {3} updates{4})",
          o.name, params.size(), states.size(), params.size() + states.size(),
          o.emitGrads ? ", " + std::to_string(params.size()) + " gradients"
                      : "")
          .str());
  if (classifier && !o.noPredict)
    lines.push_back("@" + o.predictName + "(x, params) -> logits");
  if (o.noMarkers) {
    lines.push_back("No markers (--no-markers): the program amp-strip-markers "
                    "makes of the marked one.");
  } else {
    lines.push_back("amp.grad_seed starts the backward pass, amp.param_grad "
                    "marks the gradients,");
    lines.push_back("amp.state_update the new params and states; roles and "
                    "markers: docs/training-step.md.");
  }
  std::string text;
  for (const std::string &line : lines)
    text += StringRef("// " + line).rtrim().str() + "\n";
  return text;
}

void describe(const Options &o, Model &model, llvm::raw_ostream &os) {
  std::vector<ParamSpec> params = model.paramSpecs();
  std::vector<StateSpec> states = stateSpecs(o, params);
  llvm::json::OStream j(os, 1);
  auto shape = [&](ArrayRef<int64_t> s) {
    j.array([&] {
      for (int64_t d : s)
        j.value(d);
    });
  };
  j.object([&] {
    j.attribute("model", o.model);
    j.attribute("summary", model.describe());
    j.attribute("dtype", o.dtype);
    j.attribute("head", o.head);
    j.attributeObject("optimizer", [&] {
      j.attribute("kind", o.optimizer);
      j.attribute("lr", o.lr);
      j.attribute("momentum", o.momentum);
      j.attribute("beta1", o.beta1);
      j.attribute("beta2", o.beta2);
      j.attribute("eps", o.adamEps);
    });
    j.attributeArray("params", [&] {
      for (auto [i, p] : llvm::enumerate(params))
        j.object([&] {
          j.attribute("name", p.name);
          j.attributeBegin("shape");
          shape(p.shape);
          j.attributeEnd();
          j.attribute("arg", int64_t(2 + i));
        });
    });
    j.attributeArray("states", [&] {
      for (auto [i, s] : llvm::enumerate(states))
        j.object([&] {
          j.attribute("name", s.name);
          j.attributeBegin("shape");
          shape(s.shape);
          j.attributeEnd();
          if (s.param.empty())
            j.attribute("param", nullptr);
          else
            j.attribute("param", s.param);
          j.attribute("kind", s.kind);
          j.attribute("arg", int64_t(2 + params.size() + i));
        });
    });
  });
  os << "\n";
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions({&modelCat, &stepCat, &testCat});
  cl::ParseCommandLineOptions(
      argc, argv,
      "amp-gen-model: f32 training steps (forward, loss, backward, "
      "optimizer) of an MLP, a CNN or a transformer block as MLIR, with amp "
      "markers and amp.role attributes\n");
  Options opts = readOptions();

  std::string error;
  auto out = mlir::openOutputFile(outputOpt, &error);
  if (!out) {
    llvm::errs() << "amp-gen-model: error: " << error << "\n";
    return 1;
  }
  std::unique_ptr<Model> model = makeModel(opts);
  if (describeOpt) {
    describe(opts, *model, out->os());
    out->keep();
    return 0;
  }

  DialectRegistry registry;
  registry.insert<arith::ArithDialect, func::FuncDialect, linalg::LinalgDialect,
                  math::MathDialect, scf::SCFDialect, tensor::TensorDialect,
                  amp::AmpDialect>();
  MLIRContext ctx(registry);
  ctx.loadAllAvailableDialects();
  OwningOpRef<ModuleOp> module = ModuleOp::create(UnknownLoc::get(&ctx));
  FloatType ft = opts.dtype == "f64" ? FloatType(Float64Type::get(&ctx))
                                     : FloatType(Float32Type::get(&ctx));
  emitStep(*module, opts, *model, ft);
  if (opts.head == "classifier" && !opts.noPredict)
    emitPredict(*module, opts, *model, ft);
  if (opts.driver)
    emitDriver(*module, opts, *model, ft);
  if (failed(verify(*module))) {
    llvm::errs() << "amp-gen-model: internal error: the generated module does "
                    "not verify\n";
    return 1;
  }
  out->os() << header(opts, *model) << "\n";
  module->print(out->os(), OpPrintingFlags().printNameLocAsPrefix());
  out->os() << "\n";
  out->keep();
  return 0;
}
