// Temporaries are freed right after their last use (upstream's
// optimize-allocation-liveness after the ownership-based deallocation,
// which frees them at the end of the block): %a is dead once %b is
// computed, so its buffer is freed before %c's is allocated, and at most
// two of the three results are live at once.
// RUN: amp-opt %s --amp-lower-to-llvm='fast=true threads=1 bf16-conversions=native' | FileCheck %s

// CHECK-LABEL: llvm.func @chain(
// CHECK:      llvm.call @malloc(
// CHECK-NOT:  llvm.call @free
// CHECK:      llvm.call @amp_rt_matmul_f32_f32_overwrite(
// CHECK-NOT:  llvm.call @free
// CHECK:      llvm.call @malloc(
// CHECK-NOT:  llvm.call @free
// CHECK:      llvm.call @amp_rt_matmul_f32_f32_overwrite(
// CHECK-NOT:  llvm.call @malloc
// CHECK:      llvm.call @free(
// CHECK-NOT:  llvm.call @free
// CHECK:      llvm.call @malloc(
// CHECK-NOT:  llvm.call @free
// CHECK:      llvm.call @amp_rt_matmul_f32_f32_overwrite(
// CHECK-NEXT: llvm.extractvalue
// CHECK:      llvm.call @free(
// CHECK-NOT:  llvm.call
// CHECK:      llvm.return
func.func @chain(%x: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x64xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  %a = linalg.matmul ins(%x, %x : tensor<64x64xf32>, tensor<64x64xf32>) outs(%z : tensor<64x64xf32>) -> tensor<64x64xf32>
  %b = linalg.matmul ins(%a, %a : tensor<64x64xf32>, tensor<64x64xf32>) outs(%z : tensor<64x64xf32>) -> tensor<64x64xf32>
  %c = linalg.matmul ins(%b, %b : tensor<64x64xf32>, tensor<64x64xf32>) outs(%z : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %c : tensor<64x64xf32>
}
