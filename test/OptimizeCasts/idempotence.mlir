// The pass is idempotent: a second run changes nothing.
// RUN: amp-opt %s --amp-optimize-casts | FileCheck %s
// RUN: amp-opt %s --amp-optimize-casts --amp-optimize-casts | FileCheck %s
// RUN: amp-opt %s --amp-optimize-casts -o %t.once.mlir
// RUN: amp-opt %t.once.mlir --amp-optimize-casts -o %t.twice.mlir
// RUN: diff %t.once.mlir %t.twice.mlir
// RUN: amp-opt %s --pass-pipeline='builtin.module(amp-optimize-casts{stats=true},amp-optimize-casts{stats=true})' -o /dev/null 2>&1 | FileCheck %s --check-prefix=SECOND

// SECOND:      amp-optimize-casts statistics:
// SECOND:      amp-optimize-casts statistics:
// SECOND-NEXT:   0 casts-removed
// SECOND-NEXT:   0 constants-folded
// SECOND-NEXT:   0 casts-hoisted

// CHECK-LABEL: func.func @step
// CHECK-SAME:    (%[[W:.*]]: tensor<4x4xf32>, %[[X:.*]]: tensor<4x4xf16>, %[[N:.*]]: index)
// CHECK-NEXT:    %[[W16:.*]] = arith.truncf %[[W]] : tensor<4x4xf32> to tensor<4x4xf16>
// CHECK-DAG:     %[[B:.*]] = arith.constant dense<2.500000e-01> : tensor<4x4xf16>
// CHECK-DAG:     %[[BIG:.*]] = arith.constant dense<1.000000e+05> : tensor<4x4xf32>
// CHECK-DAG:     %[[BIG16:.*]] = arith.truncf %[[BIG]] : tensor<4x4xf32> to tensor<4x4xf16>
// CHECK-DAG:     %[[ACC:.*]] = tensor.empty() : tensor<4x4xf32>
// CHECK:         scf.for {{.*}} iter_args(%[[A:.*]] = %[[X]])
// CHECK-NEXT:      %[[M:.*]] = linalg.matmul ins(%[[A]], %[[W16]] : tensor<4x4xf16>, tensor<4x4xf16>) outs(%[[ACC]] : tensor<4x4xf32>)
// CHECK-NEXT:      %[[M16:.*]] = arith.truncf %[[M]] : tensor<4x4xf32> to tensor<4x4xf16>
// CHECK-NEXT:      %[[S:.*]] = arith.addf %[[M16]], %[[B]] : tensor<4x4xf16>
// CHECK-NEXT:      %[[S2:.*]] = arith.addf %[[S]], %[[BIG16]] : tensor<4x4xf16>
// CHECK-NEXT:      scf.yield %[[S2]]
// CHECK-NOT:     arith.truncf
// CHECK-NOT:     arith.extf
func.func @step(%w: tensor<4x4xf32>, %x: tensor<4x4xf16>, %n: index) -> tensor<4x4xf16> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %bias = arith.constant dense<0.25> : tensor<4x4xf32>
  // Out of the f16 range: its cast is kept (and hoisted).
  %big = arith.constant dense<1.0e5> : tensor<4x4xf32>
  %acc = tensor.empty() : tensor<4x4xf32>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%a = %x) -> tensor<4x4xf16> {
    %w16 = arith.truncf %w : tensor<4x4xf32> to tensor<4x4xf16>
    %a32 = arith.extf %a : tensor<4x4xf16> to tensor<4x4xf32>
    %a16 = arith.truncf %a32 : tensor<4x4xf32> to tensor<4x4xf16>
    %m = linalg.matmul ins(%a16, %w16 : tensor<4x4xf16>, tensor<4x4xf16>) outs(%acc : tensor<4x4xf32>) -> tensor<4x4xf32>
    %m16 = arith.truncf %m : tensor<4x4xf32> to tensor<4x4xf16>
    %b16 = arith.truncf %bias : tensor<4x4xf32> to tensor<4x4xf16>
    %s = arith.addf %m16, %b16 : tensor<4x4xf16>
    %big16 = arith.truncf %big : tensor<4x4xf32> to tensor<4x4xf16>
    %s2 = arith.addf %s, %big16 : tensor<4x4xf16>
    scf.yield %s2 : tensor<4x4xf16>
  }
  return %r : tensor<4x4xf16>
}
