// RUN: amp-opt %s -split-input-file \
// RUN:   --pass-pipeline='builtin.module(func.func(amp-collapse-contiguous-dims))' | FileCheck %s

// amp-collapse-contiguous-dims: an elementwise op on a filter-shaped tensor
// (innermost loop shorter than 16) runs one loop over all its elements.

// CHECK-LABEL: func.func @sgd_update
// CHECK-SAME: (%[[P:.+]]: tensor<8x4x3x3xf32>, %[[G:.+]]: tensor<8x4x3x3xf32>)
// CHECK-DAG: %[[G1:.+]] = tensor.collapse_shape %[[G]] {{\[}}[0, 1, 2, 3]] : tensor<8x4x3x3xf32> into tensor<288xf32>
// CHECK-DAG: %[[P1:.+]] = tensor.collapse_shape %[[P]] {{\[}}[0, 1, 2, 3]] : tensor<8x4x3x3xf32> into tensor<288xf32>
// CHECK: %[[U:.+]] = linalg.generic
// CHECK-SAME: iterator_types = ["parallel"]
// CHECK-SAME: ins(%[[G1]] : tensor<288xf32>) outs(%[[P1]] : tensor<288xf32>)
// CHECK: arith.mulf
// CHECK: arith.subf
// CHECK: %[[E:.+]] = tensor.expand_shape %[[U]] {{\[}}[0, 1, 2, 3]] output_shape [8, 4, 3, 3]
// CHECK: return %[[E]]
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @sgd_update(%p: tensor<8x4x3x3xf32>, %g: tensor<8x4x3x3xf32>)
    -> tensor<8x4x3x3xf32> {
  %lr = arith.constant 0.1 : f32
  %0 = linalg.generic {indexing_maps = [#id, #id],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%g : tensor<8x4x3x3xf32>) outs(%p : tensor<8x4x3x3xf32>) {
  ^bb0(%in: f32, %out: f32):
    %1 = arith.mulf %in, %lr : f32
    %2 = arith.subf %out, %1 : f32
    linalg.yield %2 : f32
  } -> tensor<8x4x3x3xf32>
  return %0 : tensor<8x4x3x3xf32>
}

// -----

// An op that reads its init's tensor as an input too (a momentum written
// over the gradient) gets one collapse of it, not two: bufferization must
// see the read and the write of one value to keep the update in place.
// CHECK-LABEL: func.func @momentum_over_gradient
// CHECK-COUNT-1: tensor.collapse_shape %arg1
// CHECK-NOT: tensor.collapse_shape %arg1
// CHECK: linalg.generic
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @momentum_over_gradient(%m: tensor<8x4x3x3xf32>, %g: tensor<8x4x3x3xf32>)
    -> tensor<8x4x3x3xf32> {
  %0 = linalg.generic {indexing_maps = [#id, #id, #id],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%m, %g : tensor<8x4x3x3xf32>, tensor<8x4x3x3xf32>) outs(%g : tensor<8x4x3x3xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %1 = arith.addf %a, %b : f32
    linalg.yield %1 : f32
  } -> tensor<8x4x3x3xf32>
  return %0 : tensor<8x4x3x3xf32>
}

// -----

// A filter-gradient transpose (K, C) -> (C, K) keeps each 3x3 window as one
// loop of 9; the cast of a filter to bf16 becomes one loop.
// CHECK-DAG: #[[$MT:.+]] = affine_map<(d0, d1, d2) -> (d1, d0, d2)>
// CHECK-DAG: #[[$MI:.+]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @transpose_and_cast
// CHECK: %[[T:.+]] = tensor.collapse_shape %arg0 {{\[}}[0], [1], [2, 3]] : tensor<8x4x3x3xf32> into tensor<8x4x9xf32>
// CHECK: %[[I:.+]] = tensor.collapse_shape %{{.+}} {{\[}}[0], [1], [2, 3]] : tensor<4x8x3x3xf32> into tensor<4x8x9xf32>
// CHECK: linalg.generic {indexing_maps = [#[[$MT]], #[[$MI]]], iterator_types = ["parallel", "parallel", "parallel"]} ins(%[[T]] : tensor<8x4x9xf32>) outs(%[[I]] : tensor<4x8x9xf32>)
// CHECK: tensor.expand_shape {{.+}} output_shape [4, 8, 3, 3]
// CHECK: tensor.collapse_shape %arg0 {{\[}}[0, 1, 2, 3]] : tensor<8x4x3x3xf32> into tensor<288xf32>
// CHECK: arith.truncf
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @transpose_and_cast(%w: tensor<8x4x3x3xf32>)
    -> (tensor<4x8x3x3xf32>, tensor<8x4x3x3xbf16>) {
  %e = tensor.empty() : tensor<4x8x3x3xf32>
  %t = linalg.transpose ins(%w : tensor<8x4x3x3xf32>) outs(%e : tensor<4x8x3x3xf32>)
      permutation = [1, 0, 2, 3]
  %eb = tensor.empty() : tensor<8x4x3x3xbf16>
  %c = linalg.generic {indexing_maps = [#id, #id],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%w : tensor<8x4x3x3xf32>) outs(%eb : tensor<8x4x3x3xbf16>) {
  ^bb0(%in: f32, %out: bf16):
    %1 = arith.truncf %in : f32 to bf16
    linalg.yield %1 : bf16
  } -> tensor<8x4x3x3xbf16>
  return %t, %c : tensor<4x8x3x3xf32>, tensor<8x4x3x3xbf16>
}

// -----

// Left alone: an innermost loop of 16 or more (blocked and wide
// activations vectorize as they are), a linalg.index, a reduction, a slice
// operand (its buffer is not contiguous), a broadcast of a constant 0
// dimension and a floordiv map (upstream's collapse cannot express them).
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT: tensor.collapse_shape
// CHECK-NOT: tensor.expand_shape
// CHECK: return
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#bc = affine_map<(d0, d1, d2, d3) -> (0, d1, 0, 0)>
#half = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2 floordiv 2, d3)>
#red = affine_map<(d0, d1, d2, d3) -> (d0, d1)>
func.func @left_alone(%wide: tensor<2x4x8x16xf32>, %w: tensor<8x4x3x3xf32>,
                      %big: tensor<8x4x6x3xf32>, %stat: tensor<1x4x1x1xf32>,
                      %small: tensor<8x4x1x3xf32>)
    -> (tensor<2x4x8x16xf32>, tensor<8x4x3x3xf32>, tensor<8x4xf32>,
        tensor<8x4x3x3xf32>, tensor<8x4x3x3xf32>, tensor<8x4x2x3xf32>) {
  %0 = linalg.generic {indexing_maps = [#id, #id],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%wide : tensor<2x4x8x16xf32>) outs(%wide : tensor<2x4x8x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %in : f32
    linalg.yield %s : f32
  } -> tensor<2x4x8x16xf32>
  %1 = linalg.generic {indexing_maps = [#id],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      outs(%w : tensor<8x4x3x3xf32>) {
  ^bb0(%out: f32):
    %i = linalg.index 3 : index
    %ii = arith.index_cast %i : index to i32
    %f = arith.sitofp %ii : i32 to f32
    linalg.yield %f : f32
  } -> tensor<8x4x3x3xf32>
  %z = tensor.empty() : tensor<8x4xf32>
  %2 = linalg.generic {indexing_maps = [#id, #red],
                       iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
      ins(%w : tensor<8x4x3x3xf32>) outs(%z : tensor<8x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %out : f32
    linalg.yield %s : f32
  } -> tensor<8x4xf32>
  %slice = tensor.extract_slice %big[0, 0, 0, 0] [8, 4, 3, 3] [1, 1, 2, 1]
      : tensor<8x4x6x3xf32> to tensor<8x4x3x3xf32>
  %3 = linalg.generic {indexing_maps = [#id, #id],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%slice : tensor<8x4x3x3xf32>) outs(%w : tensor<8x4x3x3xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %out : f32
    linalg.yield %s : f32
  } -> tensor<8x4x3x3xf32>
  %4 = linalg.generic {indexing_maps = [#id, #bc, #id],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%w, %stat : tensor<8x4x3x3xf32>, tensor<1x4x1x1xf32>) outs(%w : tensor<8x4x3x3xf32>) {
  ^bb0(%in: f32, %m: f32, %out: f32):
    %s = arith.subf %in, %m : f32
    linalg.yield %s : f32
  } -> tensor<8x4x3x3xf32>
  %e = tensor.empty() : tensor<8x4x2x3xf32>
  %5 = linalg.generic {indexing_maps = [#half, #id],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%small : tensor<8x4x1x3xf32>) outs(%e : tensor<8x4x2x3xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<8x4x2x3xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<2x4x8x16xf32>, tensor<8x4x3x3xf32>, tensor<8x4xf32>,
      tensor<8x4x3x3xf32>, tensor<8x4x3x3xf32>, tensor<8x4x2x3xf32>
}
