// amp-optimize-casts moves a tensor arith.truncf into the linalg.generic that
// computes its input, when that result has no other use and the body does
// not read the result's `outs` element: the generic rounds what it yields
// into an empty tensor of the narrow type, and the f32 tensor is gone. The
// values are the same bits. A result with another use, an accumulating
// body (it reads its `outs`) or a named op keeps its truncf.
// RUN: amp-opt %s --amp-optimize-casts='stats=true' 2>%t.stats | FileCheck %s
// RUN: FileCheck %s --check-prefix=STATS < %t.stats
// RUN: amp-opt %s --amp-optimize-casts | amp-opt --amp-optimize-casts | FileCheck %s
// STATS: 2 casts-fused-into-producers

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>

// A softmax's last step (f32, deny) read by a bf16 matmul; the truncf's
// rounding mode moves with it.
// CHECK-LABEL: func.func @softmax_divide
// CHECK-SAME:    (%[[E:.*]]: tensor<4x8xf32>, %[[S:.*]]: tensor<4xf32>, %[[D:.*]]: index
// CHECK:         %[[EMPTY:.*]] = tensor.empty(%[[D]]) : tensor<4x?xbf16>
// CHECK:         %[[P:.*]] = linalg.generic {{.*}} ins(%{{.*}}, %[[S]] : tensor<4x?xf32>, tensor<4xf32>) outs(%[[EMPTY]] : tensor<4x?xbf16>)
// CHECK-NEXT:    ^bb0(%[[X:.*]]: f32, %[[Y:.*]]: f32, %{{.*}}: bf16):
// CHECK-NEXT:      %[[Q:.*]] = arith.divf %[[X]], %[[Y]] : f32
// CHECK-NEXT:      %[[R:.*]] = arith.truncf %[[Q]] to_nearest_away : f32 to bf16
// CHECK-NEXT:      linalg.yield %[[R]] : bf16
// CHECK-NEXT:    } -> tensor<4x?xbf16>
// CHECK-NOT:     arith.truncf %{{.*}} : tensor
// CHECK:         linalg.matmul ins(%[[P]], %{{.*}} : tensor<4x?xbf16>, tensor<?x8xbf16>)
func.func @softmax_divide(%e: tensor<4x8xf32>, %s: tensor<4xf32>, %d: index, %w: tensor<?x8xbf16>, %acc: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %ed = tensor.cast %e : tensor<4x8xf32> to tensor<4x?xf32>
  %init = tensor.empty(%d) : tensor<4x?xf32>
  %p = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
    ins(%ed, %s : tensor<4x?xf32>, tensor<4xf32>) outs(%init : tensor<4x?xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %q = arith.divf %x, %y : f32
    linalg.yield %q : f32
  } -> tensor<4x?xf32>
  %low = arith.truncf %p to_nearest_away : tensor<4x?xf32> to tensor<4x?xbf16>
  %mm = linalg.matmul ins(%low, %w : tensor<4x?xbf16>, tensor<?x8xbf16>) outs(%acc : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %mm : tensor<4x8xf32>
}

// The second result of a two-result generic is rounded; the first is not.
// CHECK-LABEL: func.func @second_result
// CHECK:         %[[G:.*]]:2 = linalg.generic {{.*}} outs(%{{.*}}, %{{.*}} : tensor<4x8xf32>, tensor<4x8xf16>)
// CHECK:           %[[T:.*]] = arith.truncf %{{.*}} : f32 to f16
// CHECK-NEXT:      linalg.yield %{{.*}}, %[[T]] : f32, f16
// CHECK:         return %[[G]]#0, %[[G]]#1 : tensor<4x8xf32>, tensor<4x8xf16>
func.func @second_result(%a: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf16>) {
  %init = tensor.empty() : tensor<4x8xf32>
  %g:2 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
    ins(%a : tensor<4x8xf32>) outs(%init, %init : tensor<4x8xf32>, tensor<4x8xf32>) {
  ^bb0(%x: f32, %o1: f32, %o2: f32):
    %n = arith.negf %x : f32
    %m = arith.mulf %x, %x : f32
    linalg.yield %n, %m : f32, f32
  } -> (tensor<4x8xf32>, tensor<4x8xf32>)
  %t = arith.truncf %g#1 : tensor<4x8xf32> to tensor<4x8xf16>
  return %g#0, %t : tensor<4x8xf32>, tensor<4x8xf16>
}

// Kept: the f32 result is also returned; the body accumulates into its outs
// (a row sum); a named op.
// CHECK-LABEL: func.func @kept
// CHECK:         %[[G:.*]] = linalg.generic
// CHECK:         arith.truncf %[[G]] : tensor<4x8xf32> to tensor<4x8xf16>
// CHECK:         %[[SUM:.*]] = linalg.generic
// CHECK:         arith.truncf %[[SUM]] : tensor<4xf32> to tensor<4xf16>
// CHECK:         %[[ADD:.*]] = linalg.add
// CHECK:         arith.truncf %[[ADD]] : tensor<4x8xf32> to tensor<4x8xf16>
func.func @kept(%a: tensor<4x8xf32>, %r: tensor<4xf32>) -> (tensor<4x8xf32>, tensor<4x8xf16>, tensor<4xf16>, tensor<4x8xf16>) {
  %init = tensor.empty() : tensor<4x8xf32>
  %g = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
    ins(%a : tensor<4x8xf32>) outs(%init : tensor<4x8xf32>) {
  ^bb0(%x: f32, %o: f32):
    %n = arith.negf %x : f32
    linalg.yield %n : f32
  } -> tensor<4x8xf32>
  %t = arith.truncf %g : tensor<4x8xf32> to tensor<4x8xf16>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
    ins(%a : tensor<4x8xf32>) outs(%r : tensor<4xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %x, %acc : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  %ts = arith.truncf %sum : tensor<4xf32> to tensor<4xf16>
  %add = linalg.add ins(%a, %a : tensor<4x8xf32>, tensor<4x8xf32>) outs(%init : tensor<4x8xf32>) -> tensor<4x8xf32>
  %ta = arith.truncf %add : tensor<4x8xf32> to tensor<4x8xf16>
  return %g, %t, %ts, %ta : tensor<4x8xf32>, tensor<4x8xf16>, tensor<4xf16>, tensor<4x8xf16>
}
