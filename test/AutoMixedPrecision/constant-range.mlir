// A constant that f16 cannot hold (|x| > 65504) is never truncated to an
// infinity (issue 13): the ops that read it, and the clear / infer ops that
// carry it on, stay f32; bf16 has f32's range, so there it runs low.
// RUN: amp-opt %s --amp | FileCheck %s
// RUN: amp-opt %s --amp-auto-mixed-precision | FileCheck %s --check-prefix=RAW
// RUN: amp-opt %s --amp='mode=bf16' | FileCheck %s --check-prefix=BF16
// RUN: amp-opt %s --amp-auto-mixed-precision=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN

// CHECK-LABEL: func.func @big_weight
// CHECK-NOT:     arith.truncf %cst
// CHECK:         %[[C:.*]] = arith.constant dense<1.000000e+06> : tensor<64x64xf32>
// CHECK:         linalg.matmul ins(%{{.*}}, %[[C]] : tensor<64x64xf32>, tensor<64x64xf32>) outs(%{{.*}} : tensor<64x64xf32>)
// RAW-LABEL: func.func @big_weight
// RAW-NOT:     arith.truncf
// RAW:         linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<64x64xf32>, tensor<64x64xf32>)
// BF16-LABEL: func.func @big_weight
// BF16:         arith.constant dense<9.994240e+05> : tensor<64x64xbf16>
// BF16:         linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<64x64xbf16>, tensor<64x64xbf16>) outs(%{{.*}} : tensor<64x64xf32>)
// EXPLAIN: remark: amp: f32: allow: reads arith.constant at {{.*}}constant-range.mlir{{.*}}, whose values the low-precision type cannot hold, kept f32
func.func @big_weight(%a: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %c = arith.constant dense<1.0e6> : tensor<64x64xf32>
  %e = tensor.empty() : tensor<64x64xf32>
  %m = linalg.matmul ins(%a, %c : tensor<64x64xf32>, tensor<64x64xf32>) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %m : tensor<64x64xf32>
}

// Through a clear op (a broadcast) and an infer op (a scale between two
// matmuls): both stay f32, and so does the matmul they feed; the first
// matmul still runs low.
// CHECK-LABEL: func.func @through_clear_and_infer
// CHECK:         %[[M:.*]] = linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<64x64xf16>, tensor<64x64xf16>)
// CHECK:         %[[B:.*]] = linalg.broadcast ins(%{{.*}} : tensor<64xf32>) outs(%{{.*}} : tensor<64x64xf32>)
// CHECK:         %[[S:.*]] = arith.mulf %[[M]], %[[B]] : tensor<64x64xf32>
// CHECK:         linalg.matmul ins(%[[S]], %{{.*}} : tensor<64x64xf32>, tensor<64x64xf32>)
// BF16-LABEL: func.func @through_clear_and_infer
// BF16:         arith.mulf %{{.*}}, %{{.*}} : tensor<64x64xbf16>
func.func @through_clear_and_infer(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %big = arith.constant dense<7.0e4> : tensor<64xf32>
  %e = tensor.empty() : tensor<64x64xf32>
  %m = linalg.matmul ins(%a, %b : tensor<64x64xf32>, tensor<64x64xf32>) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  %bc = linalg.broadcast ins(%big : tensor<64xf32>) outs(%e : tensor<64x64xf32>) dimensions = [0]
  %s = arith.mulf %m, %bc : tensor<64x64xf32>
  %m2 = linalg.matmul ins(%s, %b : tensor<64x64xf32>, tensor<64x64xf32>) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %m2 : tensor<64x64xf32>
}

// Constants in range still become f16 constants.
// CHECK-LABEL: func.func @small_weight
// CHECK:         arith.constant dense<6.550400e+04> : tensor<64x64xf16>
// CHECK:         linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<64x64xf16>, tensor<64x64xf16>)
func.func @small_weight(%a: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %c = arith.constant dense<65504.0> : tensor<64x64xf32>
  %e = tensor.empty() : tensor<64x64xf32>
  %m = linalg.matmul ins(%a, %c : tensor<64x64xf32>, tensor<64x64xf32>) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %m : tensor<64x64xf32>
}
