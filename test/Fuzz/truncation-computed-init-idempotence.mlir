// Bug found by the fuzzer (tools/amp-fuzz, seed 41052127, shrunk): the cast
// cleanup moved the f16 rounding of a generic's result into the generic and
// gave it a fresh empty init; the old init, a tensor computed only to be
// that init (the body never reads it), was left dead, and a second run,
// which erases dead ops before painting, printed a different program.
// Fixed: the rounding moves into the generic only when its init is an empty
// tensor, a block argument or a value that something else reads.
//
// RUN: amp-opt %s --amp-auto-mixed-precision='optimize-casts=true' -o %t.1.mlir
// RUN: amp-opt %t.1.mlir --amp-auto-mixed-precision='optimize-casts=true' -o %t.2.mlir
// RUN: diff %t.1.mlir %t.2.mlir
// RUN: FileCheck %s < %t.1.mlir

#id = affine_map<(d0, d1) -> (d0, d1)>

// The exp (deny) stays f32 and is rounded for the f16 matmul; its init, the
// square, is only its init.
// CHECK-LABEL: func.func @computed_init
// CHECK:         %[[SQ:.*]] = arith.mulf %{{.*}}, %{{.*}} : tensor<8x16xf32>
// CHECK:         %[[G:.*]] = linalg.generic {{.*}} outs(%[[SQ]] : tensor<8x16xf32>)
// CHECK:         %[[G16:.*]] = arith.truncf %[[G]] : tensor<8x16xf32> to tensor<8x16xf16>
// CHECK:         linalg.matmul ins(%[[G16]], %{{.*}} : tensor<8x16xf16>, tensor<16x4xf16>)
func.func @computed_init(%a: tensor<8x16xf32>, %w: tensor<16x4xf32>, %acc: tensor<8x4xf32>) -> tensor<8x4xf32> {
  %sq = arith.mulf %a, %a : tensor<8x16xf32>
  %g = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
    ins(%a : tensor<8x16xf32>) outs(%sq : tensor<8x16xf32>) {
  ^bb0(%x: f32, %o: f32):
    %e = math.exp %x : f32
    linalg.yield %e : f32
  } -> tensor<8x16xf32>
  %mm = linalg.matmul ins(%g, %w : tensor<8x16xf32>, tensor<16x4xf32>) outs(%acc : tensor<8x4xf32>) -> tensor<8x4xf32>
  return %mm : tensor<8x4xf32>
}

// With an empty init the rounding moves into the exp's generic.
// CHECK-LABEL: func.func @empty_init
// CHECK:         %[[E:.*]] = tensor.empty() : tensor<8x16xf16>
// CHECK:         %[[G:.*]] = linalg.generic {{.*}} outs(%[[E]] : tensor<8x16xf16>)
// CHECK:           math.exp %{{.*}} : f32
// CHECK:           arith.truncf %{{.*}} : f32 to f16
// CHECK-NOT:     arith.truncf %{{.*}} : tensor
// CHECK:         linalg.matmul ins(%[[G]], %{{.*}} : tensor<8x16xf16>, tensor<16x4xf16>)
func.func @empty_init(%a: tensor<8x16xf32>, %w: tensor<16x4xf32>, %acc: tensor<8x4xf32>) -> tensor<8x4xf32> {
  %empty = tensor.empty() : tensor<8x16xf32>
  %g = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
    ins(%a : tensor<8x16xf32>) outs(%empty : tensor<8x16xf32>) {
  ^bb0(%x: f32, %o: f32):
    %e = math.exp %x : f32
    linalg.yield %e : f32
  } -> tensor<8x16xf32>
  %mm = linalg.matmul ins(%g, %w : tensor<8x16xf32>, tensor<16x4xf32>) outs(%acc : tensor<8x4xf32>) -> tensor<8x4xf32>
  return %mm : tensor<8x4xf32>
}
