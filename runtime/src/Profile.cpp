//===- Profile.cpp - Per-call timing of libamp_rt's contractions ----------===//

#include "Profile.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <vector>

namespace amp {
namespace rt {

namespace {

/// Calls of one kind and shape, or their sum over shapes. The first call
/// of a shape also creates its primitive (and the first call of the process
/// starts the backend): when the shape is called again, that call is kept
/// apart (first*) and the per-call time and the rate are those of the others.
struct Entry {
  int64_t calls = 0, firstCalls = 0;
  double seconds = 0, flops = 0;
  double firstSeconds = 0, firstFlops = 0;

  /// The first call as recorded; counted apart only once there is another.
  double pendingSeconds = 0, pendingFlops = 0;

  Entry settled() const {
    Entry e = *this;
    if (calls > 1) {
      e.firstCalls = 1;
      e.firstSeconds = pendingSeconds;
      e.firstFlops = pendingFlops;
    }
    return e;
  }
  void add(const Entry &e) {
    calls += e.calls;
    firstCalls += e.firstCalls;
    seconds += e.seconds;
    flops += e.flops;
    firstSeconds += e.firstSeconds;
    firstFlops += e.firstFlops;
  }
  double steadyMsPerCall() const {
    return (seconds - firstSeconds) * 1e3 / double(calls - firstCalls);
  }
  double steadyGflops() const {
    double t = seconds - firstSeconds;
    return t > 0 ? (flops - firstFlops) / t * 1e-9 : 0.0;
  }
};

struct Table {
  std::mutex mutex;
  std::map<std::string, Entry> entries;
};

/// Never destroyed: the report runs from atexit, after static destructors
/// of other translation units may have run.
Table &table() {
  static Table *t = new Table;
  return *t;
}

const char *profileSetting() {
  const char *env = std::getenv("AMP_RT_PROFILE");
  return env && *env && std::strcmp(env, "0") != 0 ? env : nullptr;
}

/// The category a key starts with ("conv fwd", "gemm", ...): the words
/// before the element types.
std::string categoryOf(const std::string &key) {
  size_t typesAt = key.find(' ', key.find(' ') + 1);
  if (key.compare(0, 4, "gemm") == 0)
    typesAt = key.find(' ');
  return key.substr(0, typesAt);
}

void printReport() {
  Table &t = table();
  std::lock_guard<std::mutex> lock(t.mutex);
  if (t.entries.empty())
    return;
  const char *setting = profileSetting();
  FILE *out = stderr;
  bool toFile = setting && std::strcmp(setting, "1") != 0;
  if (toFile && !(out = std::fopen(setting, "a"))) {
    std::fprintf(stderr, "amp_rt: cannot open AMP_RT_PROFILE file '%s'\n",
                 setting);
    out = stderr;
    toFile = false;
  }
  std::vector<std::pair<std::string, Entry>> rows;
  for (const auto &[key, e] : t.entries)
    rows.emplace_back(key, e.settled());
  std::sort(rows.begin(), rows.end(), [](const auto &a, const auto &b) {
    return a.second.seconds > b.second.seconds;
  });
  Entry total;
  std::map<std::string, Entry> categories;
  for (const auto &[key, e] : rows) {
    total.add(e);
    categories[categoryOf(key)].add(e);
  }
  std::fprintf(out,
               "amp_rt profile: %lld calls, %.3f ms in GEMMs and "
               "convolutions (staging included), %.3f ms of them in the "
               "first call of a shape called again (backend start, "
               "primitive creation); %.1f GF/s in the other calls\n",
               (long long)total.calls, total.seconds * 1e3,
               total.firstSeconds * 1e3, total.steadyGflops());
  std::fprintf(out, "%12s %8s %10s %10s %8s  %s\n", "total ms", "calls",
               "first ms", "ms/call*", "GF/s*",
               "call (*: without the first call)");
  auto print = [&](const std::string &name, const Entry &e) {
    std::fprintf(out, "%12.3f %8lld %10.4f %10.4f %8.1f  %s\n", e.seconds * 1e3,
                 (long long)e.calls, e.firstSeconds * 1e3, e.steadyMsPerCall(),
                 e.steadyGflops(), name.c_str());
  };
  for (const auto &[name, e] : categories)
    print(name + " (all shapes)", e);
  for (const auto &[key, e] : rows)
    print(key, e);
  if (toFile)
    std::fclose(out);
}

const char *directionName(ConvDirection dir) {
  switch (dir) {
  case ConvDirection::Forward:
    return "fwd";
  case ConvDirection::BackwardData:
    return "bwd-data";
  case ConvDirection::BackwardFilter:
    return "bwd-filter";
  }
  return "?";
}

const char *filterLayoutName(amp_rt_filter_layout f) {
  switch (f) {
  case AMP_RT_FILTER_KRSC:
    return "krsc";
  case AMP_RT_FILTER_KCRS:
    return "kcrs";
  case AMP_RT_FILTER_RSCK:
    return "rsck";
  default:
    return "default";
  }
}

} // namespace

bool profiling() {
  static const bool enabled = profileSetting() != nullptr;
  return enabled;
}

void recordCall(const std::string &key, double flops, double seconds) {
  Table &t = table();
  std::lock_guard<std::mutex> lock(t.mutex);
  if (t.entries.empty())
    std::atexit(printReport);
  Entry &e = t.entries[key];
  if (e.calls == 0) {
    e.pendingSeconds = seconds;
    e.pendingFlops = flops;
  }
  e.calls += 1;
  e.seconds += seconds;
  e.flops += flops;
}

std::string convProfileKey(ConvDirection dir, const ConvProblem &p,
                           amp_rt_dtype in, amp_rt_dtype out, double &flops) {
  const amp_rt_conv2d_desc &d = p.desc;
  int64_t groups = d.groups > 1 ? d.groups : 1;
  flops = 2.0 * double(d.N) * double(d.K) * double(p.P) * double(p.Q) *
          double(d.C / groups) * double(d.R) * double(d.S);
  const char *layout = p.blocked16
                           ? (p.plainInput ? "nchw->nChw16c" : "nChw16c")
                       : d.layout == AMP_RT_NCHW ? "nchw"
                                                 : "nhwc";
  char buf[256];
  std::snprintf(buf, sizeof(buf),
                "conv %s %s->%s %s/%s N%lld C%lld %lldx%lld K%lld %lldx%lld "
                "s%lld,%lld p%lld,%lld d%lld,%lld g%lld -> %lldx%lld",
                directionName(dir), dtypeName(in), dtypeName(out), layout,
                filterLayoutName(d.filter_layout), (long long)d.N,
                (long long)d.C, (long long)d.H, (long long)d.W, (long long)d.K,
                (long long)d.R, (long long)d.S, (long long)d.stride_h,
                (long long)d.stride_w, (long long)d.pad_h, (long long)d.pad_w,
                (long long)d.dil_h, (long long)d.dil_w, (long long)groups,
                (long long)p.P, (long long)p.Q);
  return buf;
}

std::string gemmProfileKey(amp_rt_dtype ab, amp_rt_dtype c, int64_t batch,
                           int64_t M, int64_t N, int64_t K, bool transA,
                           bool transB, double &flops) {
  flops = 2.0 * double(batch) * double(M) * double(N) * double(K);
  char buf[160];
  std::snprintf(buf, sizeof(buf),
                "gemm %s->%s batch %lld M%lld N%lld K%lld %c%c", dtypeName(ab),
                dtypeName(c), (long long)batch, (long long)M, (long long)N,
                (long long)K, transA ? 'T' : 'N', transB ? 'T' : 'N');
  return buf;
}

} // namespace rt
} // namespace amp
