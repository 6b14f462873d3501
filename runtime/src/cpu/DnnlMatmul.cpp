//===- DnnlMatmul.cpp - GemmArgs as a oneDNN matmul -----------------------===//
//
// Row-major strided-batched GEMM maps onto oneDNN's matmul without copies:
// a transpose or a leading dimension is a memory desc with explicit strides
// (the brgemm kernels take dense and transposed operands, the jit gemm
// kernels padded ones; on AVX-512 CPUs without AVX512_BF16, large-K f32
// GEMMs are steered to the jit gemm, see prefersJitGemm), a broadcast
// operand (batch stride 0) has batch dimension 1. alpha != 1 is a run-time
// output scale, so one primitive serves every alpha; beta is a sum post-op
// (beta == 0: the output is never read). Measured in docs/runtime.md.
//
//===----------------------------------------------------------------------===//

#include "DnnlState.h"

#include <cstring>

namespace amp {
namespace rt {

namespace {

using dnnl::memory;

/// An op() operand of logical size rows x cols, stored row-major with
/// leading dimension ld, or transposed (cols x rows) when `trans`. batch 0
/// means a plain matrix.
memory::desc matrixDesc(amp_rt_dtype t, int64_t batch, int64_t batchStride,
                        int64_t rows, int64_t cols, int64_t ld, bool trans) {
  memory::dims strides = trans ? memory::dims{1, ld} : memory::dims{ld, 1};
  if (batch == 0)
    return memory::desc({rows, cols}, dnnlType(t), strides);
  if (batchStride == 0) // broadcast: one matrix; the stride is then unused
    batchStride = std::max<int64_t>(1, (trans ? cols : rows) * ld);
  return memory::desc({batch, rows, cols}, dnnlType(t),
                      {batchStride, strides[0], strides[1]});
}

uint32_t floatBits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

/// The batch count each operand has in the primitive: 0 (plain matrices)
/// when the problem has one batch, 1 for a broadcast operand.
struct Batches {
  int64_t a, b, c;
  bool loop; // both inputs broadcast: one primitive call per C matrix
};

Batches batchesOf(const GemmArgs &g) {
  if (g.batch == 1)
    return {0, 0, 0, false};
  if (g.strideA == 0 && g.strideB == 0)
    return {0, 0, 0, true};
  return {g.strideA == 0 ? 1 : g.batch, g.strideB == 0 ? 1 : g.batch, g.batch,
          false};
}

PlanKey keyOf(const GemmArgs &g, const Batches &n) {
  // Batch strides matter only for operands with more than one matrix.
  int64_t sa = n.a > 1 ? g.strideA : 0, sb = n.b > 1 ? g.strideB : 0;
  int64_t sc = n.c > 1 ? g.strideC : 0;
  int64_t alphaIsOne = g.alpha == 1.0f, beta = floatBits(g.beta);
  return {0,     g.abType, g.cType, g.transA, g.transB,   g.M,   g.N,
          g.K,   n.a,      n.b,     n.c,      n.loop,     g.lda, g.ldb,
          g.ldc, sa,       sb,      sc,       alphaIsOne, beta};
}

/// Whether to run an f32 GEMM on oneDNN's packing jit gemm instead of the
/// brgemm kernel its matmul picks first. On AVX-512 CPUs without
/// AVX512_BF16 (measured: an Intel Xeon, cpu family 6 model 85) brgemm f32
/// falls to 120-170 GF/s once K reaches 1024 (2048^3: 129 vs 250 GF/s for
/// the jit gemm and 233 for OpenBLAS; docs/performance.md), and on large
/// outputs from K 256 (2048x2048x512: 120-131 vs 138-153, with A
/// transposed too), while on smaller ones both run alike (512^3, 1024^3).
/// Measured in docs/runtime.md.
/// A transposed B stays on brgemm: the jit gemm takes it at up to half the
/// rate (1024x512x2048: 109 vs 247; 512x2048x2048: 121 vs 151). With
/// AVX512_BF16 (Zen 4) brgemm keeps sgemm's rate.
bool prefersJitGemm(const GemmArgs &g) {
  static const bool slowBrgemm = [] {
    dnnl::cpu_isa isa = dnnl::get_effective_cpu_isa();
    return isa == dnnl::cpu_isa::avx512_core ||
           isa == dnnl::cpu_isa::avx512_core_vnni;
  }();
  if (!slowBrgemm || g.abType != AMP_RT_F32 || g.transB)
    return false;
  const bool largeOutput = g.K >= 256 && g.M * g.N >= 2048 * 2048;
  if (g.K < 1024 && !largeOutput)
    return false;
  // With A transposed the jit gemm wins only on wide outputs (N 2048:
  // +9-18%; 2048x512x1024: 122 vs 132 GF/s, 2048x512x2048: 148 vs 200).
  return !g.transA || g.N >= 1024;
}

/// Moves `pd` to its first implementation whose name starts with `prefix`;
/// false, with `pd` moved past its last one, when there is none.
bool selectImplementation(dnnl::matmul::primitive_desc &pd,
                          const char *prefix) {
  do {
    if (std::strncmp(pd.impl_info_str(), prefix, std::strlen(prefix)) == 0)
      return true;
  } while (pd.next_impl());
  return false;
}

MatmulPlan makePlan(DnnlKernels::State &st, const GemmArgs &g,
                    const Batches &n) {
  MatmulPlan plan;
  plan.src = matrixDesc(g.abType, n.a, g.strideA, g.M, g.K, g.lda, g.transA);
  plan.weights =
      matrixDesc(g.abType, n.b, g.strideB, g.K, g.N, g.ldb, g.transB);
  plan.dst = matrixDesc(g.cType, n.c, g.strideC, g.M, g.N, g.ldc, false);
  dnnl::primitive_attr attr = st.attr();
  plan.runtimeAlpha = g.alpha != 1.0f;
  if (plan.runtimeAlpha)
    attr.set_output_scales(0, {DNNL_RUNTIME_F32_VAL});
  if (g.beta != 0.0f) {
    dnnl::post_ops ops;
    ops.append_sum(g.beta);
    attr.set_post_ops(ops);
  }
  dnnl::matmul::desc desc(plan.src, plan.weights, plan.dst);
  dnnl::matmul::primitive_desc pd(desc, attr, st.engine);
  if (prefersJitGemm(g) && !selectImplementation(pd, "gemm:jit"))
    pd = dnnl::matmul::primitive_desc(desc, attr, st.engine);
  plan.prim = dnnl::matmul(pd);
  plan.scratchpadBytes = pd.scratchpad_desc().get_size();
  plan.supported = true;
  st.trace("matmul", pd);
  return plan;
}

/// The plan of `g`, created (or found refused) on first use.
MatmulPlan &planFor(DnnlKernels::State &st, const GemmArgs &g,
                    const Batches &n) {
  PlanKey key = keyOf(g, n);
  if (MatmulPlan *p = st.matmuls.find(key))
    return *p;
  try {
    return st.matmuls.insert(key, makePlan(st, g, n));
  } catch (const dnnl::error &e) {
    if (e.status != dnnl_unimplemented)
      throw;
    MatmulPlan refused;
    refused.refusal = e.what();
    return st.matmuls.insert(key, std::move(refused));
  }
}

} // namespace

amp_rt_status DnnlKernels::gemm(const GemmArgs &g) {
  State &st = *state;
  std::lock_guard<std::mutex> lock(st.mutex);
  return guarded(st, "oneDNN matmul", [&] {
    st.pinThreads();
    const Batches n = batchesOf(g);
    MatmulPlan &plan = planFor(st, g, n);
    if (!plan.supported) {
      st.why = "oneDNN matmul: " + plan.refusal;
      return AMP_RT_ERROR_UNSUPPORTED;
    }
    float alpha = g.alpha;
    memory scale({{1}, memory::data_type::f32, memory::format_tag::x},
                 st.engine, &alpha);
    memory pad = st.scratchpad(plan.scratchpadBytes);
    const size_t es = dtypeSize(g.cType);
    for (int64_t i = 0; i < (n.loop ? g.batch : 1); ++i) {
      memory a(plan.src, st.engine, const_cast<void *>(g.A));
      memory b(plan.weights, st.engine, const_cast<void *>(g.B));
      memory c(plan.dst, st.engine,
               static_cast<char *>(g.C) + i * g.strideC * es);
      std::unordered_map<int, memory> args = {{DNNL_ARG_SRC, a},
                                              {DNNL_ARG_WEIGHTS, b},
                                              {DNNL_ARG_DST, c},
                                              {DNNL_ARG_SCRATCHPAD, pad}};
      if (plan.runtimeAlpha)
        args.insert({DNNL_ARG_ATTR_OUTPUT_SCALES, scale});
      plan.prim.execute(st.stream, args);
    }
    st.stream.wait();
    return AMP_RT_SUCCESS;
  });
}

bool DnnlKernels::sgemmOnThisThread(const GemmArgs &g) {
  return dnnl_sgemm(g.transA ? 'T' : 'N', g.transB ? 'T' : 'N', g.M, g.N, g.K,
                    g.alpha, static_cast<const float *>(g.A), g.lda,
                    static_cast<const float *>(g.B), g.ldb, g.beta,
                    static_cast<float *>(g.C), g.ldc) == dnnl_success;
}

} // namespace rt
} // namespace amp
