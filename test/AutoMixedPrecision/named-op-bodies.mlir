// Named linalg ops keep the body their region builder builds. A contraction
// with low inputs and an f32 accumulator has its body patched in place (the
// inputs extended to f32 where they are read), which is the builder's body:
// no rebuild, no trial. A named op whose output goes low (the transpose) is
// rebuilt by its region builder. The generic form shows the bodies.
// RUN: amp-opt %s --amp-auto-mixed-precision --mlir-print-op-generic | FileCheck %s

// CHECK:      "linalg.conv_2d_nchw_fchw"
// CHECK-NEXT: ^bb0(%[[X:.*]]: f16, %[[W:.*]]: f16, %[[ACC:.*]]: f32):
// CHECK-NEXT:   %[[XE:.*]] = "arith.extf"(%[[X]]) : (f16) -> f32
// CHECK-NEXT:   %[[WE:.*]] = "arith.extf"(%[[W]]) : (f16) -> f32
// CHECK-NEXT:   %[[P:.*]] = "arith.mulf"(%[[XE]], %[[WE]])
// CHECK-NEXT:   %[[S:.*]] = "arith.addf"(%[[ACC]], %[[P]])
// CHECK-NEXT:   "linalg.yield"(%[[S]]) : (f32) -> ()
// CHECK:      (tensor<2x8x10x10xf16>, tensor<8x8x3x3xf16>, tensor<2x8x8x8xf32>) -> tensor<2x8x8x8xf32>
// CHECK:      "linalg.matmul"
// CHECK-NEXT: ^bb0(%[[A:.*]]: f16, %[[B:.*]]: f16, %[[C:.*]]: f32):
// CHECK-NEXT:   %[[AE:.*]] = "arith.extf"(%[[A]]) : (f16) -> f32
// CHECK-NEXT:   %[[BE:.*]] = "arith.extf"(%[[B]]) : (f16) -> f32
// CHECK-NEXT:   %[[M:.*]] = "arith.mulf"(%[[AE]], %[[BE]])
// CHECK-NEXT:   %[[T:.*]] = "arith.addf"(%[[C]], %[[M]])
// CHECK-NEXT:   "linalg.yield"(%[[T]]) : (f32) -> ()
// CHECK:      "linalg.transpose"
// CHECK-NEXT: ^bb0(%[[IN:.*]]: f16, %{{.*}}: f16):
// CHECK-NEXT:   "linalg.yield"(%[[IN]]) : (f16) -> ()
// CHECK:      (tensor<16x8xf16>, tensor<8x16xf16>) -> tensor<8x16xf16>
func.func @named(%x: tensor<2x8x10x10xf32>, %w: tensor<8x8x3x3xf32>, %a: tensor<16x32xf32>, %b: tensor<32x8xf32>) -> (tensor<2x8x8x8xf32>, tensor<32x16xf32>) {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x8x8x8xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<2x8x8x8xf32>) -> tensor<2x8x8x8xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<2x8x10x10xf32>, tensor<8x8x3x3xf32>) outs(%f : tensor<2x8x8x8xf32>) -> tensor<2x8x8x8xf32>
  %e2 = tensor.empty() : tensor<16x8xf32>
  %f2 = linalg.fill ins(%z : f32) outs(%e2 : tensor<16x8xf32>) -> tensor<16x8xf32>
  %m = linalg.matmul ins(%a, %b : tensor<16x32xf32>, tensor<32x8xf32>) outs(%f2 : tensor<16x8xf32>) -> tensor<16x8xf32>
  %e3 = tensor.empty() : tensor<8x16xf32>
  %t = linalg.transpose ins(%m : tensor<16x8xf32>) outs(%e3 : tensor<8x16xf32>) permutation = [1, 0]
  %e4 = tensor.empty() : tensor<32x16xf32>
  %m2 = linalg.matmul ins(%b, %t : tensor<32x8xf32>, tensor<8x16xf32>) outs(%e4 : tensor<32x16xf32>) -> tensor<32x16xf32>
  return %c, %m2 : tensor<2x8x8x8xf32>, tensor<32x16xf32>
}
