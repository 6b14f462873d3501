//===- ApiTest.cpp - backend selection, buffers and bad arguments ---------===//

#include "TestUtil.h"

#include <cstdlib>
#include <limits>
#include <string>

using namespace amp_rt_test;

namespace {

bool contains(const char *haystack, const char *needle) {
  return std::string(haystack).find(needle) != std::string::npos;
}

/// Restores AMP_RT_BACKEND and the cpu backend after a test.
class SelectionTest : public ::testing::Test {
protected:
  void SetUp() override {
    const char *env = std::getenv("AMP_RT_BACKEND");
    saved = env ? env : "";
    hadEnv = env != nullptr;
  }
  void TearDown() override {
    if (hadEnv)
      setenv("AMP_RT_BACKEND", saved.c_str(), 1);
    else
      unsetenv("AMP_RT_BACKEND");
    amp_rt_select_backend("cpu");
  }
  std::string saved;
  bool hadEnv = false;
};

TEST_F(SelectionTest, ExplicitAndEnvironmentSelection) {
  AMP_RT_ASSERT_OK(amp_rt_select_backend("cpu"));
  EXPECT_STREQ(amp_rt_backend_name(), "cpu");
  setenv("AMP_RT_BACKEND", "cpu", 1);
  AMP_RT_ASSERT_OK(amp_rt_select_backend(nullptr));
  EXPECT_STREQ(amp_rt_backend_name(), "cpu");
  // Without AMP_RT_BACKEND the default is cuda when it works, else cpu.
  unsetenv("AMP_RT_BACKEND");
  AMP_RT_ASSERT_OK(amp_rt_select_backend(""));
  EXPECT_STREQ(amp_rt_backend_name(), amp_rt_cuda_available() ? "cuda" : "cpu");
}

TEST_F(SelectionTest, UnknownBackendIsAnError) {
  EXPECT_EQ(amp_rt_select_backend("tpu"), AMP_RT_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(contains(amp_rt_last_error(), "unknown backend 'tpu'"))
      << amp_rt_last_error();
  EXPECT_STREQ(amp_rt_backend_name(), "none");
  setenv("AMP_RT_BACKEND", "gpu0", 1);
  EXPECT_EQ(amp_rt_select_backend(nullptr), AMP_RT_ERROR_INVALID_ARGUMENT);
  // Calls fail (they do not fall back) until a backend is selected.
  float c = 0;
  uint16_t a = 0, b = 0;
  EXPECT_EQ(amp_rt_gemm(AMP_RT_F16, AMP_RT_F32, 0, 0, 1, 1, 1, 1.0f, &a, 1, &b,
                        1, 0.0f, &c, 1),
            AMP_RT_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(contains(amp_rt_last_error(), "AMP_RT_BACKEND"))
      << amp_rt_last_error();
  AMP_RT_ASSERT_OK(amp_rt_select_backend("cpu"));
}

TEST_F(SelectionTest, CudaWithoutDeviceIsAClearError) {
  if (amp_rt_cuda_available())
    GTEST_SKIP() << "a CUDA device is present; this checks its absence";
  EXPECT_EQ(amp_rt_select_backend("cuda"), AMP_RT_ERROR_BACKEND_UNAVAILABLE);
  EXPECT_TRUE(contains(amp_rt_last_error(), "cuda")) << amp_rt_last_error();
  EXPECT_STREQ(amp_rt_backend_name(), "none");
  float c = 0;
  uint16_t a = 0, b = 0;
  EXPECT_EQ(amp_rt_gemm(AMP_RT_F16, AMP_RT_F32, 0, 0, 1, 1, 1, 1.0f, &a, 1, &b,
                        1, 0.0f, &c, 1),
            AMP_RT_ERROR_BACKEND_UNAVAILABLE);
  EXPECT_TRUE(contains(amp_rt_last_error(), "amp_rt_gemm"))
      << amp_rt_last_error();
  AMP_RT_ASSERT_OK(amp_rt_select_backend("cpu"));
}

class ArgumentTest : public BackendTest {};

TEST_P(ArgumentTest, GemmRejectsBadArguments) {
  uint16_t a[64] = {}, b[64] = {};
  float c[64] = {};
  auto gemm = [&](amp_rt_dtype ab, amp_rt_dtype ct, int64_t M, int64_t N,
                  int64_t K, const void *A, int64_t lda, const void *B,
                  int64_t ldb, void *C, int64_t ldc) {
    return amp_rt_gemm(ab, ct, 0, 0, M, N, K, 1.0f, A, lda, B, ldb, 0.0f, C,
                       ldc);
  };
  // f32 inputs need an f32 output.
  EXPECT_EQ(gemm(AMP_RT_F32, AMP_RT_F16, 2, 2, 2, a, 2, b, 2, c, 2),
            AMP_RT_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(contains(amp_rt_last_error(), "amp_rt_gemm: c_type"))
      << amp_rt_last_error();
  EXPECT_EQ(gemm(AMP_RT_F16, AMP_RT_BF16, 2, 2, 2, a, 2, b, 2, c, 2),
            AMP_RT_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(gemm(amp_rt_dtype(42), AMP_RT_F32, 2, 2, 2, a, 2, b, 2, c, 2),
            AMP_RT_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(contains(amp_rt_last_error(), "amp_rt_gemm: ab_type"))
      << amp_rt_last_error();
  EXPECT_EQ(gemm(AMP_RT_F16, AMP_RT_F32, -1, 2, 2, a, 2, b, 2, c, 2),
            AMP_RT_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(gemm(AMP_RT_F16, AMP_RT_F32, 2, 2, 4, a, 3, b, 2, c, 2),
            AMP_RT_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(contains(amp_rt_last_error(), "lda = 3 < 4"))
      << amp_rt_last_error();
  EXPECT_EQ(gemm(AMP_RT_F16, AMP_RT_F32, 2, 2, 2, nullptr, 2, b, 2, c, 2),
            AMP_RT_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(contains(amp_rt_last_error(), "a is NULL"))
      << amp_rt_last_error();
  EXPECT_EQ(gemm(AMP_RT_F16, AMP_RT_F32, 2, 2, 2, a, 2, b, 2, nullptr, 2),
            AMP_RT_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(gemm(AMP_RT_F16, AMP_RT_F32, 2, 3, 2, a, 2, b, 3, c, 2),
            AMP_RT_ERROR_INVALID_ARGUMENT); // ldc < N
  EXPECT_EQ(gemm(AMP_RT_F16, AMP_RT_F32, int64_t(1) << 40, 1 << 20, 1, a, 1, b,
                 1 << 20, c, 1 << 20),
            AMP_RT_ERROR_INVALID_ARGUMENT); // spans too many elements
  // Overlapping C matrices in a batch.
  EXPECT_EQ(amp_rt_gemm_batched(AMP_RT_F16, AMP_RT_F32, 0, 0, 2, 2, 2, 1.0f, a,
                                2, 4, b, 2, 4, 0.0f, c, 2, 3, 2),
            AMP_RT_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(contains(amp_rt_last_error(), "overlap")) << amp_rt_last_error();
  EXPECT_EQ(amp_rt_gemm_batched(AMP_RT_F16, AMP_RT_F32, 0, 0, 2, 2, 2, 1.0f, a,
                                2, -4, b, 2, 4, 0.0f, c, 2, 4, 2),
            AMP_RT_ERROR_INVALID_ARGUMENT);
  // Nothing was written by any failed call.
  for (float v : c)
    ASSERT_EQ(v, 0.0f);
}

TEST_P(ArgumentTest, ConvRejectsBadArguments) {
  uint16_t x[256] = {}, w[256] = {};
  float y[256] = {};
  amp_rt_conv2d_desc d{};
  d.layout = AMP_RT_NHWC;
  d.N = 1, d.H = 4, d.W = 4, d.C = 2, d.K = 2, d.R = 3, d.S = 3;
  d.stride_h = d.stride_w = d.dil_h = d.dil_w = 1;
  int64_t P = 0, Q = 0;
  AMP_RT_ASSERT_OK(amp_rt_conv2d_output_size(&d, &P, &Q));
  EXPECT_EQ(P, 2);
  EXPECT_EQ(Q, 2);
  auto fwd = [&](const amp_rt_conv2d_desc *dd) {
    return amp_rt_conv2d_forward(dd, AMP_RT_F16, AMP_RT_F32, 1.0f, x, w, 0.0f,
                                 y);
  };
  EXPECT_EQ(fwd(nullptr), AMP_RT_ERROR_INVALID_ARGUMENT);
  amp_rt_conv2d_desc bad = d;
  bad.stride_h = 0;
  EXPECT_EQ(fwd(&bad), AMP_RT_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(contains(amp_rt_last_error(), "stride_h = 0"))
      << amp_rt_last_error();
  bad = d;
  bad.dil_h = 2; // effective 5x3 filter on a 4x4 input
  EXPECT_EQ(fwd(&bad), AMP_RT_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(contains(amp_rt_last_error(), "does not fit"))
      << amp_rt_last_error();
  bad = d;
  bad.layout = amp_rt_layout(5);
  EXPECT_EQ(fwd(&bad), AMP_RT_ERROR_INVALID_ARGUMENT);
  bad = d;
  bad.filter_layout = amp_rt_filter_layout(9);
  EXPECT_EQ(fwd(&bad), AMP_RT_ERROR_INVALID_ARGUMENT);
  bad = d;
  bad.pad_w = -1;
  EXPECT_EQ(fwd(&bad), AMP_RT_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(
      amp_rt_conv2d_forward(&d, AMP_RT_F16, AMP_RT_BF16, 1.0f, x, w, 0.0f, y),
      AMP_RT_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(amp_rt_conv2d_backward_data(&d, AMP_RT_BF16, AMP_RT_F32, 1.0f,
                                        nullptr, w, 0.0f, y),
            AMP_RT_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(contains(amp_rt_last_error(), "dy is NULL"))
      << amp_rt_last_error();
  EXPECT_EQ(amp_rt_conv2d_backward_filter(&d, AMP_RT_F16, AMP_RT_F32, 1.0f, x,
                                          w, 0.0f, nullptr),
            AMP_RT_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(amp_rt_conv2d_output_size(&d, nullptr, &Q),
            AMP_RT_ERROR_INVALID_ARGUMENT);
  for (float v : y)
    ASSERT_EQ(v, 0.0f);
}

TEST_P(ArgumentTest, LossScalingRejectsBadArguments) {
  float g[4] = {1, 2, 3, 4};
  void *t[1] = {g};
  amp_rt_dtype d[1] = {AMP_RT_F32};
  int64_t n[1] = {4};
  int32_t found = 0;
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(amp_rt_unscale_and_check(t, d, n, 1, inf, &found),
            AMP_RT_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(amp_rt_unscale_and_check(t, d, n, 1, 0.5f, nullptr),
            AMP_RT_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(amp_rt_unscale_and_check(nullptr, d, n, 1, 0.5f, &found),
            AMP_RT_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(amp_rt_unscale_and_check(t, d, n, -1, 0.5f, &found),
            AMP_RT_ERROR_INVALID_ARGUMENT);
  amp_rt_dtype badType[1] = {amp_rt_dtype(3)};
  EXPECT_EQ(amp_rt_unscale_and_check(t, badType, n, 1, 0.5f, &found),
            AMP_RT_ERROR_INVALID_ARGUMENT);
  int64_t negative[1] = {-4};
  EXPECT_EQ(amp_rt_unscale_and_check(t, d, negative, 1, 0.5f, &found),
            AMP_RT_ERROR_INVALID_ARGUMENT);
  void *nullTensor[1] = {nullptr};
  EXPECT_EQ(amp_rt_unscale_and_check(nullTensor, d, n, 1, 0.5f, &found),
            AMP_RT_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(g[0], 1.0f) << "a failed call changed a tensor";

  float scale = 4.0f;
  int32_t steps = 0;
  EXPECT_EQ(amp_rt_update_scale(nullptr, &steps, 0, 2, 0.5f, 10, 0, inf),
            AMP_RT_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(amp_rt_update_scale(&scale, nullptr, 0, 2, 0.5f, 10, 0, inf),
            AMP_RT_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(amp_rt_update_scale(&scale, &steps, 0, -2, 0.5f, 10, 0, inf),
            AMP_RT_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(amp_rt_update_scale(&scale, &steps, 0, 2, 0.0f, 10, 0, inf),
            AMP_RT_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(amp_rt_update_scale(&scale, &steps, 0, 2, 0.5f, 0, 0, inf),
            AMP_RT_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(amp_rt_update_scale(&scale, &steps, 0, 2, 0.5f, 10, 8, 4),
            AMP_RT_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(amp_rt_update_scale(&scale, &steps, 0, 2, 0.5f, 10, NAN, 4),
            AMP_RT_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(amp_rt_update_scale_from_flag(&scale, &steps, nullptr, 2, 0.5f, 10,
                                          0, inf),
            AMP_RT_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(scale, 4.0f);
  EXPECT_EQ(steps, 0);
}

TEST_P(ArgumentTest, BufferApi) {
  void *p = nullptr;
  EXPECT_EQ(amp_rt_buffer_create(0, &p), AMP_RT_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(amp_rt_buffer_create(16, nullptr), AMP_RT_ERROR_INVALID_ARGUMENT);
  AMP_RT_ASSERT_OK(amp_rt_buffer_create(64, &p));
  ASSERT_NE(p, nullptr);
  char host[64] = "resident bytes";
  char back[64] = {};
  AMP_RT_ASSERT_OK(amp_rt_buffer_upload(p, host, 64));
  AMP_RT_ASSERT_OK(amp_rt_buffer_download(back, p, 64));
  EXPECT_STREQ(back, host);
  // Sub-ranges are fine, running past the end is not.
  AMP_RT_ASSERT_OK(amp_rt_buffer_download(back, static_cast<char *>(p) + 9, 5));
  EXPECT_EQ(amp_rt_buffer_download(back, static_cast<char *>(p) + 9, 60),
            AMP_RT_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(amp_rt_buffer_upload(host, back, 8), AMP_RT_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(contains(amp_rt_last_error(), "amp_rt_buffer_upload"))
      << amp_rt_last_error();
  EXPECT_EQ(amp_rt_buffer_free(host), AMP_RT_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(amp_rt_buffer_free(static_cast<char *>(p) + 8),
            AMP_RT_ERROR_INVALID_ARGUMENT);
  AMP_RT_ASSERT_OK(amp_rt_buffer_free(p));
  EXPECT_EQ(amp_rt_buffer_free(p), AMP_RT_ERROR_INVALID_ARGUMENT)
      << "double free must be detected";
  AMP_RT_ASSERT_OK(amp_rt_buffer_free(nullptr));
  AMP_RT_ASSERT_OK(amp_rt_release_cached_memory());
  AMP_RT_ASSERT_OK(amp_rt_synchronize());
}

TEST(StatusTest, NamesAndErrorState) {
  EXPECT_STREQ(amp_rt_status_string(AMP_RT_ERROR_BACKEND),
               "AMP_RT_ERROR_BACKEND");
  EXPECT_STREQ(amp_rt_status_string(amp_rt_status(99)),
               "<unknown amp_rt_status>");
  amp_rt_clear_error();
  EXPECT_EQ(amp_rt_last_status(), AMP_RT_SUCCESS);
  EXPECT_STREQ(amp_rt_last_error(), "");
  EXPECT_EQ(amp_rt_gemm(AMP_RT_F16, AMP_RT_F32, 0, 0, -1, 1, 1, 1, nullptr, 1,
                        nullptr, 1, 0, nullptr, 1),
            AMP_RT_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(amp_rt_last_status(), AMP_RT_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(contains(amp_rt_last_error(), "negative size"));
}

AMP_RT_INSTANTIATE_BACKENDS(ArgumentTest);

} // namespace
