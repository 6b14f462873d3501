// amp-fold-transposes-into-contractions: a linalg.transpose of the two
// innermost dimensions feeding a (batch_)matmul input is read through the
// contraction's indexing map instead; amp-lower-to-runtime then passes
// transA / transB. Other transposes and consumers stay.
// RUN: amp-opt %s --split-input-file --amp-fold-transposes-into-contractions \
// RUN:   | FileCheck %s
// After bufferization, the folded matmul becomes a runtime call with
// transA = 1 on the untransposed buffer.
// RUN: amp-opt %s --split-input-file --amp-fold-transposes-into-contractions \
// RUN:   --one-shot-bufferize='bufferize-function-boundaries' \
// RUN:   --amp-lower-to-runtime='include-f32=true' | FileCheck %s --check-prefix=RT

// CHECK-DAG:   #[[KM:.+]] = affine_map<(d0, d1, d2) -> (d2, d0)>
// CHECK-DAG:   #[[KN:.+]] = affine_map<(d0, d1, d2) -> (d2, d1)>
// CHECK-DAG:   #[[MN:.+]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @lhs
// CHECK-SAME:    (%[[X:.+]]: tensor<512x64xf32>, %[[G:.+]]: tensor<512x16xf32>
// CHECK-NOT:     linalg.transpose
// CHECK:         linalg.matmul indexing_maps = [#[[KM]], #[[KN]], #[[MN]]] ins(%[[X]], %[[G]] : tensor<512x64xf32>, tensor<512x16xf32>)
// RT-LABEL: func.func @lhs
// RT-NOT:     linalg.transpose
// RT:         %[[ONE:.+]] = arith.constant 1 : i32
// RT:         %[[ZERO:.+]] = arith.constant 0 : i32
// RT:         call @amp_rt_matmul_f32_f32(%{{.+}}, %{{.+}}, %{{.+}}, %[[ONE]], %[[ZERO]])
func.func @lhs(%x: tensor<512x64xf32>, %g: tensor<512x16xf32>, %z: tensor<64x16xf32>) -> tensor<64x16xf32> {
  %e = tensor.empty() : tensor<64x512xf32>
  %t = linalg.transpose ins(%x : tensor<512x64xf32>) outs(%e : tensor<64x512xf32>) permutation = [1, 0]
  %r = linalg.matmul ins(%t, %g : tensor<64x512xf32>, tensor<512x16xf32>) outs(%z : tensor<64x16xf32>) -> tensor<64x16xf32>
  return %r : tensor<64x16xf32>
}

// -----

// Both operands (bf16, as after amp-opt --amp), and a transpose with a second
// use: it stays for that use, the matmul still reads its input.
// CHECK-DAG:   #[[KM:.+]] = affine_map<(d0, d1, d2) -> (d2, d0)>
// CHECK-DAG:   #[[NK:.+]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-LABEL: func.func @both
// CHECK-SAME:    (%[[A:.+]]: tensor<32x8xbf16>, %[[B:.+]]: tensor<16x32xbf16>
// CHECK:         %[[T:.+]] = linalg.transpose ins(%[[A]]
// CHECK:         linalg.matmul indexing_maps = [#[[KM]], #[[NK]], #{{.+}}] ins(%[[A]], %[[B]] : tensor<32x8xbf16>, tensor<16x32xbf16>)
// CHECK:         return %{{.+}}, %[[T]]
func.func @both(%a: tensor<32x8xbf16>, %b: tensor<16x32xbf16>, %c: tensor<8x16xf32>) -> (tensor<8x16xf32>, tensor<8x32xbf16>) {
  %e0 = tensor.empty() : tensor<8x32xbf16>
  %ta = linalg.transpose ins(%a : tensor<32x8xbf16>) outs(%e0 : tensor<8x32xbf16>) permutation = [1, 0]
  %e1 = tensor.empty() : tensor<32x16xbf16>
  %tb = linalg.transpose ins(%b : tensor<16x32xbf16>) outs(%e1 : tensor<32x16xbf16>) permutation = [1, 0]
  %r = linalg.matmul ins(%ta, %tb : tensor<8x32xbf16>, tensor<32x16xbf16>) outs(%c : tensor<8x16xf32>) -> tensor<8x16xf32>
  return %r, %ta : tensor<8x16xf32>, tensor<8x32xbf16>
}

// -----

// A matmul whose B is already transposed by its maps: folding the transpose
// of B swaps it back to the plain K x N form.
// CHECK-LABEL: func.func @back_to_plain
// CHECK-NOT:     linalg.transpose
// CHECK:         linalg.matmul ins(%{{.+}}, %{{.+}} : tensor<8x32xf32>, tensor<32x16xf32>)
func.func @back_to_plain(%a: tensor<8x32xf32>, %b: tensor<32x16xf32>, %c: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %e = tensor.empty() : tensor<16x32xf32>
  %tb = linalg.transpose ins(%b : tensor<32x16xf32>) outs(%e : tensor<16x32xf32>) permutation = [1, 0]
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                      affine_map<(m, n, k) -> (n, k)>,
                                      affine_map<(m, n, k) -> (m, n)>]
         ins(%a, %tb : tensor<8x32xf32>, tensor<16x32xf32>) outs(%c : tensor<8x16xf32>) -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}

// -----

// batch_matmul: a [0, 2, 1] transpose folds; a [1, 0, 2] one (it moves the
// batch dimension) does not.
// CHECK-DAG:   #[[BNK:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>
// CHECK-LABEL: func.func @batched
// CHECK-SAME:    (%[[A:.+]]: tensor<4x8x32xf32>, %[[B:.+]]: tensor<4x16x32xf32>, %[[P:.+]]: tensor<8x4x32xf32>
// CHECK:         linalg.batch_matmul indexing_maps = [#{{.+}}, #[[BNK]], #{{.+}}] ins(%[[A]], %[[B]] : tensor<4x8x32xf32>, tensor<4x16x32xf32>)
// CHECK:         %[[T:.+]] = linalg.transpose ins(%[[P]] : tensor<8x4x32xf32>) {{.*}} permutation = [1, 0, 2]
// CHECK:         linalg.batch_matmul ins(%[[T]], %{{.+}} : tensor<4x8x32xf32>, tensor<4x32x16xf32>)
// RT-LABEL: func.func @batched
// RT:         %[[NO:.+]] = arith.constant 0 : i32
// RT:         %[[YES:.+]] = arith.constant 1 : i32
// RT:         call @amp_rt_batch_matmul_f32_f32(%{{.+}}, %{{.+}}, %{{.+}}, %[[NO]], %[[YES]])
func.func @batched(%a: tensor<4x8x32xf32>, %b: tensor<4x16x32xf32>, %p: tensor<8x4x32xf32>, %q: tensor<4x32x16xf32>, %c: tensor<4x8x16xf32>) -> (tensor<4x8x16xf32>, tensor<4x8x16xf32>) {
  %e = tensor.empty() : tensor<4x32x16xf32>
  %tb = linalg.transpose ins(%b : tensor<4x16x32xf32>) outs(%e : tensor<4x32x16xf32>) permutation = [0, 2, 1]
  %r = linalg.batch_matmul ins(%a, %tb : tensor<4x8x32xf32>, tensor<4x32x16xf32>) outs(%c : tensor<4x8x16xf32>) -> tensor<4x8x16xf32>
  %e2 = tensor.empty() : tensor<4x8x32xf32>
  %tp = linalg.transpose ins(%p : tensor<8x4x32xf32>) outs(%e2 : tensor<4x8x32xf32>) permutation = [1, 0, 2]
  %s = linalg.batch_matmul ins(%tp, %q : tensor<4x8x32xf32>, tensor<4x32x16xf32>) outs(%c : tensor<4x8x16xf32>) -> tensor<4x8x16xf32>
  return %r, %s : tensor<4x8x16xf32>, tensor<4x8x16xf32>
}

// -----

// Not a contraction input: the transpose feeding a generic, and the one
// feeding a matmul's output, stay.
// CHECK-LABEL: func.func @not_an_input
// CHECK:         %[[TC:.+]] = linalg.transpose
// CHECK:         linalg.matmul ins(%{{.+}}, %{{.+}} : tensor<8x32xf32>, tensor<32x16xf32>) outs(%[[TC]] : tensor<8x16xf32>)
// CHECK:         linalg.transpose
func.func @not_an_input(%a: tensor<8x32xf32>, %b: tensor<32x16xf32>, %c: tensor<16x8xf32>) -> (tensor<8x16xf32>, tensor<32x8xf32>) {
  %e = tensor.empty() : tensor<8x16xf32>
  %tc = linalg.transpose ins(%c : tensor<16x8xf32>) outs(%e : tensor<8x16xf32>) permutation = [1, 0]
  %r = linalg.matmul ins(%a, %b : tensor<8x32xf32>, tensor<32x16xf32>) outs(%tc : tensor<8x16xf32>) -> tensor<8x16xf32>
  %e2 = tensor.empty() : tensor<32x8xf32>
  %ta = linalg.transpose ins(%a : tensor<8x32xf32>) outs(%e2 : tensor<32x8xf32>) permutation = [1, 0]
  return %r, %ta : tensor<8x16xf32>, tensor<32x8xf32>
}
