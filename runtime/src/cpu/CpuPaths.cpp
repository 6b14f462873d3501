//===- CpuPaths.cpp - kernel choice, and its C API ------------------------===//

#include "CpuPaths.h"

#include "../Convert.h"
#include "CpuCommon.h"
#include "CpuFeatures.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace amp {
namespace rt {

namespace {

bool envIs(const char *name, const char *value) {
  const char *v = std::getenv(name);
  return v && std::strcmp(v, value) == 0;
}

/// Why bf16 cannot run natively here, or "" when it can. With `emulate`
/// (AMP_RT_CPU_BF16=emulate) a CPU with AVX-512 but without AVX512_BF16
/// qualifies too: oneDNN then runs its bf16 kernels on its emulation of
/// the bf16 instructions, at a fraction of the f32 rate, so that the
/// native path's code (bf16 primitives, bf16 outputs, blocked layouts) can
/// be tested on such CPUs.
std::string probeBf16(bool emulate) {
  const CpuFeatures &f = cpuFeatures();
  if (!f.avx512bf16 && !(emulate && f.avx512()))
    return emulate ? "the CPU lacks AVX-512 F/BW/VL (or the OS's AVX-512 "
                     "state support), which oneDNN's bf16 emulation needs"
                   : "the CPU lacks AVX512_BF16";
  if (!f.avx512())
    return "AVX512_BF16 is present but AVX-512 F/BW/VL or the OS's "
           "AVX-512 state support is missing";
  // The probe runs inside some API call: keep that call's error state.
  amp_rt_status status = amp_rt_last_status();
  std::string message = amp_rt_last_error(), why;
  bool works = dnnlKernels().bf16Works(why);
  if (status == AMP_RT_SUCCESS && message.empty())
    amp_rt_clear_error();
  else
    fail(status, "%s", message.c_str());
  if (!works)
    return "oneDNN " + DnnlKernels::version() +
           " cannot create bf16 primitives (" + why + ")";
  return "";
}

void describeKernels(CpuPaths &p) {
  std::string dnnl = "oneDNN " + DnnlKernels::version();
  std::string f32 = p.f32OneDnn ? dnnl + " f32" : "OpenBLAS sgemm (im2col)";

  std::string widen = std::string("widened to f32 (") +
                      (hasF16CKernels() ? "F16C/AVX2" : "scalar") + ") + " +
                      f32;
  std::string off = p.bf16Capable
                        ? "native bf16 switched off by AMP_RT_CPU_BF16=0 or "
                          "amp_rt_cpu_set_native_bf16(0)"
                        : p.bf16Why;
  std::string rest = "; f16: " + widen + "; f32: " + f32;
  if (p.dnnlAvx2Sgemm)
    rest += " (AVX2 kernels; OpenBLAS for the GEMMs its no-copy sgemm would "
            "run with B's rows a multiple of 1 KiB apart)";
  p.kernels[0] = "bf16: " + widen + " (" + off + ")" + rest;
  p.kernels[1] = "bf16: " + dnnl +
                 // Capable without the instructions: AMP_RT_CPU_BF16=emulate.
                 (!cpuFeatures().avx512bf16
                      ? " native (emulated: AVX-512 without AVX512_BF16, "
                        "AMP_RT_CPU_BF16=emulate; slow, for testing)"
                      : " native (avx512_bf16)") +
                 rest;
}

CpuPaths *createPaths() {
  auto *p = new CpuPaths();
  p->verbose = std::getenv("AMP_RT_VERBOSE") &&
               std::atoi(std::getenv("AMP_RT_VERBOSE")) > 0;
  p->f32OneDnn = !envIs("AMP_RT_CPU_F32", "openblas");
  p->dnnlAvx2Sgemm = p->f32OneDnn && !DnnlKernels::hasAvx512Kernels();
  bool emulate = envIs("AMP_RT_CPU_BF16", "emulate");
  p->bf16Why = probeBf16(emulate);
  p->bf16Capable = p->bf16Why.empty();
  p->nativeBf16 = p->bf16Capable && !envIs("AMP_RT_CPU_BF16", "0");
  describeKernels(*p);
  return p;
}

} // namespace

void CpuPaths::announce() {
  if (verbose && !announced.exchange(true))
    std::fprintf(stderr, "amp_rt: cpu kernels: %s\n", describe());
}

// Both are leaked on purpose: OpenMP's threads may outlive static
// destructors at exit.
CpuPaths &cpuPaths() {
  static CpuPaths *paths = createPaths();
  return *paths;
}

DnnlKernels &dnnlKernels() {
  static DnnlKernels *kernels = [] {
    const char *env = std::getenv("AMP_RT_NUM_THREADS");
    return new DnnlKernels(env && std::atoi(env) > 0 ? cpuThreadCount() : 0);
  }();
  return *kernels;
}

} // namespace rt
} // namespace amp

using namespace amp::rt;

extern "C" {

amp_rt_status amp_rt_cpu_set_native_bf16(int enable) {
  CpuPaths &p = cpuPaths();
  if (enable && !p.bf16Capable)
    return fail(AMP_RT_ERROR_UNSUPPORTED,
                "amp_rt_cpu_set_native_bf16: native bf16 is not available: "
                "%s",
                p.bf16Why.c_str());
  p.nativeBf16 = enable != 0;
  return AMP_RT_SUCCESS;
}

const char *amp_rt_cpu_kernels(void) { return cpuPaths().describe(); }

amp_rt_status amp_rt_cpu_set_filter_cache(size_t bytes) {
  dnnlKernels().setFilterCacheBudget(bytes);
  return AMP_RT_SUCCESS;
}

amp_rt_status amp_rt_cpu_filter_cache_stats(int64_t *hits, int64_t *misses,
                                            size_t *bytes) {
  int64_t h, m;
  size_t b;
  dnnlKernels().filterCacheStats(h, m, b);
  if (hits)
    *hits = h;
  if (misses)
    *misses = m;
  if (bytes)
    *bytes = b;
  return AMP_RT_SUCCESS;
}

} // extern "C"
