//===- GemmTest.cpp - amp_rt_gemm / amp_rt_gemm_batched vs a f64 reference ===//

#include "TestUtil.h"

#include <limits>

using namespace amp_rt_test;

namespace {

struct GemmCase {
  int64_t M, N, K, batch;
  bool ta, tb;
  amp_rt_dtype ab, c;
  float alpha, beta;
  bool bcastA = false, bcastB = false; // batch stride 0
};

/// Runs one GEMM with random inputs (leading dimensions padded by `pad`)
/// and checks every element of C against a double reference.
void runGemm(const GemmCase &g, std::mt19937 &rng, int64_t pad = 0) {
  int64_t aRows = g.ta ? g.K : g.M, aCols = g.ta ? g.M : g.K;
  int64_t bRows = g.tb ? g.N : g.K, bCols = g.tb ? g.K : g.N;
  int64_t lda = std::max<int64_t>(aCols, 1) + pad;
  int64_t ldb = std::max<int64_t>(bCols, 1) + pad;
  int64_t ldc = std::max<int64_t>(g.N, 1) + pad;
  int64_t sa = aRows * lda + pad, sb = bRows * ldb, sc = g.M * ldc + 3 * pad;
  Tensor A(g.ab, size_t(sa * g.batch + 1)), B(g.ab, size_t(sb * g.batch + 1));
  Tensor C(g.c, size_t(sc * g.batch + 1));
  A.fillRandom(rng);
  B.fillRandom(rng);
  C.fillRandom(rng);
  Tensor C0 = C;
  if (g.bcastA)
    sa = 0;
  if (g.bcastB)
    sb = 0;
  AMP_RT_ASSERT_OK(amp_rt_gemm_batched(
      g.ab, g.c, g.ta, g.tb, g.M, g.N, g.K, g.alpha, A.data(), lda, sa,
      B.data(), ldb, sb, g.beta, C.data(), ldc, sc, g.batch));
  for (int64_t b = 0; b < g.batch; ++b)
    for (int64_t i = 0; i < g.M; ++i)
      for (int64_t j = 0; j < g.N; ++j) {
        Ref r;
        for (int64_t k = 0; k < g.K; ++k) {
          double a = A.get(size_t(b * sa + (g.ta ? k * lda + i : i * lda + k)));
          double v = B.get(size_t(b * sb + (g.tb ? j * ldb + k : k * ldb + j)));
          r.value += a * v;
          r.magnitude += std::fabs(a * v);
        }
        size_t idx = size_t(b * sc + i * ldc + j);
        double old = g.beta == 0.0f ? 0.0 : double(g.beta) * C0.get(idx);
        double expected = double(g.alpha) * r.value + old;
        ASSERT_NEAR(C.get(idx), expected, tolerance(r, g.K, g.c, g.alpha, old))
            << "batch " << b << " C[" << i << "][" << j << "] M=" << g.M
            << " N=" << g.N << " K=" << g.K << " ta=" << g.ta << " tb=" << g.tb;
      }
  // Padding between rows and matrices is never written.
  for (int64_t b = 0; b < g.batch; ++b)
    for (int64_t i = 0; i < g.M; ++i)
      for (int64_t j = g.N; j < ldc; ++j) {
        size_t idx = size_t(b * sc + i * ldc + j);
        ASSERT_EQ(C.get(idx), C0.get(idx)) << "padding written";
      }
}

class GemmTest : public BackendTest {};

TEST_P(GemmTest, ShapesTransposesAndTypes) {
  std::mt19937 rng(42);
  const int64_t shapes[][3] = {{1, 1, 1},     {7, 9, 13},   {64, 64, 64},
                               {129, 65, 33}, {8, 16, 24},  {1, 33, 129},
                               {129, 1, 7},   {33, 129, 1}, {7, 1, 1}};
  for (TypePair tp : contractionTypes())
    for (const auto &s : shapes)
      for (int t = 0; t < 4; ++t) {
        GemmCase g{s[0],         s[1],  s[2],   1,    (t & 1) != 0,
                   (t & 2) != 0, tp.in, tp.out, 1.0f, 0.0f};
        ASSERT_NO_FATAL_FAILURE(runGemm(g, rng));
      }
}

TEST_P(GemmTest, AlphaBetaAndPaddedLeadingDimensions) {
  std::mt19937 rng(7);
  for (TypePair tp : contractionTypes())
    for (int t = 0; t < 4; ++t) {
      GemmCase g{17,           23,    31,     1,      (t & 1) != 0,
                 (t & 2) != 0, tp.in, tp.out, -0.75f, 0.5f};
      ASSERT_NO_FATAL_FAILURE(runGemm(g, rng, /*pad=*/5));
    }
}

TEST_P(GemmTest, Batched) {
  std::mt19937 rng(3);
  for (TypePair tp : contractionTypes())
    for (int t = 0; t < 4; ++t) {
      GemmCase g{9,     7,      12,   5,   (t & 1) != 0, (t & 2) != 0,
                 tp.in, tp.out, 2.0f, 1.0f};
      ASSERT_NO_FATAL_FAILURE(runGemm(g, rng, /*pad=*/2));
    }
}

// Rows 256 floats (1 KiB) apart or a multiple of that: the widened copies of
// f16/bf16 operands get a padded leading dimension, and on oneDNN's AVX2
// sgemm such f32 GEMMs run on OpenBLAS (CPUBackend.cpp); batches and a
// broadcast operand walk the padded copies.
TEST_P(GemmTest, RowsAMultipleOf1KiBApart) {
  std::mt19937 rng(11);
  for (TypePair tp : contractionTypes())
    for (int t = 0; t < 4; ++t)
      for (int64_t batch : {1, 3}) {
        GemmCase g{5,     256,    512,  batch, (t & 1) != 0, (t & 2) != 0,
                   tp.in, tp.out, 1.0f, 0.0f,  false,        batch > 1};
        ASSERT_NO_FATAL_FAILURE(runGemm(g, rng));
      }
}

// K of 1024 and more: on AVX-512 CPUs without AVX512_BF16 oneDNN's f32
// matmuls then run its jit gemm instead of brgemm (DnnlMatmul.cpp), with
// alpha / beta, transposes, batches and padded leading dimensions.
TEST_P(GemmTest, LongReductions) {
  std::mt19937 rng(13);
  for (TypePair tp : contractionTypes())
    for (int t = 0; t < 4; ++t)
      for (int64_t batch : {1, 2}) {
        GemmCase g{19,           33,    1024,   batch, (t & 1) != 0,
                   (t & 2) != 0, tp.in, tp.out, 0.5f,  batch > 1 ? 1.0f : 0.0f};
        ASSERT_NO_FATAL_FAILURE(runGemm(g, rng, /*pad=*/batch > 1 ? 3 : 0));
      }
}

// A transposed with K >= 1024 and a wide output: the jit gemm there too
// (prefersJitGemm), B transposed on brgemm.
TEST_P(GemmTest, LongReductionsWideOutput) {
  std::mt19937 rng(17);
  for (TypePair tp : contractionTypes())
    for (int t = 0; t < 4; ++t) {
      GemmCase g{5,     1024,   1024, 1,   (t & 1) != 0, (t & 2) != 0,
                 tp.in, tp.out, 1.0f, 0.5f};
      ASSERT_NO_FATAL_FAILURE(runGemm(g, rng, /*pad=*/t == 1 ? 2 : 0));
    }
}

// Operands above the conversion grain (CpuCommon.h): the widened path cuts
// all operands of a call, every matrix of a batch and both inputs, into
// pieces for both threads, at row boundaries when a leading dimension is
// padded and anywhere in a dense one.
TEST_P(GemmTest, LargeOperandsWidenedInPieces) {
  std::mt19937 rng(23);
  for (TypePair tp : contractionTypes())
    for (int64_t pad : {0, 3}) {
      int64_t batch = pad ? 2 : 1;
      GemmCase g{520,   8,      520,  batch, pad != 0, false,
                 tp.in, tp.out, 1.0f, 0.0f,  false,    false};
      ASSERT_NO_FATAL_FAILURE(runGemm(g, rng, pad)) << "pad " << pad;
    }
}

// A batch of 16-bit outputs above the conversion grain: the widened path
// stores every matrix of the batch from its f32 result in one parallel
// region, over the flat elements when C is dense and row by row when its
// leading dimension (and batch stride) are padded. (Matrices this short in
// K are below the per-matrix path's size.)
TEST_P(GemmTest, LargeBatchedOutputsStoredInOneRegion) {
  std::mt19937 rng(29);
  for (TypePair tp : contractionTypes())
    for (int64_t pad : {0, 3}) {
      GemmCase g{130,   129,   4,      17,   pad != 0,
                 false, tp.in, tp.out, 1.5f, pad ? 0.5f : 0.0f};
      ASSERT_NO_FATAL_FAILURE(runGemm(g, rng, pad)) << "pad " << pad;
    }
}

// A batch of mid-sized matrices: where 16-bit operands are widened, each
// thread widens, multiplies and stores whole matrices in turn
// (widenedGemmPerMatrix), with transposes, padded leading dimensions,
// alpha / beta, 16-bit outputs and a broadcast operand widened once.
TEST_P(GemmTest, BatchOfMidSizedMatrices) {
  std::mt19937 rng(31);
  for (TypePair tp : contractionTypes())
    for (int t = 0; t < 4; ++t) {
      GemmCase g{64,    72,     40,    7,    (t & 1) != 0, (t & 2) != 0,
                 tp.in, tp.out, 0.75f, 0.5f, t == 1,       t == 2};
      ASSERT_NO_FATAL_FAILURE(runGemm(g, rng, /*pad=*/t == 3 ? 5 : 0))
          << "case " << t;
    }
}

// A tall A and a small B (a classifier's few outputs): the widened path
// runs A's rows in blocks that share one widened B, and the rows past the
// last whole block on their own; every transpose, a padded leading
// dimension, alpha / beta.
TEST_P(GemmTest, TallTimesNarrowInRowBlocks) {
  std::mt19937 rng(37);
  for (TypePair tp : contractionTypes())
    for (int t = 0; t < 4; ++t) {
      GemmCase g{700,          5,     600,    1,     (t & 1) != 0,
                 (t & 2) != 0, tp.in, tp.out, 1.25f, t == 3 ? 0.5f : 0.0f};
      ASSERT_NO_FATAL_FAILURE(runGemm(g, rng, /*pad=*/t == 3 ? 3 : 0))
          << "case " << t;
    }
}

TEST_P(GemmTest, BroadcastEitherOrBothOperands) {
  std::mt19937 rng(6);
  for (TypePair tp : contractionTypes())
    for (int t = 0; t < 4; ++t)
      for (int bc = 1; bc < 4; ++bc) {
        GemmCase g{9,     33,     7,    4,    (t & 1) != 0,  (t & 2) != 0,
                   tp.in, tp.out, 1.5f, 0.5f, (bc & 1) != 0, (bc & 2) != 0};
        ASSERT_NO_FATAL_FAILURE(runGemm(g, rng, /*pad=*/1))
            << "bcastA " << g.bcastA << " bcastB " << g.bcastB;
      }
}

// C stored over A or over B (a compiler reusing a dead input's buffer for
// the result): the result is computed from the inputs as they were before
// the call, on every path (oneDNN reads its inputs while it stores).
TEST_P(GemmTest, OutputOverlapsAnInput) {
  std::mt19937 rng(19);
  const int64_t M = 96, N = 64, K = 64, batch = 2;
  for (TypePair tp : contractionTypes()) {
    if (tp.in != tp.out)
      continue;
    for (bool overB : {false, true}) {
      // Over A: A is M x K = M x N; over B: B is K x N with K = M.
      int64_t m = overB ? K : M;
      Tensor A(tp.in, size_t(batch * m * K)), B(tp.in, size_t(batch * K * N));
      A.fillRandom(rng);
      B.fillRandom(rng);
      Tensor A0 = A, B0 = B;
      Tensor &C = overB ? B : A;
      AMP_RT_ASSERT_OK(amp_rt_gemm_batched(
          tp.in, tp.out, 0, 0, m, N, K, 1.0f, A.data(), K, m * K, B.data(), N,
          K * N, 0.0f, C.data(), N, m * N, batch));
      for (int64_t b = 0; b < batch; ++b)
        for (int64_t i = 0; i < m; ++i)
          for (int64_t j = 0; j < N; ++j) {
            Ref r;
            for (int64_t k = 0; k < K; ++k) {
              double p = A0.get(size_t(b * m * K + i * K + k)) *
                         B0.get(size_t(b * K * N + k * N + j));
              r.value += p;
              r.magnitude += std::fabs(p);
            }
            ASSERT_NEAR(C.get(size_t(b * m * N + i * N + j)), r.value,
                        tolerance(r, K, tp.out))
                << (overB ? "over B" : "over A") << " batch " << b << " C[" << i
                << "][" << j << "]";
          }
    }
  }
}

TEST_P(GemmTest, BroadcastOperandWithBatchStrideZero) {
  std::mt19937 rng(5);
  const int64_t M = 6, N = 5, K = 4, batch = 3;
  Tensor A(AMP_RT_F16, M * K), B(AMP_RT_F16, batch * K * N);
  Tensor C(AMP_RT_F32, batch * M * N);
  A.fillRandom(rng);
  B.fillRandom(rng);
  AMP_RT_ASSERT_OK(amp_rt_gemm_batched(AMP_RT_F16, AMP_RT_F32, 0, 0, M, N, K,
                                       1.0f, A.data(), K, 0, B.data(), N, K * N,
                                       0.0f, C.data(), N, M * N, batch));
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = 0; j < N; ++j) {
        Ref r;
        for (int64_t k = 0; k < K; ++k) {
          double p = A.get(i * K + k) * B.get(b * K * N + k * N + j);
          r.value += p;
          r.magnitude += std::fabs(p);
        }
        ASSERT_NEAR(C.get(b * M * N + i * N + j), r.value,
                    tolerance(r, K, AMP_RT_F32));
      }
}

TEST_P(GemmTest, BetaZeroIgnoresNaNInC) {
  std::mt19937 rng(11);
  for (TypePair tp : contractionTypes()) {
    Tensor A(tp.in, 4 * 3), B(tp.in, 3 * 5), C(tp.out, 4 * 5);
    A.fillRandom(rng);
    B.fillRandom(rng);
    C.fill(std::numeric_limits<double>::quiet_NaN());
    AMP_RT_ASSERT_OK(amp_rt_gemm(tp.in, tp.out, 0, 0, 4, 5, 3, 1.0f, A.data(),
                                 3, B.data(), 5, 0.0f, C.data(), 5));
    for (size_t i = 0; i < C.size(); ++i)
      ASSERT_TRUE(std::isfinite(C.get(i))) << i;
  }
}

TEST_P(GemmTest, NaNAndInfPropagate) {
  // A NaN in row i of A makes row i of C NaN; +inf in column j of B (with a
  // positive A) makes column j of C +inf; nothing else is touched.
  std::mt19937 rng(12);
  const int64_t M = 9, N = 7, K = 33;
  for (TypePair tp : contractionTypes())
    for (bool inf : {false, true}) {
      SCOPED_TRACE(testing::Message()
                   << "in " << tp.in << " out " << tp.out << " inf " << inf);
      Tensor A(tp.in, M * K), B(tp.in, K * N), C(tp.out, M * N);
      A.fillRandom(rng, 0.5, 1.0);
      B.fillRandom(rng, 0.5, 1.0);
      if (inf)
        B.set(5 * N + 4, std::numeric_limits<double>::infinity());
      else
        A.set(2 * K + 3, std::numeric_limits<double>::quiet_NaN());
      AMP_RT_ASSERT_OK(amp_rt_gemm(tp.in, tp.out, 0, 0, M, N, K, 1.0f, A.data(),
                                   K, B.data(), N, 0.0f, C.data(), N));
      for (int64_t i = 0; i < M; ++i)
        for (int64_t j = 0; j < N; ++j) {
          double v = C.get(i * N + j);
          if (inf && j == 4)
            ASSERT_TRUE(std::isinf(v) && v > 0) << i << "," << j << ": " << v;
          else if (!inf && i == 2)
            ASSERT_TRUE(std::isnan(v)) << i << "," << j << ": " << v;
          else
            ASSERT_TRUE(std::isfinite(v)) << i << "," << j << ": " << v;
        }
    }
}

TEST_P(GemmTest, EmptyDimensions) {
  // K == 0: C = beta * C. M == 0 or N == 0: nothing to do.
  Tensor C(AMP_RT_F32, 6);
  C.fill(2.0);
  Tensor A(AMP_RT_F16, 1), B(AMP_RT_F16, 1);
  AMP_RT_ASSERT_OK(amp_rt_gemm(AMP_RT_F16, AMP_RT_F32, 0, 0, 2, 3, 0, 1.0f,
                               A.data(), 1, B.data(), 3, 0.5f, C.data(), 3));
  for (size_t i = 0; i < 6; ++i)
    EXPECT_EQ(C.get(i), 1.0);
  AMP_RT_ASSERT_OK(amp_rt_gemm(AMP_RT_F16, AMP_RT_F32, 0, 0, 2, 3, 0, 1.0f,
                               nullptr, 1, nullptr, 3, 0.0f, C.data(), 3));
  for (size_t i = 0; i < 6; ++i)
    EXPECT_EQ(C.get(i), 0.0);
  AMP_RT_ASSERT_OK(amp_rt_gemm(AMP_RT_F16, AMP_RT_F32, 0, 0, 0, 3, 4, 1.0f,
                               nullptr, 4, B.data(), 3, 0.0f, nullptr, 3));
  AMP_RT_ASSERT_OK(amp_rt_gemm_batched(AMP_RT_BF16, AMP_RT_F32, 0, 0, 2, 2, 2,
                                       1.0f, nullptr, 2, 4, nullptr, 2, 4, 0.0f,
                                       nullptr, 2, 4, 0));
}

TEST_P(GemmTest, ValuesNearTheF16Limits) {
  // Products of large f16 values overflow f16 but not the f32 accumulator.
  const int64_t K = 4;
  Tensor A(AMP_RT_F16, K), B(AMP_RT_F16, K), C(AMP_RT_F32, 1);
  A.fill(60000.0);
  B.fill(1.0);
  AMP_RT_ASSERT_OK(amp_rt_gemm(AMP_RT_F16, AMP_RT_F32, 0, 0, 1, 1, K, 1.0f,
                               A.data(), K, B.data(), 1, 0.0f, C.data(), 1));
  ASSERT_EQ(A.get(0), 60000.0); // exact in f16 (a multiple of its ulp, 32)
  EXPECT_EQ(C.get(0), 240000.0);
  // The same sum into an f16 output overflows to +inf, as it must.
  Tensor Ch(AMP_RT_F16, 1);
  AMP_RT_ASSERT_OK(amp_rt_gemm(AMP_RT_F16, AMP_RT_F16, 0, 0, 1, 1, K, 1.0f,
                               A.data(), K, B.data(), 1, 0.0f, Ch.data(), 1));
  EXPECT_TRUE(std::isinf(Ch.get(0)) && Ch.get(0) > 0);
  // Subnormal f16 inputs: 6e-8 rounds to 2^-24, the smallest subnormal; the
  // products (2^-48) are exact in f32 but far below f16's range.
  Tensor S(AMP_RT_F16, K), T(AMP_RT_F16, K), D(AMP_RT_F32, 1), E(AMP_RT_F16, 1);
  S.fill(6e-8);
  ASSERT_EQ(S.get(0), std::ldexp(1.0, -24));
  T.fill(std::ldexp(1.0, -14) * 3); // a normal f16
  AMP_RT_ASSERT_OK(amp_rt_gemm(AMP_RT_F16, AMP_RT_F32, 0, 0, 1, 1, K, 1.0f,
                               S.data(), K, T.data(), 1, 0.0f, D.data(), 1));
  EXPECT_EQ(D.get(0), K * 3 * std::ldexp(1.0, -38));
  // Scaled by 2^16 the sum lands on an f16 subnormal (48 * 2^-24).
  AMP_RT_ASSERT_OK(amp_rt_gemm(AMP_RT_F16, AMP_RT_F16, 0, 0, 1, 1, K,
                               float(std::ldexp(1.0, 16)), S.data(), K,
                               T.data(), 1, 0.0f, E.data(), 1));
  EXPECT_EQ(E.get(0), K * 3 * std::ldexp(1.0, -22));
  // bf16 keeps f32's range: 1e38 * 2 fits in f32 accumulation.
  Tensor X(AMP_RT_BF16, 2), Y(AMP_RT_BF16, 2), Z(AMP_RT_F32, 1);
  X.fill(1e38);
  Y.fill(1.0);
  AMP_RT_ASSERT_OK(amp_rt_gemm(AMP_RT_BF16, AMP_RT_F32, 0, 0, 1, 1, 2, 1.0f,
                               X.data(), 2, Y.data(), 1, 0.0f, Z.data(), 1));
  EXPECT_EQ(Z.get(0), 2.0 * X.get(0));
}

TEST_P(GemmTest, ResidentBuffers) {
  // Operands in amp_rt_buffer_create memory are used in place (device
  // memory on cuda); results are read back with amp_rt_buffer_download.
  std::mt19937 rng(9);
  const int64_t M = 33, N = 17, K = 40;
  Tensor A(AMP_RT_BF16, M * K), B(AMP_RT_BF16, K * N), C(AMP_RT_F32, M * N);
  A.fillRandom(rng);
  B.fillRandom(rng);
  void *dA, *dB, *dC;
  AMP_RT_ASSERT_OK(amp_rt_buffer_create(M * K * 2, &dA));
  AMP_RT_ASSERT_OK(amp_rt_buffer_create(K * N * 2, &dB));
  AMP_RT_ASSERT_OK(amp_rt_buffer_create(M * N * 4, &dC));
  AMP_RT_ASSERT_OK(amp_rt_buffer_upload(dA, A.data(), M * K * 2));
  AMP_RT_ASSERT_OK(amp_rt_buffer_upload(dB, B.data(), K * N * 2));
  AMP_RT_ASSERT_OK(amp_rt_gemm(AMP_RT_BF16, AMP_RT_F32, 0, 0, M, N, K, 1.0f, dA,
                               K, dB, N, 0.0f, dC, N));
  // Mixed: resident A and C, host B.
  AMP_RT_ASSERT_OK(amp_rt_gemm(AMP_RT_BF16, AMP_RT_F32, 0, 0, M, N, K, 1.0f, dA,
                               K, B.data(), N, 1.0f, dC, N));
  AMP_RT_ASSERT_OK(amp_rt_buffer_download(C.data(), dC, M * N * 4));
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      Ref r;
      for (int64_t k = 0; k < K; ++k) {
        double p = A.get(i * K + k) * B.get(k * N + j);
        r.value += 2 * p;
        r.magnitude += 2 * std::fabs(p);
      }
      ASSERT_NEAR(C.get(i * N + j), r.value, tolerance(r, 2 * K, AMP_RT_F32));
    }
  AMP_RT_ASSERT_OK(amp_rt_synchronize());
  for (void *p : {dA, dB, dC})
    AMP_RT_ASSERT_OK(amp_rt_buffer_free(p));
}

AMP_RT_INSTANTIATE_BACKENDS(GemmTest);

} // namespace
