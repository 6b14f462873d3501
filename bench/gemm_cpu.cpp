//===- gemm_cpu.cpp - amp_rt cpu GEMM vs OpenBLAS sgemm, in one run -------===//
//
// For each shape: OpenBLAS cblas_sgemm on f32 data, then amp_rt_gemm on the
// same values stored as f16 and as bf16 (f32 accumulation, f32 output),
// interleaved round by round so machine noise hits all three alike; the best
// time of each is reported as GFLOP/s, with the ratio amp_rt / sgemm.
//
// Usage: amp-bench-gemm-cpu [--quick] [--min-time=SECONDS]
// Threads: OPENBLAS_NUM_THREADS (OpenBLAS and amp_rt's own conversion pool
// both follow it); bench/gemm_cpu.sh sets it.
//
//===----------------------------------------------------------------------===//

#include "amp_rt.h"

#include <cblas.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

extern "C" int openblas_get_num_threads(void);

namespace {

struct Shape {
  int64_t M, N, K;
};

double seconds() {
  using Clock = std::chrono::steady_clock;
  return std::chrono::duration<double>(Clock::now().time_since_epoch()).count();
}

void check(amp_rt_status s, const char *what) {
  if (s != AMP_RT_SUCCESS) {
    std::fprintf(stderr, "%s failed: %s\n", what, amp_rt_last_error());
    std::exit(1);
  }
}

} // namespace

int main(int argc, char **argv) {
  bool quick = false;
  double minTime = 0.4;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--quick") == 0)
      quick = true;
    else if (std::strncmp(argv[i], "--min-time=", 11) == 0)
      minTime = std::atof(argv[i] + 11);
    else {
      std::fprintf(stderr, "usage: %s [--quick] [--min-time=SECONDS]\n",
                   argv[0]);
      return 2;
    }
  }
  check(amp_rt_select_backend("cpu"), "amp_rt_select_backend(cpu)");
  std::vector<Shape> shapes = {{256, 256, 256},
                               {512, 512, 512},
                               {1024, 1024, 1024},
                               {2048, 2048, 2048},
                               {2000, 1000, 3000}};
  if (quick)
    shapes = {{256, 256, 256}, {512, 512, 512}, {1000, 500, 300}};

  const char *env = std::getenv("OPENBLAS_NUM_THREADS");
  std::printf("amp_rt backend: %s; OPENBLAS_NUM_THREADS=%s (OpenBLAS uses "
              "%d threads)\n",
              amp_rt_backend_name(), env ? env : "<unset>",
              openblas_get_num_threads());
  std::printf("row-major C = A*B, f32 output, beta = 0; best of >= 3 rounds "
              "and >= %.1f s per variant\n\n",
              minTime);
  std::printf("%-16s %12s %12s %12s %10s %10s\n", "M x N x K", "sgemm GF/s",
              "f16 GF/s", "bf16 GF/s", "f16/sgemm", "bf16/sgemm");

  std::mt19937 rng(1);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  bool allGood = true;
  for (const Shape &s : shapes) {
    size_t na = size_t(s.M * s.K), nb = size_t(s.K * s.N),
           nc = size_t(s.M * s.N);
    std::vector<float> a(na), b(nb), c(nc);
    std::vector<uint16_t> ah(na), bh(nb), ab(na), bb(nb);
    for (float &v : a)
      v = amp_rt_f16_to_f32(amp_rt_f32_to_f16(dist(rng)));
    for (float &v : b)
      v = amp_rt_f16_to_f32(amp_rt_f32_to_f16(dist(rng)));
    check(amp_rt_convert(AMP_RT_F16, ah.data(), AMP_RT_F32, a.data(), na),
          "cvt");
    check(amp_rt_convert(AMP_RT_F16, bh.data(), AMP_RT_F32, b.data(), nb),
          "cvt");
    check(amp_rt_convert(AMP_RT_BF16, ab.data(), AMP_RT_F32, a.data(), na),
          "cvt");
    check(amp_rt_convert(AMP_RT_BF16, bb.data(), AMP_RT_F32, b.data(), nb),
          "cvt");

    auto sgemm = [&] {
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, int(s.M), int(s.N),
                  int(s.K), 1.0f, a.data(), int(s.K), b.data(), int(s.N), 0.0f,
                  c.data(), int(s.N));
    };
    auto amp = [&](amp_rt_dtype t, const uint16_t *x, const uint16_t *y) {
      check(amp_rt_gemm(t, AMP_RT_F32, 0, 0, s.M, s.N, s.K, 1.0f, x, s.K, y,
                        s.N, 0.0f, c.data(), s.N),
            "amp_rt_gemm");
    };
    // Warm up every variant once (thread pools, page faults, caches).
    sgemm();
    amp(AMP_RT_F16, ah.data(), bh.data());
    amp(AMP_RT_BF16, ab.data(), bb.data());

    double best[3] = {1e30, 1e30, 1e30}, spent[3] = {0, 0, 0};
    for (int round = 0;
         round < 3 || std::min({spent[0], spent[1], spent[2]}) < minTime;
         ++round) {
      for (int v = 0; v < 3; ++v) {
        double t0 = seconds();
        if (v == 0)
          sgemm();
        else if (v == 1)
          amp(AMP_RT_F16, ah.data(), bh.data());
        else
          amp(AMP_RT_BF16, ab.data(), bb.data());
        double t = seconds() - t0;
        best[v] = std::min(best[v], t);
        spent[v] += t;
      }
    }
    double flops = 2.0 * double(s.M) * double(s.N) * double(s.K);
    double gf[3];
    for (int v = 0; v < 3; ++v)
      gf[v] = flops / best[v] * 1e-9;
    char name[64];
    std::snprintf(name, sizeof(name), "%lldx%lldx%lld", (long long)s.M,
                  (long long)s.N, (long long)s.K);
    std::printf("%-16s %12.1f %12.1f %12.1f %9.2fx %9.2fx\n", name, gf[0],
                gf[1], gf[2], gf[1] / gf[0], gf[2] / gf[0]);
    std::fflush(stdout);
    allGood &= gf[1] / gf[0] >= 0.9 && gf[2] / gf[0] >= 0.9;
  }
  std::printf("\ngoal (amp_rt >= 0.9x sgemm on every shape): %s\n",
              allGood ? "met" : "NOT met");
  return 0;
}
