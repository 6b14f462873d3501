//===- amp-run.cpp - JIT-compile a training step and train with it --------===//
//
// Reads a module of upstream ops on tensors (what `amp-opt --amp` produces),
// finds the training step and the evaluation function by their `amp.role`
// attributes (docs/training-step.md), lowers the module in-process with the
// amp-lower-to-llvm pipeline (buildAmpLowerToLLVMPipeline, which
// scripts/lower-to-llvm.sh runs through amp-opt), JIT-compiles it with
// MLIR's ExecutionEngine and trains on a data set on the CPU. See
// docs/amp-run.md. This file holds the command line and the run's steps;
// Program.cpp parses a module and finds and JIT-compiles its functions,
// Compile.cpp lowers and JIT-compiles, Trainer.cpp trains, evaluates and
// times, JitFunction.cpp calls the compiled code.
//
//===----------------------------------------------------------------------===//

#include "Compile.h"
#include "Dataset.h"
#include "Error.h"
#include "JitFunction.h"
#include "Program.h"
#include "Signature.h"
#include "Stopwatch.h"
#include "Trainer.h"

#include "amp/Conversion/Passes.h"
#include "amp/Pipelines/Pipelines.h"
#include "amp/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <memory>
#include <optional>
#include <tuple>
#include <vector>
#ifdef __GLIBC__
#include <malloc.h>
#endif

using namespace amp::run;
using llvm::StringRef;
namespace cl = llvm::cl;

//===----------------------------------------------------------------------===//
// Options
//===----------------------------------------------------------------------===//

static cl::OptionCategory runCategory("amp-run options");

static cl::opt<std::string> inputFilename(cl::Positional,
                                          cl::desc("<input.mlir>"),
                                          cl::init("-"), cl::cat(runCategory));
static cl::opt<std::string>
    stepName("step",
             cl::desc("The training step (default: the function with a "
                      "result of amp.role \"loss\")"),
             cl::value_desc("name"), cl::cat(runCategory));
static cl::opt<std::string>
    evalName("eval",
             cl::desc("The evaluation function (default: the function with "
                      "a result of amp.role \"logits\", if any; 'none': "
                      "no evaluation)"),
             cl::value_desc("name"), cl::cat(runCategory));
static cl::opt<std::string>
    dataSpec("data",
             cl::desc("digits:<digits.csv[.gz]> or synthetic:<classes>"),
             cl::value_desc("kind:arg"), cl::cat(runCategory));
static cl::opt<unsigned long long>
    seed("seed",
         cl::desc("Seed of the initialization, split, shuffling and "
                  "synthetic data (default 0)"),
         cl::init(0), cl::cat(runCategory));
static cl::opt<std::string> initParams(
    "init-params",
    cl::desc("Initial values of the step's params: a file of raw "
             "little-endian f32, every param argument in argument order "
             "(what scripts/torch-to-amp.py --dump-params writes); default: "
             "Glorot-uniform weights, zero biases"),
    cl::value_desc("path"), cl::init(""), cl::cat(runCategory));
static cl::opt<double>
    initScale("init-scale",
              cl::desc("Initial loss scale, if the step has a loss_scale "
                       "argument (default 65536)"),
              cl::init(65536.0), cl::cat(runCategory));
static cl::opt<double>
    testFraction("test-fraction",
                 cl::desc("Fraction of the samples held out for the test "
                          "accuracy (default 0.2)"),
                 cl::init(0.2), cl::cat(runCategory));
static cl::opt<int> epochs("epochs",
                           cl::desc("Passes over the training set "
                                    "(default 1 unless --steps is given)"),
                           cl::init(0), cl::cat(runCategory));
static cl::opt<int> steps("steps", cl::desc("Number of steps to run"),
                          cl::init(0), cl::cat(runCategory));
static cl::opt<int>
    printEvery("print-every",
               cl::desc("Print step 1, every K-th step and the last one "
                        "(default 1: every step)"),
               cl::value_desc("K"), cl::init(1), cl::cat(runCategory));
static cl::opt<bool> quiet("quiet",
                           cl::desc("Print no header and no step lines"),
                           cl::cat(runCategory));
static cl::opt<int>
    syntheticSamples("synthetic-samples",
                     cl::desc("Samples of --data=synthetic (default 2048)"),
                     cl::init(2048), cl::cat(runCategory));
static cl::opt<unsigned> optLevel("opt-level",
                                  cl::desc("LLVM optimization level of the "
                                           "JIT (0-3, default 2)"),
                                  cl::init(2), cl::cat(runCategory));
static cl::list<std::string>
    sharedLibs("shared-libs",
               cl::desc("Extra libraries to resolve symbols from (the "
                        "MLIR C runner utilities are loaded when present)"),
               cl::CommaSeparated, cl::cat(runCategory));
static cl::opt<bool> lowerToRuntime(
    "lower-to-runtime",
    cl::desc("Run amp-lower-to-runtime right after bufferization: "
             "low-precision matmuls and convolutions call libamp_rt "
             "(docs/tensor-cores.md)"),
    cl::cat(runCategory));
static cl::opt<bool>
    fastPipeline("fast",
                 cl::desc("Lower with the fast pipeline, "
                          "amp-lower-to-llvm{fast=true}: fused elementwise "
                          "ops, every matmul and convolution (f32 too) in "
                          "libamp_rt, vectorized loops split over all cores "
                          "(docs/lowering.md); implies --lower-to-runtime "
                          "and --parallel"),
                 cl::cat(runCategory));
static cl::opt<bool> parallelLoops(
    "parallel",
    cl::desc("Lower with amp-lower-to-llvm{parallel=true}: the loops that "
             "stay outside libamp_rt run on all cores (OpenMP work-sharing "
             "loops on LLVM's libomp, which oneDNN then shares); --fast "
             "implies it"),
    cl::cat(runCategory));
static cl::opt<unsigned> loopThreads(
    "loop-threads",
    cl::desc("With --fast / --parallel: chunks per parallel loop (0, the "
             "default: this machine's hardware threads; 1: serial loops)"),
    cl::init(0), cl::cat(runCategory));
static cl::opt<bool> blockConvs(
    "block-convs",
    cl::desc("With --fast: NCHW convolution chains keep their activations in "
             "oneDNN's blocked layout (amp-lower-to-llvm{block-convs}; on by "
             "default, =false for the plain layout)"),
    cl::init(true), cl::cat(runCategory));
static cl::opt<mlir::amp::Bf16ConversionsOption> bf16Conversions(
    "bf16-conversions",
    cl::desc("How f32 -> bf16 roundings are compiled "
             "(amp-lower-to-llvm{bf16-conversions}): auto (the default: "
             "integer ops unless the CPU has AVX512_BF16), native (LLVM's, "
             "a __truncsfbf2 call per element without AVX512_BF16) or "
             "expand"),
    cl::init(mlir::amp::Bf16ConversionsOption::Auto), cl::cat(runCategory));
static cl::opt<mlir::amp::LowContractionsOption> lowContractions(
    "low-contractions",
    cl::desc("With --fast: how the f16 / bf16 inputs of matmuls and "
             "convolutions reach libamp_rt (amp-lower-to-llvm"
             "{low-contractions}): auto (the default: widened to f32 in the "
             "generated code where the CPU has no dot products in that type, "
             "except in training steps, and never with AMP_RT_BACKEND=cuda), "
             "library or widen"),
    cl::init(mlir::amp::LowContractionsOption::Auto), cl::cat(runCategory));
static cl::opt<cl::boolOrDefault> donateState(
    "donate-state",
    cl::desc("Let the training step write its new params and optimizer "
             "state over the old ones (amp-lower-to-llvm{donate-state=true}; "
             "default: on with --fast)"),
    cl::cat(runCategory));
static cl::opt<bool> carryRoundedParams(
    "carry-rounded-params",
    cl::desc("Keep each param's f16/bf16 rounding between steps, renewed by "
             "the step's update, instead of rounding every weight at the "
             "start of every step (amp-carry-rounded-params; numerically "
             "the same; default: on)"),
    cl::init(true), cl::cat(runCategory));
static cl::opt<std::string> runtimeLib(
    "runtime-lib",
    cl::desc("libamp_rt to load with --lower-to-runtime or --fast (default: "
             "the one of this build)"),
    cl::value_desc("path"), cl::cat(runCategory));
static cl::opt<int> benchSteps(
    "bench-steps",
    cl::desc("After training, time N more calls of the step on one batch "
             "(results discarded) and print their median and minimum; "
             "without --steps or --epochs, no training and no evaluation"),
    cl::value_desc("N"), cl::init(0), cl::cat(runCategory));
static cl::opt<std::string> benchAgainst(
    "bench-against",
    cl::desc("With --bench-steps (and no training): also compile this "
             "module's step (the same input and label) and alternate the "
             "timed calls of both steps, swapping their order every pair, "
             "then print the other step's times and the median speed ratio "
             "of the pairs: two programs compared in one process"),
    cl::value_desc("other.mlir"), cl::cat(runCategory));
static cl::opt<std::string>
    dumpObject("dump-object",
               cl::desc("Write the JIT-compiled object file to this path "
                        "(for objdump)"),
               cl::value_desc("path"), cl::cat(runCategory));
static cl::opt<bool>
    printPipeline("print-pipeline",
                  cl::desc("Print the lowering pipeline and exit"),
                  cl::cat(runCategory));
static cl::opt<bool>
    printLowered("print-lowered",
                 cl::desc("Print the module lowered to the LLVM dialect "
                          "and exit"),
                 cl::cat(runCategory));
static cl::opt<bool> printSignature(
    "print-signature",
    cl::desc("Print the training step's amp.role signature, one line per "
             "argument and result (`arg|result INDEX ROLE ELEM SHAPE "
             "TARGET`), and exit: what a driver of the object from "
             "--dump-object passes (bench/step_aot.cpp)"),
    cl::cat(runCategory));
static cl::opt<bool> timing("timing",
                            cl::desc("Print timings on stderr (not "
                                     "deterministic)"),
                            cl::cat(runCategory));
static cl::opt<bool>
    printState("print-state",
               cl::desc("Append to each step line a hash of the params and "
                        "one of the optimizer state after the step, and how "
                        "many of their elements are not finite"),
               cl::cat(runCategory));
static cl::list<int64_t>
    poisonSteps("poison-steps",
                cl::desc("Steps (1-based) whose input batch gets "
                         "--poison-value in its first element, to make "
                         "gradients overflow"),
                cl::value_desc("N,M,..."), cl::CommaSeparated,
                cl::cat(runCategory));
static cl::opt<double>
    poisonValue("poison-value",
                cl::desc("The value --poison-steps writes (default 1e30: "
                         "finite in f32, inf in f16)"),
                cl::init(1e30), cl::cat(runCategory));

//===----------------------------------------------------------------------===//
// The run
//===----------------------------------------------------------------------===//

/// Loads --data; checks it against the step's input and label.
static llvm::Expected<Dataset> loadData(const Signature &step) {
  if (dataSpec.empty())
    return makeError("no data: pass --data=digits:<path to digits.csv.gz> or "
                     "--data=synthetic:<classes>");
  auto [kind, arg] = StringRef(dataSpec).split(':');
  const TensorSpec &input = step.args[step.input].spec;
  const TensorSpec &label = step.args[step.label].spec;
  Dataset data;
  if (kind == "digits") {
    if (arg.empty())
      return makeError("--data=digits: needs a path, e.g. "
                       "--data=digits:/usr/lib/python3/dist-packages/sklearn/"
                       "datasets/data/digits.csv.gz");
    auto loaded = loadDigits(arg);
    if (!loaded)
      return loaded.takeError();
    data = std::move(*loaded);
  } else if (kind == "synthetic") {
    int64_t classes;
    if (arg.getAsInteger(10, classes) || classes < 2)
      return makeError("--data=synthetic:<classes> needs an integer >= 2, "
                       "got '" +
                       arg + "'");
    if (syntheticSamples < 1)
      return makeError("--synthetic-samples must be positive");
    data = makeSynthetic(classes, step.numFeatures(), syntheticSamples, seed);
  } else {
    return makeError("unknown data kind '" + kind +
                     "' in --data (expected digits:<path> or "
                     "synthetic:<classes>)");
  }
  if (data.numFeatures != step.numFeatures())
    return makeError(
        data.description + " has " + llvm::Twine(data.numFeatures) +
        " features per sample, but the input of @" + step.name + ", " +
        input.str() + ", takes " + llvm::Twine(step.numFeatures()));
  if (data.numClasses != label.shape[1])
    return makeError(data.description + " has " + llvm::Twine(data.numClasses) +
                     " classes, but the label of @" + step.name + ", " +
                     label.str() + ", has " + llvm::Twine(label.shape[1]));
  return data;
}

/// The flags of the lowering and the JIT.
static CompileOptions compileOptions() {
  CompileOptions options;
  options.runtime = lowerToRuntime || fastPipeline;
  options.fast = fastPipeline;
  options.parallel = parallelLoops;
  options.threads = loopThreads;
  options.blockConvs = blockConvs;
  options.bf16Conversions = bf16Conversions;
  // The GPU has the dot products: its 16-bit operands stay 16-bit.
  const char *backend = std::getenv("AMP_RT_BACKEND");
  options.lowContractions =
      lowContractions == mlir::amp::LowContractionsOption::Auto && backend &&
              llvm::StringRef(backend) == "cuda"
          ? mlir::amp::LowContractionsOption::Library
          : lowContractions.getValue();
  // The step updates its params and optimizer state in place: by default
  // with --fast.
  options.donateState = donateState == cl::BOU_UNSET
                            ? fastPipeline.getValue()
                            : donateState == cl::BOU_TRUE;
  options.optLevel = optLevel;
  options.sharedLibs.assign(sharedLibs.begin(), sharedLibs.end());
  options.runtimeLib = runtimeLib;
  options.dumpObject = dumpObject;
  options.timing = timing;
  return options;
}

/// The flags of the training loop.
static TrainOptions trainOptions() {
  TrainOptions options;
  options.steps = steps;
  options.epochs = epochs;
  options.benchSteps = benchSteps;
  options.printEvery = printEvery;
  options.quiet = quiet;
  options.printState = printState;
  options.timing = timing;
  options.seed = seed;
  options.initScale = initScale;
  options.initParams = initParams;
  options.poisonSteps.assign(poisonSteps.begin(), poisonSteps.end());
  options.poisonValue = poisonValue;
  return options;
}

static llvm::Error checkOptions() {
  if (epochs < 0 || steps < 0)
    return makeError("--epochs and --steps must not be negative");
  if (epochs > 0 && steps > 0)
    return makeError("give --epochs or --steps, not both");
  if (printEvery < 1)
    return makeError("--print-every must be at least 1");
  if (!(testFraction >= 0.0 && testFraction < 1.0))
    return makeError("--test-fraction must be in [0, 1)");
  if (optLevel > 3)
    return makeError("--opt-level must be 0, 1, 2 or 3");
  if (benchSteps < 0)
    return makeError("--bench-steps must not be negative");
  if (!benchAgainst.empty() && (benchSteps < 2 || steps > 0 || epochs > 0))
    return makeError("--bench-against needs --bench-steps of at least 2 and "
                     "no --steps or --epochs");
  return llvm::Error::success();
}

/// The training and test splits of the data set the step trains on.
static llvm::Error loadTrainingData(const Signature &step, Dataset &data,
                                    Split &split) {
  auto loaded = loadData(step);
  if (!loaded)
    return loaded.takeError();
  data = std::move(*loaded);
  split = splitDataset(data, testFraction, seed);
  if (static_cast<int64_t>(split.train.size()) < step.batchSize())
    return makeError("the training set has " + llvm::Twine(split.train.size()) +
                     " samples, fewer than one batch of " +
                     llvm::Twine(step.batchSize()));
  return llvm::Error::success();
}

/// Trains, evaluates and benchmarks with the compiled functions.
static llvm::Error train(const Roles &roles, CompiledFunctions &fns,
                         const Dataset &data, const Split &split,
                         double loweringMs, const Stopwatch &total) {
  TrainOptions trainFlags = trainOptions();
  Trainer trainer(roles.step, *fns.step, roles.eval ? &*roles.eval : nullptr,
                  fns.eval ? &*fns.eval : nullptr, data, split, trainFlags);
  if (auto err = trainer.prepare())
    return err;
  if (auto err = trainer.train())
    return err;
  if (auto err = trainer.evaluate())
    return err;
  trainer.benchmark();
  trainer.printSummary(loweringMs, fns.jitMs, total.ms());
  return llvm::Error::success();
}

/// --bench-against: compiles the other module's step like this one, then
/// alternates timed calls of both on the same batch (one untimed call of
/// each first), swapping which goes first every pair. On a machine whose
/// speed drifts between minutes, two runs cannot compare two programs; the
/// ratio of each pair can.
static llvm::Error benchAgainstOther(mlir::MLIRContext &context,
                                     const Roles &roles, CompiledFunctions &fns,
                                     const Dataset &data, const Split &split,
                                     const CompileOptions &compile,
                                     double loweringMs,
                                     const Stopwatch &total) {
  llvm::SourceMgr sourceMgr;
  mlir::SourceMgrDiagnosticHandler diagHandler(sourceMgr, &context);
  auto other =
      parseProgram(context, sourceMgr, benchAgainst, carryRoundedParams);
  if (!other)
    return other.takeError();
  auto otherRoles = findRoles(**other, stepName, evalName);
  if (!otherRoles)
    return otherRoles.takeError();
  const Signature &a = roles.step, &b = otherRoles->step;
  for (auto [role, i, j] : {std::tuple{"input", a.input, b.input},
                            std::tuple{"label", a.label, b.label}})
    if (a.args[i].spec.shape != b.args[j].spec.shape)
      return makeError(llvm::Twine("--bench-against: the ") + role + " of @" +
                       b.name + " in '" + benchAgainst + "', " +
                       b.args[j].spec.str() + ", is not shaped like that of @" +
                       a.name + ", " + a.args[i].spec.str());
  prepareForJit(otherRoles->stepFn, compile);
  if (auto err = lowerToLLVM(**other, compile))
    return err;
  otherRoles->evalFn = {};
  otherRoles->eval.reset();
  CompiledFunctions otherFns;
  if (auto err = jitFunctions(**other, *otherRoles, compile, otherFns))
    return err;

  TrainOptions flags = trainOptions();
  Trainer mine(a, *fns.step, nullptr, nullptr, data, split, flags);
  Trainer theirs(b, *otherFns.step, nullptr, nullptr, data, split, flags);
  if (auto err = mine.prepare())
    return err;
  if (!quiet)
    llvm::outs() << "against " << benchAgainst << ":\n";
  if (auto err = theirs.prepare())
    return err;
  mine.prepareBenchmark();
  theirs.prepareBenchmark();
  mine.timeBenchmarkCall();
  theirs.timeBenchmarkCall();
  std::vector<double> myMs, theirMs, ratios;
  for (int i = 0; i < benchSteps; ++i) {
    double t0, t1;
    if (i % 2) {
      t1 = theirs.timeBenchmarkCall();
      t0 = mine.timeBenchmarkCall();
    } else {
      t0 = mine.timeBenchmarkCall();
      t1 = theirs.timeBenchmarkCall();
    }
    myMs.push_back(t0);
    theirMs.push_back(t1);
    ratios.push_back(t1 / t0);
  }
  int64_t batch = a.batchSize();
  printStepTime("", myMs, batch);
  printStepTime("against: ", theirMs, batch);
  llvm::outs() << llvm::format(
      "speed against %s: median %.3fx (quartiles %.3f-%.3f) over %zu pairs\n",
      benchAgainst.c_str(), median(ratios), quantile(ratios, 0.25),
      quantile(ratios, 0.75), ratios.size());
  mine.printSummary(loweringMs, fns.jitMs, total.ms());
  llvm::outs() << "against: peak memory " << theirs.peakMemory() << " bytes\n";
  return llvm::Error::success();
}

static llvm::Error run() {
  Stopwatch total;
  if (auto err = checkOptions())
    return err;
  CompileOptions compile = compileOptions();

  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mlir::registerAllToLLVMIRTranslations(registry);
  mlir::MLIRContext context(registry);
  llvm::SourceMgr sourceMgr;
  mlir::SourceMgrDiagnosticHandler diagHandler(sourceMgr, &context);
  auto module =
      parseProgram(context, sourceMgr, inputFilename, carryRoundedParams);
  if (!module)
    return module.takeError();
  auto roles = findRoles(**module, stepName, evalName);
  if (!roles)
    return roles.takeError();

  if (printSignature) {
    writeSignature(roles->step, llvm::outs());
    return llvm::Error::success();
  }

  Dataset data;
  Split split;
  if (!printLowered)
    if (auto err = loadTrainingData(roles->step, data, split))
      return err;

  Stopwatch lowering;
  for (mlir::func::FuncOp fn : {roles->stepFn, roles->evalFn})
    if (fn)
      prepareForJit(fn, compile);
  if (auto err = lowerToLLVM(**module, compile))
    return err;
  double loweringMs = lowering.ms();
  if (printLowered) {
    (*module)->print(llvm::outs());
    llvm::outs() << "\n";
    return llvm::Error::success();
  }

  CompiledFunctions fns;
  if (auto err = jitFunctions(**module, *roles, compile, fns))
    return err;
  if (!benchAgainst.empty())
    return benchAgainstOther(context, *roles, fns, data, split, compile,
                             loweringMs, total);
  return train(*roles, fns, data, split, loweringMs, total);
}

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  // A step allocates and frees the same large buffers every call. By
  // default glibc maps each one afresh (and unmaps it on free), so every step
  // page-faults and zeroes all of its memory again: 30-60% of the MLP step's
  // time. Keep freed memory in the heap instead, as frameworks' caching
  // allocators do (32 MiB is the largest threshold glibc accepts).
#ifdef __GLIBC__
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, std::numeric_limits<int>::max());
#endif
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  mlir::registerAllPasses();
  mlir::amp::registerAMPPasses();
  mlir::amp::registerAMPConversionPasses(); // amp-lower-to-runtime
  cl::HideUnrelatedOptions(runCategory);
  cl::ParseCommandLineOptions(
      argc, argv,
      "amp-run: JIT-compile a training step (amp.role ABI, "
      "docs/training-step.md) and train with it on the CPU\n");
  if (printPipeline) {
    mlir::MLIRContext context;
    mlir::PassManager pm(&context, mlir::ModuleOp::getOperationName(),
                         mlir::OpPassManager::Nesting::Implicit);
    buildLoweringPipeline(pm, compileOptions());
    pm.printAsTextualPipeline(llvm::outs());
    llvm::outs() << "\n";
    return 0;
  }
  if (llvm::Error err = run()) {
    llvm::outs().flush();
    llvm::handleAllErrors(std::move(err), [](const llvm::ErrorInfoBase &e) {
      llvm::errs() << "amp-run: error: " << e.message() << "\n";
    });
    return 1;
  }
  return 0;
}
