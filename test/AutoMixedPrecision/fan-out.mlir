// RUN: amp-opt %s --amp-auto-mixed-precision | FileCheck %s

// One f32 value feeds two matmuls, an f32 exp and a clear op next to a
// matmul: exactly one truncf of it is shared by all low users, and the f32
// user reads the original.
// CHECK-LABEL: func.func @fan_out
// CHECK-SAME:  (%[[X:.*]]: tensor<8x8xf32>, %[[W:.*]]: tensor<8x8xf32>)
// CHECK-DAG:   %[[X16:.*]] = arith.truncf %[[X]] : tensor<8x8xf32> to tensor<8x8xf16>
// CHECK-DAG:   %[[W16:.*]] = arith.truncf %[[W]] : tensor<8x8xf32> to tensor<8x8xf16>
// CHECK:       %[[E:.*]] = math.exp %[[X]] : tensor<8x8xf32>
// CHECK:       linalg.matmul ins(%[[X16]], %[[W16]] : tensor<8x8xf16>, tensor<8x8xf16>)
// CHECK:       %[[N:.*]] = arith.negf %[[X16]] : tensor<8x8xf16>
// CHECK:       linalg.matmul ins(%[[N]], %[[X16]] : tensor<8x8xf16>, tensor<8x8xf16>)
func.func @fan_out(%x: tensor<8x8xf32>, %w: tensor<8x8xf32>) -> (tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>) {
  %cst = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<8x8xf32>
  %zero = linalg.fill ins(%cst : f32) outs(%empty : tensor<8x8xf32>) -> tensor<8x8xf32>
  %e = math.exp %x : tensor<8x8xf32>
  %a = linalg.matmul ins(%x, %w : tensor<8x8xf32>, tensor<8x8xf32>) outs(%zero : tensor<8x8xf32>) -> tensor<8x8xf32>
  %n = arith.negf %x : tensor<8x8xf32>
  %b = linalg.matmul ins(%n, %x : tensor<8x8xf32>, tensor<8x8xf32>) outs(%zero : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %e, %a, %b : tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>
}
// RUN: amp-opt %s --amp-auto-mixed-precision | grep -c "arith.truncf %arg0" | FileCheck %s --check-prefix=ONCE
// ONCE: 1
