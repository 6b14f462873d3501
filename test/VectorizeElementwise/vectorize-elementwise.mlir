// amp-vectorize-elementwise runs elementwise generics on buffers as vector
// loads, vector arithmetic and vector stores, `width` elements of the
// innermost loop at a time; anything else stays for the scalar loops.
// RUN: amp-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(amp-vectorize-elementwise{width=16}))' | FileCheck %s

// A ReLU backward whose output is its own gradient input (as
// amp-prepare-destinations leaves it): both chunks are loaded before the
// store, so the in-place update is vector code.
// CHECK-LABEL: func.func @relu_backward_in_place
// CHECK-SAME:    (%[[X:.*]]: memref<2x32xbf16>, %[[DY:.*]]: memref<2x32xbf16>)
// CHECK-DAG:     %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : vector<16xf32>
// CHECK:         scf.for %[[I:.*]] =
// CHECK:           scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %c16
// CHECK:             %[[XV:.*]] = vector.load %{{.*}} : memref<16xbf16, {{.*}}>, vector<16xbf16>
// CHECK:             %[[DYV:.*]] = vector.load %{{.*}} : memref<16xbf16, {{.*}}>, vector<16xbf16>
// CHECK:             %[[XW:.*]] = arith.extf %[[XV]] : vector<16xbf16> to vector<16xf32>
// CHECK:             %[[MASK:.*]] = arith.cmpf ole, %[[XW]], %[[ZERO]] : vector<16xf32>
// CHECK:             %[[DYW:.*]] = arith.extf %[[DYV]] : vector<16xbf16> to vector<16xf32>
// CHECK:             %[[SEL:.*]] = arith.select %[[MASK]], %[[ZERO]], %[[DYW]] : vector<16xi1>, vector<16xf32>
// CHECK:             %[[R:.*]] = arith.truncf %[[SEL]] : vector<16xf32> to vector<16xbf16>
// CHECK:             vector.store %[[R]], %{{.*}} : memref<16xbf16, {{.*}}>, vector<16xbf16>
// CHECK-NOT:     linalg.generic
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @relu_backward_in_place(%x: memref<2x32xbf16>, %dy: memref<2x32xbf16>) {
  %zero = arith.constant 0.0 : f32
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
    ins(%x, %dy : memref<2x32xbf16>, memref<2x32xbf16>) outs(%dy : memref<2x32xbf16>) {
  ^bb0(%a: bf16, %b: bf16, %o: bf16):
    %aw = arith.extf %a : bf16 to f32
    %neg = arith.cmpf ole, %aw, %zero : f32
    %bw = arith.extf %b : bf16 to f32
    %s = arith.select %neg, %zero, %bw : f32
    %t = arith.truncf %s : f32 to bf16
    linalg.yield %t : bf16
  }
  return
}

// -----

// A per-channel scale (indexed by the innermost loop: a vector load of it)
// and a per-row shift (not indexed by it: one element, broadcast).
// CHECK-LABEL: func.func @broadcast_operands
// CHECK:         scf.for
// CHECK:           scf.for
// CHECK:             vector.load %{{.*}} : memref<16xf32, {{.*}}>, vector<16xf32>
// CHECK:             vector.load %{{.*}} : memref<16xf32, {{.*}}>, vector<16xf32>
// CHECK:             %[[S0:.*]] = vector.load %{{.*}}[] : memref<f32, {{.*}}>, vector<f32>
// CHECK:             %[[S:.*]] = vector.extract %[[S0]][] : f32 from vector<f32>
// CHECK:             vector.broadcast %[[S]] : f32 to vector<16xf32>
// CHECK:             arith.mulf %{{.*}} : vector<16xf32>
// CHECK:             arith.addf %{{.*}} : vector<16xf32>
// CHECK:             vector.store
// CHECK-NOT:     linalg.generic
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @broadcast_operands(%x: memref<4x48xf32>, %scale: memref<48xf32>, %shift: memref<4xf32>, %y: memref<4x48xf32>) {
  linalg.generic {indexing_maps = [#id2, #col, #row, #id2], iterator_types = ["parallel", "parallel"]}
    ins(%x, %scale, %shift : memref<4x48xf32>, memref<48xf32>, memref<4xf32>) outs(%y : memref<4x48xf32>) {
  ^bb0(%a: f32, %s: f32, %t: f32, %o: f32):
    %m = arith.mulf %a, %s : f32
    %r = arith.addf %m, %t : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// A scalar operand (a loss scale) is broadcast into the chunk.
// CHECK-LABEL: func.func @scalar_operand
// CHECK-SAME:    (%{{.*}}: memref<2x32xf16>, %[[S:.*]]: f32,
// CHECK:         vector.broadcast %[[S]] : f32 to vector<16xf32>
// CHECK:         arith.mulf %{{.*}} : vector<16xf32>
// CHECK:         vector.store
// CHECK-NOT:     linalg.generic
#ids = affine_map<(d0, d1) -> (d0, d1)>
#scalar = affine_map<(d0, d1) -> ()>
func.func @scalar_operand(%g: memref<2x32xf16>, %scale: f32, %out: memref<2x32xf32>) {
  linalg.generic {indexing_maps = [#ids, #scalar, #ids], iterator_types = ["parallel", "parallel"]}
    ins(%g, %scale : memref<2x32xf16>, f32) outs(%out : memref<2x32xf32>) {
  ^bb0(%a: f16, %s: f32, %o: f32):
    %w = arith.extf %a : f16 to f32
    %m = arith.mulf %w, %s : f32
    linalg.yield %m : f32
  }
  return
}

// -----

// Left alone: an innermost loop that is not a multiple of the width, an
// operand that walks the innermost loop with a stride (a transpose), a body
// that reads its indices, a reduction along the innermost loop, integer
// operands, and a shifted read (`d0 + 1` is not 0 at a chunk's outer point).
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT:     vector.
// CHECK-COUNT-6: linalg.generic
// CHECK-NOT:     vector.
#id3 = affine_map<(d0, d1) -> (d0, d1)>
#tr = affine_map<(d0, d1) -> (d1, d0)>
#red = affine_map<(d0, d1) -> (d0)>
func.func @left_alone(%a: memref<4x20xf32>, %b: memref<4x20xf32>, %t: memref<32x4xf32>, %c: memref<4x32xf32>,
                      %s: memref<4xf32>, %i: memref<4x32xi32>, %j: memref<4x32xi32>,
                      %big: memref<5x32xf32>) {
  linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel"]}
    ins(%a : memref<4x20xf32>) outs(%b : memref<4x20xf32>) {
  ^bb0(%x: f32, %o: f32):
    %n = arith.negf %x : f32
    linalg.yield %n : f32
  }
  linalg.generic {indexing_maps = [#tr, #id3], iterator_types = ["parallel", "parallel"]}
    ins(%t : memref<32x4xf32>) outs(%c : memref<4x32xf32>) {
  ^bb0(%x: f32, %o: f32):
    %n = arith.negf %x : f32
    linalg.yield %n : f32
  }
  linalg.generic {indexing_maps = [#id3], iterator_types = ["parallel", "parallel"]}
    outs(%c : memref<4x32xf32>) {
  ^bb0(%o: f32):
    %k = linalg.index 1 : index
    %ki = arith.index_cast %k : index to i32
    %kf = arith.sitofp %ki : i32 to f32
    linalg.yield %kf : f32
  }
  linalg.generic {indexing_maps = [#id3, #red], iterator_types = ["parallel", "reduction"]}
    ins(%c : memref<4x32xf32>) outs(%s : memref<4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %r = arith.addf %x, %o : f32
    linalg.yield %r : f32
  }
  linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel"]}
    ins(%i : memref<4x32xi32>) outs(%j : memref<4x32xi32>) {
  ^bb0(%x: i32, %o: i32):
    %r = arith.addi %x, %x : i32
    linalg.yield %r : i32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0 + 1, d1)>, #id3], iterator_types = ["parallel", "parallel"]}
    ins(%big : memref<5x32xf32>) outs(%c : memref<4x32xf32>) {
  ^bb0(%x: f32, %o: f32):
    %n = arith.negf %x : f32
    linalg.yield %n : f32
  }
  return
}

// -----

// A batch-norm statistic: a sum over outer loops with a parallel innermost
// (channel) loop. Each chunk adds 16 elements into the 16 accumulators,
// which keep the scalar loops' order of additions.
// CHECK-LABEL: func.func @sum_over_outer_loops
// CHECK:         scf.for
// CHECK:           scf.for
// CHECK:             scf.for
// CHECK:               %[[X:.*]] = vector.load %{{.*}} : memref<16xbf16, {{.*}}>, vector<16xbf16>
// CHECK:               %[[ACC:.*]] = vector.load %{{.*}} : memref<16xf32, {{.*}}>, vector<16xf32>
// CHECK:               %[[W:.*]] = arith.extf %[[X]] : vector<16xbf16> to vector<16xf32>
// CHECK:               %[[SQ:.*]] = arith.mulf %[[W]], %[[W]] : vector<16xf32>
// CHECK:               %[[SUM:.*]] = arith.addf %[[ACC]], %[[SQ]] : vector<16xf32>
// CHECK:               vector.store %[[SUM]], %{{.*}} : memref<16xf32, {{.*}}>, vector<16xf32>
// CHECK-NOT:     linalg.generic
func.func @sum_over_outer_loops(%x: memref<8x2x4x16xbf16>, %acc: memref<1x2x1x16xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (0, d1, 0, d3)>],
                  iterator_types = ["reduction", "parallel", "reduction", "parallel"]}
    ins(%x : memref<8x2x4x16xbf16>) outs(%acc : memref<1x2x1x16xf32>) {
  ^bb0(%a: bf16, %o: f32):
    %w = arith.extf %a : bf16 to f32
    %sq = arith.mulf %w, %w : f32
    %r = arith.addf %sq, %o : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// A max pool on blocked activations (amp-block-convs): the window position
// `2 * p + r` is 0 at a chunk's only point of the outer loops, so each chunk
// is one vector max of 16 channels into the output's 16.
// CHECK-LABEL: func.func @blocked_max_pool
// CHECK-COUNT-6: scf.for
// CHECK:           %[[X:.*]] = vector.load %{{.*}} : memref<16xbf16, {{.*}}>, vector<16xbf16>
// CHECK:           %[[ACC:.*]] = vector.load %{{.*}} : memref<16xbf16, {{.*}}>, vector<16xbf16>
// CHECK:           %[[M:.*]] = arith.maximumf %[[ACC]], %[[X]] : vector<16xbf16>
// CHECK:           vector.store %[[M]], %{{.*}} : memref<16xbf16, {{.*}}>, vector<16xbf16>
// CHECK-NOT:     linalg.generic
func.func @blocked_max_pool(%x: memref<2x1x9x9x16xbf16>, %w: memref<3x3xbf16>, %y: memref<2x1x4x4x16xbf16>) {
  linalg.generic {indexing_maps = [affine_map<(n, cb, p, q, r, s, ci) -> (n, cb, p * 2 + r, q * 2 + s, ci)>,
                                   affine_map<(n, cb, p, q, r, s, ci) -> (r, s)>,
                                   affine_map<(n, cb, p, q, r, s, ci) -> (n, cb, p, q, ci)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "parallel"]}
    ins(%x, %w : memref<2x1x9x9x16xbf16>, memref<3x3xbf16>) outs(%y : memref<2x1x4x4x16xbf16>) {
  ^bb0(%a: bf16, %b: bf16, %o: bf16):
    %m = arith.maximumf %o, %a : bf16
    linalg.yield %m : bf16
  }
  return
}
