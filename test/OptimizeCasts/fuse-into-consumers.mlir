// amp-optimize-casts moves a tensor arith.extf whose uses are all inputs of
// linalg ops with an explicit body (generic, reduce, map) into those bodies:
// they read the f16 tensor and extend each element, and the f32 copy of the
// tensor is gone. An extf with any other use (an init, a non-linalg op, a
// named op) stays.
// RUN: amp-opt %s --amp-optimize-casts='stats=true' 2>%t.stats | FileCheck %s
// RUN: FileCheck %s --check-prefix=STATS < %t.stats
// STATS: 2 casts-fused-into-consumers

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>

// CHECK-LABEL: func.func @reduce
// CHECK-SAME:    (%[[A:.*]]: tensor<8x4xf16>
// CHECK-NOT:     arith.extf %{{.*}} : tensor
// CHECK:         linalg.reduce ins(%[[A]] : tensor<8x4xf16>) outs(%{{.*}} : tensor<4xf32>) dimensions = [0]
// CHECK-NEXT:      (%[[X:.*]]: f16, %[[ACC:.*]]: f32) {
// CHECK-NEXT:        %[[E:.*]] = arith.extf %[[X]] : f16 to f32
// CHECK-NEXT:        %[[S:.*]] = arith.addf %[[E]], %[[ACC]] : f32
// CHECK-NEXT:        linalg.yield %[[S]] : f32
func.func @reduce(%a: tensor<8x4xf16>, %init: tensor<4xf32>) -> tensor<4xf32> {
  %e = arith.extf %a : tensor<8x4xf16> to tensor<8x4xf32>
  %r = linalg.reduce ins(%e : tensor<8x4xf32>) outs(%init : tensor<4xf32>) dimensions = [0]
    (%x: f32, %acc: f32) {
      %s = arith.addf %x, %acc : f32
      linalg.yield %s : f32
    }
  return %r : tensor<4xf32>
}

// Two consumers (a generic and a map), each gets its own extension; the
// generic's other input keeps its f32 block argument.
// CHECK-LABEL: func.func @two_consumers
// CHECK-SAME:    (%[[A:.*]]: tensor<8x4xf16>, %[[B:.*]]: tensor<8x4xf32>
// CHECK-NOT:     arith.extf %{{.*}} : tensor
// CHECK:         linalg.generic {{.*}} ins(%[[A]], %[[B]] : tensor<8x4xf16>, tensor<8x4xf32>)
// CHECK-NEXT:    ^bb0(%[[X:.*]]: f16, %[[Y:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[E:.*]] = arith.extf %[[X]] : f16 to f32
// CHECK-NEXT:      arith.mulf %[[E]], %[[Y]] : f32
// CHECK:         linalg.map ins(%[[A]] : tensor<8x4xf16>)
// CHECK-NEXT:      (%[[M:.*]]: f16, %{{.*}}: f32) {
// CHECK-NEXT:        %[[EM:.*]] = arith.extf %[[M]] : f16 to f32
// CHECK-NEXT:        math.absf %[[EM]] : f32
func.func @two_consumers(%a: tensor<8x4xf16>, %b: tensor<8x4xf32>) -> (tensor<8x4xf32>, tensor<8x4xf32>) {
  %e = arith.extf %a : tensor<8x4xf16> to tensor<8x4xf32>
  %o = tensor.empty() : tensor<8x4xf32>
  %g = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%e, %b : tensor<8x4xf32>, tensor<8x4xf32>) outs(%o : tensor<8x4xf32>) {
  ^bb0(%x: f32, %y: f32, %out: f32):
    %m = arith.mulf %x, %y : f32
    linalg.yield %m : f32
  } -> tensor<8x4xf32>
  %p = linalg.map ins(%e : tensor<8x4xf32>) outs(%o : tensor<8x4xf32>)
    (%x: f32, %out: f32) {
      %abs = math.absf %x : f32
      linalg.yield %abs : f32
    }
  return %g, %p : tensor<8x4xf32>, tensor<8x4xf32>
}

// The same extension used as an init, by a named op or by a non-linalg op
// stays where it is.
// CHECK-LABEL: func.func @kept
// CHECK:         %[[E1:.*]] = arith.extf %{{.*}} : tensor<8x4xf16> to tensor<8x4xf32>
// CHECK:         linalg.generic {{.*}} outs(%[[E1]] : tensor<8x4xf32>)
// CHECK:         %[[E2:.*]] = arith.extf %{{.*}} : tensor<8x4xf16> to tensor<8x4xf32>
// CHECK:         linalg.add ins(%[[E2]], %{{.*}} : tensor<8x4xf32>, tensor<8x4xf32>)
// CHECK:         %[[E3:.*]] = arith.extf %{{.*}} : tensor<4xf16> to tensor<4xf32>
// CHECK:         linalg.generic {{.*}} ins(%[[E3]] : tensor<4xf32>)
// CHECK:         tensor.extract %[[E3]]
func.func @kept(%a: tensor<8x4xf16>, %b: tensor<8x4xf16>, %c: tensor<4xf16>, %d: tensor<8x4xf32>)
    -> (tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>, f32) {
  %e1 = arith.extf %a : tensor<8x4xf16> to tensor<8x4xf32>
  %g = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%d : tensor<8x4xf32>) outs(%e1 : tensor<8x4xf32>) {
  ^bb0(%x: f32, %out: f32):
    %s = arith.addf %x, %out : f32
    linalg.yield %s : f32
  } -> tensor<8x4xf32>
  %e2 = arith.extf %b : tensor<8x4xf16> to tensor<8x4xf32>
  %o = tensor.empty() : tensor<8x4xf32>
  %add = linalg.add ins(%e2, %d : tensor<8x4xf32>, tensor<8x4xf32>) outs(%o : tensor<8x4xf32>) -> tensor<8x4xf32>
  %e3 = arith.extf %c : tensor<4xf16> to tensor<4xf32>
  %bc = linalg.generic {indexing_maps = [#row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%e3 : tensor<4xf32>) outs(%o : tensor<8x4xf32>) {
  ^bb0(%x: f32, %out: f32):
    linalg.yield %x : f32
  } -> tensor<8x4xf32>
  %i0 = arith.constant 0 : index
  %x0 = tensor.extract %e3[%i0] : tensor<4xf32>
  return %g, %add, %bc, %x0 : tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>, f32
}
