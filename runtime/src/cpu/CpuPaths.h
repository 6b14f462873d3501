//===- CpuPaths.h - which kernels the cpu backend runs ----------*- C++ -*-===//
//
// The run-time choice behind the cpu backend, made once per process:
//   bf16  native: oneDNN bf16 primitives (AVX512_BF16, f32 accumulation),
//         when cpuid reports the instructions with OS support, oneDNN
//         accepts a bf16 primitive, and neither AMP_RT_CPU_BF16=0 nor
//         amp_rt_cpu_set_native_bf16(0) switched it off; otherwise widened
//         to f32 exactly like f16. AMP_RT_CPU_BF16=emulate also takes it on
//         AVX-512 CPUs without AVX512_BF16 (oneDNN's emulation: tests).
//   f16   widened to f32 (F16C, exact) and run on the f32 path.
//   f32   oneDNN f32 primitives, or OpenBLAS with AMP_RT_CPU_F32=openblas.
// Problems oneDNN refuses run on OpenBLAS (BlasKernels).
//
//===----------------------------------------------------------------------===//

#ifndef AMP_RT_CPU_CPUPATHS_H
#define AMP_RT_CPU_CPUPATHS_H

#include "Dnnl.h"

#include <atomic>
#include <string>

namespace amp {
namespace rt {

struct CpuPaths {
  bool bf16Capable = false; // the CPU and oneDNN can run bf16 natively
  std::string bf16Why;      // why not, when !bf16Capable
  std::atomic<bool> nativeBf16{false};
  bool f32OneDnn = true; // else OpenBLAS
  /// oneDNN runs its AVX2 sgemm: see avoidDnnlNoCopySgemm() in CPUBackend.
  bool dnnlAvx2Sgemm = false;
  bool verbose = false;   // AMP_RT_VERBOSE=1
  std::string kernels[2]; // amp_rt_cpu_kernels(): [0] widened bf16, [1] native
  std::atomic<bool> announced{false};

  const char *describe() const { return kernels[nativeBf16 ? 1 : 0].c_str(); }
  /// Prints describe() to stderr once, on the first contraction, when
  /// verbose.
  void announce();
};

/// The process's choice (environment read and bf16 probed on first use).
CpuPaths &cpuPaths();
/// The process's oneDNN engine, stream and primitive caches.
DnnlKernels &dnnlKernels();

} // namespace rt
} // namespace amp

#endif // AMP_RT_CPU_CPUPATHS_H
