//===- CpuFeatures.h - run-time CPU feature detection -----------*- C++ -*-===//
//
// What the processor and the operating system support, read once with
// cpuid/xgetbv, so that one binary picks its kernels on every x86-64 CPU.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_RT_CPU_CPUFEATURES_H
#define AMP_RT_CPU_CPUFEATURES_H

namespace amp {
namespace rt {

struct CpuFeatures {
  bool avx2 = false, fma = false, f16c = false;
  bool avx512f = false, avx512bw = false, avx512vl = false;
  bool avx512bf16 = false; // cpuid leaf 7 subleaf 1, EAX bit 5
  bool osAvx = false;      // XCR0 has the SSE and AVX state
  bool osAvx512 = false;   // ... and the opmask and ZMM state

  /// AVX-512 F/BW/VL are usable (the OS saves their state): what oneDNN's
  /// bf16 kernels, native or emulated, need.
  bool avx512() const { return avx512f && avx512bw && avx512vl && osAvx512; }
};

/// The features of this CPU (detected on first use).
const CpuFeatures &cpuFeatures();

} // namespace rt
} // namespace amp

#endif // AMP_RT_CPU_CPUFEATURES_H
