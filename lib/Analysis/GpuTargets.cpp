//===- GpuTargets.cpp - GPU presets for the roofline estimate -------------===//
//
// Numbers from NVIDIA's datasheets (SXM boards, dense, no sparsity); see
// docs/reports.md for the links.
//
//===----------------------------------------------------------------------===//

#include "amp/Analysis/GpuTargets.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <string>

using namespace mlir;
using namespace mlir::amp;

static const GpuTarget kTargets[] = {
    {"v100", "NVIDIA V100 SXM2, Volta", 15.7e12, 125e12, 0, 900e9},
    {"a100", "NVIDIA A100 SXM4 80GB, Ampere", 19.5e12, 312e12, 312e12, 2039e9},
    {"h100", "NVIDIA H100 SXM5, Hopper", 66.9e12, 989.4e12, 989.4e12, 3350e9},
};

ArrayRef<GpuTarget> mlir::amp::getGpuTargets() { return kTargets; }

const GpuTarget *mlir::amp::lookupGpuTarget(StringRef name) {
  const GpuTarget *it = llvm::find_if(
      kTargets, [&](const GpuTarget &target) { return target.name == name; });
  return it == std::end(kTargets) ? nullptr : it;
}

std::string mlir::amp::listGpuTargets() {
  std::string list;
  for (auto [i, target] : llvm::enumerate(kTargets)) {
    if (i)
      list += i + 1 == std::size(kTargets) ? " or " : ", ";
    list += target.name.str();
  }
  return list;
}
