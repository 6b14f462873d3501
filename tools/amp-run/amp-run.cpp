//===- amp-run.cpp - JIT-compile a training step and train with it --------===//
//
// Reads a module of upstream ops on tensors (what `amp-opt --amp` produces),
// finds the training step and the evaluation function by their `amp.role`
// attributes (docs/training-step.md), lowers the module in-process with the
// amp-lower-to-llvm pipeline (buildAmpLowerToLLVMPipeline, which
// scripts/lower-to-llvm.sh runs through amp-opt), JIT-compiles it with
// MLIR's ExecutionEngine and trains on a data set on the CPU. See
// docs/amp-run.md.
//
//===----------------------------------------------------------------------===//

#include "Dataset.h"
#include "Signature.h"
#include "TrackedAlloc.h"

#include "amp/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/OpenMP/OpenMPDialect.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
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
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <dlfcn.h>
#include <limits>
#include <memory>
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
static cl::opt<cl::boolOrDefault> donateState(
    "donate-state",
    cl::desc("Let the training step write its new params and optimizer "
             "state over the old ones (amp-lower-to-llvm{donate-state=true}; "
             "default: on with --fast)"),
    cl::cat(runCategory));
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
// Helpers
//===----------------------------------------------------------------------===//

static llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

namespace {
/// A buffer of amp-run holding one argument, with its memref descriptor
/// (allocated, aligned, offset, sizes..., strides...).
class HostTensor {
public:
  explicit HostTensor(const TensorSpec &spec) : spec(spec) {
    size_t bytes = std::max<int64_t>(64, (spec.numBytes() + 63) / 64 * 64);
    storage.reset(static_cast<char *>(std::aligned_alloc(64, bytes)));
    if (!storage) {
      llvm::errs() << "amp-run: error: out of memory\n";
      std::exit(1);
    }
    std::memset(storage.get(), 0, bytes);
    auto ptr = static_cast<int64_t>(reinterpret_cast<intptr_t>(storage.get()));
    desc = {ptr, ptr, 0};
    desc.append(spec.shape.begin(), spec.shape.end());
    llvm::SmallVector<int64_t, 4> strides(spec.shape.size());
    int64_t stride = 1;
    for (int64_t i = static_cast<int64_t>(spec.shape.size()) - 1; i >= 0; --i) {
      strides[i] = stride;
      stride *= spec.shape[i];
    }
    desc.append(strides.begin(), strides.end());
  }

  float *f32() { return reinterpret_cast<float *>(storage.get()); }
  int32_t *i32() { return reinterpret_cast<int32_t *>(storage.get()); }
  char *bytes() { return storage.get(); }
  /// What the `_mlir_ciface_` function takes for a memref argument.
  void *descriptor() { return desc.data(); }

  TensorSpec spec;

private:
  struct FreeDeleter {
    void operator()(char *p) const { std::free(p); }
  };
  std::unique_ptr<char, FreeDeleter> storage;
  llvm::SmallVector<int64_t, 11> desc;
};

/// A view of one result descriptor inside the result struct the callee
/// filled.
struct ResultView {
  const int64_t *words;
  int64_t rank;

  void *allocated() const {
    return reinterpret_cast<void *>(static_cast<intptr_t>(words[0]));
  }
  const char *aligned() const {
    return reinterpret_cast<const char *>(static_cast<intptr_t>(words[1]));
  }
  int64_t offset() const { return words[2]; }
  llvm::ArrayRef<int64_t> sizes() const { return {words + 3, size_t(rank)}; }
  llvm::ArrayRef<int64_t> strides() const {
    return {words + 3 + rank, size_t(rank)};
  }
};

/// A JIT-compiled function with the C interface, called with memref
/// descriptors: `_mlir_ciface_NAME(results *, args *...)`.
class JitFunction {
public:
  JitFunction(const Signature &sig, void (*packed)(void **))
      : sig(sig), packed(packed) {
    for (const RoleValue &r : sig.results) {
      offsets.push_back(totalWords);
      totalWords += r.spec.descriptorWords();
    }
    resultWords.assign(totalWords, 0);
  }

  /// Calls the function; `args` are in the order of its arguments.
  void call(llvm::ArrayRef<HostTensor *> args) {
    std::fill(resultWords.begin(), resultWords.end(), 0);
    llvm::SmallVector<void *, 16> descriptors;
    for (HostTensor *t : args)
      descriptors.push_back(t->descriptor());
    void *resultPtr = resultWords.data();
    // The packed wrapper reads argument i from *packedArgs[i]: first the
    // pointer to the result struct, then one descriptor pointer per memref.
    llvm::SmallVector<void *, 17> packedArgs;
    packedArgs.push_back(&resultPtr);
    for (void *&d : descriptors)
      packedArgs.push_back(&d);
    packed(packedArgs.data());
  }

  ResultView result(size_t i) const {
    return {resultWords.data() + offsets[i],
            static_cast<int64_t>(sig.results[i].spec.shape.size())};
  }

  /// Checks that result `i` has the declared shape.
  llvm::Error checkResult(size_t i) const {
    ResultView v = result(i);
    const TensorSpec &spec = sig.results[i].spec;
    if (!llvm::equal(v.sizes(), spec.shape))
      return makeError("@" + sig.name + " returned result " + llvm::Twine(i) +
                       " with sizes [" +
                       llvm::join(llvm::map_range(v.sizes(),
                                                  [](int64_t s) {
                                                    return std::to_string(s);
                                                  }),
                                  ", ") +
                       "], expected " + spec.str());
    if (!v.aligned() && spec.numElements() > 0)
      return makeError("@" + sig.name + " returned a null buffer as result " +
                       llvm::Twine(i));
    return llvm::Error::success();
  }

  /// Copies result `i` into the contiguous buffer `dst`.
  void copyResult(size_t i, char *dst) const {
    ResultView v = result(i);
    const TensorSpec &spec = sig.results[i].spec;
    int64_t elemBytes = spec.elemBytes();
    const char *base = v.aligned() + v.offset() * elemBytes;
    int64_t n = spec.numElements();
    bool contiguous = true;
    int64_t expected = 1;
    for (int64_t d = v.rank - 1; d >= 0; --d) {
      if (v.sizes()[d] != 1 && v.strides()[d] != expected)
        contiguous = false;
      expected *= v.sizes()[d];
    }
    // A donated argument's buffer, updated in place, is its own result.
    if (base == dst)
      return;
    if (contiguous) {
      std::memcpy(dst, base, n * elemBytes);
      return;
    }
    llvm::SmallVector<int64_t, 4> index(v.rank, 0);
    for (int64_t k = 0; k < n; ++k) {
      int64_t off = 0;
      for (int64_t d = 0; d < v.rank; ++d)
        off += index[d] * v.strides()[d];
      std::memcpy(dst + k * elemBytes, base + off * elemBytes, elemBytes);
      for (int64_t d = v.rank - 1; d >= 0; --d) {
        if (++index[d] < v.sizes()[d])
          break;
        index[d] = 0;
      }
    }
  }

  /// Frees the result buffers that the callee allocated (each once).
  void freeResults() {
    llvm::SmallDenseSet<void *, 8> freed;
    for (size_t i = 0, e = sig.results.size(); i < e; ++i) {
      void *p = result(i).allocated();
      if (p && isTrackedAllocation(p) && freed.insert(p).second)
        freeTrackedAllocation(p);
    }
  }

  const Signature &sig;

private:
  void (*packed)(void **);
  llvm::SmallVector<int64_t, 8> offsets;
  int64_t totalWords = 0;
  std::vector<int64_t> resultWords;
};

/// Wall-clock stopwatch for --timing.
struct Stopwatch {
  std::chrono::steady_clock::time_point start =
      std::chrono::steady_clock::now();
  double ms() const {
    return std::chrono::duration<double, std::milli>(
               std::chrono::steady_clock::now() - start)
        .count();
  }
};
} // namespace

/// Glorot-uniform for rank >= 2 (fan in / out as Keras: the last two dims
/// times the receptive field), zeros for biases and scalars.
static void initParam(HostTensor &t, Rng &rng) {
  const auto &shape = t.spec.shape;
  int64_t n = t.spec.numElements();
  if (shape.size() < 2) {
    std::fill(t.f32(), t.f32() + n, 0.0f);
    return;
  }
  int64_t receptive = 1;
  for (size_t d = 0; d + 2 < shape.size(); ++d)
    receptive *= shape[d];
  double fanIn = static_cast<double>(shape[shape.size() - 2] * receptive);
  double fanOut = static_cast<double>(shape[shape.size() - 1] * receptive);
  double limit = std::sqrt(6.0 / (fanIn + fanOut));
  for (int64_t i = 0; i < n; ++i)
    t.f32()[i] = static_cast<float>(rng.uniform(-limit, limit));
}

/// The integral loss scales as integers, the others with %g.
static std::string formatScale(double s) {
  char buf[64];
  if (std::isfinite(s) && s == std::floor(s) && std::fabs(s) < 1e15)
    std::snprintf(buf, sizeof(buf), "%.0f", s);
  else
    std::snprintf(buf, sizeof(buf), "%.7g", s);
  return buf;
}

/// Fills a batch: rows `rows[begin..begin+batch)` of `data` (zeros past the
/// end), and their one-hot labels if `label` is given.
/// 64-bit FNV-1a over the bytes of `tensors`: equal hashes before and after
/// a skipped step show the state was left bit-identical.
static uint64_t hashBytes(llvm::ArrayRef<HostTensor *> tensors) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (HostTensor *t : tensors) {
    const auto *p = reinterpret_cast<const unsigned char *>(t->bytes());
    for (int64_t i = 0, e = t->spec.numBytes(); i < e; ++i)
      h = (h ^ p[i]) * 0x100000001b3ull;
  }
  return h;
}

static int64_t countNonFinite(llvm::ArrayRef<HostTensor *> tensors) {
  int64_t n = 0;
  for (HostTensor *t : tensors) {
    if (t->spec.elem != ElemKind::F32)
      continue;
    const float *v = t->f32();
    for (int64_t i = 0, e = t->spec.numElements(); i < e; ++i)
      n += !std::isfinite(v[i]);
  }
  return n;
}

static void fillBatch(const Dataset &data, llvm::ArrayRef<int64_t> rows,
                      int64_t begin, HostTensor &input, HostTensor *label) {
  int64_t batch = input.spec.shape[0];
  int64_t f = data.numFeatures;
  std::memset(input.bytes(), 0, input.spec.numBytes());
  if (label)
    std::memset(label->bytes(), 0, label->spec.numBytes());
  for (int64_t r = 0; r < batch; ++r) {
    int64_t k = begin + r;
    if (k >= static_cast<int64_t>(rows.size()))
      break;
    int64_t row = rows[k];
    std::memcpy(input.f32() + r * f, data.features.data() + row * f,
                f * sizeof(float));
    if (label)
      label->f32()[r * data.numClasses + data.labels[row]] = 1.0f;
  }
}

//===----------------------------------------------------------------------===//
// The run
//===----------------------------------------------------------------------===//

static llvm::Expected<mlir::func::FuncOp>
selectFunction(mlir::ModuleOp module, StringRef name, StringRef role,
               StringRef flag, bool required) {
  if (!name.empty()) {
    auto fn = module.lookupSymbol<mlir::func::FuncOp>(name);
    if (!fn)
      return makeError("no function @" + name + " (from --" + flag +
                       ") in the module");
    return fn;
  }
  llvm::SmallVector<mlir::func::FuncOp> candidates;
  for (auto fn : module.getOps<mlir::func::FuncOp>())
    if (hasResultRole(fn, role))
      candidates.push_back(fn);
  if (candidates.size() > 1) {
    std::string names;
    for (auto fn : candidates)
      names += " @" + fn.getSymName().str();
    return makeError("several functions have a result of amp.role \"" + role +
                     "\":" + names + "; choose one with --" + flag + "=NAME");
  }
  if (candidates.empty()) {
    if (required)
      return makeError("no function has a result of amp.role \"" + role +
                       "\"; annotate the training step (docs/training-step.md) "
                       "or name it with --" +
                       flag + "=NAME");
    return mlir::func::FuncOp();
  }
  return candidates.front();
}

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

/// Whether the lowered code calls libamp_rt.
static bool usesRuntime() { return lowerToRuntime || fastPipeline; }

/// Whether the step updates its params and optimizer state in place.
static bool donatesState() {
  if (donateState == cl::BOU_UNSET)
    return fastPipeline;
  return donateState == cl::BOU_TRUE;
}

/// Adds amp-lower-to-llvm with the options of the flags to `pm`:
/// {runtime=true} under --lower-to-runtime, {fast=true} under --fast.
/// scripts/lower-to-llvm.sh runs the same builder through amp-opt.
static void buildLoweringPipeline(mlir::OpPassManager &pm) {
  mlir::amp::AmpLowerToLLVMOptions options;
  options.runtime = usesRuntime();
  options.fast = fastPipeline;
  options.parallel = parallelLoops;
  options.threads = loopThreads;
  options.donateState = donatesState();
  mlir::amp::buildAmpLowerToLLVMPipeline(pm, options);
}

/// The libamp_rt that --lower-to-runtime and --fast load.
static std::string getRuntimeLib() {
  if (!runtimeLib.empty())
    return runtimeLib;
#ifdef AMP_RUN_RUNTIME_LIB
  return AMP_RUN_RUNTIME_LIB;
#else
  return "libamp_rt.so";
#endif
}

/// Lowers `module` to the LLVM dialect with buildLoweringPipeline().
static llvm::Error lower(mlir::ModuleOp module) {
  mlir::PassManager pm(module.getContext(), mlir::ModuleOp::getOperationName(),
                       mlir::OpPassManager::Nesting::Implicit);
  buildLoweringPipeline(pm);
  if (failed(pm.run(module)))
    return makeError("lowering to the LLVM dialect failed (the pipeline of "
                     "scripts/lower-to-llvm.sh; see the diagnostics above)");
  mlir::Operation *stray = nullptr;
  module.walk([&](mlir::Operation *op) {
    // OpenMP ops (--parallel) translate to LLVM IR as they are.
    if (op != module &&
        !llvm::isa<mlir::LLVM::LLVMDialect, mlir::omp::OpenMPDialect>(
            op->getDialect()))
      if (!stray)
        stray = op;
  });
  if (stray)
    return makeError("lowering left '" + stray->getName().getStringRef() +
                     "' in the module; amp-run lowers func, arith, math, "
                     "tensor, linalg and scf ops on static shapes");
  return llvm::Error::success();
}

static constexpr StringRef kCiface = "_mlir_ciface_";

/// Prints what the runtime says about its CPU kernels, if it says anything:
/// `const char *amp_rt_cpu_kernels(void)`, looked up in the already loaded
/// library so that a runtime without it still works.
static void printRuntimeKernels(const std::string &path) {
  void *handle = dlopen(path.c_str(), RTLD_LAZY | RTLD_NOLOAD);
  if (!handle)
    return;
  using KernelsFn = const char *(*)();
  auto kernels =
      reinterpret_cast<KernelsFn>(dlsym(handle, "amp_rt_cpu_kernels"));
  if (kernels)
    if (const char *text = kernels())
      llvm::errs() << "amp-run: runtime kernels: " << text << "\n";
  dlclose(handle);
}

/// CPU time of the calling thread, in ms.
static double threadCpuMs() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return 1e3 * static_cast<double>(ts.tv_sec) + 1e-6 * ts.tv_nsec;
}

/// --bench-steps: one untimed call of the step on the first training batch,
/// then N timed calls with the same arguments (the results are freed, never
/// applied; a donated state is updated in place, as in training), so that
/// every call does the same work. Returns the peak memory
/// of one call, measured as the training loop does.
static int64_t benchmarkStep(JitFunction &stepCall,
                             llvm::ArrayRef<HostTensor *> stepArgs,
                             const Dataset &data, llvm::ArrayRef<int64_t> rows,
                             HostTensor &input, HostTensor &label) {
  fillBatch(data, rows, 0, input, &label);
  std::vector<double> ms, cpuMs;
  int64_t peakBytes = 0;
  for (int i = 0; i <= benchSteps; ++i) {
    AllocStats before = allocStats();
    resetPeak();
    Stopwatch watch;
    double cpu = threadCpuMs();
    stepCall.call(stepArgs);
    double t = watch.ms();
    cpu = threadCpuMs() - cpu;
    peakBytes = std::max(peakBytes, allocStats().peakBytes - before.liveBytes);
    stepCall.freeResults();
    if (i > 0) {
      ms.push_back(t);
      cpuMs.push_back(cpu);
    }
  }
  auto median = [](std::vector<double> &v) {
    std::sort(v.begin(), v.end());
    size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
  };
  double wall = median(ms), cpu = median(cpuMs);
  double batch = static_cast<double>(input.spec.shape[0]);
  llvm::outs() << llvm::format(
      "step time: median %.3f ms, min %.3f ms over %zu steps; %.1f "
      "samples/s\n",
      wall, ms.front(), ms.size(), 1000.0 * batch / wall);
  // The calling thread's CPU time: what the compiled loops cost without the
  // time other processes took the core away (the runtime's worker threads
  // are not counted).
  if (timing)
    llvm::errs() << llvm::format(
        "amp-run: step cpu time of the calling thread: median %.3f ms, min "
        "%.3f ms\n",
        cpu, cpuMs.front());
  return peakBytes;
}

static llvm::Error run() {
  Stopwatch total;
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

  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mlir::registerAllToLLVMIRTranslations(registry);
  mlir::MLIRContext context(registry);

  std::string errorMessage;
  auto file = mlir::openInputFile(inputFilename, &errorMessage);
  if (!file)
    return makeError("cannot open '" + inputFilename + "': " + errorMessage);
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  mlir::SourceMgrDiagnosticHandler diagHandler(sourceMgr, &context);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceFile<mlir::ModuleOp>(sourceMgr, &context);
  if (!module)
    return makeError("cannot parse '" + inputFilename +
                     "' (see the diagnostics above; amp dialect markers must "
                     "be lowered first, e.g. by amp-opt --amp)");

  // Roles.
  auto stepFn = selectFunction(*module, stepName, "loss", "step", true);
  if (!stepFn)
    return stepFn.takeError();
  auto step = analyzeStep(*stepFn);
  if (!step)
    return step.takeError();
  mlir::func::FuncOp evalFn;
  std::optional<Signature> eval;
  if (evalName != "none") {
    auto fn = selectFunction(*module, evalName, "logits", "eval", false);
    if (!fn)
      return fn.takeError();
    evalFn = *fn;
    if (evalFn == *stepFn)
      return makeError("the step and the eval function are both @" +
                       step->name);
    if (evalFn) {
      auto sig = analyzeEval(evalFn, *step);
      if (!sig)
        return sig.takeError();
      eval = std::move(*sig);
    }
  }

  // Data.
  Dataset data;
  Split split;
  if (!printLowered) {
    auto loaded = loadData(*step);
    if (!loaded)
      return loaded.takeError();
    data = std::move(*loaded);
    split = splitDataset(data, testFraction, seed);
    if (static_cast<int64_t>(split.train.size()) < step->batchSize())
      return makeError("the training set has " +
                       llvm::Twine(split.train.size()) +
                       " samples, fewer than one batch of " +
                       llvm::Twine(step->batchSize()));
  }

  // Lower and JIT-compile.
  Stopwatch lowering;
  for (mlir::func::FuncOp fn : {*stepFn, evalFn}) {
    if (!fn)
      continue;
    fn.setPublic();
    fn->setAttr("llvm.emit_c_interface", mlir::UnitAttr::get(&context));
    // The roles are read; keep them out of the LLVM IR. amp.updates stays
    // for amp-update-state-in-place under --donate-state.
    for (unsigned i = 0, e = fn.getNumArguments(); i < e; ++i)
      fn.removeArgAttr(i, "amp.role");
    for (unsigned i = 0, e = fn.getNumResults(); i < e; ++i) {
      fn.removeResultAttr(i, mlir::StringAttr::get(&context, "amp.role"));
      if (!donatesState())
        fn.removeResultAttr(i, mlir::StringAttr::get(&context, "amp.updates"));
    }
  }
  if (auto err = lower(*module))
    return err;
  double loweringMs = lowering.ms();
  if (printLowered) {
    module->print(llvm::outs());
    llvm::outs() << "\n";
    return llvm::Error::success();
  }

  Stopwatch jitting;
  auto tmBuilder = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!tmBuilder)
    return tmBuilder.takeError();
  auto tm = tmBuilder->createTargetMachine();
  if (!tm)
    return tm.takeError();
  auto transformer =
      mlir::makeOptimizingTransformer(optLevel, /*sizeLevel=*/0, tm->get());
  llvm::SmallVector<std::string> libs;
#ifdef AMP_RUN_MLIR_LIB_DIR
  // --parallel's loops call LLVM's OpenMP runtime (__kmpc_fork_call). It is
  // loaded first and globally, so that oneDNN's GNU OpenMP calls (GOMP_*,
  // which libomp also implements) bind to it too: one thread team serves
  // both, instead of two teams spinning on the same cores.
  if (parallelLoops || fastPipeline)
    libs.push_back(AMP_RUN_MLIR_LIB_DIR "/libomp.so");
#endif
  libs.append(sharedLibs.begin(), sharedLibs.end());
#ifdef AMP_RUN_MLIR_LIB_DIR
  // memrefCopy (copies of strided memrefs) and the f16/bf16 conversions
  // that some CPUs and compiler runtimes lack.
  for (StringRef lib :
       {"libmlir_c_runner_utils.so", "libmlir_float16_utils.so"})
    if (llvm::sys::fs::exists(AMP_RUN_MLIR_LIB_DIR "/" + lib.str()))
      libs.push_back(AMP_RUN_MLIR_LIB_DIR "/" + lib.str());
#endif
  std::string rt;
  if (usesRuntime()) {
    rt = getRuntimeLib();
    if (!llvm::sys::fs::exists(rt))
      return makeError("runtime library '" + rt +
                       "' not found (build libamp_rt, or pass "
                       "--runtime-lib=PATH)");
    libs.push_back(rt);
    // OpenBLAS (under libamp_rt's CPU backend) reads OPENBLAS_CORETYPE once,
    // when it is loaded, and then uses that core's kernels instead of the
    // ones it detects: an inherited OPENBLAS_CORETYPE=Haswell halves sgemm
    // on Zen 5. The JIT loads libamp_rt below; drop the variable first.
    unsetenv("OPENBLAS_CORETYPE");
  }
  for (const std::string &lib : libs)
    if (!llvm::sys::fs::exists(lib))
      return makeError("shared library '" + lib + "' not found");
  llvm::SmallVector<StringRef> libRefs(libs.begin(), libs.end());
  mlir::ExecutionEngineOptions options;
  options.transformer = transformer;
  options.jitCodeGenOptLevel =
      static_cast<llvm::CodeGenOptLevel>(optLevel.getValue());
  options.sharedLibPaths = libRefs;
  options.enableGDBNotificationListener = false;
  // perf(1) symbols for the JIT-compiled code: `perf record -k 1`, then
  // `perf inject --jit` (LLVM's PerfJITEventListener writes jit-PID.dump).
  options.enablePerfNotificationListener = getenv("AMP_RUN_PERF") != nullptr;
  options.enableObjectDump = !dumpObject.empty();
  auto engine = mlir::ExecutionEngine::create(*module, options, std::move(*tm));
  if (!engine)
    return engine.takeError();
  if (timing && !rt.empty())
    printRuntimeKernels(rt);
  registerTrackedAllocator(**engine);
  (*engine)->initialize();
  auto stepPacked = (*engine)->lookupPacked((kCiface + step->name).str());
  if (!stepPacked)
    return makeError("cannot JIT-compile @" + step->name + ": " +
                     llvm::toString(stepPacked.takeError()));
  JitFunction stepCall(*step, *stepPacked);
  std::optional<JitFunction> evalCall;
  if (eval) {
    auto packed = (*engine)->lookupPacked((kCiface + eval->name).str());
    if (!packed)
      return makeError("cannot JIT-compile @" + eval->name + ": " +
                       llvm::toString(packed.takeError()));
    evalCall.emplace(*eval, *packed);
  }
  double jitMs = jitting.ms();
  if (!dumpObject.empty())
    (*engine)->dumpToObjectFile(dumpObject);

  // State.
  std::vector<std::unique_ptr<HostTensor>> state;
  Rng initRng(mixSeed(seed, /*stream=*/2));
  for (const RoleValue &arg : step->args) {
    state.push_back(std::make_unique<HostTensor>(arg.spec));
    HostTensor &t = *state.back();
    switch (arg.role) {
    case Role::Param:
      initParam(t, initRng);
      break;
    case Role::LossScale:
      t.f32()[0] = static_cast<float>(initScale);
      break;
    default: // inputs and labels are filled per step; the rest is zeros
      break;
    }
  }
  llvm::SmallVector<HostTensor *, 16> stepArgs;
  for (auto &t : state)
    stepArgs.push_back(t.get());
  HostTensor &input = *state[step->input];
  HostTensor &label = *state[step->label];

  int64_t batch = step->batchSize();
  int64_t stepsPerEpoch = static_cast<int64_t>(split.train.size()) / batch;
  // --bench-steps alone: no training, only the timed steps.
  bool benchOnly = benchSteps > 0 && steps == 0 && epochs == 0;
  int64_t totalSteps = steps > 0   ? static_cast<int64_t>(steps)
                       : benchOnly ? 0
                                   : stepsPerEpoch * std::max(1, +epochs);
  if (!quiet) {
    llvm::outs() << "step function @" << step->name << ": " << step->args.size()
                 << " arguments, " << step->results.size()
                 << " results; eval function "
                 << (eval ? "@" + eval->name : std::string("none")) << "\n";
    llvm::outs() << "data " << data.description << ": " << data.size()
                 << " samples, " << split.train.size() << " train / "
                 << split.test.size() << " test; batch " << batch << ", "
                 << stepsPerEpoch << " steps per epoch, " << totalSteps
                 << " steps\n";
  }

  for (int64_t p : poisonSteps)
    if (p < 1 || p > totalSteps)
      return makeError("--poison-steps: step " + llvm::Twine(p) +
                       " is not in 1.." + llvm::Twine(totalSteps));
  llvm::SmallDenseSet<int64_t, 8> poisoned(poisonSteps.begin(),
                                           poisonSteps.end());
  llvm::SmallVector<HostTensor *, 8> paramTensors, optTensors;
  for (size_t i = 0; i < step->args.size(); ++i) {
    if (step->args[i].role == Role::Param)
      paramTensors.push_back(state[i].get());
    else if (step->args[i].role == Role::OptState)
      optTensors.push_back(state[i].get());
  }
  int64_t gradElements = 0;
  for (int64_t r : step->grads)
    gradElements += step->results[r].spec.numElements();
  std::vector<float> gradBuffer;
  double zeroShareSum = 0;
  int64_t zeroShareSteps = 0;

  // Train.
  Stopwatch training;
  std::vector<int64_t> order = split.train;
  int64_t epoch = -1;
  int64_t peakBytes = 0, leakedBytes = 0, leakedBuffers = 0, skipped = 0;
  for (int64_t s = 0; s < totalSteps; ++s) {
    int64_t inEpoch = s % stepsPerEpoch;
    if (inEpoch == 0) {
      ++epoch;
      order = split.train;
      Rng shuffleRng(mixSeed(seed, 100 + static_cast<uint64_t>(epoch)));
      shuffle(order, shuffleRng);
    }
    fillBatch(data, order, inEpoch * batch, input, &label);
    if (poisoned.contains(s + 1))
      input.f32()[0] = static_cast<float>(poisonValue);
    double scale =
        step->lossScaleArg >= 0 ? state[step->lossScaleArg]->f32()[0] : 0.0;

    AllocStats before = allocStats();
    resetPeak();
    stepCall.call(stepArgs);
    AllocStats after = allocStats();
    peakBytes = std::max(peakBytes, after.peakBytes - before.liveBytes);

    for (size_t i = 0; i < step->results.size(); ++i)
      if (auto err = stepCall.checkResult(i))
        return err;
    float loss;
    stepCall.copyResult(step->loss, reinterpret_cast<char *>(&loss));
    bool ok = true;
    if (step->stepOk >= 0) {
      char flag;
      stepCall.copyResult(step->stepOk, &flag);
      ok = (flag & 1) != 0;
      skipped += ok ? 0 : 1;
    }
    // The gradients the step returns: the share of exact zeros (f16
    // underflow flushes them) and of non-finite elements (overflow).
    int64_t zeroGrads = 0, nonFiniteGrads = 0;
    for (int64_t r : step->grads) {
      gradBuffer.resize(step->results[r].spec.numElements());
      stepCall.copyResult(r, reinterpret_cast<char *>(gradBuffer.data()));
      for (float g : gradBuffer) {
        zeroGrads += g == 0.0f;
        nonFiniteGrads += !std::isfinite(g);
      }
    }
    double zeroShare =
        gradElements ? static_cast<double>(zeroGrads) / gradElements : 0.0;
    if (gradElements && ok) {
      zeroShareSum += zeroShare;
      ++zeroShareSteps;
    }
    for (size_t i = 0; i < step->results.size(); ++i)
      if (step->results[i].target >= 0)
        stepCall.copyResult(i, state[step->results[i].target]->bytes());
    stepCall.freeResults();
    AllocStats end = allocStats();
    if (end.liveBytes > before.liveBytes) {
      leakedBytes += end.liveBytes - before.liveBytes;
      leakedBuffers += end.liveBuffers - before.liveBuffers;
    }

    int64_t n = s + 1;
    if (!quiet && (n == 1 || n % printEvery == 0 || n == totalSteps)) {
      llvm::outs() << "step " << n << " loss " << llvm::format("%.5f", loss);
      if (step->lossScaleArg >= 0)
        llvm::outs() << " scale " << formatScale(scale);
      if (step->stepOk >= 0)
        llvm::outs() << " skipped " << (ok ? "no" : "yes");
      if (gradElements)
        llvm::outs() << " zero-grads " << llvm::format("%.4f", zeroShare)
                     << " nonfinite-grads " << nonFiniteGrads;
      if (printState)
        llvm::outs() << " params "
                     << llvm::format_hex_no_prefix(hashBytes(paramTensors), 16)
                     << " opt "
                     << llvm::format_hex_no_prefix(hashBytes(optTensors), 16)
                     << " nonfinite-state "
                     << countNonFinite(paramTensors) +
                            countNonFinite(optTensors);
      llvm::outs() << "\n";
    }
  }
  double trainMs = training.ms();
  if (step->lossScaleArg >= 0 && !quiet)
    llvm::outs() << "final scale "
                 << formatScale(state[step->lossScaleArg]->f32()[0]) << "\n";
  if (step->stepOk >= 0 && !quiet)
    llvm::outs() << "skipped steps " << skipped << "\n";
  if (gradElements && !quiet)
    llvm::outs() << "zero gradient share "
                 << llvm::format("%.4f", zeroShareSteps
                                             ? zeroShareSum / zeroShareSteps
                                             : 0.0)
                 << " (mean over " << zeroShareSteps << " applied steps)\n";

  // Evaluate.
  Stopwatch evaluating;
  if (eval && !split.test.empty() && !benchOnly) {
    HostTensor evalInput(eval->args[eval->input].spec);
    llvm::SmallVector<HostTensor *, 16> evalArgs;
    for (size_t i = 0, k = 0; i < eval->args.size(); ++i)
      evalArgs.push_back(eval->args[i].role == Role::Input
                             ? &evalInput
                             : state[step->params[k++]].get());
    int64_t evalBatch = eval->args[eval->input].spec.shape[0];
    int64_t classes = data.numClasses;
    std::vector<float> logits(evalBatch * classes);
    int64_t correct = 0;
    int64_t numTest = static_cast<int64_t>(split.test.size());
    for (int64_t begin = 0; begin < numTest; begin += evalBatch) {
      fillBatch(data, split.test, begin, evalInput, nullptr);
      AllocStats before = allocStats();
      evalCall->call(evalArgs);
      if (auto err = evalCall->checkResult(0))
        return err;
      evalCall->copyResult(0, reinterpret_cast<char *>(logits.data()));
      evalCall->freeResults();
      AllocStats end = allocStats();
      if (end.liveBytes > before.liveBytes) {
        leakedBytes += end.liveBytes - before.liveBytes;
        leakedBuffers += end.liveBuffers - before.liveBuffers;
      }
      for (int64_t r = 0; r < evalBatch && begin + r < numTest; ++r) {
        const float *row = logits.data() + r * classes;
        int64_t best = 0;
        for (int64_t c = 1; c < classes; ++c)
          if (row[c] > row[best])
            best = c;
        correct += best == data.labels[split.test[begin + r]];
      }
    }
    llvm::outs() << "test accuracy "
                 << llvm::format("%.4f", static_cast<double>(correct) /
                                             static_cast<double>(numTest))
                 << "\n";
  }
  double evalMs = evaluating.ms();

  if (benchSteps > 0)
    peakBytes = std::max(peakBytes, benchmarkStep(stepCall, stepArgs, data,
                                                  split.train, input, label));

  llvm::outs() << "peak memory " << peakBytes << " bytes\n";
  llvm::outs().flush();
  AllocStats finalStats = allocStats();
  if (leakedBytes > 0)
    llvm::errs() << "amp-run: warning: the compiled code leaked " << leakedBytes
                 << " bytes in " << leakedBuffers << " buffers\n";
  if (finalStats.foreignFrees > 0)
    llvm::errs() << "amp-run: warning: the compiled code freed "
                 << finalStats.foreignFrees
                 << " buffers it did not allocate (not freed)\n";
  if (timing)
    llvm::errs() << llvm::format(
        "amp-run: time: lowering %.1f ms, JIT %.1f ms, training %.1f ms "
        "(%.1f us/step), eval %.1f ms, total %.1f ms\n",
        loweringMs, jitMs, trainMs,
        totalSteps ? 1000.0 * trainMs / totalSteps : 0.0, evalMs, total.ms());
  return llvm::Error::success();
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
  mlir::amp::registerAMPPasses(); // amp-lower-to-runtime
  cl::HideUnrelatedOptions(runCategory);
  cl::ParseCommandLineOptions(
      argc, argv,
      "amp-run: JIT-compile a training step (amp.role ABI, "
      "docs/training-step.md) and train with it on the CPU\n");
  if (printPipeline) {
    mlir::MLIRContext context;
    mlir::PassManager pm(&context, mlir::ModuleOp::getOperationName(),
                         mlir::OpPassManager::Nesting::Implicit);
    buildLoweringPipeline(pm);
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
