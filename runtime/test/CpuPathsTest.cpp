//===- CpuPathsTest.cpp - the cpu backend's kernel choice -----------------===//
//
// The native bf16 path (oneDNN on AVX512_BF16) against the widened one that
// CPUs without AVX512_BF16 take, the switches, numerics at bf16's limits,
// the primitive cache, concurrent callers, and f32 contractions that must
// not be rounded to a shorter format. Cases that need the native path skip
// (with the reason) on CPUs without it.
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include <atomic>
#include <limits>
#include <thread>

using namespace amp_rt_test;

namespace {

bool contains(const char *s, const char *part) {
  return std::string(s).find(part) != std::string::npos;
}

/// The cpu backend, restoring the native bf16 switch afterwards.
class CpuTest : public ::testing::Test {
protected:
  void SetUp() override {
    nativeBefore = cpuNativeBf16();
    AMP_RT_ASSERT_OK(amp_rt_select_backend("cpu"));
  }
  void TearDown() override { amp_rt_cpu_set_native_bf16(nativeBefore); }

private:
  bool nativeBefore = false;
};

#define AMP_RT_REQUIRE_NATIVE_BF16()                                           \
  do {                                                                         \
    if (amp_rt_cpu_set_native_bf16(1) != AMP_RT_SUCCESS)                       \
      GTEST_SKIP() << "no native bf16 here: " << amp_rt_last_error();          \
  } while (false)

/// C (MxN, f32 or bf16) = A (MxK) B (KxN) with bf16 inputs.
std::vector<double> bf16Gemm(const Tensor &A, const Tensor &B, amp_rt_dtype c,
                             int64_t M, int64_t N, int64_t K) {
  Tensor C(c, size_t(M * N));
  amp_rt_status s = amp_rt_gemm(AMP_RT_BF16, c, 0, 0, M, N, K, 1.0f, A.data(),
                                K, B.data(), N, 0.0f, C.data(), N);
  EXPECT_EQ(s, AMP_RT_SUCCESS) << statusText(s);
  std::vector<double> out(C.size());
  for (size_t i = 0; i < C.size(); ++i)
    out[i] = C.get(i);
  return out;
}

TEST_F(CpuTest, KernelsDescriptionAndSwitch) {
  const char *k = amp_rt_cpu_kernels();
  ASSERT_NE(k, nullptr);
  EXPECT_TRUE(contains(k, "bf16: ") && contains(k, "; f16: ") &&
              contains(k, "; f32: "))
      << k;
  AMP_RT_ASSERT_OK(amp_rt_cpu_set_native_bf16(0));
  EXPECT_FALSE(cpuNativeBf16());
  EXPECT_TRUE(contains(amp_rt_cpu_kernels(), "bf16: widened to f32"))
      << amp_rt_cpu_kernels();
  amp_rt_status s = amp_rt_cpu_set_native_bf16(1);
  if (s == AMP_RT_SUCCESS) {
    EXPECT_TRUE(cpuNativeBf16());
    // On AVX512_BF16, or on oneDNN's emulation (AMP_RT_CPU_BF16=emulate).
    EXPECT_TRUE(contains(amp_rt_cpu_kernels(), "native (avx512_bf16)") ||
                contains(amp_rt_cpu_kernels(),
                         "native (emulated: AVX-512 without AVX512_BF16"))
        << amp_rt_cpu_kernels();
  } else {
    // A CPU without AVX512_BF16 (or a oneDNN that refuses bf16) says why.
    EXPECT_EQ(s, AMP_RT_ERROR_UNSUPPORTED);
    EXPECT_TRUE(contains(amp_rt_last_error(), "amp_rt_cpu_set_native_bf16"))
        << amp_rt_last_error();
    EXPECT_FALSE(cpuNativeBf16());
  }
}

TEST_F(CpuTest, NativeMatchesWidened) {
  AMP_RT_REQUIRE_NATIVE_BF16();
  std::mt19937 rng(61);
  const int64_t M = 129, N = 257, K = 300;
  Tensor A(AMP_RT_BF16, M * K), B(AMP_RT_BF16, K * N);
  A.fillRandom(rng);
  B.fillRandom(rng);
  // |A| |B|, in f32, bounds the accumulation error of either path.
  Tensor absA(AMP_RT_F32, M * K), absB(AMP_RT_F32, K * N),
      mag(AMP_RT_F32, M * N);
  for (size_t i = 0; i < A.size(); ++i)
    absA.set(i, std::fabs(A.get(i)));
  for (size_t i = 0; i < B.size(); ++i)
    absB.set(i, std::fabs(B.get(i)));
  AMP_RT_ASSERT_OK(amp_rt_gemm(AMP_RT_F32, AMP_RT_F32, 0, 0, M, N, K, 1.0f,
                               absA.data(), K, absB.data(), N, 0.0f, mag.data(),
                               N));
  for (amp_rt_dtype c : {AMP_RT_F32, AMP_RT_BF16}) {
    AMP_RT_ASSERT_OK(amp_rt_cpu_set_native_bf16(1));
    std::vector<double> native = bf16Gemm(A, B, c, M, N, K);
    AMP_RT_ASSERT_OK(amp_rt_cpu_set_native_bf16(0));
    std::vector<double> widened = bf16Gemm(A, B, c, M, N, K);
    for (size_t i = 0; i < native.size(); ++i) {
      double tol = 4.0 * (K + 2) * std::ldexp(1.0, -24) * mag.get(i) +
                   2.0 * unitRoundoff(c) * std::fabs(widened[i]) + 1e-30;
      ASSERT_NEAR(native[i], widened[i], tol) << "element " << i << " c " << c;
    }
  }
}

TEST_F(CpuTest, PrimitiveCacheEvictionKeepsResultsRight) {
  // More distinct problems than the cache holds, then the first again.
  std::mt19937 rng(67);
  const int64_t N = 3, K = 5;
  auto check = [&](int64_t M) {
    Tensor A(AMP_RT_BF16, M * K), B(AMP_RT_BF16, K * N);
    A.fillRandom(rng);
    B.fillRandom(rng);
    std::vector<double> c = bf16Gemm(A, B, AMP_RT_F32, M, N, K);
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = 0; j < N; ++j) {
        Ref r;
        for (int64_t k = 0; k < K; ++k) {
          double p = A.get(i * K + k) * B.get(k * N + j);
          r.value += p;
          r.magnitude += std::fabs(p);
        }
        ASSERT_NEAR(c[i * N + j], r.value, tolerance(r, K, AMP_RT_F32));
      }
  };
  for (int64_t M = 1; M <= 160; ++M)
    ASSERT_NO_FATAL_FAILURE(check(M));
  ASSERT_NO_FATAL_FAILURE(check(1));
}

TEST_F(CpuTest, ConcurrentCallersWhileTheSwitchFlips) {
  // The runtime serializes calls; the switch may flip between them.
  std::atomic<bool> stop{false}, ok{true};
  std::thread flipper([&] {
    for (int i = 0; !stop; ++i) {
      amp_rt_cpu_set_native_bf16(i & 1);
      std::this_thread::yield();
    }
  });
  std::vector<std::thread> workers;
  for (int t = 0; t < 3; ++t)
    workers.emplace_back([&, t] {
      const amp_rt_dtype types[3] = {AMP_RT_BF16, AMP_RT_F16, AMP_RT_F32};
      const int64_t M = 17 + t, N = 9, K = 12;
      Tensor A(types[t], M * K), B(types[t], K * N);
      A.fill(0.5);
      B.fill(0.25);
      for (int i = 0; i < 30; ++i) {
        Tensor C(AMP_RT_F32, M * N);
        if (amp_rt_gemm(types[t], AMP_RT_F32, 0, 0, M, N, K, 1.0f, A.data(), K,
                        B.data(), N, 0.0f, C.data(), N) != AMP_RT_SUCCESS)
          ok = false;
        for (size_t j = 0; j < C.size(); ++j)
          if (C.get(j) != K * 0.125)
            ok = false;
      }
    });
  for (std::thread &w : workers)
    w.join();
  stop = true;
  flipper.join();
  EXPECT_TRUE(ok);
}

/// Each case once with native bf16 (skipped without it), once widened.
class CpuPathTest : public CpuTest, public ::testing::WithParamInterface<bool> {
protected:
  void SetUp() override {
    CpuTest::SetUp();
    if (GetParam())
      AMP_RT_REQUIRE_NATIVE_BF16();
    else
      AMP_RT_ASSERT_OK(amp_rt_cpu_set_native_bf16(0));
  }
};

/// 1 x 1 result of a K-term bf16 dot product of a[i] * b[i].
double dot(const std::vector<double> &a, const std::vector<double> &b,
           amp_rt_dtype out, float alpha = 1.0f) {
  int64_t K = int64_t(a.size());
  Tensor A(AMP_RT_BF16, K), B(AMP_RT_BF16, K), C(out, 1);
  for (int64_t k = 0; k < K; ++k) {
    A.set(k, a[k]);
    B.set(k, b[k]);
    EXPECT_EQ(A.get(k), a[k]) << "not a bf16 value";
    EXPECT_EQ(B.get(k), b[k]) << "not a bf16 value";
  }
  amp_rt_status s = amp_rt_gemm(AMP_RT_BF16, out, 0, 0, 1, 1, K, alpha,
                                A.data(), K, B.data(), 1, 0.0f, C.data(), 1);
  EXPECT_EQ(s, AMP_RT_SUCCESS) << statusText(s);
  return C.get(0);
}

TEST_P(CpuPathTest, ValuesNearTheBf16Limits) {
  const double big = std::ldexp(1.0, 127), inf = HUGE_VAL;
  // 1.5 * 2^127 (2.6e38) is finite in the f32 sum and in bf16.
  for (amp_rt_dtype c : {AMP_RT_F32, AMP_RT_BF16})
    EXPECT_EQ(dot({big, big}, {0.75, 0.75}, c), 1.5 * big);
  // (2 - 2^-8) * 2^127 (3.396e38) fits f32 but rounds past bf16's largest
  // finite value (ties to even): inf in bf16 only.
  double nearMax = (2.0 - std::ldexp(1.0, -8)) * big;
  EXPECT_EQ(dot({big, big * (1 - std::ldexp(1.0, -8))}, {1, 1}, AMP_RT_F32),
            nearMax);
  EXPECT_EQ(dot({big, big * (1 - std::ldexp(1.0, -8))}, {1, 1}, AMP_RT_BF16),
            inf);
  // alpha scales the f32 sum, near the top of the range too.
  EXPECT_EQ(dot({big, big}, {0.75, 0.75}, AMP_RT_F32, 0.5f), 0.75 * big);
  // Tiny normal values: 4 * 2^-60 * 2^-60 = 2^-118, exact.
  double tiny = std::ldexp(1.0, -60);
  for (amp_rt_dtype c : {AMP_RT_F32, AMP_RT_BF16})
    EXPECT_EQ(dot({tiny, tiny, tiny, tiny}, {tiny, tiny, tiny, tiny}, c),
              std::ldexp(1.0, -118));
  // Subnormal bf16 inputs (2^-130) with normal products (2^-120): exact
  // when widened; VDPBF16PS treats subnormal inputs as zero (DAZ), so the
  // native path may lose them.
  double sub = std::ldexp(1.0, -130), exact = std::ldexp(1.0, -118);
  double got = dot({sub, sub, sub, sub}, {1024, 1024, 1024, 1024}, AMP_RT_F32);
  if (GetParam())
    EXPECT_TRUE(got == exact || got == 0.0) << got;
  else
    EXPECT_EQ(got, exact);
}

TEST_P(CpuPathTest, BetaNonZeroPropagatesNaNInOutput) {
  // C = A B + 1 * C: a NaN already in C stays NaN, its neighbours do not.
  for (amp_rt_dtype c : {AMP_RT_F32, AMP_RT_BF16}) {
    Tensor A(AMP_RT_BF16, 4 * 3), B(AMP_RT_BF16, 3 * 5), C(c, 4 * 5);
    A.fill(1.0);
    B.fill(0.5);
    C.fill(2.0);
    C.set(7, std::numeric_limits<double>::quiet_NaN());
    AMP_RT_ASSERT_OK(amp_rt_gemm(AMP_RT_BF16, c, 0, 0, 4, 5, 3, 1.0f, A.data(),
                                 3, B.data(), 5, 1.0f, C.data(), 5));
    for (size_t i = 0; i < C.size(); ++i) {
      if (i == 7)
        EXPECT_TRUE(std::isnan(C.get(i)));
      else
        EXPECT_EQ(C.get(i), 3.5) << i;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Paths, CpuPathTest, ::testing::Values(true, false),
                         [](const ::testing::TestParamInfo<bool> &i) {
                           return i.param ? "native_bf16" : "widened";
                         });

/// f32 contractions stay f32: inputs with bits below bf16's and TF32's
/// precision must change the result.
class F32Test : public BackendTest {};

TEST_P(F32Test, InputsAreNotRoundedToAShorterFormat) {
  const float x = 1.0f + std::ldexp(1.0f, -20); // 1 in bf16 and TF32
  const float expected = x * x;                 // 1 + 2^-19 in f32
  Tensor A(AMP_RT_F32, 1), B(AMP_RT_F32, 1), C(AMP_RT_F32, 1);
  A.set(0, x);
  B.set(0, x);
  AMP_RT_ASSERT_OK(amp_rt_gemm(AMP_RT_F32, AMP_RT_F32, 0, 0, 1, 1, 1, 1.0f,
                               A.data(), 1, B.data(), 1, 0.0f, C.data(), 1));
  EXPECT_EQ(C.get(0), expected);
  // A 1x1 convolution of one pixel and one channel is the same product.
  amp_rt_conv2d_desc d{AMP_RT_NHWC,
                       AMP_RT_FILTER_DEFAULT,
                       1,
                       1,
                       1,
                       1,
                       1,
                       1,
                       1,
                       0,
                       0,
                       1,
                       1,
                       1,
                       1};
  Tensor Y(AMP_RT_F32, 1);
  AMP_RT_ASSERT_OK(amp_rt_conv2d_forward(&d, AMP_RT_F32, AMP_RT_F32, 1.0f,
                                         A.data(), B.data(), 0.0f, Y.data()));
  EXPECT_EQ(Y.get(0), expected);
  // The MLIR entry points accumulate: C += A B.
  amp_rt_memref_2d a{A.data(), A.data(), 0, {1, 1}, {1, 1}};
  amp_rt_memref_2d b{B.data(), B.data(), 0, {1, 1}, {1, 1}};
  amp_rt_memref_2d c{C.data(), C.data(), 0, {1, 1}, {1, 1}};
  amp_rt_clear_error();
  _mlir_ciface_amp_rt_matmul_f32_f32(&a, &b, &c, 0, 0);
  ASSERT_EQ(amp_rt_last_status(), AMP_RT_SUCCESS) << amp_rt_last_error();
  EXPECT_EQ(C.get(0), expected + expected);
  amp_rt_memref_4d i4{A.data(), A.data(), 0, {1, 1, 1, 1}, {1, 1, 1, 1}};
  amp_rt_memref_4d f4{B.data(), B.data(), 0, {1, 1, 1, 1}, {1, 1, 1, 1}};
  amp_rt_memref_4d o4{Y.data(), Y.data(), 0, {1, 1, 1, 1}, {1, 1, 1, 1}};
  _mlir_ciface_amp_rt_conv2d_nchw_fchw_f32_f32(&i4, &f4, &o4, 1, 1, 1, 1);
  ASSERT_EQ(amp_rt_last_status(), AMP_RT_SUCCESS) << amp_rt_last_error();
  EXPECT_EQ(Y.get(0), expected + expected);
}

AMP_RT_INSTANTIATE_BACKENDS(F32Test);

} // namespace
