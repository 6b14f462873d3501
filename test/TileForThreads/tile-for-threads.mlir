// amp-tile-for-threads splits every linalg op on static tensors that is not
// a contraction or a convolution, and has at least min-iterations points,
// into an scf.forall of num-threads chunks along its outermost parallel
// loop whose extent is at least num-threads.
// RUN: amp-opt %s --split-input-file --amp-tile-for-threads='num-threads=4 min-iterations=64' | FileCheck %s
// One thread: nothing to split.
// RUN: amp-opt %s --split-input-file --amp-tile-for-threads='num-threads=1 min-iterations=64' | FileCheck %s --check-prefix=ONE
// ONE-NOT: scf.forall

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>

// An elementwise op over 64x32: 4 chunks of 16 rows.
// CHECK-LABEL: func.func @elementwise
// CHECK:         scf.forall (%[[I:.+]]) in (4) shared_outs(%[[O:.+]] = %{{.+}}) -> (tensor<64x32xbf16>)
// CHECK:           %[[R:.+]] = affine.apply #{{.+}}(%[[I]])
// CHECK:           tensor.extract_slice %{{.+}}[%{{.+}}, 0] [16, 32] [1, 1] : tensor<64x32xf32> to tensor<16x32xf32>
// CHECK:           linalg.generic {{.*}} ins(%{{.+}}, %{{.+}} : tensor<16x32xf32>, tensor<32xf32>) outs(%{{.+}} : tensor<16x32xbf16>)
// CHECK:           scf.forall.in_parallel
// CHECK:             tensor.parallel_insert_slice %{{.+}} into %[[O]][%{{.+}}, 0] [16, 32] [1, 1]
func.func @elementwise(%x: tensor<64x32xf32>, %b: tensor<32xf32>) -> tensor<64x32xbf16> {
  %e = tensor.empty() : tensor<64x32xbf16>
  %r = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %b : tensor<64x32xf32>, tensor<32xf32>) outs(%e : tensor<64x32xbf16>) {
  ^bb0(%in: f32, %bias: f32, %out: bf16):
    %s = arith.addf %in, %bias : f32
    %t = arith.truncf %s : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<64x32xbf16>
  return %r : tensor<64x32xbf16>
}

// -----

// A column sum (reduction over rows): split along the parallel columns,
// each chunk sums its 8 columns over all rows.
// CHECK-LABEL: func.func @column_sum
// CHECK:         scf.forall (%{{.+}}) in (4)
// CHECK:           linalg.reduce ins(%{{.+}} : tensor<128x8xf32>) outs(%{{.+}} : tensor<8xf32>) dimensions = [0]
func.func @column_sum(%x: tensor<128x32xf32>) -> tensor<32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<32xf32>) -> tensor<32xf32>
  %r = linalg.reduce ins(%x : tensor<128x32xf32>) outs(%init : tensor<32xf32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  return %r : tensor<32xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>

// The outermost loop (2 rows) is shorter than the thread count: the split
// goes along the next parallel loop.
// CHECK-LABEL: func.func @short_outer
// CHECK:         scf.forall (%{{.+}}) in (4)
// CHECK:           linalg.generic {{.*}} outs(%{{.+}} : tensor<2x64xf32>)
func.func @short_outer(%x: tensor<2x256xf32>) -> tensor<2x256xf32> {
  %e = tensor.empty() : tensor<2x256xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<2x256xf32>) outs(%e : tensor<2x256xf32>) {
  ^bb0(%in: f32, %out: f32):
    %n = arith.negf %in : f32
    linalg.yield %n : f32
  } -> tensor<2x256xf32>
  return %r : tensor<2x256xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>

// Left whole: a matmul and its zero fill (libamp_rt's), a loop below
// min-iterations, a full reduction (no parallel loop), and dynamic shapes.
// CHECK-LABEL: func.func @left_whole
// CHECK-NOT:     scf.forall
// CHECK:         return
func.func @left_whole(%a: tensor<64x64xbf16>, %b: tensor<64x64xbf16>,
                      %small: tensor<4x8xf32>, %d: tensor<?x64xf32>)
    -> (tensor<64x64xf32>, tensor<4x8xf32>, tensor<f32>, tensor<?x64xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x64xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  %m = linalg.matmul ins(%a, %b : tensor<64x64xbf16>, tensor<64x64xbf16>) outs(%z : tensor<64x64xf32>) -> tensor<64x64xf32>
  %es = tensor.empty() : tensor<4x8xf32>
  %s = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%small : tensor<4x8xf32>) outs(%es : tensor<4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %n = arith.negf %in : f32
    linalg.yield %n : f32
  } -> tensor<4x8xf32>
  %e0 = tensor.empty() : tensor<f32>
  %z0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<f32>) -> tensor<f32>
  %sum = linalg.reduce ins(%m : tensor<64x64xf32>) outs(%z0 : tensor<f32>) dimensions = [0, 1]
    (%in: f32, %acc: f32) {
      %t = arith.addf %in, %acc : f32
      linalg.yield %t : f32
    }
  %c0 = arith.constant 0 : index
  %n = tensor.dim %d, %c0 : tensor<?x64xf32>
  %ed = tensor.empty(%n) : tensor<?x64xf32>
  %dn = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%d : tensor<?x64xf32>) outs(%ed : tensor<?x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %q = arith.negf %in : f32
    linalg.yield %q : f32
  } -> tensor<?x64xf32>
  return %m, %s, %sum, %dn : tensor<64x64xf32>, tensor<4x8xf32>, tensor<f32>, tensor<?x64xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>

// The rounding of a matmul's result, its only reader, stays whole:
// amp-lower-to-runtime folds it into the runtime call. The same rounding of
// a value that is not a contraction's result is split.
// CHECK-LABEL: func.func @rounding_epilogue
// CHECK:         %[[M:.*]] = linalg.matmul
// CHECK-NEXT:    %[[E:.*]] = tensor.empty() : tensor<64x64xbf16>
// CHECK-NEXT:    linalg.generic {{.*}} ins(%[[M]] : tensor<64x64xf32>) outs(%[[E]] : tensor<64x64xbf16>)
// CHECK:         scf.forall
// CHECK:           arith.truncf
func.func @rounding_epilogue(%a: tensor<64x64xbf16>, %b: tensor<64x64xbf16>, %x: tensor<64x64xf32>)
    -> (tensor<64x64xbf16>, tensor<64x64xbf16>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x64xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  %m = linalg.matmul ins(%a, %b : tensor<64x64xbf16>, tensor<64x64xbf16>) outs(%z : tensor<64x64xf32>) -> tensor<64x64xf32>
  %e16 = tensor.empty() : tensor<64x64xbf16>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%m : tensor<64x64xf32>) outs(%e16 : tensor<64x64xbf16>) {
  ^bb0(%in: f32, %out: bf16):
    %t = arith.truncf %in : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<64x64xbf16>
  %rx = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<64x64xf32>) outs(%e16 : tensor<64x64xbf16>) {
  ^bb0(%in: f32, %out: bf16):
    %t = arith.truncf %in : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<64x64xbf16>
  return %r, %rx : tensor<64x64xbf16>, tensor<64x64xbf16>
}

// -----

// A filter flip reads `2 - d0`: the tiling interface would take each
// chunk's slice of %w from the map at the chunk's first and last point
// (a 1-wide slice of a 3-wide dimension), so the op stays one loop nest.
// CHECK-LABEL: func.func @decreasing_map_stays_whole
// CHECK-NOT:     scf.forall
// CHECK:         linalg.generic
// CHECK-NOT:     scf.forall
// ONE-LABEL:   func.func @decreasing_map_stays_whole
#flip = affine_map<(d0, d1, d2, d3) -> (-d0 + 2, -d1 + 2, d3, d2)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @decreasing_map_stays_whole(%w: tensor<3x3x16x8xf32>) -> tensor<3x3x8x16xf32> {
  %e = tensor.empty() : tensor<3x3x8x16xf32>
  %r = linalg.generic {indexing_maps = [#flip, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
    ins(%w : tensor<3x3x16x8xf32>) outs(%e : tensor<3x3x8x16xf32>) {
  ^bb0(%x: f32, %o: f32):
    linalg.yield %x : f32
  } -> tensor<3x3x8x16xf32>
  return %r : tensor<3x3x8x16xf32>
}
