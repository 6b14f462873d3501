// RUN: amp-opt %s --amp-auto-mixed-precision | FileCheck %s --implicit-check-not=arith.extf
// RUN: amp-opt %s --amp-auto-mixed-precision | grep -c arith.truncf | FileCheck %s --check-prefix=CASTS
// CASTS: 3

// exp -> mulf -> maximumf -> tanh -> maximumf -> matmul -> tanh: deny taints
// the chain up to the clear op right before the matmul, which follows the
// matmul into f16. The trailing tanh is not between allow ops: it stays f32
// and reads the f32 accumulator directly.

// CHECK-LABEL: func.func @chain
// CHECK-SAME: (%[[X:.*]]: tensor<8x16xf32>, %[[W:.*]]: tensor<16x8xf32>) -> tensor<8x8xf32>
// CHECK-DAG:   %[[W16:.*]] = arith.truncf %[[W]] : tensor<16x8xf32> to tensor<16x8xf16>
// CHECK-DAG:   %[[X16:.*]] = arith.truncf %[[X]] : tensor<8x16xf32> to tensor<8x16xf16>
// CHECK:       %[[E:.*]] = math.exp %[[X]] : tensor<8x16xf32>
// CHECK:       %[[M:.*]] = arith.mulf %[[E]], %[[X]] : tensor<8x16xf32>
// CHECK:       %[[A:.*]] = arith.maximumf %[[M]], %[[X]] : tensor<8x16xf32>
// CHECK:       %[[T:.*]] = math.tanh %[[A]] : tensor<8x16xf32>
// CHECK:       %[[T16:.*]] = arith.truncf %[[T]] : tensor<8x16xf32> to tensor<8x16xf16>
// CHECK:       %[[B:.*]] = arith.maximumf %[[T16]], %[[X16]] : tensor<8x16xf16>
// CHECK:       %[[FILL:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<8x8xf32>)
// CHECK:       %[[MM:.*]] = linalg.matmul ins(%[[B]], %[[W16]] : tensor<8x16xf16>, tensor<16x8xf16>) outs(%[[FILL]] : tensor<8x8xf32>) -> tensor<8x8xf32>
// CHECK:       %[[R:.*]] = math.tanh %[[MM]] : tensor<8x8xf32>
// CHECK:       return %[[R]] : tensor<8x8xf32>
func.func @chain(%x: tensor<8x16xf32>, %w: tensor<16x8xf32>) -> tensor<8x8xf32> {
  %cst = arith.constant 0.0 : f32
  %e = math.exp %x : tensor<8x16xf32>
  %m = arith.mulf %e, %x : tensor<8x16xf32>
  %a = arith.maximumf %m, %x : tensor<8x16xf32>
  %t = math.tanh %a : tensor<8x16xf32>
  %b = arith.maximumf %t, %x : tensor<8x16xf32>
  %empty = tensor.empty() : tensor<8x8xf32>
  %zero = linalg.fill ins(%cst : f32) outs(%empty : tensor<8x8xf32>) -> tensor<8x8xf32>
  %mm = linalg.matmul ins(%b, %w : tensor<8x16xf32>, tensor<16x8xf32>) outs(%zero : tensor<8x8xf32>) -> tensor<8x8xf32>
  %r = math.tanh %mm : tensor<8x8xf32>
  return %r : tensor<8x8xf32>
}

// Statistics (printed by the pass: Debian's Release MLIR has no
// --mlir-pass-statistics).
// RUN: amp-opt %s --amp-auto-mixed-precision='stats=true' -o /dev/null 2>&1 | FileCheck %s --check-prefix=STATS
// STATS:      amp-auto-mixed-precision statistics:
// STATS-NEXT:   2 ops-converted
// STATS-NEXT:   6 ops-kept-f32
// STATS-NEXT:   3 casts-inserted
// STATS-NEXT:   0 roundings-read-wide
// STATS-NEXT:   0 carried-values-low
