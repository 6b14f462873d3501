//===- GemmDispatch.cpp - GEMM over views and its C API -------------------===//
//
// Checks the shapes of a (batched) GEMM over TensorViews, stages its
// operands so that each is BLAS-shaped (row- or column-major with a leading
// dimension), maps them onto the backend's row-major GemmArgs, and provides
// amp_rt_gemm / amp_rt_gemm_batched on top.
//
//===----------------------------------------------------------------------===//

#include "Profile.h"
#include "RuntimeInternal.h"

#include <algorithm>
#include <cstring>
#include <string>

namespace amp {
namespace rt {

namespace {

/// How a rank-3 (batch, rows, cols) view maps onto BLAS arguments.
struct BlasMatrix {
  bool ok;      // false: must be packed first
  bool flipped; // stored column-major: it is the transpose, row-major
  int64_t ld, batchStride;
};

BlasMatrix blasForm(const TensorView &v) {
  int64_t rows = v.sizes[1], cols = v.sizes[2];
  int64_t rs = v.strides[1], cs = v.strides[2];
  int64_t bs = v.sizes[0] == 1 ? 0 : v.strides[0];
  if ((cols == 1 || cs == 1) && (rows == 1 || rs >= cols))
    return {true, false, rows == 1 ? std::max<int64_t>(cols, 1) : rs, bs};
  if ((rows == 1 || rs == 1) && (cols == 1 || cs >= rows))
    return {true, true, cols == 1 ? std::max<int64_t>(rows, 1) : cs, bs};
  return {false, false, 0, bs};
}

/// Checks that op(A) op(B) has the shape of C and that the batches agree.
amp_rt_status checkGemmShapes(const char *fn, const TensorView &A, bool transA,
                              const TensorView &B, bool transB,
                              const TensorView &C) {
  int64_t batch = C.sizes[0], M = C.sizes[1], N = C.sizes[2];
  int64_t aM = transA ? A.sizes[2] : A.sizes[1];
  int64_t K = transA ? A.sizes[1] : A.sizes[2];
  int64_t bK = transB ? B.sizes[2] : B.sizes[1];
  int64_t bN = transB ? B.sizes[1] : B.sizes[2];
  if (A.sizes[0] != batch || B.sizes[0] != batch)
    return fail(AMP_RT_ERROR_INVALID_ARGUMENT,
                "%s: batch sizes differ: A %lld, B %lld, C %lld", fn,
                (long long)A.sizes[0], (long long)B.sizes[0], (long long)batch);
  if (aM != M || bN != N || bK != K)
    return fail(AMP_RT_ERROR_INVALID_ARGUMENT,
                "%s: shapes do not match: op(A) is %lldx%lld, op(B) is "
                "%lldx%lld, C is %lldx%lld (transA=%d, transB=%d)",
                fn, (long long)aM, (long long)K, (long long)bK, (long long)bN,
                (long long)M, (long long)N, int(transA), int(transB));
  return AMP_RT_SUCCESS;
}

/// For K == 0: zero M x 1 and 1 x N operands `a` and `b` of A's type, in
/// scratch memory, so that C = beta * C is a GEMM with alpha 0.
amp_rt_status zeroOperands(CallContext &ctx, const TensorView &A, int64_t M,
                           int64_t N, TensorView &a, TensorView &b) {
  size_t es = dtypeSize(A.dtype);
  void *zeros;
  AMP_RT_TRY(ctx.scratch(size_t(std::max(M, N)) * es, &zeros));
  AMP_RT_TRY(ctx.backend().fillZero(zeros, size_t(std::max(M, N)) * es));
  a = A;
  a.data = zeros;
  a.sizes[1] = M;
  a.sizes[2] = 1;
  a.strides[0] = 0;
  a.strides[1] = 1;
  a.strides[2] = 1;
  b = a;
  b.sizes[1] = 1;
  b.sizes[2] = N;
  return AMP_RT_SUCCESS;
}

/// Fills the M x N problem and the operand fields of `g` from the staged,
/// BLAS-shaped views.
amp_rt_status setGemmOperands(const char *fn, const TensorView &a, bool transA,
                              const TensorView &b, bool transB,
                              const TensorView &c, int64_t M, int64_t N,
                              GemmArgs &g) {
  BlasMatrix fa = blasForm(a), fb = blasForm(b), fc = blasForm(c);
  if (!fa.ok || !fb.ok || !fc.ok)
    return fail(AMP_RT_ERROR_INTERNAL, "%s: operand still not BLAS-shaped", fn);
  bool ta = transA != fa.flipped, tb = transB != fb.flipped;
  if (fc.flipped) {
    // C is column-major: compute C^T = op(B)^T op(A)^T in row-major.
    g.M = N;
    g.N = M;
    g.A = b.data;
    g.lda = fb.ld;
    g.strideA = fb.batchStride;
    g.transA = !tb;
    g.B = a.data;
    g.ldb = fa.ld;
    g.strideB = fa.batchStride;
    g.transB = !ta;
  } else {
    g.M = M;
    g.N = N;
    g.A = a.data;
    g.lda = fa.ld;
    g.strideA = fa.batchStride;
    g.transA = ta;
    g.B = b.data;
    g.ldb = fb.ld;
    g.strideB = fb.batchStride;
    g.transB = tb;
  }
  g.C = c.data;
  g.ldc = fc.ld;
  g.strideC = fc.batchStride;
  return AMP_RT_SUCCESS;
}

} // namespace

static amp_rt_status gemmViewsImpl(const char *fn, const TensorView &A,
                                   bool transA, const TensorView &B,
                                   bool transB, const TensorView &C,
                                   float alpha, float beta) {
  AMP_RT_TRY(checkGemmShapes(fn, A, transA, B, transB, C));
  int64_t batch = C.sizes[0], M = C.sizes[1], N = C.sizes[2];
  int64_t K = transA ? A.sizes[1] : A.sizes[2];
  if (batch == 0 || M == 0 || N == 0)
    return AMP_RT_SUCCESS;

  std::lock_guard<std::recursive_mutex> lock(runtime().mutex);
  Slot *slot = nullptr;
  AMP_RT_TRY(activeSlot(fn, slot));
  CallContext ctx(fn, *slot);

  GemmArgs g{};
  g.abType = A.dtype;
  g.cType = C.dtype;
  g.batch = batch;
  g.alpha = alpha;
  g.beta = beta;
  TensorView a, b, c;
  if (K == 0) {
    // C = beta * C: multiply zero matrices (M x 1 and 1 x N) with alpha 0,
    // which keeps the backends' beta handling (C not read when beta == 0).
    AMP_RT_TRY(zeroOperands(ctx, A, M, N, a, b));
    transA = transB = false;
    K = 1;
    g.alpha = 0.0f;
  } else {
    AMP_RT_TRY(ctx.input(A, !blasForm(A).ok, a, &C));
    AMP_RT_TRY(ctx.input(B, !blasForm(B).ok, b, &C));
  }
  AMP_RT_TRY(ctx.output(C, beta != 0.0f, !blasForm(C).ok, c));
  AMP_RT_TRY(setGemmOperands(fn, a, transA, b, transB, c, M, N, g));
  g.K = K;
  AMP_RT_TRY(ctx.backend().gemm(g));
  return ctx.finish();
}

amp_rt_status gemmViews(const char *fn, const TensorView &A, bool transA,
                        const TensorView &B, bool transB, const TensorView &C,
                        float alpha, float beta) {
  ProfileScope profile([&](double &flops) {
    int64_t K = C.rank == 3 ? (transA ? A.sizes[1] : A.sizes[2]) : 0;
    return gemmProfileKey(A.dtype, C.dtype, C.sizes[0], C.sizes[1], C.sizes[2],
                          K, transA, transB, flops);
  });
  return named(fn, gemmViewsImpl(fn, A, transA, B, transB, C, alpha, beta));
}

} // namespace rt
} // namespace amp

//===----------------------------------------------------------------------===//
// C API
//===----------------------------------------------------------------------===//

using namespace amp::rt;

static amp_rt_status checkGemmTypes(const char *fn, int ab, int c) {
  return checkContractionTypes(fn, "ab_type", "c_type", ab, c);
}

/// Checks one matrix operand of the C API and builds its rank-3 view.
static amp_rt_status gemmOperand(const char *fn, const char *name,
                                 const void *p, amp_rt_dtype t, int64_t rows,
                                 int64_t cols, int64_t ld, int64_t stride,
                                 int64_t batch, TensorView &v) {
  if (ld < std::max<int64_t>(1, cols))
    return fail(AMP_RT_ERROR_INVALID_ARGUMENT,
                "%s: ld%s = %lld < %lld, the row length of %s as stored", fn,
                name, (long long)ld, (long long)std::max<int64_t>(1, cols),
                name);
  if (stride < 0)
    return fail(AMP_RT_ERROR_INVALID_ARGUMENT, "%s: stride_%s = %lld < 0", fn,
                name, (long long)stride);
  v = TensorView{};
  v.data = const_cast<void *>(p);
  v.dtype = t;
  v.rank = 3;
  v.sizes[0] = batch;
  v.sizes[1] = rows;
  v.sizes[2] = cols;
  v.strides[0] = stride;
  v.strides[1] = ld;
  v.strides[2] = 1;
  int64_t span = spanElements(v);
  if (span < 0 || span > (int64_t(1) << 46))
    return fail(AMP_RT_ERROR_INVALID_ARGUMENT, "%s: %s spans too many elements",
                fn, name);
  if (span > 0 && !p)
    return fail(AMP_RT_ERROR_INVALID_ARGUMENT, "%s: %s is NULL", fn, name);
  return AMP_RT_SUCCESS;
}

extern "C" {

amp_rt_status amp_rt_gemm_batched(amp_rt_dtype ab_type, amp_rt_dtype c_type,
                                  int trans_a, int trans_b, int64_t M,
                                  int64_t N, int64_t K, float alpha,
                                  const void *A, int64_t lda, int64_t stride_a,
                                  const void *B, int64_t ldb, int64_t stride_b,
                                  float beta, void *C, int64_t ldc,
                                  int64_t stride_c, int64_t batch) {
  const char *fn = "amp_rt_gemm_batched";
  AMP_RT_TRY(checkGemmTypes(fn, ab_type, c_type));
  if (M < 0 || N < 0 || K < 0 || batch < 0)
    return fail(AMP_RT_ERROR_INVALID_ARGUMENT,
                "%s: negative size (M=%lld, N=%lld, K=%lld, batch=%lld)", fn,
                (long long)M, (long long)N, (long long)K, (long long)batch);
  TensorView a, b, c;
  AMP_RT_TRY(gemmOperand(fn, "a", A, ab_type, trans_a ? K : M, trans_a ? M : K,
                         lda, stride_a, batch, a));
  AMP_RT_TRY(gemmOperand(fn, "b", B, ab_type, trans_b ? N : K, trans_b ? K : N,
                         ldb, stride_b, batch, b));
  AMP_RT_TRY(gemmOperand(fn, "c", C, c_type, M, N, ldc, stride_c, batch, c));
  if (batch > 1 && M > 0 && N > 0 && stride_c < (M - 1) * ldc + N)
    return fail(AMP_RT_ERROR_INVALID_ARGUMENT,
                "%s: stride_c = %lld makes the C matrices overlap (need >= "
                "%lld)",
                fn, (long long)stride_c, (long long)((M - 1) * ldc + N));
  return gemmViews(fn, a, trans_a != 0, b, trans_b != 0, c, alpha, beta);
}

amp_rt_status amp_rt_gemm(amp_rt_dtype ab_type, amp_rt_dtype c_type,
                          int trans_a, int trans_b, int64_t M, int64_t N,
                          int64_t K, float alpha, const void *A, int64_t lda,
                          const void *B, int64_t ldb, float beta, void *C,
                          int64_t ldc) {
  amp_rt_status s =
      amp_rt_gemm_batched(ab_type, c_type, trans_a, trans_b, M, N, K, alpha, A,
                          lda, 0, B, ldb, 0, beta, C, ldc, 0, 1);
  if (s != AMP_RT_SUCCESS &&
      std::strncmp(amp_rt_last_error(), "amp_rt_gemm_batched", 19) == 0) {
    // Name the function the caller actually called.
    std::string rest = amp_rt_last_error() + 19;
    fail(s, "amp_rt_gemm%s", rest.c_str());
  }
  return s;
}

} // extern "C"
