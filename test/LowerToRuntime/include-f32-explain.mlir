// With include-f32=true explain=true, the remarks name what was lowered and
// why the rest was not: the option widens the accepted input types to f32,
// but not to mixed operands or to an f32 -> bf16 product.
// RUN: amp-opt %s --verify-diagnostics \
// RUN:   --amp-lower-to-runtime='include-f32=true explain=true' | FileCheck %s

// CHECK-LABEL: func.func @remarks
// CHECK:         call @amp_rt_matmul_f32_f32(
// CHECK-COUNT-3: linalg.matmul
func.func @remarks(%a32: memref<8x16xf32>, %b32: memref<16x4xf32>, %c: memref<8x4xf32>,
                   %y: memref<16x4xbf16>, %w: memref<8x4xbf16>, %d: memref<8x16xf64>, %e: memref<16x4xf64>) {
  // expected-remark @below {{amp-lower-to-runtime: lowered to @amp_rt_matmul_f32_f32}}
  linalg.matmul ins(%a32, %b32 : memref<8x16xf32>, memref<16x4xf32>) outs(%c : memref<8x4xf32>)
  // expected-remark @below {{amp-lower-to-runtime: left for the upstream lowering: no runtime entry point for inputs of these types}}
  linalg.matmul ins(%a32, %y : memref<8x16xf32>, memref<16x4xbf16>) outs(%c : memref<8x4xf32>)
  // expected-remark @below {{amp-lower-to-runtime: left for the upstream lowering: no runtime entry point for f32 inputs and an bf16 output}}
  linalg.matmul ins(%a32, %b32 : memref<8x16xf32>, memref<16x4xf32>) outs(%w : memref<8x4xbf16>)
  // expected-remark @below {{amp-lower-to-runtime: left for the upstream lowering: inputs are not f16 / bf16 / f32}}
  linalg.matmul ins(%d, %e : memref<8x16xf64>, memref<16x4xf64>) outs(%c : memref<8x4xf32>)
  return
}
