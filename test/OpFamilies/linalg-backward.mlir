// Contractions of backward graphs as torch-mlir exports them (issue 13 item
// 6): convolution backward data / backward filter written as 7-D generics
// whose input maps add loop dimensions, and matmuls whose body applies a
// ReLU mask (`arith.cmpf` + `arith.select`). They are contractions like
// their forward counterparts: low inputs, f32 accumulator. Near misses stay
// what they were.
//
// RUN: amp-opt %s --amp-auto-mixed-precision | FileCheck %s
// RUN: amp-opt %s --amp-auto-mixed-precision=mode=bf16 | FileCheck %s --check-prefix=BF16
// RUN: amp-opt %s --amp-auto-mixed-precision | mlir-opt --verify-each -o /dev/null
// RUN: amp-opt %s --amp-auto-mixed-precision=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// The rewritten bodies (extf of low inputs) are still contractions:
// RUN: amp-opt %s --amp -o %t.1.mlir
// RUN: amp-opt %t.1.mlir --amp -o %t.2.mlir
// RUN: diff %t.1.mlir %t.2.mlir

// Backward data of a 3x3 NHWC convolution: the output gradient (padded by
// 1) convolved with the flipped, transposed filter. Iteration space
// (n, h, w, c, kh, kw, f).
#bd_in = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1 + d4, d2 + d5, d6)>
#bd_w = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d3, d6)>
#bd_out = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>

// CHECK-LABEL: func.func @conv_backward_data
// CHECK-SAME:    (%[[DY:.*]]: tensor<2x10x10x64xf32>, %[[W:.*]]: tensor<3x3x32x64xf32>, %[[ACC:.*]]: tensor<2x8x8x32xf32>)
// CHECK-DAG:     %[[DY16:.*]] = arith.truncf %[[DY]] : tensor<2x10x10x64xf32> to tensor<2x10x10x64xf16>
// CHECK-DAG:     %[[W16:.*]] = arith.truncf %[[W]] : tensor<3x3x32x64xf32> to tensor<3x3x32x64xf16>
// CHECK:         %[[R:.*]] = linalg.generic
// CHECK-SAME:      ins(%[[DY16]], %[[W16]] : tensor<2x10x10x64xf16>, tensor<3x3x32x64xf16>) outs(%[[ACC]] : tensor<2x8x8x32xf32>)
// CHECK-NEXT:    ^bb0(%{{.*}}: f16, %{{.*}}: f16, %{{.*}}: f32):
// CHECK:         } -> tensor<2x8x8x32xf32>
// CHECK-NEXT:    return %[[R]] : tensor<2x8x8x32xf32>
// BF16-LABEL: func.func @conv_backward_data
// BF16:         linalg.generic
// BF16-SAME:      ins(%{{.*}}, %{{.*}} : tensor<2x10x10x64xbf16>, tensor<3x3x32x64xbf16>) outs(%{{.*}} : tensor<2x8x8x32xf32>)
// EXPLAIN: remark: amp: low: allow (linalg.generic:contraction (default)): low-precision inputs, f32 accumulation
func.func @conv_backward_data(%dy: tensor<2x10x10x64xf32>, %w: tensor<3x3x32x64xf32>, %acc: tensor<2x8x8x32xf32>) -> tensor<2x8x8x32xf32> {
  %r = linalg.generic {indexing_maps = [#bd_in, #bd_w, #bd_out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%dy, %w : tensor<2x10x10x64xf32>, tensor<3x3x32x64xf32>) outs(%acc : tensor<2x8x8x32xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<2x8x8x32xf32>
  return %r : tensor<2x8x8x32xf32>
}

// Backward data of a stride-2 NCHW convolution (torch-mlir's layout, the
// gradient dilated by the stride): `d2 * 2 + d5` style maps.
#bs_in = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 * 2 + d5, d3 * 2 + d6)>
#bs_w = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d1, d5, d6)>
#bs_out = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>

// CHECK-LABEL: func.func @conv_backward_data_nchw_strided
// CHECK:         linalg.generic
// CHECK-SAME:      ins(%{{.*}}, %{{.*}} : tensor<2x64x17x17xf16>, tensor<64x32x3x3xf16>) outs(%{{.*}} : tensor<2x32x8x8xf32>)
func.func @conv_backward_data_nchw_strided(%dy: tensor<2x64x17x17xf32>, %w: tensor<64x32x3x3xf32>, %acc: tensor<2x32x8x8xf32>) -> tensor<2x32x8x8xf32> {
  %r = linalg.generic {indexing_maps = [#bs_in, #bs_w, #bs_out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%dy, %w : tensor<2x64x17x17xf32>, tensor<64x32x3x3xf32>) outs(%acc : tensor<2x32x8x8xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<2x32x8x8xf32>
  return %r : tensor<2x32x8x8xf32>
}

// Backward filter of a 3x3 NHWC convolution: the padded input convolved
// with the output gradient, reducing over (n, oh, ow). Iteration space
// (kh, kw, c, f, n, oh, ow).
#bf_x = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5 + d0, d6 + d1, d2)>
#bf_dy = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d3)>
#bf_out = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>

// CHECK-LABEL: func.func @conv_backward_filter
// CHECK-SAME:    (%[[X:.*]]: tensor<2x10x10x32xf32>, %[[DY:.*]]: tensor<2x8x8x64xf32>, %[[ACC:.*]]: tensor<3x3x32x64xf32>)
// CHECK-DAG:     %[[X16:.*]] = arith.truncf %[[X]] : tensor<2x10x10x32xf32> to tensor<2x10x10x32xf16>
// CHECK-DAG:     %[[DY16:.*]] = arith.truncf %[[DY]] : tensor<2x8x8x64xf32> to tensor<2x8x8x64xf16>
// CHECK:         %[[R:.*]] = linalg.generic
// CHECK-SAME:      ins(%[[X16]], %[[DY16]] : tensor<2x10x10x32xf16>, tensor<2x8x8x64xf16>) outs(%[[ACC]] : tensor<3x3x32x64xf32>)
// CHECK:         } -> tensor<3x3x32x64xf32>
// CHECK-NEXT:    return %[[R]] : tensor<3x3x32x64xf32>
// BF16-LABEL: func.func @conv_backward_filter
// BF16:         linalg.generic
// BF16-SAME:      ins(%{{.*}}, %{{.*}} : tensor<2x10x10x32xbf16>, tensor<2x8x8x64xbf16>) outs(%{{.*}} : tensor<3x3x32x64xf32>)
func.func @conv_backward_filter(%x: tensor<2x10x10x32xf32>, %dy: tensor<2x8x8x64xf32>, %acc: tensor<3x3x32x64xf32>) -> tensor<3x3x32x64xf32> {
  %r = linalg.generic {indexing_maps = [#bf_x, #bf_dy, #bf_out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %dy : tensor<2x10x10x32xf32>, tensor<2x8x8x64xf32>) outs(%acc : tensor<3x3x32x64xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<3x3x32x64xf32>
  return %r : tensor<3x3x32x64xf32>
}

#mA = affine_map<(m, n, k) -> (m, k)>
#mB = affine_map<(m, n, k) -> (k, n)>
#mC = affine_map<(m, n, k) -> (m, n)>

// The gradient of a linear layer after a ReLU: the ReLU backward
// (`select(x > 0, g, 0)`) fused into the matmul with the transposed weight.
// Three inputs (gradient, weight, the forward activation of the mask): the
// multiplied ones and the mask's input go low, the accumulator stays f32.
// CHECK-LABEL: func.func @relu_masked_matmul
// CHECK-SAME:    (%[[G:.*]]: tensor<16x128xf32>, %[[WT:.*]]: tensor<128x64xf32>, %[[XF:.*]]: tensor<16x128xf32>, %[[ACC:.*]]: tensor<16x64xf32>)
// CHECK:         %[[R:.*]] = linalg.generic
// CHECK-SAME:      ins(%{{.*}}, %{{.*}}, %{{.*}} : tensor<16x128xf16>, tensor<128x64xf16>, tensor<16x128xf16>) outs(%[[ACC]] : tensor<16x64xf32>)
// CHECK-NEXT:    ^bb0(%{{.*}}: f16, %{{.*}}: f16, %{{.*}}: f16, %{{.*}}: f32):
// CHECK:           arith.cmpf ogt
// CHECK:           arith.select
// CHECK:           arith.mulf
// CHECK:           arith.addf
// CHECK:         } -> tensor<16x64xf32>
// CHECK-NEXT:    return %[[R]] : tensor<16x64xf32>
// BF16-LABEL: func.func @relu_masked_matmul
// BF16:         linalg.generic
// BF16-SAME:      ins(%{{.*}}, %{{.*}}, %{{.*}} : tensor<16x128xbf16>, tensor<128x64xbf16>, tensor<16x128xbf16>) outs(%{{.*}} : tensor<16x64xf32>)
func.func @relu_masked_matmul(%g: tensor<16x128xf32>, %wt: tensor<128x64xf32>, %xf: tensor<16x128xf32>, %acc: tensor<16x64xf32>) -> tensor<16x64xf32> {
  %zero = arith.constant 0.0 : f32
  %r = linalg.generic {indexing_maps = [#mA, #mB, #mA, #mC], iterator_types = ["parallel", "parallel", "reduction"]} ins(%g, %wt, %xf : tensor<16x128xf32>, tensor<128x64xf32>, tensor<16x128xf32>) outs(%acc : tensor<16x64xf32>) {
  ^bb0(%a: f32, %b: f32, %x: f32, %c: f32):
    %pos = arith.cmpf ogt, %x, %zero : f32
    %masked = arith.select %pos, %a, %zero : f32
    %m = arith.mulf %masked, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<16x64xf32>
  return %r : tensor<16x64xf32>
}

// The mask on the product, with the constant in the body, and the mask on
// the update (`select(mask, acc + a * b, acc)`): contractions too.
// CHECK-LABEL: func.func @masked_product_and_update
// CHECK:         linalg.generic
// CHECK-SAME:      ins(%{{.*}}, %{{.*}}, %{{.*}} : tensor<16x128xf16>, tensor<128x64xf16>, tensor<16x128xf16>) outs(%{{.*}} : tensor<16x64xf32>)
// CHECK:         linalg.generic
// CHECK-SAME:      ins(%{{.*}}, %{{.*}}, %{{.*}} : tensor<16x128xf16>, tensor<128x64xf16>, tensor<16x128xf16>) outs(%{{.*}} : tensor<16x64xf32>)
func.func @masked_product_and_update(%g: tensor<16x128xf32>, %wt: tensor<128x64xf32>, %xf: tensor<16x128xf32>, %acc: tensor<16x64xf32>) -> (tensor<16x64xf32>, tensor<16x64xf32>) {
  %r = linalg.generic {indexing_maps = [#mA, #mB, #mA, #mC], iterator_types = ["parallel", "parallel", "reduction"]} ins(%g, %wt, %xf : tensor<16x128xf32>, tensor<128x64xf32>, tensor<16x128xf32>) outs(%acc : tensor<16x64xf32>) {
  ^bb0(%a: f32, %b: f32, %x: f32, %c: f32):
    %zero = arith.constant 0.0 : f32
    %pos = arith.cmpf ogt, %x, %zero : f32
    %m = arith.mulf %a, %b : f32
    %masked = arith.select %pos, %m, %zero : f32
    %s = arith.addf %masked, %c : f32
    linalg.yield %s : f32
  } -> tensor<16x64xf32>
  %r2 = linalg.generic {indexing_maps = [#mA, #mB, #mA, #mC], iterator_types = ["parallel", "parallel", "reduction"]} ins(%g, %wt, %xf : tensor<16x128xf32>, tensor<128x64xf32>, tensor<16x128xf32>) outs(%acc : tensor<16x64xf32>) {
  ^bb0(%a: f32, %b: f32, %x: f32, %c: f32):
    %zero = arith.constant 0.0 : f32
    %pos = arith.cmpf ogt, %x, %zero : f32
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    %keep = arith.select %pos, %s, %c : f32
    linalg.yield %keep : f32
  } -> tensor<16x64xf32>
  return %r, %r2 : tensor<16x64xf32>, tensor<16x64xf32>
}

// Near misses.

// Multiply and take a max: no sum of products, a clear/infer reduction by
// its strictest body op (mulf: infer), not an allow op: with no allow
// neighbour it stays f32.
// CHECK-LABEL: func.func @near_miss_mul_max
// CHECK-NOT:     arith.truncf
// CHECK:         linalg.generic
// CHECK-SAME:      ins(%{{.*}}, %{{.*}} : tensor<16x128xf32>, tensor<128x64xf32>) outs(%{{.*}} : tensor<16x64xf32>)
// EXPLAIN: remark: amp: f32: infer: not between allow ops, kept f32
func.func @near_miss_mul_max(%a: tensor<16x128xf32>, %b: tensor<128x64xf32>, %acc: tensor<16x64xf32>) -> tensor<16x64xf32> {
  %r = linalg.generic {indexing_maps = [#mA, #mB, #mC], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : tensor<16x128xf32>, tensor<128x64xf32>) outs(%acc : tensor<16x64xf32>) {
  ^bb0(%x: f32, %y: f32, %c: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.maximumf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<16x64xf32>
  return %r : tensor<16x64xf32>
}

#id2 = affine_map<(d0, d1) -> (d0, d1)>
#rowsum_in = affine_map<(d0, d1) -> (d0, d1)>
#rowsum_out = affine_map<(d0, d1) -> (d0)>

// An elementwise select (a ReLU backward that is not fused): clear, and
// with no low neighbour it stays f32.
// CHECK-LABEL: func.func @near_miss_elementwise_select
// CHECK-NOT:     arith.truncf
// CHECK:         linalg.generic
// CHECK-SAME:      ins(%{{.*}}, %{{.*}} : tensor<16x128xf32>, tensor<16x128xf32>) outs(%{{.*}} : tensor<16x128xf32>)
// EXPLAIN: remark: amp: f32: clear: no low-precision neighbour, kept f32
func.func @near_miss_elementwise_select(%g: tensor<16x128xf32>, %x: tensor<16x128xf32>, %out: tensor<16x128xf32>) -> tensor<16x128xf32> {
  %r = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%g, %x : tensor<16x128xf32>, tensor<16x128xf32>) outs(%out : tensor<16x128xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %zero = arith.constant 0.0 : f32
    %pos = arith.cmpf ogt, %b, %zero : f32
    %s = arith.select %pos, %a, %zero : f32
    linalg.yield %s : f32
  } -> tensor<16x128xf32>
  return %r : tensor<16x128xf32>
}

// A masked sum without a product (the bias gradient after a ReLU), a sum of
// squares (a norm) and a scaled sum: sum reductions, deny in f16.
// CHECK-LABEL: func.func @near_miss_sums
// CHECK-NOT:     arith.truncf
// CHECK:         return
// EXPLAIN-COUNT-3: remark: amp: f32: deny (linalg.generic:sum-reduction (default))
func.func @near_miss_sums(%g: tensor<16x128xf32>, %x: tensor<16x128xf32>, %acc: tensor<16xf32>) -> (tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) {
  %r = linalg.generic {indexing_maps = [#rowsum_in, #rowsum_in, #rowsum_out], iterator_types = ["parallel", "reduction"]} ins(%g, %x : tensor<16x128xf32>, tensor<16x128xf32>) outs(%acc : tensor<16xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %zero = arith.constant 0.0 : f32
    %pos = arith.cmpf ogt, %b, %zero : f32
    %s = arith.select %pos, %a, %zero : f32
    %t = arith.addf %c, %s : f32
    linalg.yield %t : f32
  } -> tensor<16xf32>
  %sq = linalg.generic {indexing_maps = [#rowsum_in, #rowsum_in, #rowsum_out], iterator_types = ["parallel", "reduction"]} ins(%g, %g : tensor<16x128xf32>, tensor<16x128xf32>) outs(%acc : tensor<16xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %a : f32
    %t = arith.addf %c, %m : f32
    linalg.yield %t : f32
  } -> tensor<16xf32>
  %sc = linalg.generic {indexing_maps = [#rowsum_in, #rowsum_out], iterator_types = ["parallel", "reduction"]} ins(%g : tensor<16x128xf32>) outs(%acc : tensor<16xf32>) {
  ^bb0(%a: f32, %c: f32):
    %half = arith.constant 0.5 : f32
    %m = arith.mulf %a, %half : f32
    %t = arith.addf %c, %m : f32
    linalg.yield %t : f32
  } -> tensor<16xf32>
  return %r, %sq, %sc : tensor<16xf32>, tensor<16xf32>, tensor<16xf32>
}

// A product whose reduction dimension indexes only one factor (a sum over
// k of x[m, k] times y[m, n]) is not a contraction: the multiply is by a
// value constant over the sum.
// CHECK-LABEL: func.func @near_miss_reduction_not_shared
// CHECK-NOT:     arith.truncf
// CHECK:         return
// EXPLAIN: remark: amp: f32: deny (linalg.generic:sum-reduction (default))
#ns_y = affine_map<(m, n, k) -> (m, n)>
func.func @near_miss_reduction_not_shared(%x: tensor<16x128xf32>, %y: tensor<16x64xf32>, %z: tensor<16x128xf32>, %acc: tensor<16x64xf32>) -> tensor<16x64xf32> {
  %r = linalg.generic {indexing_maps = [#mA, #ns_y, #mA, #mC], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %y, %z : tensor<16x128xf32>, tensor<16x64xf32>, tensor<16x128xf32>) outs(%acc : tensor<16x64xf32>) {
  ^bb0(%a: f32, %b: f32, %m0: f32, %c: f32):
    %zero = arith.constant 0.0 : f32
    %pos = arith.cmpf ogt, %m0, %zero : f32
    %s = arith.select %pos, %a, %zero : f32
    %m = arith.mulf %s, %b : f32
    %t = arith.addf %c, %m : f32
    linalg.yield %t : f32
  } -> tensor<16x64xf32>
  return %r : tensor<16x64xf32>
}
