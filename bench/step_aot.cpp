//===- step_aot.cpp - run a training step compiled ahead of time ----------===//
//
// Times a training step without MLIR or LLVM at run time, so that it runs
// where only libamp_rt can be taken (the GPU machine): `amp-run --fast
// --dump-object=step.o` writes the object it JIT-compiled, `amp-run
// --print-signature` its amp.role signature, and bench/gpu_step.sh links
// the object with this driver into one executable per program.
//
// Usage: step-aot SIGNATURE_FILE [--steps=N] [--warmup=N] [--seed=S]
//                 [--init-params=FILE]
//        step-aot SIGNATURE_FILE --compare=A,B [--seed=S] [--init-params=FILE]
//
// Arguments get deterministic values: inputs uniform in [-1, 1), one-hot
// labels, params uniform in [-1/sqrt(fan_in), 1/sqrt(fan_in)) (fan_in: the
// product of all dims but the last), param copies their rounding (amp-run
// carries them: amp-carry-rounded-params), optimizer state zero, the loss scale
// 65536 and the good-step counter zero. Every step trains on the same batch
// and applies the results to the state as amp-run does
// (docs/training-step.md): an `update` replaces the argument it names, a
// `loss_scale` / `good_steps` result its argument. Prints the loss of the
// first and the last step and the median and minimum step time.
// --init-params=FILE replaces the params' values with FILE's raw f32s, all
// params in argument order (as `amp-run --init-params`; torch-to-amp.py
// --dump-params writes it).
//
// The step's function is `train_step` unless the build names another
// C-interface entry with -DAMP_STEP_ENTRY=_mlir__mlir_ciface_NAME.
//
// --compare=A,B runs one step from the same state on libamp_rt backend A,
// then on B, and prints every result's relative L2 difference (B vs A);
// exit status 1 when one exceeds 1e-2.
//
//===----------------------------------------------------------------------===//

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "amp_rt.h"

#ifdef __GLIBC__
#include <limits>
#include <malloc.h>
#endif

// The packed entry point that MLIR's ExecutionEngine adds for the step.
#ifndef AMP_STEP_ENTRY
#define AMP_STEP_ENTRY _mlir__mlir_ciface_train_step
#endif
extern "C" void AMP_STEP_ENTRY(void **);

namespace {

struct Value {
  std::string role, elem;
  std::vector<int64_t> shape;
  int64_t target = -1;

  int64_t numElements() const {
    int64_t n = 1;
    for (int64_t d : shape)
      n *= d;
    return n;
  }
  int64_t elemBytes() const {
    return elem == "i1" ? 1 : elem == "bf16" || elem == "f16" ? 2 : 4;
  }
  int64_t descriptorWords() const { return 3 + 2 * int64_t(shape.size()); }
};

struct Signature {
  std::vector<Value> args, results;
};

bool readSignature(const char *path, Signature &sig) {
  std::ifstream in(path);
  if (!in) {
    std::fprintf(stderr, "step-aot: cannot open %s\n", path);
    return false;
  }
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream ls(line);
    std::string kind, shape;
    size_t index;
    Value v;
    if (!(ls >> kind) || kind == "step")
      continue;
    if (!(ls >> index >> v.role >> v.elem >> shape >> v.target)) {
      std::fprintf(stderr, "step-aot: bad signature line: %s\n", line.c_str());
      return false;
    }
    if (shape != "-") {
      std::istringstream ss(shape);
      std::string dim;
      while (std::getline(ss, dim, 'x'))
        v.shape.push_back(std::stoll(dim));
    }
    (kind == "arg" ? sig.args : sig.results).push_back(v);
  }
  return !sig.args.empty() && !sig.results.empty();
}

/// A caller-owned argument and its memref descriptor.
struct Buffer {
  Value spec;
  char *data = nullptr;
  std::vector<int64_t> desc;

  explicit Buffer(const Value &v) : spec(v) {
    size_t bytes =
        size_t(std::max<int64_t>(v.numElements() * v.elemBytes(), 1));
    data = static_cast<char *>(std::aligned_alloc(64, (bytes + 63) / 64 * 64));
    std::memset(data, 0, bytes);
    int64_t rank = int64_t(v.shape.size());
    desc.assign(size_t(3 + 2 * rank), 0);
    desc[0] = desc[1] = int64_t(reinterpret_cast<intptr_t>(data));
    int64_t stride = 1;
    for (int64_t d = rank - 1; d >= 0; --d) {
      desc[size_t(3 + d)] = v.shape[size_t(d)];
      desc[size_t(3 + rank + d)] = stride;
      stride *= v.shape[size_t(d)];
    }
  }
  float *f32() { return reinterpret_cast<float *>(data); }
};

void initialize(Buffer &b, std::mt19937 &rng) {
  const Value &v = b.spec;
  int64_t n = v.numElements();
  if (v.role == "input") {
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    for (int64_t i = 0; i < n; ++i)
      b.f32()[i] = u(rng);
  } else if (v.role == "label") {
    int64_t classes = v.shape.back();
    for (int64_t r = 0; r < n / classes; ++r)
      b.f32()[r * classes + int64_t(rng() % uint32_t(classes))] = 1.0f;
  } else if (v.role == "param") {
    int64_t fanIn = v.shape.size() > 1 ? n / v.shape.back() : n;
    float bound = 1.0f / std::sqrt(float(fanIn));
    std::uniform_real_distribution<float> u(-bound, bound);
    for (int64_t i = 0; i < n; ++i)
      b.f32()[i] = u(rng);
  } else if (v.role == "loss_scale") {
    b.f32()[0] = 65536.0f;
  }
}

/// The step's packed call: result descriptors filled by the callee, the
/// caller's argument descriptors.
class StepCall {
public:
  StepCall(const Signature &sig, std::vector<Buffer> &args,
           const std::set<char *> &ours)
      : sig(sig), ours(ours) {
    size_t words = 0;
    for (const Value &v : sig.results) {
      offsets.push_back(words);
      words += size_t(v.descriptorWords());
    }
    resultWords.resize(words);
    resultPtr = resultWords.data();
    for (Buffer &b : args)
      descPtrs.push_back(b.desc.data());
    // _mlir_ciface_train_step(results *, arg descriptors *...), packed.
    packed.push_back(&resultPtr);
    for (void *&p : descPtrs)
      packed.push_back(&p);
  }

  void call() { AMP_STEP_ENTRY(packed.data()); }

  /// The first element of result `i` (results are dense: identity layouts
  /// after bufferization).
  const char *result(size_t i) const {
    const int64_t *w = resultWords.data() + offsets[i];
    return reinterpret_cast<const char *>(w[1]) +
           w[2] * sig.results[i].elemBytes();
  }

  /// Frees the buffers the step allocated for its results (each once; the
  /// caller's own buffers, updated in place, are not).
  void freeResults() {
    std::set<char *> freed;
    for (size_t i = 0; i < sig.results.size(); ++i) {
      char *p = reinterpret_cast<char *>(resultWords[offsets[i]]);
      if (p && !ours.count(p) && freed.insert(p).second)
        std::free(p);
    }
  }

private:
  const Signature &sig;
  const std::set<char *> &ours;
  std::vector<size_t> offsets;
  std::vector<int64_t> resultWords;
  void *resultPtr = nullptr;
  std::vector<void *> descPtrs, packed;
};

/// Calls the step once and returns a dense copy of every result.
std::vector<std::vector<char>> callOnce(const Signature &sig,
                                        std::vector<Buffer> &args,
                                        const std::set<char *> &ours) {
  StepCall step(sig, args, ours);
  step.call();
  std::vector<std::vector<char>> out;
  for (size_t i = 0; i < sig.results.size(); ++i) {
    const Value &v = sig.results[i];
    out.emplace_back(step.result(i),
                     step.result(i) + v.numElements() * v.elemBytes());
  }
  step.freeResults();
  return out;
}

/// --compare=A,B: one step on each backend from the same state.
int compareBackends(const Signature &sig, std::vector<Buffer> &args,
                    const std::set<char *> &ours, const std::string &list) {
  size_t comma = list.find(',');
  std::string names[2] = {list.substr(0, comma), comma == std::string::npos
                                                     ? ""
                                                     : list.substr(comma + 1)};
  std::vector<std::vector<char>> initial;
  for (Buffer &b : args)
    initial.emplace_back(b.data,
                         b.data + b.spec.numElements() * b.spec.elemBytes());
  std::vector<std::vector<char>> results[2];
  for (int k = 0; k < 2; ++k) {
    for (size_t i = 0; i < args.size(); ++i)
      std::memcpy(args[i].data, initial[i].data(), initial[i].size());
    if (amp_rt_select_backend(names[k].c_str()) != AMP_RT_SUCCESS) {
      std::fprintf(stderr, "step-aot: backend %s: %s\n", names[k].c_str(),
                   amp_rt_last_error());
      return 1;
    }
    results[k] = callOnce(sig, args, ours);
  }
  double limit = 1e-2, worstRel = 0;
  size_t worstIndex = 0;
  int worst = 0;
  // The RMS of each f32 result on backend A, and the largest one: a result
  // below 1e-6 of it is zero up to rounding (an attention key bias's
  // gradient is zero in exact arithmetic, so backends disagree on its
  // noise) and is not compared relatively.
  auto rms = [](const std::vector<char> &bytes) {
    const float *x = reinterpret_cast<const float *>(bytes.data());
    size_t n = bytes.size() / 4;
    double sum = 0;
    for (size_t j = 0; j < n; ++j)
      sum += double(x[j]) * double(x[j]);
    return n ? std::sqrt(sum / double(n)) : 0.0;
  };
  double largest = 0;
  for (size_t i = 0; i < sig.results.size(); ++i)
    if (sig.results[i].elem == "f32")
      largest = std::max(largest, rms(results[0][i]));
  for (size_t i = 0; i < sig.results.size(); ++i) {
    const Value &v = sig.results[i];
    if (v.elem != "f32")
      continue;
    const float *a = reinterpret_cast<const float *>(results[0][i].data());
    const float *b = reinterpret_cast<const float *>(results[1][i].data());
    double num = 0, den = 0, maxAbs = 0;
    for (int64_t j = 0; j < v.numElements(); ++j) {
      double e = double(b[j]) - double(a[j]);
      num += e * e;
      den += double(a[j]) * double(a[j]);
      maxAbs = std::max(maxAbs, std::fabs(e));
    }
    double rel = den > 0 ? std::sqrt(num / den) : std::sqrt(num);
    bool zero =
        std::max(rms(results[0][i]), rms(results[1][i])) < 1e-6 * largest;
    bool bad = !zero && !(rel <= limit);
    worst |= bad;
    if (!zero && !(rel <= worstRel)) {
      worstRel = rel;
      worstIndex = i;
    }
    std::printf(
        "result %zu %-10s %-12s rel L2 %s vs %s %.3e, max |diff| %.3e%s\n", i,
        v.role.c_str(),
        v.target >= 0 ? ("(arg " + std::to_string(v.target) + ")").c_str() : "",
        names[1].c_str(), names[0].c_str(), rel, maxAbs,
        zero ? "  (zero up to rounding on both)"
             : (bad ? "  <-- differs" : ""));
  }
  std::printf("one step, %s vs %s: worst rel L2 %.3e (result %zu, %s)\n",
              names[1].c_str(), names[0].c_str(), worstRel, worstIndex,
              sig.results[worstIndex].role.c_str());
  return worst;
}

/// The command line.
struct Options {
  const char *signature = nullptr;
  int steps = 20, warmup = 3;
  unsigned seed = 0;
  std::string compare, initParams;
};

/// Returns false (after a message) on a usage error.
bool parseArgs(int argc, char **argv, Options &o) {
  if (argc < 2) {
    std::fprintf(stderr,
                 "usage: %s SIGNATURE [--steps=N] [--warmup=N] [--seed=S] "
                 "[--compare=A,B] [--init-params=FILE]\n",
                 argv[0]);
    return false;
  }
  o.signature = argv[1];
  for (int i = 2; i < argc; ++i) {
    if (!std::strncmp(argv[i], "--steps=", 8))
      o.steps = std::atoi(argv[i] + 8);
    else if (!std::strncmp(argv[i], "--warmup=", 9))
      o.warmup = std::atoi(argv[i] + 9);
    else if (!std::strncmp(argv[i], "--seed=", 7))
      o.seed = unsigned(std::atoi(argv[i] + 7));
    else if (!std::strncmp(argv[i], "--compare=", 10))
      o.compare = argv[i] + 10;
    else if (!std::strncmp(argv[i], "--init-params=", 14))
      o.initParams = argv[i] + 14;
    else {
      std::fprintf(stderr, "step-aot: unknown option %s\n", argv[i]);
      return false;
    }
  }
  return true;
}

/// Reads the params' values from `path`: raw f32s, every param in argument
/// order, nothing else.
bool readParams(const char *path, std::vector<Buffer> &args) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "step-aot: cannot open %s\n", path);
    return false;
  }
  int64_t expected = 0;
  for (Buffer &b : args) {
    if (b.spec.role != "param")
      continue;
    if (b.spec.elem != "f32") {
      std::fprintf(stderr, "step-aot: --init-params: a %s param\n",
                   b.spec.elem.c_str());
      return false;
    }
    std::streamsize bytes = std::streamsize(b.spec.numElements() * 4);
    expected += bytes;
    if (!in.read(b.data, bytes)) {
      std::fprintf(stderr,
                   "step-aot: %s is too short: the params take %lld bytes\n",
                   path, static_cast<long long>(expected));
      return false;
    }
  }
  if (in.peek() != std::ifstream::traits_type::eof()) {
    std::fprintf(stderr,
                 "step-aot: %s is longer than the params (%lld bytes)\n", path,
                 static_cast<long long>(expected));
    return false;
  }
  return true;
}

/// The step's arguments, random (the params from `initParams` when given),
/// with every param_copy (amp-carry-rounded-params) the rounding of its
/// param. `ours` gets their buffers.
bool makeArguments(const Signature &sig, unsigned seed,
                   const std::string &initParams, std::vector<Buffer> &args,
                   std::set<char *> &ours) {
  std::mt19937 rng(seed);
  for (const Value &v : sig.args) {
    args.emplace_back(v);
    initialize(args.back(), rng);
    ours.insert(args.back().data);
  }
  if (!initParams.empty() && !readParams(initParams.c_str(), args))
    return false;
  for (Buffer &b : args)
    if (b.spec.role == "param_copy" &&
        amp_rt_convert(b.spec.elem == "bf16" ? AMP_RT_BF16 : AMP_RT_F16, b.data,
                       AMP_RT_F32, args[size_t(b.spec.target)].data,
                       b.spec.numElements()) != AMP_RT_SUCCESS) {
      std::fprintf(stderr, "step-aot: cannot round the param copies\n");
      return false;
    }
  return true;
}

/// Trains `warmup + steps` steps on the same batch, each step's new state
/// copied over its arguments, and prints the loss and the step times.
int timeSteps(const Signature &sig, std::vector<Buffer> &args,
              const std::set<char *> &ours, const Options &o) {
  StepCall step(sig, args, ours);
  int lossIndex = -1;
  for (size_t i = 0; i < sig.results.size(); ++i)
    if (sig.results[i].role == "loss")
      lossIndex = int(i);
  if (lossIndex < 0) {
    std::fprintf(stderr, "step-aot: the signature has no loss result\n");
    return 1;
  }
  std::vector<double> ms;
  float firstLoss = 0, lastLoss = 0;
  for (int s = 0; s < o.warmup + o.steps; ++s) {
    auto start = std::chrono::steady_clock::now();
    step.call();
    double t = std::chrono::duration<double, std::milli>(
                   std::chrono::steady_clock::now() - start)
                   .count();
    for (size_t i = 0; i < sig.results.size(); ++i) {
      const Value &v = sig.results[i];
      const char *base = step.result(i);
      if (int(i) == lossIndex) {
        std::memcpy(&lastLoss, base, 4);
        if (s == 0)
          firstLoss = lastLoss;
      }
      // A result that is not its argument's buffer (not donated) is copied
      // over it.
      if (v.target >= 0 && base != args[size_t(v.target)].data)
        std::memcpy(args[size_t(v.target)].data, base,
                    size_t(v.numElements() * v.elemBytes()));
    }
    step.freeResults();
    if (s >= o.warmup)
      ms.push_back(t);
  }
  std::sort(ms.begin(), ms.end());
  double median = ms.empty() ? 0 : ms[ms.size() / 2];
  double best = ms.empty() ? 0 : ms.front();
  std::printf("loss %.6g -> %.6g after %d steps; step median %.3f ms, min "
              "%.3f ms (%d timed after %d warm-up)\n",
              double(firstLoss), double(lastLoss), o.warmup + o.steps, median,
              best, o.steps, o.warmup);
  // Training on one batch, the loss falls unless the learning rate is at
  // the edge of stability (the CNN's, where backends that agree to 1e-6 on
  // one step, --compare, drift apart over 20): a note, not a failure.
  if (!std::isfinite(lastLoss)) {
    std::fprintf(stderr, "step-aot: the loss is not finite\n");
    return 1;
  }
  if (!(lastLoss < firstLoss))
    std::printf("note: the loss did not fall\n");
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  Options options;
  if (!parseArgs(argc, argv, options))
    return 2;
#ifdef __GLIBC__
  // As amp-run does: keep the step's large buffers in the heap between
  // steps instead of mapping and zeroing them afresh on every call.
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, std::numeric_limits<int>::max());
#endif
  Signature sig;
  if (!readSignature(options.signature, sig))
    return 1;
  std::vector<Buffer> args;
  std::set<char *> ours;
  if (!makeArguments(sig, options.seed, options.initParams, args, ours))
    return 1;
  if (!options.compare.empty())
    return compareBackends(sig, args, ours, options.compare);
  return timeSteps(sig, args, ours, options);
}
