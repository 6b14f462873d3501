//===- OpCost.h - FLOPs and bytes of one op for the AMP report --*- C++ -*-===//
//
// A static cost model of one op on tensors: the floating-point operations it
// performs and the bytes it reads and writes, with the contractions (matmuls,
// convolutions) told apart because they run on matrix units when their
// inputs are low precision. docs/reports.md defines every number.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_ANALYSIS_OPCOST_H
#define AMP_ANALYSIS_OPCOST_H

#include "amp/Analysis/GpuTargets.h"
#include "mlir/IR/Operation.h"
#include "mlir/IR/Types.h"

#include <cstdint>
#include <optional>

namespace mlir::amp {

struct OpCost {
  /// Floating-point operations (a multiply-accumulate counts 2).
  int64_t flops = 0;
  /// Bytes read and written in memory (operands and results).
  int64_t bytes = 0;
  /// A matmul / convolution: its FLOPs can run on matrix units.
  bool contraction = false;
  /// Element type of a contraction's inputs (null otherwise).
  Type inputElementType;
  /// A shape was dynamic: the op is not costed (flops = bytes = 0).
  bool unknown = false;
};

/// The cost of `op`, not counting the ops in its regions (the caller walks
/// the bodies of scf ops; linalg bodies are part of their op).
OpCost estimateOpCost(Operation *op);

/// Bytes of a value of `type` in memory: elements x element size for a
/// statically shaped tensor / vector / memref, the element size for a scalar
/// (i1 and other sub-byte types round up to a byte). nullopt for dynamic
/// shapes and types without a size.
std::optional<int64_t> getStorageBytes(Type type);

/// Number of elements of a static shaped type (1 for a scalar).
std::optional<int64_t> getNumElements(Type type);

/// f16 or bf16 (the element types the AMP rewrite produces).
bool isLowFloat(Type elementType);

/// The FLOP/s `cost` runs at: the Tensor Core peak for a contraction with
/// f16 / bf16 inputs (the FP32 peak where the GPU lacks it), the FP32 peak
/// for everything else (AMP bodies compute in f32 registers).
double getPeakFlops(const OpCost &cost, const GpuTarget &target);

/// Roofline time of one op: max(flops / peak, bytes / bandwidth).
double getRooflineSeconds(const OpCost &cost, const GpuTarget &target);

} // namespace mlir::amp

#endif // AMP_ANALYSIS_OPCOST_H
