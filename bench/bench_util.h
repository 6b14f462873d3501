//===- bench_util.h - shared pieces of the CPU benchmarks -------*- C++ -*-===//
//
// The CPU description every table names (model name, cpu family, whether
// avx512_bf16 is present), the thread settings the libraries run with, and
// the interleaved best-of-rounds timer (docs/performance.md).
//
//===----------------------------------------------------------------------===//

#ifndef AMP_BENCH_UTIL_H
#define AMP_BENCH_UTIL_H

#include "amp_rt.h"

#include <dlfcn.h>

#include <thread>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <dnnl.hpp>

extern "C" int openblas_get_num_threads(void);
extern "C" char *openblas_get_corename(void);

namespace ampbench {

inline double seconds() {
  using Clock = std::chrono::steady_clock;
  return std::chrono::duration<double>(Clock::now().time_since_epoch()).count();
}

struct CpuInfo {
  std::string model = "unknown";
  int family = -1, modelNumber = -1;
  bool avx512bf16 = false, avx512f = false, avx2 = false, f16c = false;
};

inline CpuInfo readCpuInfo() {
  CpuInfo info;
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  auto value = [](const std::string &l) {
    size_t colon = l.find(':');
    std::string v = colon == std::string::npos ? "" : l.substr(colon + 1);
    size_t b = v.find_first_not_of(" \t");
    return b == std::string::npos ? std::string() : v.substr(b);
  };
  bool haveModel = false, haveFamily = false, haveNumber = false,
       haveFlags = false;
  while (std::getline(in, line)) {
    if (!haveModel && line.rfind("model name", 0) == 0) {
      info.model = value(line);
      haveModel = true;
    } else if (!haveFamily && line.rfind("cpu family", 0) == 0) {
      info.family = std::atoi(value(line).c_str());
      haveFamily = true;
    } else if (!haveNumber && line.rfind("model", 0) == 0 &&
               line.rfind("model name", 0) != 0) {
      info.modelNumber = std::atoi(value(line).c_str());
      haveNumber = true;
    } else if (!haveFlags && line.rfind("flags", 0) == 0) {
      std::istringstream flags(value(line));
      std::string f;
      while (flags >> f) {
        info.avx512bf16 |= f == "avx512_bf16";
        info.avx512f |= f == "avx512f";
        info.avx2 |= f == "avx2";
        info.f16c |= f == "f16c";
      }
      haveFlags = true;
    }
  }
  return info;
}

/// oneDNN's OpenMP threads (libgomp is loaded by libdnnl; looked up at run
/// time so that the benchmarks need not link it themselves).
inline int ompThreads() {
  using Fn = int (*)();
  auto fn = reinterpret_cast<Fn>(dlsym(RTLD_DEFAULT, "omp_get_max_threads"));
  return fn ? fn() : -1;
}

inline const char *isaName(dnnl::cpu_isa isa) {
  switch (isa) {
  case dnnl::cpu_isa::sse41:
    return "sse41";
  case dnnl::cpu_isa::avx:
    return "avx";
  case dnnl::cpu_isa::avx2:
    return "avx2";
  case dnnl::cpu_isa::avx512_core:
    return "avx512_core";
  case dnnl::cpu_isa::avx512_core_vnni:
    return "avx512_core_vnni";
  case dnnl::cpu_isa::avx512_core_bf16:
    return "avx512_core_bf16";
  case dnnl::cpu_isa::avx512_core_amx:
    return "avx512_core_amx";
  default:
    return "other";
  }
}

/// The 1, 5 and 15 minute load averages, "1.02 0.80 0.50".
inline std::string loadAverage() {
  std::ifstream in("/proc/loadavg");
  std::string a, b, c;
  in >> a >> b >> c;
  return a + " " + b + " " + c;
}

/// What a benchmark says after its tables, each note once, in the order
/// first seen.
struct Notes {
  std::vector<std::string> items;
  void add(const std::string &n) {
    if (std::find(items.begin(), items.end(), n) == items.end())
      items.push_back(n);
  }
  /// The load average at the end of the run, then the notes.
  void printWithLoad() const {
    std::printf("\nload average at end: %s\n", loadAverage().c_str());
    if (items.empty())
      return;
    std::printf("\nnotes:\n");
    for (const std::string &n : items)
      std::printf("  %s\n", n.c_str());
  }
};

/// Selects libamp_rt's cpu backend; false (and a message) if it fails.
inline bool selectCpuBackend() {
  if (amp_rt_select_backend("cpu") == AMP_RT_SUCCESS)
    return true;
  std::fprintf(stderr, "amp_rt_select_backend(cpu): %s\n", amp_rt_last_error());
  return false;
}

/// The header every table starts with: the CPU and the threads of each
/// library. Returns the CPU so that callers can pick the goals.
inline CpuInfo printHeader(const char *what) {
  CpuInfo cpu = readCpuInfo();
  std::printf("%s\n", what);
  std::printf("CPU: %s (cpu family %d, model %d), avx512_bf16: %s "
              "(avx512f %s, avx2 %s, f16c %s)\n",
              cpu.model.c_str(), cpu.family, cpu.modelNumber,
              cpu.avx512bf16 ? "yes" : "no", cpu.avx512f ? "yes" : "no",
              cpu.avx2 ? "yes" : "no", cpu.f16c ? "yes" : "no");
  const char *core = std::getenv("OPENBLAS_CORETYPE");
  const char *rtThreads = std::getenv("AMP_RT_NUM_THREADS");
  std::printf("threads: OpenBLAS %d (kernel %s), oneDNN/OpenMP %d, "
              "AMP_RT_NUM_THREADS=%s; OPENBLAS_CORETYPE %s\n",
              openblas_get_num_threads(), openblas_get_corename(), ompThreads(),
              rtThreads ? rtThreads : "<unset>",
              core ? core : "unset (OpenBLAS detects the CPU)");
  if (core)
    std::printf("WARNING: OPENBLAS_CORETYPE=%s forces OpenBLAS's kernels; "
                "the bench/*.sh scripts run with it unset\n",
                core);
  std::printf("load average at start: %s (other processes share the cores; "
              "compare ratios, which are measured side by side)\n",
              loadAverage().c_str());
  dnnl::version_t const *v = dnnl::version();
  std::printf("libamp_rt backend %s; oneDNN %d.%d.%d (effective ISA %s)\n",
              amp_rt_backend_name(), v->major, v->minor, v->patch,
              isaName(dnnl::get_effective_cpu_isa()));
  // amp_rt_cpu_kernels() is looked up at run time so that the benchmarks
  // still build and run against a runtime without it.
  using KernelsFn = const char *(*)();
  if (auto kernels = reinterpret_cast<KernelsFn>(
          dlsym(RTLD_DEFAULT, "amp_rt_cpu_kernels")))
    std::printf("libamp_rt cpu kernels: %s\n", kernels());
  return cpu;
}

/// One contender of an interleaved measurement. `run` performs one call;
/// a variant whose setup failed has ok = false and says why in `why`.
struct Variant {
  std::string name;
  std::function<void()> run;
  bool ok = false;
  std::string why;
  double best = 1e30; // seconds per call
  double spent = 0;
  int reps = 1;
};

/// Idle time before each sample: OpenBLAS's worker threads busy-wait for
/// 2^28 TSC cycles (~0.1 s) after every call and OpenMP's for a while too,
/// so without a pause the library timed next would share the cores with the
/// spinning threads of the one before. --gap=S of the programs sets it.
inline double &gapSeconds() {
  static double gap = 0.12;
  return gap;
}

/// Warm every available variant up (one untimed call, then one timed to pick
/// how many calls make a sample of >= `sample` seconds), then time rounds in
/// which every variant runs one sample in turn, so that load from other
/// processes hits them alike. Stops once there have been >= minRounds
/// rounds, every variant has run >= minTime seconds and no variant's best
/// has improved by more than 2% in the last stableRounds() rounds (so a
/// burst of load from other processes prolongs the measurement instead of
/// deciding it), or after maxRounds(). best = fastest sample / reps. Each
/// sample starts after gapSeconds() of idling (see there).
inline int &stableRounds() {
  static int n = 3;
  return n;
}
inline int &maxRounds() {
  static int n = 40;
  return n;
}
inline void measureInterleaved(std::vector<Variant *> &vs, double minTime,
                               int minRounds, double sample = 0.05) {
  auto idle = [] {
    std::this_thread::sleep_for(std::chrono::duration<double>(gapSeconds()));
  };
  std::vector<Variant *> on;
  for (Variant *v : vs)
    if (v->ok)
      on.push_back(v);
  for (Variant *v : on) {
    idle();
    v->run();
    double t0 = seconds();
    v->run();
    double t = seconds() - t0;
    v->reps = std::max(1, int(std::ceil(sample / std::max(t, 1e-7))));
    v->reps = std::min(v->reps, 1000);
    v->best = t;
  }
  std::vector<int> improved(on.size(), 0); // round of the last improvement
  for (int round = 0; round < maxRounds(); ++round) {
    bool enough = round >= minRounds;
    for (size_t i = 0; i < on.size(); ++i)
      enough &=
          on[i]->spent >= minTime && round - improved[i] >= stableRounds();
    if (enough || on.empty())
      break;
    for (size_t i = 0; i < on.size(); ++i) {
      Variant *v = on[i];
      idle();
      double t0 = seconds();
      for (int r = 0; r < v->reps; ++r)
        v->run();
      double t = (seconds() - t0) / v->reps;
      if (t < 0.98 * v->best)
        improved[i] = round + 1;
      v->best = std::min(v->best, t);
      v->spent += t * v->reps;
    }
  }
}

/// "12.3" or "n/a" with the given width.
inline std::string fmt(double x, bool ok, const char *f = "%.1f") {
  if (!ok || !(x == x))
    return "n/a";
  char b[32];
  std::snprintf(b, sizeof(b), f, x);
  return b;
}
inline std::string fmtRatio(double x, bool ok) {
  if (!ok || !(x == x))
    return "n/a";
  char b[32];
  std::snprintf(b, sizeof(b), "%.2fx", x);
  return b;
}

/// Values k/64, |k| <= 64: exact in f16, bf16 and f32, so every variant
/// multiplies the same numbers and the results can be compared.
inline void fillExact(std::vector<float> &v, unsigned seed) {
  unsigned s = seed * 2654435761u + 1;
  for (float &x : v) {
    s = s * 1664525u + 1013904223u;
    x = float(int((s >> 8) % 129) - 64) / 64.0f;
  }
}

/// Largest |a - b| / (1 + |b|) over the elements.
inline double maxRelDiff(const float *a, const float *b, size_t n) {
  double m = 0;
  for (size_t i = 0; i < n; ++i)
    m = std::max(m, double(std::fabs(a[i] - b[i])) / (1.0 + std::fabs(b[i])));
  return m;
}

/// Results of a separately run helper (bench/torch_bench.py): lines
/// "<key> <column> <GF/s>"; empty when the file is missing.
inline std::map<std::string, std::map<std::string, double>>
readExternal(const char *path) {
  std::map<std::string, std::map<std::string, double>> r;
  if (!path)
    return r;
  std::ifstream in(path);
  std::string key, col;
  double v;
  while (in >> key >> col >> v)
    r[key][col] = v;
  return r;
}

} // namespace ampbench

#endif // AMP_BENCH_UTIL_H
