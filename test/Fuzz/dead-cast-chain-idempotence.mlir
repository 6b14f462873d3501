// Bug found by the fuzzer (tools/amp-fuzz, seed 105536 of a --batch run,
// shrunk): with linalg.fill on the allow list, an allow-listed fill whose
// only reader is a dead cast chain (truncf to f16, extf back, nobody reads
// it) was painted low on the first run, cast back to f32 for the chain and
// folded into an f32 fill by the cast cleanup, which then erased the chain;
// the second run found the fill unused and painted it bf16. Fixed: with the
// cast cleanup on, amp-auto-mixed-precision erases the tensor ops nobody
// reads (the chain, then the fill only it read) before painting, so both
// runs paint the same program.
//
// RUN: amp-opt %s '--amp-auto-mixed-precision=mode=bf16 allow-add=linalg.fill clear-remove=linalg.fill optimize-casts=true' --amp-pad-for-tensor-cores -o %t.1.mlir
// RUN: amp-opt %t.1.mlir '--amp-auto-mixed-precision=mode=bf16 allow-add=linalg.fill clear-remove=linalg.fill optimize-casts=true' --amp-pad-for-tensor-cores -o %t.2.mlir
// RUN: diff %t.1.mlir %t.2.mlir
// RUN: FileCheck %s < %t.1.mlir
// The dead chain is gone, and so is the fill that only it read.
// CHECK-LABEL: func.func @f1
// CHECK-NOT:     arith.truncf
// CHECK-NOT:     arith.extf
// CHECK-NOT:     linalg.fill
// CHECK:         return

func.func @f1() -> tensor<1xf32> {
  %v54 = tensor.empty() : tensor<1xf32>
  %s55 = arith.constant 0.0 : f32
  %v56 = linalg.fill ins(%s55 : f32) outs(%v54 : tensor<1xf32>) -> tensor<1xf32>
  %v83 = arith.truncf %v56 : tensor<1xf32> to tensor<1xf16>
  %v84 = arith.extf %v83 : tensor<1xf16> to tensor<1xf32>
  %v86 = arith.constant dense<0.5> : tensor<1xf32>
  return %v86 : tensor<1xf32>
}
