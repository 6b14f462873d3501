// Unranked tensors never get a cast (arith.truncf / extf do not verify on
// them): they and the ops that read or produce them stay f32, and the casts
// go on the ranked side (issue 13).
// RUN: amp-opt %s --amp | FileCheck %s
// RUN: amp-opt %s --amp-auto-mixed-precision=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN

// CHECK-LABEL: func.func @f(
// CHECK-SAME:      %[[A:.*]]: tensor<*xf32>, %[[B:.*]]: tensor<64x64xf32>) -> tensor<*xf32>
// CHECK-NOT:     tensor<*xf16>
// CHECK:         %[[C:.*]] = tensor.cast %[[A]] : tensor<*xf32> to tensor<64x64xf32>
// CHECK:         %[[C16:.*]] = arith.truncf %[[C]] : tensor<64x64xf32> to tensor<64x64xf16>
// CHECK:         %[[M:.*]] = linalg.matmul ins(%[[C16]], %{{.*}} : tensor<64x64xf16>, tensor<64x64xf16>) outs(%{{.*}} : tensor<64x64xf32>)
// CHECK:         %[[R:.*]] = tensor.cast %[[M]] : tensor<64x64xf32> to tensor<*xf32>
// CHECK:         return %[[R]] : tensor<*xf32>
// EXPLAIN: remark: amp: f32: clear: reads or produces an unranked tensor, kept f32 (casts go on the ranked side)
func.func @f(%a: tensor<*xf32>, %b: tensor<64x64xf32>) -> tensor<*xf32> {
  %c = tensor.cast %a : tensor<*xf32> to tensor<64x64xf32>
  %e = tensor.empty() : tensor<64x64xf32>
  %m = linalg.matmul ins(%c, %b : tensor<64x64xf32>, tensor<64x64xf32>) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  %r = tensor.cast %m : tensor<64x64xf32> to tensor<*xf32>
  return %r : tensor<*xf32>
}

// Elementwise ops on unranked tensors between contractions stay f32; a
// low result reaching them is extended first.
// CHECK-LABEL: func.func @elementwise
// CHECK-NOT:     tensor<*xf16>
// CHECK:         arith.addf %{{.*}}, %{{.*}} : tensor<*xf32>
// CHECK:         return
func.func @elementwise(%a: tensor<*xf32>, %b: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %c = tensor.cast %a : tensor<*xf32> to tensor<64x64xf32>
  %e = tensor.empty() : tensor<64x64xf32>
  %m = linalg.matmul ins(%c, %b : tensor<64x64xf32>, tensor<64x64xf32>) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  %u = tensor.cast %m : tensor<64x64xf32> to tensor<*xf32>
  %s = arith.addf %u, %a : tensor<*xf32>
  %r = tensor.cast %s : tensor<*xf32> to tensor<64x64xf32>
  %m2 = linalg.matmul ins(%r, %b : tensor<64x64xf32>, tensor<64x64xf32>) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %m2 : tensor<64x64xf32>
}
