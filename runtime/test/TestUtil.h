//===- TestUtil.h - shared helpers of the libamp_rt unit tests --*- C++ -*-===//

#ifndef AMP_RT_TEST_TESTUTIL_H
#define AMP_RT_TEST_TESTUTIL_H

#include "amp_rt.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace amp_rt_test {

/// Unit roundoff of each type (half an ulp at 1.0).
inline double unitRoundoff(amp_rt_dtype t) {
  return t == AMP_RT_F32   ? std::ldexp(1.0, -24)
         : t == AMP_RT_F16 ? std::ldexp(1.0, -11)
                           : std::ldexp(1.0, -8);
}

/// Half of the smallest subnormal spacing: the absolute rounding error floor.
inline double absoluteFloor(amp_rt_dtype t) {
  return t == AMP_RT_F16 ? std::ldexp(1.0, -25) : std::ldexp(1.0, -150);
}

/// Elements stored as bits: f32 as float, f16 / bf16 as uint16_t.
class Tensor {
public:
  Tensor() = default;
  Tensor(amp_rt_dtype t, size_t n)
      : type(t), words(n * (t == AMP_RT_F32 ? 2 : 1)) {}

  size_t size() const {
    return type == AMP_RT_F32 ? words.size() / 2 : words.size();
  }
  void *data() { return words.data(); }
  const void *data() const { return words.data(); }
  amp_rt_dtype dtype() const { return type; }

  double get(size_t i) const {
    if (type == AMP_RT_F32)
      return reinterpret_cast<const float *>(words.data())[i];
    return type == AMP_RT_F16 ? amp_rt_f16_to_f32(words[i])
                              : amp_rt_bf16_to_f32(words[i]);
  }
  /// Stores x rounded to the tensor's type.
  void set(size_t i, double x) {
    if (type == AMP_RT_F32)
      reinterpret_cast<float *>(words.data())[i] = float(x);
    else
      words[i] = type == AMP_RT_F16 ? amp_rt_f32_to_f16(float(x))
                                    : amp_rt_f32_to_bf16(float(x));
  }
  uint16_t bits16(size_t i) const { return words[i]; }

  /// Uniform values in [lo, hi], rounded to the type.
  void fillRandom(std::mt19937 &rng, double lo = -1.0, double hi = 1.0) {
    std::uniform_real_distribution<double> dist(lo, hi);
    for (size_t i = 0; i < size(); ++i)
      set(i, dist(rng));
  }
  void fill(double x) {
    for (size_t i = 0; i < size(); ++i)
      set(i, x);
  }

private:
  amp_rt_dtype type = AMP_RT_F32;
  std::vector<uint16_t> words;
};

/// A reference value with the sum of absolute terms that bounds its error.
struct Ref {
  double value = 0.0, magnitude = 0.0;
};

/// Error bound for an f32-accumulated sum of `terms` products, scaled by
/// |alpha|, plus |beta * old|, then rounded once to `out`.
inline double tolerance(const Ref &r, int64_t terms, amp_rt_dtype out,
                        double alpha = 1.0, double betaOld = 0.0) {
  double u32 = std::ldexp(1.0, -24);
  double accumulate = 2.0 * double(terms + 2) * u32 *
                      (std::fabs(alpha) * r.magnitude + std::fabs(betaOld));
  double exact = alpha * r.value + betaOld;
  double rounding = out == AMP_RT_F32 ? 0.0
                                      : unitRoundoff(out) * std::fabs(exact) +
                                            absoluteFloor(out);
  return accumulate + rounding + 1e-30;
}

/// Every (input, output) type pair a contraction takes: f32 -> f32, and
/// f16 / bf16 -> f32 or themselves.
struct TypePair {
  amp_rt_dtype in, out;
};
inline std::vector<TypePair> contractionTypes() {
  return {{AMP_RT_F32, AMP_RT_F32},
          {AMP_RT_F16, AMP_RT_F32},
          {AMP_RT_F16, AMP_RT_F16},
          {AMP_RT_BF16, AMP_RT_F32},
          {AMP_RT_BF16, AMP_RT_BF16}};
}

inline std::string statusText(amp_rt_status s) {
  return std::string(amp_rt_status_string(s)) + ": " + amp_rt_last_error();
}

#define AMP_RT_ASSERT_OK(expr)                                                 \
  do {                                                                         \
    amp_rt_status s_ = (expr);                                                 \
    ASSERT_EQ(s_, AMP_RT_SUCCESS) << ::amp_rt_test::statusText(s_);            \
  } while (false)

/// Whether the cpu backend runs bf16 natively right now.
inline bool cpuNativeBf16() {
  return std::string(amp_rt_cpu_kernels()).find(" native (") !=
         std::string::npos;
}

/// Fixture parameterized by backend name; cuda skips without a device.
/// "cpu_widened" is the cpu backend with native bf16 switched off, so every
/// case also checks the path that CPUs without AVX512_BF16 take.
class BackendTest : public ::testing::TestWithParam<const char *> {
protected:
  void SetUp() override {
    nativeBefore = cpuNativeBf16();
    std::string param = GetParam();
    std::string backend = param == "cpu_widened" ? "cpu" : param;
    amp_rt_status s = amp_rt_select_backend(backend.c_str());
    if (s != AMP_RT_SUCCESS && backend == "cuda")
      GTEST_SKIP() << "no usable CUDA device: " << amp_rt_last_error();
    ASSERT_EQ(s, AMP_RT_SUCCESS) << statusText(s);
    ASSERT_EQ(amp_rt_backend_name(), backend);
    if (param == "cpu_widened") {
      ASSERT_EQ(amp_rt_cpu_set_native_bf16(0), AMP_RT_SUCCESS);
    }
  }
  void TearDown() override {
    amp_rt_cpu_set_native_bf16(nativeBefore ? 1 : 0);
    amp_rt_select_backend("cpu");
  }

private:
  bool nativeBefore = false;
};

inline std::string
backendName(const ::testing::TestParamInfo<const char *> &i) {
  return i.param;
}

#define AMP_RT_INSTANTIATE_BACKENDS(Fixture)                                   \
  INSTANTIATE_TEST_SUITE_P(Backends, Fixture,                                  \
                           ::testing::Values("cpu", "cpu_widened", "cuda"),    \
                           ::amp_rt_test::backendName)

} // namespace amp_rt_test

#endif // AMP_RT_TEST_TESTUTIL_H
