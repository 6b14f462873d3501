// The amp pipeline: amp-auto-mixed-precision puts the bias add between two
// matmuls in f16 and casts the f32 bias constant; amp-optimize-casts folds
// that cast into an f16 constant.
// RUN: amp-opt %s --amp | FileCheck %s
// RUN: amp-opt %s --amp='stats=true' -o /dev/null 2>&1 | FileCheck %s --check-prefix=STATS

// CHECK-LABEL: func.func @mm_bias
// CHECK-SAME:    (%[[A:.*]]: tensor<4x8xf32>, %[[W:.*]]: tensor<8x4xf32>, %[[W2:.*]]: tensor<4x4xf32>) -> tensor<4x4xf32>
// CHECK-DAG:     %[[W216:.*]] = arith.truncf %[[W2]] : tensor<4x4xf32> to tensor<4x4xf16>
// CHECK-DAG:     %[[W16:.*]] = arith.truncf %[[W]] : tensor<8x4xf32> to tensor<8x4xf16>
// CHECK-DAG:     %[[A16:.*]] = arith.truncf %[[A]] : tensor<4x8xf32> to tensor<4x8xf16>
// CHECK-DAG:     %[[BIAS:.*]] = arith.constant dense<{{\[}}[5.000000e-01, 1.000000e+00, -1.500000e+00, 2.000000e+00]{{.*}}]> : tensor<4x4xf16>
// CHECK:         %[[MM:.*]] = linalg.matmul ins(%[[A16]], %[[W16]] : tensor<4x8xf16>, tensor<8x4xf16>) outs(%{{.*}} : tensor<4x4xf32>)
// CHECK-NEXT:    %[[MM16:.*]] = arith.truncf %[[MM]] : tensor<4x4xf32> to tensor<4x4xf16>
// CHECK-NEXT:    %[[ADD:.*]] = arith.addf %[[MM16]], %[[BIAS]] : tensor<4x4xf16>
// CHECK-NEXT:    %[[R:.*]] = linalg.matmul ins(%[[ADD]], %[[W216]] : tensor<4x4xf16>, tensor<4x4xf16>) outs(%{{.*}} : tensor<4x4xf32>)
// CHECK-NEXT:    return %[[R]] : tensor<4x4xf32>
// No f32 bias and no cast of it is left.
// CHECK-NOT:     tensor<4x4xf32> to tensor<4x4xf16>
// CHECK-NOT:     arith.constant dense<{{.*}}> : tensor<4x4xf32>

// STATS:      amp-auto-mixed-precision statistics:
// STATS:      amp-optimize-casts statistics:
// STATS-NEXT:   0 casts-removed
// STATS-NEXT:   1 constants-folded
// STATS-NEXT:   0 casts-hoisted

func.func @mm_bias(%a: tensor<4x8xf32>, %w: tensor<8x4xf32>, %w2: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %bias = arith.constant dense<[[0.5, 1.0, -1.5, 2.0], [0.5, 1.0, -1.5, 2.0], [0.5, 1.0, -1.5, 2.0], [0.5, 1.0, -1.5, 2.0]]> : tensor<4x4xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x4xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  %mm = linalg.matmul ins(%a, %w : tensor<4x8xf32>, tensor<8x4xf32>) outs(%acc : tensor<4x4xf32>) -> tensor<4x4xf32>
  %r = arith.addf %mm, %bias : tensor<4x4xf32>
  %m2 = linalg.matmul ins(%r, %w2 : tensor<4x4xf32>, tensor<4x4xf32>) outs(%acc : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %m2 : tensor<4x4xf32>
}
