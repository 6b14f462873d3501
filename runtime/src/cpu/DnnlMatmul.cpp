//===- DnnlMatmul.cpp - GemmArgs as a oneDNN matmul -----------------------===//
//
// Row-major strided-batched GEMM maps onto oneDNN's matmul without copies:
// a transpose or a leading dimension is a memory desc with explicit strides
// (the brgemm kernels take dense and transposed operands, the jit gemm
// kernels padded ones), a broadcast operand (batch stride 0) has batch
// dimension 1. alpha != 1 is a run-time output scale, so one primitive
// serves every alpha; beta is a sum post-op (beta == 0: the output is never
// read). Measured in docs/runtime.md.
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
  dnnl::matmul::primitive_desc pd(
      dnnl::matmul::desc(plan.src, plan.weights, plan.dst), attr, st.engine);
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

} // namespace rt
} // namespace amp
