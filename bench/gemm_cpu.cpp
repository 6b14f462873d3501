//===- gemm_cpu.cpp - amp_rt cpu GEMM vs OpenBLAS and oneDNN, in one run --===//
//
// For each shape (row-major C = A*B, f32 output, beta = 0), six contenders
// on the same values (k/64, exact in every format), interleaved round by
// round so machine noise hits them alike, best sample of each:
//
//   sgemm      OpenBLAS cblas_sgemm, f32
//   dnnl-f32   oneDNN matmul f32 -> f32 (plain row-major memory, primitive
//              created once per shape outside the timed loop)
//   amp-f32    amp_rt_gemm(F32, F32)   (n/a while the runtime lacks it)
//   amp-f16    amp_rt_gemm(F16, F32)
//   amp-bf16   amp_rt_gemm(BF16, F32)
//   dnnl-bf16  oneDNN matmul bf16 -> f32 (n/a where oneDNN has no bf16
//              matmul, e.g. AVX2-only CPUs, or only its reference one)
//
// Ratios: amp-bf16 / best f32 (best of sgemm, dnnl-f32, amp-f32),
// amp-bf16 / dnnl-bf16, amp-f32 / best f32, each next to its goal
// (docs/performance.md).
//
// Usage: amp-bench-gemm-cpu [--quick] [--min-time=S] [--min-rounds=N]
//                           [--gap=S] [--stable-rounds=N] [--max-rounds=N]
//                           [--shapes=MxNxK,...] [--list-shapes]
//                           [--torch-results=FILE] [--torch-note=TEXT]
// Threads: OPENBLAS_NUM_THREADS, OMP_NUM_THREADS (oneDNN) and
// AMP_RT_NUM_THREADS; bench/gemm_cpu.sh sets all three to 2.
//
//===----------------------------------------------------------------------===//

#include "bench_util.h"

#include <cblas.h>

#include <memory>

using namespace ampbench;

namespace {

struct Shape {
  int64_t M, N, K;
  std::string key() const {
    return std::to_string(M) + "x" + std::to_string(N) + "x" +
           std::to_string(K);
  }
};

bool parseShapes(const char *s, std::vector<Shape> &out) {
  out.clear();
  std::string str(s);
  std::stringstream ss(str);
  std::string item;
  while (std::getline(ss, item, ',')) {
    long long m, n, k;
    if (std::sscanf(item.c_str(), "%lldx%lldx%lld", &m, &n, &k) != 3 ||
        m <= 0 || n <= 0 || k <= 0)
      return false;
    out.push_back({m, n, k});
  }
  return !out.empty();
}

/// A oneDNN matmul C(f32) = A(t) * B(t) on plain row-major memory.
struct DnnlMatmul {
  dnnl::engine eng{dnnl::engine::kind::cpu, 0};
  dnnl::stream strm{eng};
  dnnl::matmul prim;
  dnnl::memory a, b, c;
  std::string impl;

  /// Empty string on success, else why the primitive cannot be used.
  std::string init(const Shape &s, dnnl::memory::data_type t, void *A, void *B,
                   float *C) {
    using dt = dnnl::memory::data_type;
    using tag = dnnl::memory::format_tag;
    try {
      dnnl::memory::desc ad({s.M, s.K}, t, tag::ab);
      dnnl::memory::desc bd({s.K, s.N}, t, tag::ab);
      dnnl::memory::desc cd({s.M, s.N}, dt::f32, tag::ab);
      dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(ad, bd, cd), eng);
      impl = pd.impl_info_str();
      if (impl.rfind("ref", 0) == 0)
        return "only oneDNN's reference matmul (" + impl + ")";
      prim = dnnl::matmul(pd);
      a = dnnl::memory(ad, eng, A);
      b = dnnl::memory(bd, eng, B);
      c = dnnl::memory(cd, eng, C);
    } catch (const dnnl::error &e) {
      return std::string("no oneDNN matmul for this type on this CPU (") +
             e.what() + ")";
    }
    return "";
  }
  void run() {
    prim.execute(strm,
                 {{DNNL_ARG_SRC, a}, {DNNL_ARG_WEIGHTS, b}, {DNNL_ARG_DST, c}});
    strm.wait();
  }
};

/// The command line.
struct Options {
  bool quick = false, listShapes = false;
  double minTime = 0.5;
  int minRounds = 5;
  const char *torchFile = nullptr;
  std::string torchNote;
  std::vector<Shape> shapes = {{512, 512, 512},    {1024, 1024, 1024},
                               {2048, 2048, 2048}, {4096, 4096, 4096},
                               {2000, 1000, 3000}, {512, 2048, 2048}};
};

/// Reads the flags into `o`; false on a bad one.
bool parseArgs(int argc, char **argv, Options &o) {
  bool customShapes = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--quick") == 0)
      o.quick = true;
    else if (std::strcmp(argv[i], "--list-shapes") == 0)
      o.listShapes = true;
    else if (std::strncmp(argv[i], "--min-time=", 11) == 0)
      o.minTime = std::atof(argv[i] + 11);
    else if (std::strncmp(argv[i], "--min-rounds=", 13) == 0)
      o.minRounds = std::atoi(argv[i] + 13);
    else if (std::strncmp(argv[i], "--gap=", 6) == 0)
      gapSeconds() = std::atof(argv[i] + 6);
    else if (std::strncmp(argv[i], "--stable-rounds=", 16) == 0)
      stableRounds() = std::atoi(argv[i] + 16);
    else if (std::strncmp(argv[i], "--max-rounds=", 13) == 0)
      maxRounds() = std::atoi(argv[i] + 13);
    else if (std::strncmp(argv[i], "--torch-results=", 16) == 0)
      o.torchFile = argv[i] + 16;
    else if (std::strncmp(argv[i], "--torch-note=", 13) == 0)
      o.torchNote = argv[i] + 13;
    else if (std::strncmp(argv[i], "--shapes=", 9) == 0 &&
             parseShapes(argv[i] + 9, o.shapes))
      customShapes = true;
    else
      return false;
  }
  if (o.quick && !customShapes) {
    o.shapes = {{256, 256, 256}, {512, 512, 512}, {1000, 500, 300}};
    o.minTime = std::min(o.minTime, 0.1);
    o.minRounds = std::min(o.minRounds, 3);
    stableRounds() = std::min(stableRounds(), 1);
  }
  return true;
}

/// One goal over the shapes: how many meet it, and the worst ratio.
struct Goal {
  int shapes = 0, met = 0;
  double worst = 1e30;
  void add(double ratio, double goal) {
    ++shapes;
    met += ratio >= goal;
    worst = std::min(worst, ratio);
  }
  void print(const char *what) const {
    if (shapes == 0)
      std::printf("goal %-34s n/a (not measured)\n", what);
    else
      std::printf("goal %-34s %s (%d of %d shapes meet it; worst %.2fx)\n",
                  what, met == shapes ? "met" : "NOT met", met, shapes, worst);
  }
};

/// What the run accumulates over its shapes.
struct RunState {
  const Options &opts;
  CpuInfo cpu;
  double goalBf16VsF32;
  std::map<std::string, std::map<std::string, double>> torch;
  Notes notes;
  Goal bf16VsF32, bf16VsDnnl, f32VsBest;
  // The best f32 rate and amp-bf16 rate of any shape (bench/train_step.py).
  double topF32 = 0, topBf16 = 0;
  std::string topF32Where, topBf16Where;

  void note(const std::string &n) { notes.add(n); }
};

/// A ratio with its verdict against `goal` where the goal applies.
std::string verdict(double r, bool ok, double goal, bool applies) {
  std::string t = fmtRatio(r, ok);
  if (ok && applies) {
    // A miss that rounds to the goal shows a third digit (0.948x).
    if (r < goal && std::round(r * 100) >= std::round(goal * 100)) {
      char b[32];
      std::snprintf(b, sizeof(b), "%.3fx", r);
      t = b;
    }
    t += r >= goal ? " ok" : " MISS";
  }
  return t;
}

/// The operands of one shape in every input type, and sgemm's result.
struct Operands {
  std::vector<float> a, b, c, ref;
  std::vector<uint16_t> ah, bh, ab, bb;
  explicit Operands(const Shape &s)
      : a(size_t(s.M * s.K)), b(size_t(s.K * s.N)), c(size_t(s.M * s.N)),
        ref(c.size()), ah(a.size()), bh(b.size()), ab(a.size()), bb(b.size()) {
    fillExact(a, 1);
    fillExact(b, 2);
    amp_rt_convert(AMP_RT_F16, ah.data(), AMP_RT_F32, a.data(), a.size());
    amp_rt_convert(AMP_RT_F16, bh.data(), AMP_RT_F32, b.data(), b.size());
    amp_rt_convert(AMP_RT_BF16, ab.data(), AMP_RT_F32, a.data(), a.size());
    amp_rt_convert(AMP_RT_BF16, bb.data(), AMP_RT_F32, b.data(), b.size());
  }
};

/// amp_rt_gemm on inputs of type `t`, checked against sgemm's result.
void setUpAmpVariant(Variant &v, const char *name, amp_rt_dtype t,
                     const void *x, const void *y, const Shape &s, Operands &o,
                     RunState &run) {
  v.name = name;
  v.run = [&s, &o, t, x, y] {
    amp_rt_gemm(t, AMP_RT_F32, 0, 0, s.M, s.N, s.K, 1.0f, x, s.K, y, s.N, 0.0f,
                o.c.data(), s.N);
  };
  std::fill(o.c.begin(), o.c.end(), -7.0f);
  amp_rt_clear_error();
  amp_rt_status st = amp_rt_gemm(t, AMP_RT_F32, 0, 0, s.M, s.N, s.K, 1.0f, x,
                                 s.K, y, s.N, 0.0f, o.c.data(), s.N);
  if (st != AMP_RT_SUCCESS) {
    v.why = std::string(name) + ": " + amp_rt_status_string(st) + ": " +
            amp_rt_last_error();
    return;
  }
  double d = maxRelDiff(o.c.data(), o.ref.data(), o.c.size());
  if (d > 1e-4)
    run.note(std::string(name) + ": result differs from sgemm (max rel " +
             std::to_string(d) + ")");
  v.ok = true;
}

/// oneDNN's own matmul on inputs of type `t`, checked against sgemm's.
void setUpDnnlVariant(Variant &v, const char *name, DnnlMatmul &d,
                      dnnl::memory::data_type t, void *x, void *y,
                      const Shape &s, Operands &o, RunState &run) {
  v.name = name;
  v.why = d.init(s, t, x, y, o.c.data());
  if (!v.why.empty()) {
    v.why = std::string(name) + ": " + v.why;
    return;
  }
  v.run = [&d] { d.run(); };
  std::fill(o.c.begin(), o.c.end(), -7.0f);
  d.run();
  double diff = maxRelDiff(o.c.data(), o.ref.data(), o.c.size());
  if (diff > 1e-4)
    run.note(std::string(name) + ": result differs from sgemm (max rel " +
             std::to_string(diff) + ")");
  run.note(std::string(name) + " implementation: " + d.impl);
  v.ok = true;
}

/// The torch.mm columns of one shape, when a torch run was given.
void printTorchColumns(const Shape &s, const RunState &run) {
  if (run.torch.empty())
    return;
  auto it = run.torch.find(s.key());
  auto col = [&](const char *k) {
    if (it == run.torch.end() || !it->second.count(k))
      return std::string("n/a");
    return fmt(it->second.at(k), true);
  };
  std::printf(" %9s %10s", col("f32").c_str(), col("bf16").c_str());
}

/// Measures every variant on one shape and prints its row.
void runShape(const Shape &s, RunState &run) {
  Operands o(s);
  Variant vSgemm, vDnnlF32, vAmpF32, vAmpF16, vAmpBf16, vDnnlBf16;
  vSgemm.name = "sgemm";
  vSgemm.ok = true;
  vSgemm.run = [&] {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, int(s.M), int(s.N),
                int(s.K), 1.0f, o.a.data(), int(s.K), o.b.data(), int(s.N),
                0.0f, o.c.data(), int(s.N));
  };
  vSgemm.run();
  o.ref = o.c;
  setUpAmpVariant(vAmpF32, "amp-f32", AMP_RT_F32, o.a.data(), o.b.data(), s, o,
                  run);
  setUpAmpVariant(vAmpF16, "amp-f16", AMP_RT_F16, o.ah.data(), o.bh.data(), s,
                  o, run);
  setUpAmpVariant(vAmpBf16, "amp-bf16", AMP_RT_BF16, o.ab.data(), o.bb.data(),
                  s, o, run);
  std::unique_ptr<DnnlMatmul> dF32(new DnnlMatmul), dBf16(new DnnlMatmul);
  setUpDnnlVariant(vDnnlF32, "dnnl-f32", *dF32, dnnl::memory::data_type::f32,
                   o.a.data(), o.b.data(), s, o, run);
  setUpDnnlVariant(vDnnlBf16, "dnnl-bf16", *dBf16,
                   dnnl::memory::data_type::bf16, o.ab.data(), o.bb.data(), s,
                   o, run);

  std::vector<Variant *> vs = {&vSgemm,  &vDnnlF32, &vAmpF32,
                               &vAmpF16, &vAmpBf16, &vDnnlBf16};
  for (Variant *v : vs)
    if (!v->ok)
      run.note(v->why);
  measureInterleaved(vs, run.opts.minTime, run.opts.minRounds);

  double flops = 2.0 * double(s.M) * double(s.N) * double(s.K);
  auto gf = [&](const Variant &v) { return flops / v.best * 1e-9; };
  double bestF32 = 0;
  for (Variant *v : {&vSgemm, &vDnnlF32, &vAmpF32})
    if (v->ok) {
      bestF32 = std::max(bestF32, gf(*v));
      if (gf(*v) > run.topF32) {
        run.topF32 = gf(*v);
        run.topF32Where = v->name + " at " + s.key();
      }
    }
  if (vAmpBf16.ok && gf(vAmpBf16) > run.topBf16) {
    run.topBf16 = gf(vAmpBf16);
    run.topBf16Where = "amp-bf16 at " + s.key();
  }

  std::printf("%-15s %7s %8s %7s %7s %8s %9s", s.key().c_str(),
              fmt(gf(vSgemm), vSgemm.ok).c_str(),
              fmt(gf(vDnnlF32), vDnnlF32.ok).c_str(),
              fmt(gf(vAmpF32), vAmpF32.ok).c_str(),
              fmt(gf(vAmpF16), vAmpF16.ok).c_str(),
              fmt(gf(vAmpBf16), vAmpBf16.ok).c_str(),
              fmt(gf(vDnnlBf16), vDnnlBf16.ok).c_str());
  printTorchColumns(s, run);
  double rBf16F32 = vAmpBf16.ok ? gf(vAmpBf16) / bestF32 : NAN;
  double rBf16Dnnl =
      vAmpBf16.ok && vDnnlBf16.ok ? gf(vAmpBf16) / gf(vDnnlBf16) : NAN;
  double rF32 = vAmpF32.ok ? gf(vAmpF32) / bestF32 : NAN;
  std::printf(
      " | %-15s %-15s %-15s\n",
      verdict(rBf16F32, vAmpBf16.ok, run.goalBf16VsF32, true).c_str(),
      verdict(rBf16Dnnl, vAmpBf16.ok && vDnnlBf16.ok, 0.95, run.cpu.avx512bf16)
          .c_str(),
      verdict(rF32, vAmpF32.ok, 0.95, true).c_str());
  std::fflush(stdout);
  if (vAmpBf16.ok)
    run.bf16VsF32.add(rBf16F32, run.goalBf16VsF32);
  if (vAmpBf16.ok && vDnnlBf16.ok && run.cpu.avx512bf16)
    run.bf16VsDnnl.add(rBf16Dnnl, 0.95);
  if (vAmpF32.ok)
    run.f32VsBest.add(rF32, 0.95);
}

/// The goals over all shapes, the best rates and the notes.
void printSummary(RunState &run) {
  std::printf("\n");
  char g[64];
  std::snprintf(g, sizeof(g), "amp-bf16 >= %.2fx best f32:", run.goalBf16VsF32);
  run.bf16VsF32.print(g);
  if (run.cpu.avx512bf16)
    run.bf16VsDnnl.print("amp-bf16 >= 0.95x dnnl-bf16:");
  run.f32VsBest.print("amp-f32 >= 0.95x best f32:");
  std::printf("best f32 GEMM rate: %.1f GF/s (%s)\n", run.topF32,
              run.topF32Where.c_str());
  if (run.topBf16 > 0)
    std::printf("best amp-bf16 GEMM rate: %.1f GF/s (%s)\n", run.topBf16,
                run.topBf16Where.c_str());
  if (run.torch.empty())
    run.notes.add("torch.mm: " + (run.opts.torchNote.empty()
                                      ? std::string("not measured")
                                      : run.opts.torchNote));
  else
    run.notes.add("torch-f32 / torch-bf16: torch.mm in a separate "
                  "process before this run (bench/torch_bench.py), not "
                  "interleaved");
  run.notes.printWithLoad();
}

} // namespace

int main(int argc, char **argv) {
  Options opts;
  if (!parseArgs(argc, argv, opts)) {
    std::fprintf(stderr,
                 "usage: %s [--quick] [--min-time=S] [--min-rounds=N] "
                 "[--gap=S] [--stable-rounds=N] [--max-rounds=N] "
                 "[--shapes=MxNxK,...] [--list-shapes] "
                 "[--torch-results=FILE] [--torch-note=TEXT]\n",
                 argv[0]);
    return 2;
  }
  if (opts.listShapes) {
    for (const Shape &s : opts.shapes)
      std::printf("%s\n", s.key().c_str());
    return 0;
  }
  if (!selectCpuBackend())
    return 1;
  RunState run{opts, printHeader("GEMM: row-major C = A*B, f32 output, beta = "
                                 "0; GF/s of the best sample, variants "
                                 "interleaved in one run")};
  std::printf("rounds: >= %d, >= %.2f s per variant, until no best improved "
              "in %d rounds (at most %d); samples >= 0.05 s, each after %.2f "
              "s idle\n",
              opts.minRounds, opts.minTime, stableRounds(), maxRounds(),
              gapSeconds());
  run.torch = readExternal(opts.torchFile);
  run.goalBf16VsF32 = run.cpu.avx512bf16 ? 1.8 : 0.95;
  std::printf("goals: amp-bf16 >= %.2fx best f32%s; amp-f32 >= 0.95x best "
              "f32\n\n",
              run.goalBf16VsF32,
              run.cpu.avx512bf16 ? " and >= 0.95x dnnl-bf16 (AVX512_BF16)"
                                 : " (no AVX512_BF16)");
  std::printf("%-15s %7s %8s %7s %7s %8s %9s", "M x N x K", "sgemm", "dnnl-f32",
              "amp-f32", "amp-f16", "amp-bf16", "dnnl-bf16");
  if (!run.torch.empty())
    std::printf(" %9s %10s", "torch-f32", "torch-bf16");
  std::printf(" | %-15s %-15s %-15s\n", "bf16/best-f32", "bf16/dnnl-bf16",
              "f32/best-f32");
  for (const Shape &s : opts.shapes)
    runShape(s, run);
  printSummary(run);
  return 0;
}
