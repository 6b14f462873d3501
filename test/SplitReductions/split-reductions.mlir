// RUN: amp-opt %s --split-input-file --amp-split-reductions | FileCheck %s
// RUN: amp-opt %s --split-input-file --amp-split-reductions=min-terms=100000 | FileCheck %s --check-prefix=HIGH

// Batch norm's sum over N, H and W (torch-mlir's keepdim statistics,
// indexed by 0): N and H become parallel loops of partial sums (96 blocks
// of 24 terms), which a second op adds to the init. The block indices lead
// the partial sums' tensor, so that its innermost dimension is the
// result's (written contiguously, as the original op did).
// CHECK: #[[PMAP:[a-z0-9]+]] = affine_map<(d0, d1, d2, d3) -> (d0, d2, 0, d1, 0, 0)>
// CHECK-LABEL: func.func @batch_statistic(
// CHECK-SAME: %[[X:.*]]: tensor<4x24x24x24xf32>, %[[INIT:.*]]: tensor<1x24x1x1xf32>
// CHECK: %[[EMPTY:.*]] = tensor.empty() : tensor<4x24x1x24x1x1xf32>
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[ZEROS:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[EMPTY]] : tensor<4x24x1x24x1x1xf32>)
// CHECK: %[[PARTIAL:.*]] = linalg.generic
// CHECK-SAME: indexing_maps = [#{{.*}}, #[[PMAP]]]
// CHECK-SAME: iterator_types = ["parallel", "parallel", "parallel", "reduction"]
// CHECK-SAME: ins(%[[X]] : tensor<4x24x24x24xf32>) outs(%[[ZEROS]] : tensor<4x24x1x24x1x1xf32>)
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: %[[SUM:.*]] = linalg.generic
// CHECK-SAME: iterator_types = ["reduction", "reduction", "parallel", "parallel", "parallel", "parallel"]
// CHECK-SAME: ins(%[[PARTIAL]] : tensor<4x24x1x24x1x1xf32>) outs(%[[INIT]] : tensor<1x24x1x1xf32>)
// CHECK: arith.addf %{{.*}}, %{{.*}} fastmath<contract>
// CHECK: return %[[SUM]]
// HIGH-LABEL: func.func @batch_statistic(
// HIGH-NOT: tensor.empty
// HIGH: iterator_types = ["reduction", "parallel", "reduction", "reduction"]
#x = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#stat = affine_map<(d0, d1, d2, d3) -> (0, d1, 0, 0)>
func.func @batch_statistic(%x: tensor<4x24x24x24xf32>, %init: tensor<1x24x1x1xf32>) -> tensor<1x24x1x1xf32> {
  %r = linalg.generic {indexing_maps = [#x, #stat], iterator_types = ["reduction", "parallel", "reduction", "reduction"]} ins(%x : tensor<4x24x24x24xf32>) outs(%init : tensor<1x24x1x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %sq = arith.mulf %in, %in : f32
    %s = arith.addf %sq, %out fastmath<contract> : f32
    linalg.yield %s : f32
  } -> tensor<1x24x1x1xf32>
  return %r : tensor<1x24x1x1xf32>
}

// -----

// One long reduction loop, a keepdim sum (2x1): upstream's splitReduction
// on the init without its 0-indexed dimension, 25 blocks of 40 (the block
// index first in the partial sums).
// CHECK-LABEL: func.func @row_sum(
// CHECK-SAME: %[[X:.*]]: tensor<2x1000xf32>, %[[INIT:.*]]: tensor<2x1xf32>
// CHECK: %[[NARROW:.*]] = tensor.collapse_shape %[[INIT]] {{\[\[}}0, 1]] : tensor<2x1xf32> into tensor<2xf32>
// CHECK: %[[BLOCKS:.*]] = tensor.expand_shape %[[X]] {{\[\[}}0], [1, 2]] output_shape [2, 25, 40]
// CHECK: %[[PARTIAL:.*]] = linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "parallel", "reduction"]
// CHECK-SAME: ins(%[[BLOCKS]] : tensor<2x25x40xf32>) outs(%{{.*}} : tensor<25x2xf32>)
// CHECK: %[[SUM:.*]] = linalg.generic
// CHECK-SAME: ins(%[[PARTIAL]] : tensor<25x2xf32>) outs(%[[NARROW]] : tensor<2xf32>)
// CHECK: %[[WIDE:.*]] = tensor.expand_shape %[[SUM]] {{\[\[}}0, 1]] output_shape [2, 1]
// CHECK: return %[[WIDE]]
func.func @row_sum(%x: tensor<2x1000xf32>, %init: tensor<2x1xf32>) -> tensor<2x1xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<2x1000xf32>) outs(%init : tensor<2x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %out : f32
    linalg.yield %s : f32
  } -> tensor<2x1xf32>
  return %r : tensor<2x1xf32>
}

// -----

// linalg.reduce to a scalar over 64 x 32: 64 blocks of 32.
// CHECK-LABEL: func.func @total(
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "reduction"]
// CHECK-SAME: outs(%{{.*}} : tensor<64xf32>)
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["reduction"]
// CHECK-SAME: outs(%{{.*}} : tensor<f32>)
// CHECK-NOT: linalg.reduce
func.func @total(%x: tensor<64x32xf32>, %init: tensor<f32>) -> tensor<f32> {
  %r = linalg.reduce ins(%x : tensor<64x32xf32>) outs(%init : tensor<f32>) dimensions = [0, 1]
    (%in: f32, %out: f32) {
      %s = arith.addf %in, %out : f32
      linalg.yield %s : f32
    }
  return %r : tensor<f32>
}

// -----

// Left alone: a max (not a sum), a short sum, a sum of dynamic length, a
// contraction, a window (pooling) and one long loop with a prime count of
// terms (no blocks).
// CHECK-LABEL: func.func @left_alone(
// CHECK-NOT: tensor.empty
// CHECK-NOT: tensor.expand_shape
// CHECK: linalg.reduce ins(%{{.*}} : tensor<4x1021xf32>)
// CHECK: return
func.func @left_alone(%x: tensor<64x32xf32>, %m: tensor<f32>, %short: tensor<8x16xf32>,
                      %dyn: tensor<?x512xf32>, %acc: tensor<?xf32>,
                      %a: tensor<16x512xf32>, %b: tensor<512x16xf32>, %c: tensor<16x16xf32>,
                      %img: tensor<64x64xf32>, %win: tensor<32x32xf32>, %pool: tensor<2x2xf32>,
                      %p: tensor<4x1021xf32>, %pacc: tensor<4xf32>)
    -> (tensor<f32>, tensor<f32>, tensor<?xf32>, tensor<16x16xf32>, tensor<2x2xf32>, tensor<4xf32>) {
  %max = linalg.reduce ins(%x : tensor<64x32xf32>) outs(%m : tensor<f32>) dimensions = [0, 1]
    (%in: f32, %out: f32) {
      %r = arith.maximumf %in, %out : f32
      linalg.yield %r : f32
    }
  %sum = linalg.reduce ins(%short : tensor<8x16xf32>) outs(%m : tensor<f32>) dimensions = [0, 1]
    (%in: f32, %out: f32) {
      %r = arith.addf %in, %out : f32
      linalg.yield %r : f32
    }
  %dsum = linalg.reduce ins(%dyn : tensor<?x512xf32>) outs(%acc : tensor<?xf32>) dimensions = [1]
    (%in: f32, %out: f32) {
      %r = arith.addf %in, %out : f32
      linalg.yield %r : f32
    }
  %mm = linalg.generic {indexing_maps = [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : tensor<16x512xf32>, tensor<512x16xf32>) outs(%c : tensor<16x16xf32>) {
  ^bb0(%x0: f32, %y0: f32, %o: f32):
    %p0 = arith.mulf %x0, %y0 : f32
    %s0 = arith.addf %o, %p0 : f32
    linalg.yield %s0 : f32
  } -> tensor<16x16xf32>
  %pooled = linalg.generic {indexing_maps = [affine_map<(i, j, u, v) -> (i * 32 + u, j * 32 + v)>, affine_map<(i, j, u, v) -> (u, v)>, affine_map<(i, j, u, v) -> (i, j)>], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%img, %win : tensor<64x64xf32>, tensor<32x32xf32>) outs(%pool : tensor<2x2xf32>) {
  ^bb0(%in: f32, %unused: f32, %o: f32):
    %s1 = arith.addf %in, %o : f32
    linalg.yield %s1 : f32
  } -> tensor<2x2xf32>
  %psum = linalg.reduce ins(%p : tensor<4x1021xf32>) outs(%pacc : tensor<4xf32>) dimensions = [1]
    (%in: f32, %out: f32) {
      %r = arith.addf %in, %out : f32
      linalg.yield %r : f32
    }
  return %max, %sum, %dsum, %mm, %pooled, %psum : tensor<f32>, tensor<f32>, tensor<?xf32>, tensor<16x16xf32>, tensor<2x2xf32>, tensor<4xf32>
}
