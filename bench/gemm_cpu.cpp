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

} // namespace

int main(int argc, char **argv) {
  bool quick = false, listShapes = false;
  double minTime = 0.5;
  int minRounds = 5;
  const char *torchFile = nullptr;
  std::string torchNote;
  std::vector<Shape> shapes = {{512, 512, 512},    {1024, 1024, 1024},
                               {2048, 2048, 2048}, {4096, 4096, 4096},
                               {2000, 1000, 3000}, {512, 2048, 2048}};
  bool customShapes = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--quick") == 0)
      quick = true;
    else if (std::strcmp(argv[i], "--list-shapes") == 0)
      listShapes = true;
    else if (std::strncmp(argv[i], "--min-time=", 11) == 0)
      minTime = std::atof(argv[i] + 11);
    else if (std::strncmp(argv[i], "--min-rounds=", 13) == 0)
      minRounds = std::atoi(argv[i] + 13);
    else if (std::strncmp(argv[i], "--gap=", 6) == 0)
      gapSeconds() = std::atof(argv[i] + 6);
    else if (std::strncmp(argv[i], "--stable-rounds=", 16) == 0)
      stableRounds() = std::atoi(argv[i] + 16);
    else if (std::strncmp(argv[i], "--max-rounds=", 13) == 0)
      maxRounds() = std::atoi(argv[i] + 13);
    else if (std::strncmp(argv[i], "--torch-results=", 16) == 0)
      torchFile = argv[i] + 16;
    else if (std::strncmp(argv[i], "--torch-note=", 13) == 0)
      torchNote = argv[i] + 13;
    else if (std::strncmp(argv[i], "--shapes=", 9) == 0 &&
             parseShapes(argv[i] + 9, shapes))
      customShapes = true;
    else {
      std::fprintf(stderr,
                   "usage: %s [--quick] [--min-time=S] [--min-rounds=N] "
                   "[--gap=S] [--stable-rounds=N] [--max-rounds=N] "
                   "[--shapes=MxNxK,...] [--list-shapes] "
                   "[--torch-results=FILE] [--torch-note=TEXT]\n",
                   argv[0]);
      return 2;
    }
  }
  if (quick && !customShapes) {
    shapes = {{256, 256, 256}, {512, 512, 512}, {1000, 500, 300}};
    minTime = std::min(minTime, 0.1);
    minRounds = std::min(minRounds, 3);
    stableRounds() = std::min(stableRounds(), 1);
  }
  if (listShapes) {
    for (const Shape &s : shapes)
      std::printf("%s\n", s.key().c_str());
    return 0;
  }

  if (amp_rt_select_backend("cpu") != AMP_RT_SUCCESS) {
    std::fprintf(stderr, "amp_rt_select_backend(cpu): %s\n",
                 amp_rt_last_error());
    return 1;
  }
  CpuInfo cpu = printHeader(
      "GEMM: row-major C = A*B, f32 output, beta = 0; GF/s of the best "
      "sample, variants interleaved in one run");
  std::printf("rounds: >= %d, >= %.2f s per variant, until no best improved "
              "in %d rounds (at most %d); samples >= 0.05 s, each after %.2f "
              "s idle\n",
              minRounds, minTime, stableRounds(), maxRounds(), gapSeconds());
  auto torch = readExternal(torchFile);
  bool haveTorch = !torch.empty();

  const double goalBf16VsF32 = cpu.avx512bf16 ? 1.8 : 0.95;
  std::printf("goals: amp-bf16 >= %.2fx best f32%s; amp-f32 >= 0.95x best "
              "f32\n\n",
              goalBf16VsF32,
              cpu.avx512bf16 ? " and >= 0.95x dnnl-bf16 (AVX512_BF16)"
                             : " (no AVX512_BF16)");

  std::printf("%-15s %7s %8s %7s %7s %8s %9s", "M x N x K", "sgemm", "dnnl-f32",
              "amp-f32", "amp-f16", "amp-bf16", "dnnl-bf16");
  if (haveTorch)
    std::printf(" %9s %10s", "torch-f32", "torch-bf16");
  std::printf(" | %-15s %-15s %-15s\n", "bf16/best-f32", "bf16/dnnl-bf16",
              "f32/best-f32");

  std::vector<std::string> notes;
  auto note = [&](const std::string &n) {
    if (std::find(notes.begin(), notes.end(), n) == notes.end())
      notes.push_back(n);
  };
  int shapesBf16F32 = 0, metBf16F32 = 0, shapesBf16Dnnl = 0, metBf16Dnnl = 0,
      shapesF32 = 0, metF32 = 0;
  double worstBf16F32 = 1e30, worstBf16Dnnl = 1e30, worstF32 = 1e30;
  // The best f32 rate and amp-bf16 rate of any shape (bench/train_step.py).
  double topF32 = 0, topBf16 = 0;
  std::string topF32Where, topBf16Where;

  for (const Shape &s : shapes) {
    size_t na = size_t(s.M * s.K), nb = size_t(s.K * s.N),
           nc = size_t(s.M * s.N);
    std::vector<float> a(na), b(nb), c(nc), ref(nc);
    std::vector<uint16_t> ah(na), bh(nb), ab(na), bb(nb);
    fillExact(a, 1);
    fillExact(b, 2);
    amp_rt_convert(AMP_RT_F16, ah.data(), AMP_RT_F32, a.data(), na);
    amp_rt_convert(AMP_RT_F16, bh.data(), AMP_RT_F32, b.data(), nb);
    amp_rt_convert(AMP_RT_BF16, ab.data(), AMP_RT_F32, a.data(), na);
    amp_rt_convert(AMP_RT_BF16, bb.data(), AMP_RT_F32, b.data(), nb);

    Variant vSgemm, vDnnlF32, vAmpF32, vAmpF16, vAmpBf16, vDnnlBf16;
    vSgemm.name = "sgemm";
    vSgemm.ok = true;
    vSgemm.run = [&] {
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, int(s.M), int(s.N),
                  int(s.K), 1.0f, a.data(), int(s.K), b.data(), int(s.N), 0.0f,
                  c.data(), int(s.N));
    };
    vSgemm.run();
    ref = c;

    auto ampVariant = [&](Variant &v, const char *name, amp_rt_dtype t,
                          const void *x, const void *y) {
      v.name = name;
      v.run = [&s, &c, t, x, y] {
        amp_rt_gemm(t, AMP_RT_F32, 0, 0, s.M, s.N, s.K, 1.0f, x, s.K, y, s.N,
                    0.0f, c.data(), s.N);
      };
      std::fill(c.begin(), c.end(), -7.0f);
      amp_rt_clear_error();
      amp_rt_status st = amp_rt_gemm(t, AMP_RT_F32, 0, 0, s.M, s.N, s.K, 1.0f,
                                     x, s.K, y, s.N, 0.0f, c.data(), s.N);
      if (st != AMP_RT_SUCCESS) {
        v.why = std::string(name) + ": " + amp_rt_status_string(st) + ": " +
                amp_rt_last_error();
        return;
      }
      double d = maxRelDiff(c.data(), ref.data(), nc);
      if (d > 1e-4)
        note(std::string(name) + ": result differs from sgemm (max rel " +
             std::to_string(d) + ")");
      v.ok = true;
    };
    ampVariant(vAmpF32, "amp-f32", AMP_RT_F32, a.data(), b.data());
    ampVariant(vAmpF16, "amp-f16", AMP_RT_F16, ah.data(), bh.data());
    ampVariant(vAmpBf16, "amp-bf16", AMP_RT_BF16, ab.data(), bb.data());

    std::unique_ptr<DnnlMatmul> dF32(new DnnlMatmul), dBf16(new DnnlMatmul);
    auto dnnlVariant = [&](Variant &v, const char *name, DnnlMatmul &d,
                           dnnl::memory::data_type t, void *x, void *y) {
      v.name = name;
      v.why = d.init(s, t, x, y, c.data());
      if (!v.why.empty()) {
        v.why = std::string(name) + ": " + v.why;
        return;
      }
      v.run = [&d] { d.run(); };
      std::fill(c.begin(), c.end(), -7.0f);
      d.run();
      double diff = maxRelDiff(c.data(), ref.data(), nc);
      if (diff > 1e-4)
        note(std::string(name) + ": result differs from sgemm (max rel " +
             std::to_string(diff) + ")");
      note(std::string(name) + " implementation: " + d.impl);
      v.ok = true;
    };
    dnnlVariant(vDnnlF32, "dnnl-f32", *dF32, dnnl::memory::data_type::f32,
                a.data(), b.data());
    dnnlVariant(vDnnlBf16, "dnnl-bf16", *dBf16, dnnl::memory::data_type::bf16,
                ab.data(), bb.data());

    std::vector<Variant *> vs = {&vSgemm,  &vDnnlF32, &vAmpF32,
                                 &vAmpF16, &vAmpBf16, &vDnnlBf16};
    for (Variant *v : vs)
      if (!v->ok)
        note(v->why);
    measureInterleaved(vs, minTime, minRounds);

    double flops = 2.0 * double(s.M) * double(s.N) * double(s.K);
    auto gf = [&](const Variant &v) { return flops / v.best * 1e-9; };
    double bestF32 = 0;
    for (Variant *v : {&vSgemm, &vDnnlF32, &vAmpF32})
      if (v->ok) {
        bestF32 = std::max(bestF32, gf(*v));
        if (gf(*v) > topF32) {
          topF32 = gf(*v);
          topF32Where = v->name + " at " + s.key();
        }
      }

    std::printf("%-15s %7s %8s %7s %7s %8s %9s", s.key().c_str(),
                fmt(gf(vSgemm), vSgemm.ok).c_str(),
                fmt(gf(vDnnlF32), vDnnlF32.ok).c_str(),
                fmt(gf(vAmpF32), vAmpF32.ok).c_str(),
                fmt(gf(vAmpF16), vAmpF16.ok).c_str(),
                fmt(gf(vAmpBf16), vAmpBf16.ok).c_str(),
                fmt(gf(vDnnlBf16), vDnnlBf16.ok).c_str());
    if (haveTorch) {
      auto it = torch.find(s.key());
      auto col = [&](const char *k) {
        if (it == torch.end() || !it->second.count(k))
          return std::string("n/a");
        return fmt(it->second.at(k), true);
      };
      std::printf(" %9s %10s", col("f32").c_str(), col("bf16").c_str());
    }
    auto verdict = [](double r, bool ok, double goal, bool applies) {
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
    };
    if (vAmpBf16.ok && gf(vAmpBf16) > topBf16) {
      topBf16 = gf(vAmpBf16);
      topBf16Where = "amp-bf16 at " + s.key();
    }
    double rBf16F32 = vAmpBf16.ok ? gf(vAmpBf16) / bestF32 : NAN;
    double rBf16Dnnl =
        vAmpBf16.ok && vDnnlBf16.ok ? gf(vAmpBf16) / gf(vDnnlBf16) : NAN;
    double rF32 = vAmpF32.ok ? gf(vAmpF32) / bestF32 : NAN;
    std::printf(
        " | %-15s %-15s %-15s\n",
        verdict(rBf16F32, vAmpBf16.ok, goalBf16VsF32, true).c_str(),
        verdict(rBf16Dnnl, vAmpBf16.ok && vDnnlBf16.ok, 0.95, cpu.avx512bf16)
            .c_str(),
        verdict(rF32, vAmpF32.ok, 0.95, true).c_str());
    std::fflush(stdout);
    if (vAmpBf16.ok) {
      ++shapesBf16F32;
      metBf16F32 += rBf16F32 >= goalBf16VsF32;
      worstBf16F32 = std::min(worstBf16F32, rBf16F32);
    }
    if (vAmpBf16.ok && vDnnlBf16.ok && cpu.avx512bf16) {
      ++shapesBf16Dnnl;
      metBf16Dnnl += rBf16Dnnl >= 0.95;
      worstBf16Dnnl = std::min(worstBf16Dnnl, rBf16Dnnl);
    }
    if (vAmpF32.ok) {
      ++shapesF32;
      metF32 += rF32 >= 0.95;
      worstF32 = std::min(worstF32, rF32);
    }
  }

  std::printf("\n");
  auto summary = [](const char *what, int met, int n, double worst) {
    if (n == 0)
      std::printf("goal %-34s n/a (not measured)\n", what);
    else
      std::printf("goal %-34s %s (%d of %d shapes meet it; worst %.2fx)\n",
                  what, met == n ? "met" : "NOT met", met, n, worst);
  };
  char g[64];
  std::snprintf(g, sizeof(g), "amp-bf16 >= %.2fx best f32:", goalBf16VsF32);
  summary(g, metBf16F32, shapesBf16F32, worstBf16F32);
  if (cpu.avx512bf16)
    summary("amp-bf16 >= 0.95x dnnl-bf16:", metBf16Dnnl, shapesBf16Dnnl,
            worstBf16Dnnl);
  summary("amp-f32 >= 0.95x best f32:", metF32, shapesF32, worstF32);
  std::printf("best f32 GEMM rate: %.1f GF/s (%s)\n", topF32,
              topF32Where.c_str());
  if (topBf16 > 0)
    std::printf("best amp-bf16 GEMM rate: %.1f GF/s (%s)\n", topBf16,
                topBf16Where.c_str());
  if (!haveTorch)
    notes.push_back("torch.mm: " + (torchNote.empty()
                                        ? std::string("not measured")
                                        : torchNote));
  else
    notes.push_back("torch-f32 / torch-bf16: torch.mm in a separate process "
                    "before this run (bench/torch_bench.py), not interleaved");
  std::printf("\nload average at end: %s\n", loadAverage().c_str());
  if (!notes.empty()) {
    std::printf("\nnotes:\n");
    for (const std::string &n : notes)
      std::printf("  %s\n", n.c_str());
  }
  return 0;
}
