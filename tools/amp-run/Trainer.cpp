//===- Trainer.cpp - amp-run's training loop, evaluation and benchmark ----===//

#include "Trainer.h"
#include "Error.h"
#include "Stopwatch.h"
#include "TrackedAlloc.h"

#include "Convert.h" // libamp_rt's conversions (round to nearest even)

#include "llvm/Support/Format.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <ctime>

using namespace amp::run;

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

/// Fills a batch: rows `rows[begin..begin+batch)` of `data` (zeros past the
/// end), and their one-hot labels if `label` is given.
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

/// CPU time of the calling thread, in ms.
static double threadCpuMs() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return 1e3 * static_cast<double>(ts.tv_sec) + 1e-6 * ts.tv_nsec;
}

Trainer::Trainer(const Signature &step, JitFunction &stepCall,
                 const Signature *eval, JitFunction *evalCall,
                 const Dataset &data, const Split &split,
                 const TrainOptions &options)
    : step(step), stepCall(stepCall), eval(eval), evalCall(evalCall),
      data(data), split(split), options(options) {}

bool Trainer::benchOnly() const {
  return options.benchSteps > 0 && options.steps == 0 && options.epochs == 0;
}

llvm::Error Trainer::loadInitialParams() {
  auto file = llvm::MemoryBuffer::getFile(options.initParams,
                                          /*IsText=*/false,
                                          /*RequiresNullTerminator=*/false);
  if (!file)
    return makeError("cannot read --init-params file '" + options.initParams +
                     "': " + file.getError().message());
  llvm::SmallVector<HostTensor *> params;
  uint64_t need = 0;
  for (size_t i = 0; i < step.args.size(); ++i)
    if (step.args[i].role == Role::Param) {
      if (state[i]->spec.elem != ElemKind::F32)
        return makeError("--init-params: param " + llvm::Twine(i) +
                         " is not f32");
      params.push_back(state[i].get());
      need += state[i]->spec.numBytes();
    }
  llvm::StringRef bytes = (*file)->getBuffer();
  if (bytes.size() != need)
    return makeError("--init-params file '" + options.initParams + "' has " +
                     llvm::Twine(bytes.size()) + " bytes; the step's " +
                     llvm::Twine(params.size()) + " params need " +
                     llvm::Twine(need) + " (f32, in argument order)");
  for (HostTensor *t : params) {
    std::memcpy(t->bytes(), bytes.data(), t->spec.numBytes());
    bytes = bytes.drop_front(t->spec.numBytes());
  }
  return llvm::Error::success();
}

llvm::Error Trainer::prepare() {
  Rng initRng(mixSeed(options.seed, /*stream=*/2));
  for (const RoleValue &arg : step.args) {
    state.push_back(std::make_unique<HostTensor>(arg.spec));
    HostTensor &t = *state.back();
    if (arg.role == Role::Param)
      initParam(t, initRng);
    else if (arg.role == Role::LossScale)
      t.f32()[0] = static_cast<float>(options.initScale);
    // Inputs and labels are filled per step; the rest starts at zero.
  }
  if (!options.initParams.empty())
    if (auto err = loadInitialParams())
      return err;
  // A param_copy starts as the rounding of its initial param; the step
  // renews it with every update (amp-carry-rounded-params).
  for (int64_t i : step.paramCopies) {
    HostTensor &copy = *state[i];
    const float *param = state[step.args[i].target]->f32();
    auto *dst = reinterpret_cast<uint16_t *>(copy.bytes());
    amp::rt::convertF32ToLow(copy.spec.elem == ElemKind::BF16, param, dst,
                             copy.spec.numElements());
  }
  for (size_t i = 0; i < state.size(); ++i) {
    stepArgs.push_back(state[i].get());
    if (step.args[i].role == Role::Param)
      paramTensors.push_back(state[i].get());
    else if (step.args[i].role == Role::OptState)
      optTensors.push_back(state[i].get());
  }
  for (int64_t r : step.grads)
    gradElements += step.results[r].spec.numElements();

  int64_t batch = step.batchSize();
  stepsPerEpoch = static_cast<int64_t>(split.train.size()) / batch;
  totalSteps = options.steps > 0 ? options.steps
               : benchOnly()
                   ? 0
                   : stepsPerEpoch * std::max<int64_t>(1, options.epochs);
  if (!options.quiet) {
    llvm::outs() << "step function @" << step.name << ": " << step.args.size()
                 << " arguments, " << step.results.size()
                 << " results; eval function "
                 << (eval ? "@" + eval->name : std::string("none")) << "\n";
    if (!step.paramCopies.empty())
      llvm::outs() << "param copies: " << step.paramCopies.size()
                   << " weights kept rounded between steps "
                      "(--carry-rounded-params)\n";
    llvm::outs() << "data " << data.description << ": " << data.size()
                 << " samples, " << split.train.size() << " train / "
                 << split.test.size() << " test; batch " << batch << ", "
                 << stepsPerEpoch << " steps per epoch, " << totalSteps
                 << " steps\n";
  }
  for (int64_t p : options.poisonSteps)
    if (p < 1 || p > totalSteps)
      return makeError("--poison-steps: step " + llvm::Twine(p) +
                       " is not in 1.." + llvm::Twine(totalSteps));
  poisoned.insert(options.poisonSteps.begin(), options.poisonSteps.end());
  return llvm::Error::success();
}

void Trainer::addLeaks(int64_t liveBefore, int64_t buffersBefore) {
  AllocStats end = allocStats();
  if (end.liveBytes > liveBefore) {
    leakedBytes += end.liveBytes - liveBefore;
    leakedBuffers += end.liveBuffers - buffersBefore;
  }
}

llvm::Error Trainer::train() {
  Stopwatch training;
  HostTensor &input = *state[step.input];
  HostTensor &label = *state[step.label];
  int64_t batch = step.batchSize();
  std::vector<int64_t> order = split.train;
  int64_t epoch = -1;
  for (int64_t s = 0; s < totalSteps; ++s) {
    int64_t inEpoch = s % stepsPerEpoch;
    if (inEpoch == 0) {
      ++epoch;
      order = split.train;
      Rng shuffleRng(mixSeed(options.seed, 100 + static_cast<uint64_t>(epoch)));
      shuffle(order, shuffleRng);
    }
    fillBatch(data, order, inEpoch * batch, input, &label);
    if (poisoned.contains(s + 1))
      input.f32()[0] = static_cast<float>(options.poisonValue);
    double scale =
        step.lossScaleArg >= 0 ? state[step.lossScaleArg]->f32()[0] : 0.0;

    AllocStats before = allocStats();
    resetPeak();
    stepCall.call(stepArgs);
    peakBytes = std::max(peakBytes, allocStats().peakBytes - before.liveBytes);
    if (auto err = finishStep(s + 1, scale))
      return err;
    addLeaks(before.liveBytes, before.liveBuffers);
  }
  trainMs = training.ms();
  if (options.quiet)
    return llvm::Error::success();
  if (step.lossScaleArg >= 0)
    llvm::outs() << "final scale "
                 << formatScale(state[step.lossScaleArg]->f32()[0]) << "\n";
  if (step.stepOk >= 0)
    llvm::outs() << "skipped steps " << skipped << "\n";
  if (gradElements)
    llvm::outs() << "zero gradient share "
                 << llvm::format("%.4f", zeroShareSteps
                                             ? zeroShareSum / zeroShareSteps
                                             : 0.0)
                 << " (mean over " << zeroShareSteps << " applied steps)\n";
  return llvm::Error::success();
}

llvm::Error Trainer::finishStep(int64_t n, double scale) {
  for (size_t i = 0; i < step.results.size(); ++i)
    if (auto err = stepCall.checkResult(i))
      return err;
  float loss;
  stepCall.copyResult(step.loss, reinterpret_cast<char *>(&loss));
  bool ok = true;
  if (step.stepOk >= 0) {
    char flag;
    stepCall.copyResult(step.stepOk, &flag);
    ok = (flag & 1) != 0;
    skipped += ok ? 0 : 1;
  }
  // The gradients the step returns: the share of exact zeros (f16
  // underflow flushes them) and of non-finite elements (overflow).
  int64_t zeroGrads = 0, nonFiniteGrads = 0;
  for (int64_t r : step.grads) {
    gradBuffer.resize(step.results[r].spec.numElements());
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
  for (size_t i = 0; i < step.results.size(); ++i)
    if (step.results[i].target >= 0)
      stepCall.copyResult(i, state[step.results[i].target]->bytes());
  stepCall.freeResults();

  if (options.quiet ||
      !(n == 1 || n % options.printEvery == 0 || n == totalSteps))
    return llvm::Error::success();
  llvm::outs() << "step " << n << " loss " << llvm::format("%.5f", loss);
  if (step.lossScaleArg >= 0)
    llvm::outs() << " scale " << formatScale(scale);
  if (step.stepOk >= 0)
    llvm::outs() << " skipped " << (ok ? "no" : "yes");
  if (gradElements)
    llvm::outs() << " zero-grads " << llvm::format("%.4f", zeroShare)
                 << " nonfinite-grads " << nonFiniteGrads;
  if (options.printState)
    llvm::outs() << " params "
                 << llvm::format_hex_no_prefix(hashBytes(paramTensors), 16)
                 << " opt "
                 << llvm::format_hex_no_prefix(hashBytes(optTensors), 16)
                 << " nonfinite-state "
                 << countNonFinite(paramTensors) + countNonFinite(optTensors);
  llvm::outs() << "\n";
  return llvm::Error::success();
}

llvm::Error Trainer::evaluate() {
  Stopwatch evaluating;
  if (!eval || split.test.empty() || benchOnly())
    return llvm::Error::success();
  HostTensor evalInput(eval->args[eval->input].spec);
  llvm::SmallVector<HostTensor *, 16> evalArgs;
  for (size_t i = 0, k = 0; i < eval->args.size(); ++i)
    evalArgs.push_back(eval->args[i].role == Role::Input
                           ? &evalInput
                           : state[step.params[k++]].get());
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
    addLeaks(before.liveBytes, before.liveBuffers);
    for (int64_t r = 0; r < evalBatch && begin + r < numTest; ++r) {
      const float *row = logits.data() + r * classes;
      int64_t best = std::max_element(row, row + classes) - row;
      correct += best == data.labels[split.test[begin + r]];
    }
  }
  llvm::outs() << "test accuracy "
               << llvm::format("%.4f", static_cast<double>(correct) /
                                           static_cast<double>(numTest))
               << "\n";
  evalMs = evaluating.ms();
  return llvm::Error::success();
}

void Trainer::prepareBenchmark() {
  fillBatch(data, split.train, 0, *state[step.input], state[step.label].get());
}

double Trainer::timeBenchmarkCall(double *cpuMs) {
  AllocStats before = allocStats();
  resetPeak();
  Stopwatch watch;
  double cpu = threadCpuMs();
  stepCall.call(stepArgs);
  double t = watch.ms();
  if (cpuMs)
    *cpuMs = threadCpuMs() - cpu;
  peakBytes = std::max(peakBytes, allocStats().peakBytes - before.liveBytes);
  stepCall.freeResults();
  return t;
}

/// One untimed call of the step on the first training batch, then N timed
/// calls with the same arguments (the results are freed, never applied; a
/// donated state is updated in place, as in training), so that every call
/// does the same work. The peak memory of a call is measured as in
/// training.
void Trainer::benchmark() {
  if (options.benchSteps <= 0)
    return;
  prepareBenchmark();
  std::vector<double> ms, cpuMs;
  for (int64_t i = 0; i <= options.benchSteps; ++i) {
    double cpu;
    double t = timeBenchmarkCall(&cpu);
    if (i > 0) {
      ms.push_back(t);
      cpuMs.push_back(cpu);
    }
  }
  printStepTime("", ms, step.batchSize());
  // The calling thread's CPU time: what the compiled loops cost without the
  // time other processes took the core away (the runtime's worker threads
  // are not counted).
  if (options.timing)
    llvm::errs() << llvm::format(
        "amp-run: step cpu time of the calling thread: median %.3f ms, min "
        "%.3f ms\n",
        median(cpuMs), *std::min_element(cpuMs.begin(), cpuMs.end()));
}

void amp::run::printStepTime(llvm::StringRef prefix,
                             const std::vector<double> &ms, int64_t batch) {
  double wall = median(ms);
  llvm::outs() << prefix
               << llvm::format(
                      "step time: median %.3f ms, min %.3f ms over %zu steps; "
                      "%.1f samples/s\n",
                      wall, *std::min_element(ms.begin(), ms.end()), ms.size(),
                      1000.0 * double(batch) / wall);
}

void Trainer::printSummary(double loweringMs, double jitMs,
                           double totalMs) const {
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
  if (options.timing)
    llvm::errs() << llvm::format(
        "amp-run: time: lowering %.1f ms, JIT %.1f ms, training %.1f ms "
        "(%.1f us/step), eval %.1f ms, total %.1f ms\n",
        loweringMs, jitMs, trainMs,
        totalSteps ? 1000.0 * trainMs / totalSteps : 0.0, evalMs, totalMs);
}
