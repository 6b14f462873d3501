// RUN: amp-opt %s -split-input-file --amp-ungroup-summed-convs | FileCheck %s

// torch-mlir's weight gradient of a stride-2 convolution after --amp
// (bf16): a grouped convolution with the batch (3) as the groups, one input
// channel per group, its rounding, a transpose to G x F x N x KH x KW and a
// sum over G. It becomes one convolution of the 4 x 3 x 9 x 9 input view
// with the output gradient transposed to 5 x 3 x 3 x 3 (same strides and
// dilations), transposed back to F x N.
// CHECK-LABEL: func.func @torch_weight_gradient(
// CHECK-SAME:    %[[X:.+]]: tensor<4x3x1x9x9xbf16>, %[[DY:.+]]: tensor<3x5x1x3x3xbf16>
// CHECK-NOT:   conv_2d_ngchw_gfchw
// CHECK-NOT:   arith.truncf
// CHECK-DAG:   %[[XV:.+]] = tensor.collapse_shape %[[X]] {{\[\[}}0], [1, 2], [3], [4]] : tensor<4x3x1x9x9xbf16> into tensor<4x3x9x9xbf16>
// CHECK-DAG:   %[[DYT:.+]] = linalg.transpose ins(%[[DY]] : tensor<3x5x1x3x3xbf16>) outs(%{{.+}} : tensor<5x3x1x3x3xbf16>) permutation = [1, 0, 2, 3, 4]
// CHECK-DAG:   %[[DYV:.+]] = tensor.collapse_shape %[[DYT]] {{\[\[}}0], [1, 2], [3], [4]] : tensor<5x3x1x3x3xbf16> into tensor<5x3x3x3xbf16>
// CHECK-DAG:   %[[ZERO:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<4x5x2x2xf32>)
// CHECK:       %[[C:.+]] = linalg.conv_2d_nchw_fchw {dilations = dense<2> : tensor<2xi64>, strides = dense<[1, 3]> : tensor<2xi64>} ins(%[[XV]], %[[DYV]] : tensor<4x3x9x9xbf16>, tensor<5x3x3x3xbf16>) outs(%[[ZERO]] : tensor<4x5x2x2xf32>)
// CHECK:       %[[T:.+]] = linalg.transpose ins(%[[C]] : tensor<4x5x2x2xf32>) outs(%{{.+}} : tensor<5x4x2x2xf32>) permutation = [1, 0, 2, 3]
// CHECK-NOT:   linalg.generic
// CHECK:       return %[[T]]
#id5 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>
#drop0 = affine_map<(d0, d1, d2, d3, d4) -> (d1, d2, d3, d4)>
func.func @torch_weight_gradient(%x: tensor<4x3x1x9x9xbf16>, %dy: tensor<3x5x1x3x3xbf16>) -> tensor<5x4x2x2xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x3x5x2x2xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4x3x5x2x2xf32>) -> tensor<4x3x5x2x2xf32>
  %c = linalg.conv_2d_ngchw_gfchw {dilations = dense<2> : tensor<2xi64>, strides = dense<[1, 3]> : tensor<2xi64>}
         ins(%x, %dy : tensor<4x3x1x9x9xbf16>, tensor<3x5x1x3x3xbf16>) outs(%f : tensor<4x3x5x2x2xf32>) -> tensor<4x3x5x2x2xf32>
  %eb = tensor.empty() : tensor<4x3x5x2x2xbf16>
  %r = linalg.generic {indexing_maps = [#id5, #id5], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]}
         ins(%c : tensor<4x3x5x2x2xf32>) outs(%eb : tensor<4x3x5x2x2xbf16>) {
  ^bb0(%in: f32, %out: bf16):
    %t = arith.truncf %in : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<4x3x5x2x2xbf16>
  %et = tensor.empty() : tensor<3x5x4x2x2xbf16>
  %tr = linalg.transpose ins(%r : tensor<4x3x5x2x2xbf16>) outs(%et : tensor<3x5x4x2x2xbf16>) permutation = [1, 2, 0, 3, 4]
  %es = tensor.empty() : tensor<5x4x2x2xf32>
  %fs = linalg.fill ins(%zero : f32) outs(%es : tensor<5x4x2x2xf32>) -> tensor<5x4x2x2xf32>
  %s = linalg.generic {indexing_maps = [#id5, #drop0], iterator_types = ["reduction", "parallel", "parallel", "parallel", "parallel"]}
         ins(%tr : tensor<3x5x4x2x2xbf16>) outs(%fs : tensor<5x4x2x2xf32>) {
  ^bb0(%in: bf16, %acc: f32):
    %w = arith.extf %in : bf16 to f32
    %a = arith.addf %w, %acc : f32
    linalg.yield %a : f32
  } -> tensor<5x4x2x2xf32>
  return %s : tensor<5x4x2x2xf32>
}

// -----

// f32, two channels per group, summed over the groups in place (no
// transpose, no rounding): the result is the convolution itself.
// CHECK-LABEL: func.func @f32_two_channels_per_group(
// CHECK-SAME:    %[[X:.+]]: tensor<2x3x2x6x6xf32>, %[[W:.+]]: tensor<3x4x2x3x3xf32>
// CHECK:       %[[XV:.+]] = tensor.collapse_shape %[[X]] {{\[\[}}0], [1, 2], [3], [4]] : tensor<2x3x2x6x6xf32> into tensor<2x6x6x6xf32>
// CHECK:       %[[WT:.+]] = linalg.transpose ins(%[[W]] : tensor<3x4x2x3x3xf32>) outs(%{{.+}} : tensor<4x3x2x3x3xf32>) permutation = [1, 0, 2, 3, 4]
// CHECK:       %[[WV:.+]] = tensor.collapse_shape %[[WT]] {{\[\[}}0], [1, 2], [3], [4]] : tensor<4x3x2x3x3xf32> into tensor<4x6x3x3xf32>
// CHECK:       %[[C:.+]] = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%[[XV]], %[[WV]] : tensor<2x6x6x6xf32>, tensor<4x6x3x3xf32>) outs(%{{.+}} : tensor<2x4x4x4xf32>)
// CHECK-NEXT:  return %[[C]]
#id5 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>
#sum1 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d2, d3, d4)>
func.func @f32_two_channels_per_group(%x: tensor<2x3x2x6x6xf32>, %w: tensor<3x4x2x3x3xf32>) -> tensor<2x4x4x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x3x4x4x4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x3x4x4x4xf32>) -> tensor<2x3x4x4x4xf32>
  %c = linalg.conv_2d_ngchw_gfchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
         ins(%x, %w : tensor<2x3x2x6x6xf32>, tensor<3x4x2x3x3xf32>) outs(%f : tensor<2x3x4x4x4xf32>) -> tensor<2x3x4x4x4xf32>
  %es = tensor.empty() : tensor<2x4x4x4xf32>
  %fs = linalg.fill ins(%zero : f32) outs(%es : tensor<2x4x4x4xf32>) -> tensor<2x4x4x4xf32>
  %s = linalg.generic {indexing_maps = [#id5, #sum1], iterator_types = ["parallel", "reduction", "parallel", "parallel", "parallel"]}
         ins(%c : tensor<2x3x4x4x4xf32>) outs(%fs : tensor<2x4x4x4xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %a = arith.addf %acc, %in : f32
    linalg.yield %a : f32
  } -> tensor<2x4x4x4xf32>
  return %s : tensor<2x4x4x4xf32>
}

// -----

// Left alone: a sum into a tensor that is not zeros (it accumulates), a
// sum over the batch instead of the groups, a grouped convolution whose
// result is also returned, and a product instead of a sum.
// CHECK-LABEL: func.func @left_alone(
// CHECK-COUNT-4: linalg.conv_2d_ngchw_gfchw
// CHECK-NOT:   linalg.conv_2d_nchw_fchw
#id5 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>
#sum1 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d2, d3, d4)>
func.func @left_alone(%x: tensor<2x3x1x6x6xf32>, %w: tensor<3x4x1x3x3xf32>, %acc: tensor<2x4x4x4xf32>)
    -> (tensor<2x4x4x4xf32>, tensor<3x4x4x4xf32>, tensor<2x4x4x4xf32>, tensor<2x3x4x4x4xf32>, tensor<2x4x4x4xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x3x4x4x4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x3x4x4x4xf32>) -> tensor<2x3x4x4x4xf32>
  %c1 = linalg.conv_2d_ngchw_gfchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
          ins(%x, %w : tensor<2x3x1x6x6xf32>, tensor<3x4x1x3x3xf32>) outs(%f : tensor<2x3x4x4x4xf32>) -> tensor<2x3x4x4x4xf32>
  %s1 = linalg.generic {indexing_maps = [#id5, #sum1], iterator_types = ["parallel", "reduction", "parallel", "parallel", "parallel"]}
          ins(%c1 : tensor<2x3x4x4x4xf32>) outs(%acc : tensor<2x4x4x4xf32>) {
  ^bb0(%in: f32, %a: f32):
    %r = arith.addf %a, %in : f32
    linalg.yield %r : f32
  } -> tensor<2x4x4x4xf32>
  %c2 = linalg.conv_2d_ngchw_gfchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
          ins(%x, %w : tensor<2x3x1x6x6xf32>, tensor<3x4x1x3x3xf32>) outs(%f : tensor<2x3x4x4x4xf32>) -> tensor<2x3x4x4x4xf32>
  %e2 = tensor.empty() : tensor<3x4x4x4xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<3x4x4x4xf32>) -> tensor<3x4x4x4xf32>
  %s2 = linalg.generic {indexing_maps = [#id5, affine_map<(d0, d1, d2, d3, d4) -> (d1, d2, d3, d4)>], iterator_types = ["reduction", "parallel", "parallel", "parallel", "parallel"]}
          ins(%c2 : tensor<2x3x4x4x4xf32>) outs(%f2 : tensor<3x4x4x4xf32>) {
  ^bb0(%in: f32, %a: f32):
    %r = arith.addf %a, %in : f32
    linalg.yield %r : f32
  } -> tensor<3x4x4x4xf32>
  %e3 = tensor.empty() : tensor<2x4x4x4xf32>
  %f3 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<2x4x4x4xf32>) -> tensor<2x4x4x4xf32>
  %c3 = linalg.conv_2d_ngchw_gfchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
          ins(%x, %w : tensor<2x3x1x6x6xf32>, tensor<3x4x1x3x3xf32>) outs(%f : tensor<2x3x4x4x4xf32>) -> tensor<2x3x4x4x4xf32>
  %s3 = linalg.generic {indexing_maps = [#id5, #sum1], iterator_types = ["parallel", "reduction", "parallel", "parallel", "parallel"]}
          ins(%c3 : tensor<2x3x4x4x4xf32>) outs(%f3 : tensor<2x4x4x4xf32>) {
  ^bb0(%in: f32, %a: f32):
    %r = arith.addf %a, %in : f32
    linalg.yield %r : f32
  } -> tensor<2x4x4x4xf32>
  %c4 = linalg.conv_2d_ngchw_gfchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
          ins(%x, %w : tensor<2x3x1x6x6xf32>, tensor<3x4x1x3x3xf32>) outs(%f : tensor<2x3x4x4x4xf32>) -> tensor<2x3x4x4x4xf32>
  %s4 = linalg.generic {indexing_maps = [#id5, #sum1], iterator_types = ["parallel", "reduction", "parallel", "parallel", "parallel"]}
          ins(%c4 : tensor<2x3x4x4x4xf32>) outs(%f3 : tensor<2x4x4x4xf32>) {
  ^bb0(%in: f32, %a: f32):
    %r = arith.mulf %a, %in : f32
    linalg.yield %r : f32
  } -> tensor<2x4x4x4xf32>
  return %s1, %s2, %s3, %c3, %s4 : tensor<2x4x4x4xf32>, tensor<3x4x4x4xf32>, tensor<2x4x4x4xf32>, tensor<2x3x4x4x4xf32>, tensor<2x4x4x4xf32>
}
