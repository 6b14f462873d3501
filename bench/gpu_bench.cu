//===- gpu_bench.cu - amp_rt cuda GEMM / conv throughput ------------------===//
//
// TFLOP/s of the runtime's cuda backend (operands resident in
// amp_rt_buffer_create memory, so no transfers are timed) for f16 and bf16
// GEMMs and convolutions, next to cuBLAS f32 SGEMM on the same shapes and
// the device's dense f16 tensor-core peak. Without a device it prints
// "skipped: no CUDA device" and exits 0.
//
// Peak (dense f16 inputs, f32 accumulation) = SMs x clock x FLOP/clock/SM,
// with 2048 FLOP/clock/SM on sm_80 (A100: 108 SMs, 1.41 GHz -> 312 TFLOP/s)
// and 4096 on sm_90 (H100 SXM / H200: 132 SMs, 1.83 GHz -> 989 TFLOP/s).
// Other architectures print "n/a".
//
// Usage: amp-bench-gpu [--quick]
//
//===----------------------------------------------------------------------===//

#include "amp_rt.h"

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

namespace {

double now() {
  return std::chrono::duration<double>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

void check(amp_rt_status s, const char *what) {
  if (s != AMP_RT_SUCCESS) {
    std::fprintf(stderr, "%s failed: %s\n", what, amp_rt_last_error());
    std::exit(1);
  }
}

void checkCuda(cudaError_t e, const char *what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "%s failed: %s\n", what, cudaGetErrorString(e));
    std::exit(1);
  }
}

/// Seconds per call of `fn`, best of 5 timed batches after a warm-up.
template <typename F, typename Sync> double timeIt(F fn, Sync sync) {
  fn();
  sync();
  double t0 = now();
  fn();
  sync();
  double once = std::max(now() - t0, 1e-6);
  int reps = int(std::min(1000.0, std::max(3.0, 0.05 / once)));
  double best = 1e30;
  for (int batch = 0; batch < 5; ++batch) {
    double start = now();
    for (int i = 0; i < reps; ++i)
      fn();
    sync();
    best = std::min(best, (now() - start) / reps);
  }
  return best;
}

/// Resident runtime buffer of n 16-bit or 32-bit values, random in [-1, 1].
void *residentRandom(size_t n, amp_rt_dtype t, std::mt19937 &rng) {
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  size_t es = t == AMP_RT_F32 ? 4 : 2;
  std::vector<char> host(n * es);
  for (size_t i = 0; i < n; ++i) {
    float v = dist(rng);
    if (t == AMP_RT_F32)
      std::memcpy(&host[i * 4], &v, 4);
    else {
      uint16_t b =
          t == AMP_RT_F16 ? amp_rt_f32_to_f16(v) : amp_rt_f32_to_bf16(v);
      std::memcpy(&host[i * 2], &b, 2);
    }
  }
  void *p = nullptr;
  check(amp_rt_buffer_create(n * es, &p), "amp_rt_buffer_create");
  check(amp_rt_buffer_upload(p, host.data(), n * es), "amp_rt_buffer_upload");
  return p;
}

/// Prints the device and returns its dense f16 Tensor Core peak in TFLOP/s
/// (0 where this benchmark does not know the architecture's rate).
double describeDevice() {
  int dev = 0, sms = 0, clockKHz = 0;
  const char *env = std::getenv("AMP_RT_CUDA_DEVICE");
  if (env)
    dev = std::atoi(env);
  cudaDeviceProp prop;
  checkCuda(cudaGetDeviceProperties(&prop, dev), "cudaGetDeviceProperties");
  checkCuda(cudaSetDevice(dev), "cudaSetDevice");
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
  cudaDeviceGetAttribute(&clockKHz, cudaDevAttrClockRate, dev);
  int perClock = prop.major == 8 && prop.minor == 0   ? 2048
                 : prop.major == 9 && prop.minor == 0 ? 4096
                                                      : 0;
  double peak = double(sms) * clockKHz * 1e3 * perClock * 1e-12;
  std::printf("device %d: %s (sm_%d%d), %d SMs at %.2f GHz\n", dev, prop.name,
              prop.major, prop.minor, sms, clockKHz * 1e-6);
  if (peak > 0)
    std::printf("dense f16 tensor peak (f32 accumulate): %.0f TFLOP/s\n", peak);
  else
    std::printf("dense f16 tensor peak: n/a for this architecture\n");
  return peak;
}

/// The share of the peak, or "n/a"; the text lives until the next call.
const char *percentOfPeak(double tflops, double peak) {
  static char buf[32];
  if (peak <= 0)
    return "n/a";
  std::snprintf(buf, sizeof(buf), "%.0f%%", 100.0 * tflops / peak);
  return buf;
}

/// Square GEMMs: cuBLAS sgemm against libamp_rt's f16 / bf16 paths.
void benchGemms(bool quick, double peak, std::mt19937 &rng) {
  cublasHandle_t cublas;
  if (cublasCreate(&cublas) != CUBLAS_STATUS_SUCCESS) {
    std::fprintf(stderr, "cublasCreate failed\n");
    std::exit(1);
  }
  auto sync = [] { check(amp_rt_synchronize(), "amp_rt_synchronize"); };
  auto devSync = [] { checkCuda(cudaDeviceSynchronize(), "sync"); };

  std::printf("\nGEMM, row-major C = A*B, f32 accumulation, resident "
              "operands\n");
  std::printf("%-18s %10s %10s %10s %10s %12s %10s\n", "M x N x K",
              "sgemm TF/s", "f16 TF/s", "bf16 TF/s", "f16 peak%", "f16/sgemm",
              "f16->f16");
  std::vector<int64_t> sizes = {1024, 2048, 4096, 8192};
  if (quick)
    sizes = {1024, 2048};
  for (int64_t n : sizes) {
    int64_t M = n, N = n, K = n;
    double flops = 2.0 * M * N * K;
    void *a16 = residentRandom(M * K, AMP_RT_F16, rng);
    void *b16 = residentRandom(K * N, AMP_RT_F16, rng);
    void *ab = residentRandom(M * K, AMP_RT_BF16, rng);
    void *bb = residentRandom(K * N, AMP_RT_BF16, rng);
    void *c32 = nullptr, *c16 = nullptr;
    check(amp_rt_buffer_create(M * N * 4, &c32), "create");
    check(amp_rt_buffer_create(M * N * 2, &c16), "create");
    float *fa, *fb, *fc;
    checkCuda(cudaMalloc(&fa, M * K * 4), "cudaMalloc");
    checkCuda(cudaMalloc(&fb, K * N * 4), "cudaMalloc");
    checkCuda(cudaMalloc(&fc, M * N * 4), "cudaMalloc");
    checkCuda(cudaMemset(fa, 0, M * K * 4), "cudaMemset");
    checkCuda(cudaMemset(fb, 0, K * N * 4), "cudaMemset");
    float one = 1.0f, zero = 0.0f;
    double tS = timeIt(
        [&] {
          cublasSgemm(cublas, CUBLAS_OP_N, CUBLAS_OP_N, int(N), int(M), int(K),
                      &one, fb, int(N), fa, int(K), &zero, fc, int(N));
        },
        devSync);
    auto amp = [&](amp_rt_dtype ab_, amp_rt_dtype c_, const void *x,
                   const void *y, void *z) {
      return timeIt(
          [&] {
            check(amp_rt_gemm(ab_, c_, 0, 0, M, N, K, 1.0f, x, K, y, N, 0.0f, z,
                              N),
                  "amp_rt_gemm");
          },
          sync);
    };
    double t16 = amp(AMP_RT_F16, AMP_RT_F32, a16, b16, c32);
    double tb = amp(AMP_RT_BF16, AMP_RT_F32, ab, bb, c32);
    double t1616 = amp(AMP_RT_F16, AMP_RT_F16, a16, b16, c16);
    char name[48];
    std::snprintf(name, sizeof(name), "%lldx%lldx%lld", (long long)M,
                  (long long)N, (long long)K);
    std::printf("%-18s %10.1f %10.1f %10.1f %10s %11.1fx %10.1f\n", name,
                flops / tS * 1e-12, flops / t16 * 1e-12, flops / tb * 1e-12,
                percentOfPeak(flops / t16 * 1e-12, peak), tS / t16,
                flops / t1616 * 1e-12);
    for (void *p : {a16, b16, ab, bb, c32, c16})
      check(amp_rt_buffer_free(p), "free");
    cudaFree(fa);
    cudaFree(fb);
    cudaFree(fc);
  }

  cublasDestroy(cublas);
}

/// resnet-like NHWC convolutions in the three directions, 16-bit and f32
/// outputs.
void benchConvs(bool quick, double peak, std::mt19937 &rng) {
  auto sync = [] { check(amp_rt_synchronize(), "amp_rt_synchronize"); };
  std::printf("\nconv2d NHWC (KRSC filter), f32 accumulation, resident "
              "operands; f16->f32 runs in TF32 (exact for f16 inputs)\n");
  std::printf("%-34s %-8s %10s %10s %10s %10s\n", "N,H,W,C -> K, RxS/stride",
              "dir", "f16->f16", "bf16->bf16", "f16->f32", "f16 peak%");
  struct ConvShape {
    int64_t N, H, W, C, K, R, S, pad, stride;
  };
  std::vector<ConvShape> convs = {{32, 56, 56, 64, 64, 3, 3, 1, 1},
                                  {32, 28, 28, 128, 128, 3, 3, 1, 1},
                                  {32, 14, 14, 256, 256, 3, 3, 1, 1},
                                  {32, 56, 56, 256, 64, 1, 1, 0, 1},
                                  {32, 112, 112, 64, 128, 3, 3, 1, 2}};
  if (quick)
    convs.resize(2);
  for (const ConvShape &s : convs) {
    amp_rt_conv2d_desc d{};
    d.layout = AMP_RT_NHWC;
    d.N = s.N, d.H = s.H, d.W = s.W, d.C = s.C, d.K = s.K, d.R = s.R, d.S = s.S;
    d.pad_h = d.pad_w = s.pad;
    d.stride_h = d.stride_w = s.stride;
    d.dil_h = d.dil_w = 1;
    int64_t P, Q;
    check(amp_rt_conv2d_output_size(&d, &P, &Q), "output size");
    double flops = 2.0 * s.N * P * Q * s.K * s.C * s.R * s.S;
    int64_t xn = s.N * s.H * s.W * s.C, wn = s.K * s.R * s.S * s.C,
            yn = s.N * P * Q * s.K;
    void *x16 = residentRandom(xn, AMP_RT_F16, rng);
    void *w16 = residentRandom(wn, AMP_RT_F16, rng);
    void *y16 = residentRandom(yn, AMP_RT_F16, rng);
    void *xb = residentRandom(xn, AMP_RT_BF16, rng);
    void *wb = residentRandom(wn, AMP_RT_BF16, rng);
    void *yb = residentRandom(yn, AMP_RT_BF16, rng);
    void *x32 = nullptr, *w32 = nullptr, *y32 = nullptr;
    check(amp_rt_buffer_create(xn * 4, &x32), "create");
    check(amp_rt_buffer_create(wn * 4, &w32), "create");
    check(amp_rt_buffer_create(yn * 4, &y32), "create");
    char name[64];
    std::snprintf(
        name, sizeof(name), "%lld,%lld,%lld,%lld -> %lld, %lldx%lld/%lld",
        (long long)s.N, (long long)s.H, (long long)s.W, (long long)s.C,
        (long long)s.K, (long long)s.R, (long long)s.S, (long long)s.stride);
    for (int dir = 0; dir < 3; ++dir) {
      auto run = [&](amp_rt_dtype in, amp_rt_dtype out, void *x, void *w,
                     void *y, void *o32) {
        return timeIt(
            [&] {
              amp_rt_status st;
              if (dir == 0)
                st = amp_rt_conv2d_forward(&d, in, out, 1.0f, x, w, 0.0f,
                                           out == AMP_RT_F32 ? o32 : y);
              else if (dir == 1)
                st = amp_rt_conv2d_backward_data(&d, in, out, 1.0f, y, w, 0.0f,
                                                 out == AMP_RT_F32 ? o32 : x);
              else
                st = amp_rt_conv2d_backward_filter(
                    &d, in, out, 1.0f, x, y, 0.0f, out == AMP_RT_F32 ? o32 : w);
              check(st, "amp_rt_conv2d");
            },
            sync);
      };
      void *o32 = dir == 0 ? y32 : dir == 1 ? x32 : w32;
      // The 16-bit outputs overwrite an input of the other directions;
      // values stay bounded, which is all the timing needs.
      double th = run(AMP_RT_F16, AMP_RT_F16, x16, w16, y16, o32);
      double tbf = run(AMP_RT_BF16, AMP_RT_BF16, xb, wb, yb, o32);
      double tf = run(AMP_RT_F16, AMP_RT_F32, x16, w16, y16, o32);
      const char *dirName[] = {"fwd", "bwd-data", "bwd-filt"};
      std::printf("%-34s %-8s %10.1f %10.1f %10.1f %10s\n",
                  dir == 0 ? name : "", dirName[dir], flops / th * 1e-12,
                  flops / tbf * 1e-12, flops / tf * 1e-12,
                  percentOfPeak(flops / th * 1e-12, peak));
    }
    for (void *p : {x16, w16, y16, xb, wb, yb, x32, w32, y32})
      check(amp_rt_buffer_free(p), "free");
  }
}

} // namespace

int main(int argc, char **argv) {
  bool quick = argc > 1 && std::strcmp(argv[1], "--quick") == 0;
  if (amp_rt_select_backend("cuda") != AMP_RT_SUCCESS) {
    std::printf("skipped: no CUDA device (%s)\n", amp_rt_last_error());
    return 0;
  }
  double peak = describeDevice();
  std::mt19937 rng(1);
  benchGemms(quick, peak, rng);
  benchConvs(quick, peak, rng);
  return 0;
}
