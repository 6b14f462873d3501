//===- DnnlKernels.cpp - engine, threads, scratchpad, bf16 probe ----------===//

#include "DnnlState.h"
#include "ThreadPool.h"

#include <cstdio>
#include <cstdlib>

namespace amp {
namespace rt {

DnnlKernels::State::State(int threads)
    : engine(dnnl::engine::kind::cpu, 0), stream(engine), threads(threads) {
  const char *v = std::getenv("AMP_RT_VERBOSE");
  verbose = v && std::atoi(v) > 0;
  ompGetMaxThreads =
      reinterpret_cast<int (*)()>(ompSymbol("omp_get_max_threads"));
  ompSetNumThreads =
      reinterpret_cast<void (*)(int)>(ompSymbol("omp_set_num_threads"));
}

void DnnlKernels::State::pinThreads() {
  if (threads > 0 && ompGetMaxThreads && ompSetNumThreads &&
      ompGetMaxThreads() != threads)
    ompSetNumThreads(threads);
}

dnnl::primitive_attr DnnlKernels::State::attr() const {
  dnnl::primitive_attr a;
  a.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  return a;
}

dnnl::memory DnnlKernels::State::scratchpad(size_t bytes) {
  bytes = std::max<size_t>(bytes, 64);
  void *p = scratchpadBuf.bytes(bytes);
  if (!p)
    throw std::bad_alloc();
  dnnl::memory::desc md({dnnl::memory::dim(bytes)}, dnnl::memory::data_type::u8,
                        dnnl::memory::format_tag::x);
  return dnnl::memory(md, engine, p);
}

void DnnlKernels::State::trace(const char *what,
                               const dnnl::primitive_desc &pd) const {
  if (verbose)
    std::fprintf(stderr, "amp_rt: new oneDNN %s primitive: %s\n", what,
                 pd.impl_info_str());
}

dnnl::memory DnnlKernels::State::staged(Scratch &buf,
                                        const dnnl::memory::desc &md) {
  void *p = buf.bytes(std::max<size_t>(md.get_size(), 64));
  if (!p)
    throw std::bad_alloc();
  return dnnl::memory(md, engine, p);
}

dnnl::memory::data_type dnnlType(amp_rt_dtype t) {
  return t == AMP_RT_F32    ? dnnl::memory::data_type::f32
         : t == AMP_RT_BF16 ? dnnl::memory::data_type::bf16
                            : dnnl::memory::data_type::f16;
}

DnnlKernels::DnnlKernels(int threads)
    : state(std::make_unique<State>(threads)) {}

DnnlKernels::~DnnlKernels() = default;

std::string DnnlKernels::version() {
  const dnnl_version_t *v = dnnl_version();
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%d.%d.%d", v->major, v->minor, v->patch);
  return buf;
}

bool DnnlKernels::hasAvx512Kernels() {
  return dnnl::get_effective_cpu_isa() >= dnnl::cpu_isa::avx512_core;
}

bool DnnlKernels::bf16Works(std::string &why) {
  // A tiny matmul and convolution, run for real: oneDNN refuses bf16
  // primitives on CPUs without bf16 support.
  uint16_t a[16 * 16], b[16 * 16], x[4 * 4 * 16], w[16 * 3 * 3 * 16];
  float c[16 * 16], y[4 * 4 * 16];
  std::fill(std::begin(a), std::end(a), uint16_t(0x3f80)); // 1.0
  std::fill(std::begin(b), std::end(b), uint16_t(0x3f80));
  std::fill(std::begin(x), std::end(x), uint16_t(0x3f80));
  std::fill(std::begin(w), std::end(w), uint16_t(0x3f80));
  GemmArgs g{AMP_RT_BF16, AMP_RT_F32, false, false, 16, 16, 16, 1,  1.0f, 0.0f,
             a,           16,         0,     b,     16, 0,  c,  16, 0};
  amp_rt_conv2d_desc d{
      AMP_RT_NHWC, AMP_RT_FILTER_KRSC, 1, 4, 4, 16, 16, 3, 3, 1, 1, 1, 1, 1, 1};
  ConvProblem p{d, 4, 4};
  state->why.clear();
  if (gemm(g) != AMP_RT_SUCCESS ||
      conv(ConvDirection::Forward, p, AMP_RT_BF16, AMP_RT_F32, 1.0f, x, w, 0.0f,
           y) != AMP_RT_SUCCESS) {
    why = state->why.empty() ? std::string(amp_rt_last_error()) : state->why;
    return false;
  }
  if (c[0] != 16.0f || y[(1 * 4 + 1) * 16] != 9.0f * 16.0f) {
    why = "oneDNN's bf16 probe computed a wrong result";
    return false;
  }
  return true;
}

} // namespace rt
} // namespace amp
