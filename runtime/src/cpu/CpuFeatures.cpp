//===- CpuFeatures.cpp ----------------------------------------------------===//

#include "CpuFeatures.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include <cstdint>

namespace amp {
namespace rt {

namespace {

#if defined(__x86_64__) || defined(__i386__)
uint64_t readXcr0() {
  uint32_t eax, edx;
  // xgetbv with ECX = 0; encoded as bytes for assemblers without the name.
  __asm__ volatile(".byte 0x0f, 0x01, 0xd0" : "=a"(eax), "=d"(edx) : "c"(0));
  return (uint64_t(edx) << 32) | eax;
}

CpuFeatures detect() {
  CpuFeatures f;
  unsigned a, b, c, d;
  if (!__get_cpuid(1, &a, &b, &c, &d))
    return f;
  bool osxsave = c & (1u << 27);
  f.fma = c & (1u << 12);
  f.f16c = c & (1u << 29);
  bool avx = c & (1u << 28);
  if (osxsave) {
    uint64_t xcr0 = readXcr0();
    f.osAvx = (xcr0 & 0x6) == 0x6;      // XMM, YMM
    f.osAvx512 = (xcr0 & 0xe6) == 0xe6; // + opmask, ZMM_Hi256, Hi16_ZMM
  }
  unsigned maxLeaf = __get_cpuid_max(0, nullptr);
  if (maxLeaf < 7 || !f.osAvx || !avx) {
    f.fma = f.f16c = false;
    return f;
  }
  unsigned subleaves;
  __cpuid_count(7, 0, subleaves, b, c, d);
  f.avx2 = b & (1u << 5);
  f.avx512f = b & (1u << 16);
  f.avx512bw = b & (1u << 30);
  f.avx512vl = b & (1u << 31);
  if (subleaves >= 1) {
    __cpuid_count(7, 1, a, b, c, d);
    f.avx512bf16 = a & (1u << 5);
  }
  return f;
}
#else
CpuFeatures detect() { return CpuFeatures(); }
#endif

} // namespace

const CpuFeatures &cpuFeatures() {
  static const CpuFeatures features = detect();
  return features;
}

} // namespace rt
} // namespace amp
