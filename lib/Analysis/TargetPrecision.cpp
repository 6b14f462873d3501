//===- TargetPrecision.cpp - What mode=auto picks for a target ------------===//

#include "amp/Analysis/TargetPrecision.h"

#include "amp/Analysis/GpuTargets.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/TargetParser/Host.h"

using namespace mlir;
using namespace mlir::amp;

/// The CPU features mode=auto looks at: `requested`, or the host's.
static llvm::StringSet<> cpuFeatureSet(ArrayRef<std::string> requested) {
  llvm::StringSet<> set;
  if (!requested.empty()) {
    for (const std::string &f : requested)
      set.insert(StringRef(f).trim());
    return set;
  }
  for (const auto &entry : llvm::sys::getHostCPUFeatures())
    if (entry.getValue())
      set.insert(entry.getKey());
  return set;
}

AutoPrecision mlir::amp::chooseAutoPrecision(TargetOption target,
                                             ArrayRef<std::string> cpuFeatures,
                                             EmitOption emit) {
  if (target == TargetOption::Cpu) {
    llvm::StringSet<> features = cpuFeatureSet(cpuFeatures);
    StringRef which = cpuFeatures.empty() ? "the host CPU" : "the CPU";
    if (features.contains("avx512bf16") || features.contains("amx-bf16"))
      return AutoPrecision{
          AmpMode::BF16,
          (which + " has bf16 dot products (" +
           (features.contains("avx512bf16") ? "AVX512_BF16" : "AMX-BF16") +
           "), twice the work of an f32 FMA: bf16")
              .str()};
    // F16C alone: IREE's data-tiled matmuls read f16 operands at half the
    // bytes, which paid on AVX2 (Zen 1: MLP 1.11x of IREE f32); with
    // AVX-512 IREE's f32 matmuls are fast enough that f16 storage loses
    // (Intel Xeon, family 6 model 85: 0.40-0.66x; docs/downstream.md).
    // amp-opt's own lowering (libamp_rt) widens 16-bit operands to f32 on
    // every call, which costs more than the bytes save (that Xeon: bf16
    // forwards 0.54-0.65x, convolutions 0.82-0.91x; docs/performance.md).
    if (features.contains("f16c")) {
      std::string converts =
          (which + " converts f16 (F16C) but has no low-precision arithmetic")
              .str();
      bool avx512 = features.contains("avx512f");
      if (emit == EmitOption::Iree && !avx512)
        return AutoPrecision{AmpMode::F16,
                             converts + ": f16 storage halves the bytes "
                                        "IREE's data-tiled matmuls read, the "
                                        "arithmetic stays f32"};
      if (emit == EmitOption::Iree)
        return AutoPrecision{std::nullopt,
                             converts + ", and IREE's AVX-512 f32 matmuls "
                                        "outrun f16 storage there: nothing "
                                        "pays, the program stays f32"};
      return AutoPrecision{
          std::nullopt,
          converts +
              ", and amp-opt's lowering widens 16-bit operands to f32 on "
              "every contraction: nothing pays, the program stays f32" +
              (avx512 ? "" : " (emit=iree keeps f16 storage)")};
    }
    return AutoPrecision{
        std::nullopt,
        (which + " has neither bf16 dot products nor F16C conversions: "
                 "nothing pays, the program stays f32")
            .str()};
  }
  const GpuTarget *gpu = lookupGpuTarget(stringifyEnumOption(target));
  assert(gpu && "every GPU target option has a preset");
  if (gpu->peakBF16Tensor > 0)
    return AutoPrecision{AmpMode::BF16,
                         (gpu->name + " has bf16 Tensor Cores at the f16 "
                                      "rate: bf16, f32's range, no loss "
                                      "scaling needed")
                             .str()};
  return AutoPrecision{AmpMode::F16,
                       (gpu->name + " has f16 Tensor Cores only: f16").str()};
}
