//===- runtime_ab.cpp - two libamp_rt builds, side by side in one process -===//
//
// On a shared machine whose speed moves by tens of percent between minutes,
// two benchmark runs cannot compare two builds of the runtime. This loads
// both builds into one process (dlopen, RTLD_LOCAL | RTLD_DEEPBIND: each
// keeps its own backend state), alternates their calls on the same
// operands, swapping the order every pair, and reports the median of the
// per-pair speed ratios with its quartiles. docs/performance.md.
//
//   amp-bench-runtime-ab OLD.so NEW.so [--pairs=N] [--old-f32] SHAPE...
//
// SHAPE: MxNxK, then any of :ta :tb (transposed A / B), :bf16 :f16 (16-bit
// inputs; default f32), :o16 (the output in the input's 16-bit type, else
// f32), :bN (a batch of N). --old-f32 runs OLD on the same shape in f32
// (inputs and output): with one build twice, the 16-bit path against the
// f32 one without the noise of two runs.
//
//===----------------------------------------------------------------------===//

#include "bench_util.h"

using namespace ampbench;

namespace {

using GemmBatched = amp_rt_status (*)(amp_rt_dtype, amp_rt_dtype, int, int,
                                      int64_t, int64_t, int64_t, float,
                                      const void *, int64_t, int64_t,
                                      const void *, int64_t, int64_t, float,
                                      void *, int64_t, int64_t, int64_t);
using LastError = const char *(*)();

struct Build {
  std::string path;
  GemmBatched gemm = nullptr;
  LastError lastError = nullptr;
};

bool load(const char *path, Build &b) {
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
  if (!h) {
    std::fprintf(stderr, "amp-bench-runtime-ab: %s\n", dlerror());
    return false;
  }
  b.path = path;
  b.gemm = reinterpret_cast<GemmBatched>(dlsym(h, "amp_rt_gemm_batched"));
  b.lastError = reinterpret_cast<LastError>(dlsym(h, "amp_rt_last_error"));
  if (!b.gemm || !b.lastError) {
    std::fprintf(stderr, "amp-bench-runtime-ab: %s is not a libamp_rt\n", path);
    return false;
  }
  return true;
}

struct Shape {
  int64_t M = 0, N = 0, K = 0, batch = 1;
  bool ta = false, tb = false;
  amp_rt_dtype in = AMP_RT_F32;
  bool lowOut = false;
  std::string text;
};

bool parseShape(const std::string &s, Shape &out) {
  out.text = s;
  std::stringstream parts(s);
  std::string head, flag;
  std::getline(parts, head, ':');
  if (std::sscanf(head.c_str(), "%ldx%ldx%ld", &out.M, &out.N, &out.K) != 3 ||
      out.M < 1 || out.N < 1 || out.K < 1)
    return false;
  while (std::getline(parts, flag, ':')) {
    if (flag == "ta")
      out.ta = true;
    else if (flag == "tb")
      out.tb = true;
    else if (flag == "bf16")
      out.in = AMP_RT_BF16;
    else if (flag == "f16")
      out.in = AMP_RT_F16;
    else if (flag == "o16")
      out.lowOut = true;
    else if (flag.size() > 1 && flag[0] == 'b' &&
             (out.batch = std::atol(flag.c_str() + 1)) >= 1)
      continue;
    else
      return false;
  }
  return !out.lowOut || out.in != AMP_RT_F32;
}

/// What the row measured: "bf16->f32 A^T batch 2".
std::string describe(const Shape &s) {
  std::string in = s.in == AMP_RT_BF16  ? "bf16"
                   : s.in == AMP_RT_F16 ? "f16"
                                        : "f32";
  std::string d = in + "->" + (s.lowOut ? in : "f32");
  if (s.ta)
    d += " A^T";
  if (s.tb)
    d += " B^T";
  if (s.batch > 1)
    d += " batch " + std::to_string(s.batch);
  return d;
}

/// The operands of one side of a comparison: A, B and C of `s` in `in` /
/// `out`, every element 1.0.
struct Operands {
  std::vector<char> A, B, C;
  amp_rt_dtype in, out;

  Operands(const Shape &s, amp_rt_dtype in, amp_rt_dtype out)
      : A(bytes(s.M * s.K * s.batch, in)), B(bytes(s.K * s.N * s.batch, in)),
        C(bytes(s.M * s.N * s.batch, out)), in(in), out(out) {
    fillOnes(A, in);
    fillOnes(B, in);
  }
  static size_t bytes(int64_t n, amp_rt_dtype t) {
    return size_t(n) * (t == AMP_RT_F32 ? 4 : 2);
  }
  // 1.0 in every type: f32 0x3f800000, bf16 0x3f80, f16 0x3c00.
  static void fillOnes(std::vector<char> &v, amp_rt_dtype t) {
    if (t == AMP_RT_F32)
      std::fill((float *)v.data(), (float *)(v.data() + v.size()), 1.0f);
    else
      std::fill((uint16_t *)v.data(), (uint16_t *)(v.data() + v.size()),
                uint16_t(t == AMP_RT_BF16 ? 0x3f80 : 0x3c00));
  }
};

/// Median and quartiles of new/old speed over `pairs` alternating pairs.
bool compare(const Shape &s, const Build &oldB, const Build &newB, int pairs,
             bool oldF32, double q[3], double gfs[2]) {
  int64_t nA = s.M * s.K, nB = s.K * s.N, nC = s.M * s.N;
  Operands newOps(s, s.in, s.lowOut ? s.in : AMP_RT_F32);
  Operands oldOps = oldF32 ? Operands(s, AMP_RT_F32, AMP_RT_F32) : newOps;
  auto run = [&](const Build &b) {
    Operands &o = &b == &oldB ? oldOps : newOps;
    return b.gemm(o.in, o.out, s.ta, s.tb, s.M, s.N, s.K, 1.0f, o.A.data(),
                  s.ta ? s.M : s.K, nA, o.B.data(), s.tb ? s.K : s.N, nB, 0.0f,
                  o.C.data(), s.N, nC, s.batch);
  };
  for (const Build *b : {&oldB, &newB})
    for (int i = 0; i < 3; ++i)
      if (run(*b) != AMP_RT_SUCCESS) {
        std::fprintf(stderr, "amp-bench-runtime-ab: %s: %s: %s\n",
                     b->path.c_str(), s.text.c_str(), b->lastError());
        return false;
      }
  std::vector<double> ratios, tOld, tNew;
  for (int i = 0; i < pairs; ++i) {
    bool newFirst = i % 2;
    double t0 = seconds();
    run(newFirst ? newB : oldB);
    double t1 = seconds();
    run(newFirst ? oldB : newB);
    double t2 = seconds();
    double o = newFirst ? t2 - t1 : t1 - t0, n = newFirst ? t1 - t0 : t2 - t1;
    ratios.push_back(o / n);
    tOld.push_back(o);
    tNew.push_back(n);
  }
  auto at = [](std::vector<double> &v, double f) {
    std::sort(v.begin(), v.end());
    return v[size_t(f * double(v.size() - 1) + 0.5)];
  };
  q[0] = at(ratios, 0.25), q[1] = at(ratios, 0.5), q[2] = at(ratios, 0.75);
  double flop = 2.0 * double(s.M) * double(s.N) * double(s.K) * s.batch;
  gfs[0] = flop / at(tOld, 0.5) / 1e9;
  gfs[1] = flop / at(tNew, 0.5) / 1e9;
  return true;
}

} // namespace

int main(int argc, char **argv) {
  int pairs = 40;
  bool oldF32 = false;
  std::vector<const char *> libs;
  std::vector<Shape> shapes;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    Shape s;
    if (a.rfind("--pairs=", 0) == 0 && (pairs = std::atoi(a.c_str() + 8)) > 1)
      continue;
    if (a == "--old-f32") {
      oldF32 = true;
      continue;
    }
    if (libs.size() < 2 && a.rfind("--", 0) != 0) {
      libs.push_back(argv[i]);
    } else if (parseShape(a, s)) {
      shapes.push_back(s);
    } else {
      std::fprintf(stderr,
                   "amp-bench-runtime-ab: bad argument '%s'\nusage: %s OLD.so "
                   "NEW.so [--pairs=N] [--old-f32] "
                   "MxNxK[:ta][:tb][:bf16|:f16][:o16][:bN]...\n",
                   argv[i], argv[0]);
      return 2;
    }
  }
  if (libs.size() != 2 || shapes.empty()) {
    std::fprintf(stderr,
                 "usage: %s OLD.so NEW.so [--pairs=N] [--old-f32] "
                 "MxNxK[:ta][:tb][:bf16|:f16][:o16][:bN]...\n",
                 argv[0]);
    return 2;
  }
  Build oldB, newB;
  if (!load(libs[0], oldB) || !load(libs[1], newB))
    return 1;
  CpuInfo cpu = readCpuInfo();
  std::printf("GEMM, two libamp_rt builds in one process, alternating calls "
              "(%d pairs, order swapped every pair)\n",
              pairs);
  std::printf("CPU: %s (cpu family %d, model %d), avx512_bf16: %s\n",
              cpu.model.c_str(), cpu.family, cpu.modelNumber,
              cpu.avx512bf16 ? "yes" : "no");
  std::printf("old: %s%s\nnew: %s\nload average at start: %s\n\n", libs[0],
              oldF32 ? " (in f32)" : "", libs[1], loadAverage().c_str());
  std::printf("%-22s %-22s %9s %9s   %s\n", "shape", "problem", "old GF/s",
              "new GF/s", "new/old speed: median (quartiles)");
  for (const Shape &s : shapes) {
    double q[3] = {}, gfs[2] = {};
    if (!compare(s, oldB, newB, pairs, oldF32, q, gfs))
      return 1;
    std::printf("%-22s %-22s %9.1f %9.1f   %.3f (%.3f-%.3f)\n", s.text.c_str(),
                describe(s).c_str(), gfs[0], gfs[1], q[1], q[0], q[2]);
  }
  std::printf("\nload average at end: %s\n", loadAverage().c_str());
  return 0;
}
