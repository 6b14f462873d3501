// Named linalg contractions (allow): f16 inputs, f32 init and result, and a
// rebuilt body that extends the f16 elements and multiplies and accumulates
// in f32 (Tensor Core semantics).
//
// RUN: amp-opt %s --amp-auto-mixed-precision | FileCheck %s
// The bodies the pass built (the custom form does not print them; reparsing
// it would rebuild them from the types).
// RUN: amp-opt %s --amp-auto-mixed-precision --mlir-print-op-generic \
// RUN:   | FileCheck %s --check-prefix=BODY
// The rebuilt bodies verify and generalize to the same f32 arithmetic.
// RUN: amp-opt %s --amp-auto-mixed-precision --mlir-print-op-generic \
// RUN:   | mlir-opt --verify-each --linalg-generalize-named-ops \
// RUN:   | FileCheck %s --check-prefix=GEN
// RUN: amp-opt %s --amp-auto-mixed-precision=mode=bf16 | FileCheck %s --check-prefix=BF16

// CHECK-LABEL: func.func @matmul
// CHECK-SAME:    (%[[A:.*]]: tensor<8x16xf32>, %[[B:.*]]: tensor<16x4xf32>, %[[C:.*]]: tensor<8x4xf32>) -> tensor<8x4xf32>
// CHECK-DAG:     %[[A16:.*]] = arith.truncf %[[A]] : tensor<8x16xf32> to tensor<8x16xf16>
// CHECK-DAG:     %[[B16:.*]] = arith.truncf %[[B]] : tensor<16x4xf32> to tensor<16x4xf16>
// CHECK-NOT:     arith.truncf %[[C]]
// CHECK:         %[[R:.*]] = linalg.matmul ins(%[[A16]], %[[B16]] : tensor<8x16xf16>, tensor<16x4xf16>) outs(%[[C]] : tensor<8x4xf32>) -> tensor<8x4xf32>
// CHECK-NEXT:    return %[[R]] : tensor<8x4xf32>
// BODY-LABEL: sym_name = "matmul"
// BODY:         "linalg.matmul"
// BODY-NEXT:    ^bb0(%[[X:.*]]: f16, %[[Y:.*]]: f16, %[[ACC:.*]]: f32):
// BODY-NEXT:      %[[XE:.*]] = "arith.extf"(%[[X]]) : (f16) -> f32
// BODY-NEXT:      %[[YE:.*]] = "arith.extf"(%[[Y]]) : (f16) -> f32
// BODY-NEXT:      %[[M:.*]] = "arith.mulf"(%[[XE]], %[[YE]]) <{{.*}}> : (f32, f32) -> f32
// BODY-NEXT:      %[[S:.*]] = "arith.addf"(%[[ACC]], %[[M]]) <{{.*}}> : (f32, f32) -> f32
// BODY-NEXT:      "linalg.yield"(%[[S]]) : (f32) -> ()
// BODY-NEXT:    }) {{.*}}: (tensor<8x16xf16>, tensor<16x4xf16>, tensor<8x4xf32>) -> tensor<8x4xf32>
// GEN-LABEL: func.func @matmul
// GEN:         linalg.generic
// GEN-SAME:      ins(%{{.*}}, %{{.*}} : tensor<8x16xf16>, tensor<16x4xf16>) outs(%{{.*}} : tensor<8x4xf32>)
// GEN-NEXT:    ^bb0(%[[X:.*]]: f16, %[[Y:.*]]: f16, %[[ACC:.*]]: f32):
// GEN-NEXT:      %[[XE:.*]] = arith.extf %[[X]] : f16 to f32
// GEN-NEXT:      %[[YE:.*]] = arith.extf %[[Y]] : f16 to f32
// GEN-NEXT:      %[[M:.*]] = arith.mulf %[[XE]], %[[YE]] : f32
// GEN-NEXT:      %[[S:.*]] = arith.addf %[[ACC]], %[[M]] : f32
// GEN-NEXT:      linalg.yield %[[S]] : f32
// GEN-NEXT:    } -> tensor<8x4xf32>
// BF16-LABEL: func.func @matmul
// BF16:         linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<8x16xbf16>, tensor<16x4xbf16>) outs(%{{.*}} : tensor<8x4xf32>) -> tensor<8x4xf32>
func.func @matmul(%a: tensor<8x16xf32>, %b: tensor<16x4xf32>, %c: tensor<8x4xf32>) -> tensor<8x4xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x4xf32>) outs(%c : tensor<8x4xf32>) -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// A matmul with explicit (transposing) indexing maps keeps them.
// CHECK-LABEL: func.func @matmul_transpose_a
// CHECK:         linalg.matmul indexing_maps = [#[[$MAPKM:map[0-9]*]], #[[$MAPKN:map[0-9]*]], #[[$MAPMN:map[0-9]*]]] ins(%{{.*}}, %{{.*}} : tensor<16x8xf16>, tensor<16x4xf16>) outs(%{{.*}} : tensor<8x4xf32>) -> tensor<8x4xf32>
// BODY-LABEL: sym_name = "matmul_transpose_a"
// BODY:         "linalg.matmul"
// BODY-NEXT:    ^bb0(%{{.*}}: f16, %{{.*}}: f16, %{{.*}}: f32):
// BODY-NEXT:      "arith.extf"
// BODY-NEXT:      "arith.extf"
// BODY-NEXT:      "arith.mulf"{{.*}} : (f32, f32) -> f32
// BODY-NEXT:      "arith.addf"{{.*}} : (f32, f32) -> f32
func.func @matmul_transpose_a(%a: tensor<16x8xf32>, %b: tensor<16x4xf32>, %c: tensor<8x4xf32>) -> tensor<8x4xf32> {
  %0 = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>]
    ins(%a, %b : tensor<16x8xf32>, tensor<16x4xf32>) outs(%c : tensor<8x4xf32>) -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// CHECK-LABEL: func.func @batch_matmul
// CHECK-SAME:    (%[[A:.*]]: tensor<2x8x16xf32>, %[[B:.*]]: tensor<2x16x4xf32>, %[[C:.*]]: tensor<2x8x4xf32>)
// CHECK-DAG:     %[[A16:.*]] = arith.truncf %[[A]] : tensor<2x8x16xf32> to tensor<2x8x16xf16>
// CHECK-DAG:     %[[B16:.*]] = arith.truncf %[[B]] : tensor<2x16x4xf32> to tensor<2x16x4xf16>
// CHECK:         %[[R:.*]] = linalg.batch_matmul ins(%[[A16]], %[[B16]] : tensor<2x8x16xf16>, tensor<2x16x4xf16>) outs(%[[C]] : tensor<2x8x4xf32>) -> tensor<2x8x4xf32>
// CHECK-NEXT:    return %[[R]] : tensor<2x8x4xf32>
// GEN-LABEL: func.func @batch_matmul
// GEN:         linalg.generic
// GEN-SAME:      ins(%{{.*}}, %{{.*}} : tensor<2x8x16xf16>, tensor<2x16x4xf16>) outs(%{{.*}} : tensor<2x8x4xf32>)
// GEN-NEXT:    ^bb0(%{{.*}}: f16, %{{.*}}: f16, %[[ACC:.*]]: f32):
// GEN-NEXT:      arith.extf %{{.*}} : f16 to f32
// GEN-NEXT:      arith.extf %{{.*}} : f16 to f32
// GEN-NEXT:      %[[M:.*]] = arith.mulf %{{.*}}, %{{.*}} : f32
// GEN-NEXT:      arith.addf %[[ACC]], %[[M]] : f32
func.func @batch_matmul(%a: tensor<2x8x16xf32>, %b: tensor<2x16x4xf32>, %c: tensor<2x8x4xf32>) -> tensor<2x8x4xf32> {
  %0 = linalg.batch_matmul ins(%a, %b : tensor<2x8x16xf32>, tensor<2x16x4xf32>) outs(%c : tensor<2x8x4xf32>) -> tensor<2x8x4xf32>
  return %0 : tensor<2x8x4xf32>
}

// CHECK-LABEL: func.func @batch_reduce_matmul
// CHECK-SAME:    (%[[A:.*]]: tensor<2x8x16xf32>, %[[B:.*]]: tensor<2x16x4xf32>, %[[C:.*]]: tensor<8x4xf32>)
// CHECK-DAG:     %[[A16:.*]] = arith.truncf %[[A]] : tensor<2x8x16xf32> to tensor<2x8x16xf16>
// CHECK-DAG:     %[[B16:.*]] = arith.truncf %[[B]] : tensor<2x16x4xf32> to tensor<2x16x4xf16>
// CHECK:         linalg.batch_reduce_matmul ins(%[[A16]], %[[B16]] : tensor<2x8x16xf16>, tensor<2x16x4xf16>) outs(%[[C]] : tensor<8x4xf32>) -> tensor<8x4xf32>
// GEN-LABEL: func.func @batch_reduce_matmul
// GEN:         linalg.generic
// GEN-SAME:      iterator_types = ["reduction", "parallel", "parallel", "reduction"]
// GEN-SAME:      ins(%{{.*}}, %{{.*}} : tensor<2x8x16xf16>, tensor<2x16x4xf16>) outs(%{{.*}} : tensor<8x4xf32>)
// GEN-NEXT:    ^bb0(%{{.*}}: f16, %{{.*}}: f16, %[[ACC:.*]]: f32):
// GEN-NEXT:      arith.extf %{{.*}} : f16 to f32
// GEN-NEXT:      arith.extf %{{.*}} : f16 to f32
// GEN-NEXT:      %[[M:.*]] = arith.mulf %{{.*}}, %{{.*}} : f32
// GEN-NEXT:      arith.addf %[[ACC]], %[[M]] : f32
func.func @batch_reduce_matmul(%a: tensor<2x8x16xf32>, %b: tensor<2x16x4xf32>, %c: tensor<8x4xf32>) -> tensor<8x4xf32> {
  %0 = linalg.batch_reduce_matmul ins(%a, %b : tensor<2x8x16xf32>, tensor<2x16x4xf32>) outs(%c : tensor<8x4xf32>) -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// CHECK-LABEL: func.func @matvec
// CHECK-SAME:    (%[[A:.*]]: tensor<8x16xf32>, %[[X:.*]]: tensor<16xf32>, %[[Y:.*]]: tensor<8xf32>)
// CHECK-DAG:     %[[A16:.*]] = arith.truncf %[[A]] : tensor<8x16xf32> to tensor<8x16xf16>
// CHECK-DAG:     %[[X16:.*]] = arith.truncf %[[X]] : tensor<16xf32> to tensor<16xf16>
// CHECK:         linalg.matvec ins(%[[A16]], %[[X16]] : tensor<8x16xf16>, tensor<16xf16>) outs(%[[Y]] : tensor<8xf32>) -> tensor<8xf32>
// GEN-LABEL: func.func @matvec
// GEN:         linalg.generic
// GEN-SAME:      outs(%{{.*}} : tensor<8xf32>)
// GEN-NEXT:    ^bb0(%{{.*}}: f16, %{{.*}}: f16, %[[ACC:.*]]: f32):
// GEN-NEXT:      arith.extf %{{.*}} : f16 to f32
// GEN-NEXT:      arith.extf %{{.*}} : f16 to f32
// GEN-NEXT:      %[[M:.*]] = arith.mulf %{{.*}}, %{{.*}} : f32
// GEN-NEXT:      arith.addf %[[ACC]], %[[M]] : f32
func.func @matvec(%a: tensor<8x16xf32>, %x: tensor<16xf32>, %y: tensor<8xf32>) -> tensor<8xf32> {
  %0 = linalg.matvec ins(%a, %x : tensor<8x16xf32>, tensor<16xf32>) outs(%y : tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// linalg.contract with a transposed LHS.
// CHECK-LABEL: func.func @contract
// CHECK-SAME:    (%[[A:.*]]: tensor<16x8xf32>, %[[B:.*]]: tensor<16x4xf32>, %[[C:.*]]: tensor<8x4xf32>)
// CHECK-DAG:     %[[A16:.*]] = arith.truncf %[[A]] : tensor<16x8xf32> to tensor<16x8xf16>
// CHECK-DAG:     %[[B16:.*]] = arith.truncf %[[B]] : tensor<16x4xf32> to tensor<16x4xf16>
// CHECK:         %[[R:.*]] = linalg.contract indexing_maps = [#[[$MAPKM]], #[[$MAPKN]], #[[$MAPMN]]] ins(%[[A16]], %[[B16]] : tensor<16x8xf16>, tensor<16x4xf16>) outs(%[[C]] : tensor<8x4xf32>) -> tensor<8x4xf32>
// CHECK-NEXT:    return %[[R]] : tensor<8x4xf32>
// BODY-LABEL: sym_name = "contract"
// BODY:         "linalg.contract"
// BODY-NEXT:    ^bb0(%[[X:.*]]: f16, %[[Y:.*]]: f16, %[[ACC:.*]]: f32):
// BODY-NEXT:      %[[XE:.*]] = "arith.extf"(%[[X]]) : (f16) -> f32
// BODY-NEXT:      %[[YE:.*]] = "arith.extf"(%[[Y]]) : (f16) -> f32
// BODY-NEXT:      %[[M:.*]] = "arith.mulf"(%[[XE]], %[[YE]]) <{{.*}}> : (f32, f32) -> f32
// BODY-NEXT:      %[[S:.*]] = "arith.addf"(%[[ACC]], %[[M]]) <{{.*}}> : (f32, f32) -> f32
// BODY-NEXT:      "linalg.yield"(%[[S]]) : (f32) -> ()
// GEN-LABEL: func.func @contract
// GEN:         linalg.generic
// GEN-SAME:      ins(%{{.*}}, %{{.*}} : tensor<16x8xf16>, tensor<16x4xf16>) outs(%{{.*}} : tensor<8x4xf32>)
// GEN-NEXT:    ^bb0(%{{.*}}: f16, %{{.*}}: f16, %[[ACC:.*]]: f32):
// GEN-NEXT:      arith.extf %{{.*}} : f16 to f32
// GEN-NEXT:      arith.extf %{{.*}} : f16 to f32
// GEN-NEXT:      %[[M:.*]] = arith.mulf %{{.*}}, %{{.*}} : f32
// GEN-NEXT:      arith.addf %[[ACC]], %[[M]] : f32
// BF16-LABEL: func.func @contract
// BF16:         linalg.contract {{.*}} ins(%{{.*}}, %{{.*}} : tensor<16x8xbf16>, tensor<16x4xbf16>) outs(%{{.*}} : tensor<8x4xf32>) -> tensor<8x4xf32>
func.func @contract(%a: tensor<16x8xf32>, %b: tensor<16x4xf32>, %c: tensor<8x4xf32>) -> tensor<8x4xf32> {
  %0 = linalg.contract indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>]
    ins(%a, %b : tensor<16x8xf32>, tensor<16x4xf32>) outs(%c : tensor<8x4xf32>) -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// The accumulator chain of two matmuls stays f32 (the first result is the
// second's init), and the inputs are cast once.
// CHECK-LABEL: func.func @accumulate
// CHECK-SAME:    (%[[A:.*]]: tensor<8x8xf32>, %[[B:.*]]: tensor<8x8xf32>, %[[C:.*]]: tensor<8x8xf32>)
// CHECK-DAG:     %[[A16:.*]] = arith.truncf %[[A]] : tensor<8x8xf32> to tensor<8x8xf16>
// CHECK-DAG:     %[[B16:.*]] = arith.truncf %[[B]] : tensor<8x8xf32> to tensor<8x8xf16>
// CHECK:         %[[R0:.*]] = linalg.matmul ins(%[[A16]], %[[B16]] : tensor<8x8xf16>, tensor<8x8xf16>) outs(%[[C]] : tensor<8x8xf32>) -> tensor<8x8xf32>
// CHECK-NEXT:    %[[R1:.*]] = linalg.matmul ins(%[[A16]], %[[B16]] : tensor<8x8xf16>, tensor<8x8xf16>) outs(%[[R0]] : tensor<8x8xf32>) -> tensor<8x8xf32>
// CHECK-NEXT:    return %[[R1]] : tensor<8x8xf32>
func.func @accumulate(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>, %c: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<8x8xf32>, tensor<8x8xf32>) outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
  %1 = linalg.matmul ins(%a, %b : tensor<8x8xf32>, tensor<8x8xf32>) outs(%0 : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %1 : tensor<8x8xf32>
}

// Contractions on memrefs (after bufferization) are left alone.
// CHECK-LABEL: func.func @memref_matmul
// CHECK-NOT:     f16
// CHECK:         linalg.matmul ins(%{{.*}}, %{{.*}} : memref<8x8xf32>, memref<8x8xf32>) outs(%{{.*}} : memref<8x8xf32>)
// CHECK-NOT:     f16
// CHECK:         return
func.func @memref_matmul(%a: memref<8x8xf32>, %b: memref<8x8xf32>, %c: memref<8x8xf32>) {
  linalg.matmul ins(%a, %b : memref<8x8xf32>, memref<8x8xf32>) outs(%c : memref<8x8xf32>)
  return
}
