// An op painted low that does not verify with low types (here a bitcast the
// user put on the clear list: f16 -> i32 changes the bit width) stays f32,
// with a warning at its location, and its neighbours get the casts.
//
// RUN: amp-opt %s --verify-diagnostics \
// RUN:   --amp-auto-mixed-precision='clear-add=tensor.bitcast' | FileCheck %s

// CHECK-LABEL: func.func @bitcast
// CHECK:         %[[MM:.*]] = linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<8x8xf16>, tensor<8x8xf16>) outs(%{{.*}} : tensor<8x8xf32>) -> tensor<8x8xf32>
// CHECK:         %[[T:.*]] = math.tanh %{{.*}} : tensor<8x8xf16>
// CHECK:         %[[T32:.*]] = arith.extf %[[T]] : tensor<8x8xf16> to tensor<8x8xf32>
// CHECK:         %[[BC:.*]] = tensor.bitcast %[[T32]] : tensor<8x8xf32> to tensor<8x8xi32>
// CHECK:         linalg.matmul ins(%[[T]], %{{.*}} : tensor<8x8xf16>, tensor<8x8xf16>)
// CHECK:         return %{{.*}}, %[[BC]] : tensor<8x8xf32>, tensor<8x8xi32>
func.func @bitcast(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>, %c: tensor<8x8xf32>) -> (tensor<8x8xf32>, tensor<8x8xi32>) {
  %0 = linalg.matmul ins(%a, %b : tensor<8x8xf32>, tensor<8x8xf32>) outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
  %1 = math.tanh %0 : tensor<8x8xf32>
  // expected-warning @below {{amp: cannot run tensor.bitcast in 'f16' (the op does not verify with 'f16' types); kept f32}}
  %2 = tensor.bitcast %1 : tensor<8x8xf32> to tensor<8x8xi32>
  %3 = linalg.matmul ins(%1, %b : tensor<8x8xf32>, tensor<8x8xf32>) outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %3, %2 : tensor<8x8xf32>, tensor<8x8xi32>
}
