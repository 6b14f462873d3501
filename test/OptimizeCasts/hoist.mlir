// RUN: amp-opt %s --split-input-file --amp-optimize-casts | FileCheck %s

// A cast of a value defined outside an scf.for leaves the loop.

// CHECK-LABEL: func.func @for_invariant
// CHECK-SAME:    (%[[W:.*]]: tensor<4xf32>, %[[INIT:.*]]: tensor<4xf16>, %[[N:.*]]: index)
// CHECK:         %[[E:.*]] = math.exp %[[W]] : tensor<4xf32>
// CHECK-NEXT:    %[[T:.*]] = arith.truncf %[[E]] : tensor<4xf32> to tensor<4xf16>
// CHECK:         scf.for {{.*}} iter_args(%[[A:.*]] = %[[INIT]])
// CHECK-NOT:       arith.truncf
// CHECK:           arith.addf %[[A]], %[[T]] : tensor<4xf16>
func.func @for_invariant(%w: tensor<4xf32>, %init: tensor<4xf16>, %n: index) -> tensor<4xf16> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %e = math.exp %w : tensor<4xf32>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%a = %init) -> tensor<4xf16> {
    %t = arith.truncf %e : tensor<4xf32> to tensor<4xf16>
    %s = arith.addf %a, %t : tensor<4xf16>
    scf.yield %s : tensor<4xf16>
  }
  return %r : tensor<4xf16>
}

// -----

// A cast of a value defined inside the loop stays in the loop, right where
// it is.

// CHECK-LABEL: func.func @for_variant
// CHECK:         scf.for
// CHECK-NEXT:      %[[E:.*]] = math.exp
// CHECK-NEXT:      %[[S:.*]] = math.sin %[[E]]
// CHECK-NEXT:      %[[T:.*]] = arith.truncf %[[E]] : tensor<4xf32> to tensor<4xf16>
// CHECK-NEXT:      arith.addf %{{.*}}, %[[T]]
// CHECK:         return
func.func @for_variant(%w: tensor<4xf32>, %init: tensor<4xf16>, %n: index) -> tensor<4xf16> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%a = %init) -> tensor<4xf16> {
    %e = math.exp %w : tensor<4xf32>
    %s = math.sin %e : tensor<4xf32>
    %t = arith.truncf %e : tensor<4xf32> to tensor<4xf16>
    %b = arith.addf %a, %t : tensor<4xf16>
    scf.yield %b : tensor<4xf16>
  }
  return %r : tensor<4xf16>
}

// -----

// A cast of an iter_arg stays in the loop body, where it is.

// CHECK-LABEL: func.func @for_iter_arg
// CHECK:         scf.for {{.*}} iter_args(%[[A:[a-z0-9]+]] = %{{.*}})
// CHECK-NEXT:      %[[X:.*]] = math.exp
// CHECK-NEXT:      %[[T:.*]] = arith.truncf %[[A]] : tensor<4xf32> to tensor<4xf16>
func.func @for_iter_arg(%init: tensor<4xf32>, %n: index) -> tensor<4xf16> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.truncf %init : tensor<4xf32> to tensor<4xf16>
  %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%a = %init, %b = %z) -> (tensor<4xf32>, tensor<4xf16>) {
    %x = math.exp %b : tensor<4xf16>
    %t = arith.truncf %a : tensor<4xf32> to tensor<4xf16>
    %s = arith.addf %x, %t : tensor<4xf16>
    scf.yield %a, %s : tensor<4xf32>, tensor<4xf16>
  }
  return %r#1 : tensor<4xf16>
}

// -----

// Nested loops, scf.while, scf.forall and scf.if: casts of function
// arguments move to the entry block, once per argument and type, in the order
// they were met.

// CHECK-LABEL: func.func @weights
// CHECK-SAME:    (%[[W:.*]]: tensor<4xf32>, %[[V:.*]]: tensor<4xf32>, %[[N:.*]]: index, %[[C:.*]]: i1)
// CHECK-NEXT:    %[[W16:.*]] = arith.truncf %[[W]] : tensor<4xf32> to tensor<4xf16>
// CHECK-NEXT:    %[[V16:.*]] = arith.truncf %[[V]] : tensor<4xf32> to tensor<4xf16>
// CHECK-NEXT:    %[[WB:.*]] = arith.truncf %[[W]] : tensor<4xf32> to tensor<4xbf16>
// CHECK-NOT:     arith.truncf
// CHECK:         scf.for
// CHECK:           scf.for
// CHECK:             arith.addf %{{.*}}, %[[W16]]
// CHECK:         scf.while
// CHECK:           arith.mulf %{{.*}}, %[[V16]]
// CHECK:         scf.forall
// CHECK:           math.sin %[[W16]]
// CHECK:         scf.if
// CHECK:           math.cos %[[WB]]
// CHECK-NOT:     arith.truncf
// CHECK:         return
func.func @weights(%w: tensor<4xf32>, %v: tensor<4xf32>, %n: index, %c: i1) -> (tensor<4xf16>, tensor<4xf16>, tensor<4xf16>, tensor<4xbf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = tensor.empty() : tensor<4xf16>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%a = %zero) -> tensor<4xf16> {
    %r2 = scf.for %j = %c0 to %n step %c1 iter_args(%b = %a) -> tensor<4xf16> {
      %t = arith.truncf %w : tensor<4xf32> to tensor<4xf16>
      %s = arith.addf %b, %t : tensor<4xf16>
      scf.yield %s : tensor<4xf16>
    }
    scf.yield %r2 : tensor<4xf16>
  }
  %wh = scf.while (%a = %zero) : (tensor<4xf16>) -> tensor<4xf16> {
    scf.condition(%c) %a : tensor<4xf16>
  } do {
  ^bb0(%a: tensor<4xf16>):
    %t = arith.truncf %v : tensor<4xf32> to tensor<4xf16>
    %m = arith.mulf %a, %t : tensor<4xf16>
    scf.yield %m : tensor<4xf16>
  }
  %fa = scf.forall (%i) in (4) shared_outs(%o = %zero) -> tensor<4xf16> {
    %t = arith.truncf %w : tensor<4xf32> to tensor<4xf16>
    %s = math.sin %t : tensor<4xf16>
    %x = tensor.extract_slice %s[%i] [1] [1] : tensor<4xf16> to tensor<1xf16>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %x into %o[%i] [1] [1] : tensor<1xf16> into tensor<4xf16>
    }
  }
  %if = scf.if %c -> tensor<4xbf16> {
    %t = arith.truncf %w : tensor<4xf32> to tensor<4xbf16>
    %s = math.cos %t : tensor<4xbf16>
    scf.yield %s : tensor<4xbf16>
  } else {
    %e = tensor.empty() : tensor<4xbf16>
    scf.yield %e : tensor<4xbf16>
  }
  return %r, %wh, %fa, %if : tensor<4xf16>, tensor<4xf16>, tensor<4xf16>, tensor<4xbf16>
}

// -----

// A cast of a function argument in a later block of a CFG moves to the entry
// block.

// CHECK-LABEL: func.func @cfg
// CHECK-SAME:    (%[[X:.*]]: f32, %[[C:.*]]: i1)
// CHECK-NEXT:    %[[T:.*]] = arith.truncf %[[X]] : f32 to f16
// CHECK-NEXT:    cf.cond_br
// CHECK:       ^bb1:
// CHECK-NEXT:    return %[[T]] : f16
func.func @cfg(%x: f32, %c: i1) -> f16 {
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %t = arith.truncf %x : f32 to f16
  return %t : f16
^bb2:
  %z = arith.constant 0.0 : f16
  return %z : f16
}

// -----

// Casts of scalars in a linalg.generic body: the one of a value from outside
// leaves the body, the one of a block argument stays at its start.

// CHECK-LABEL: func.func @generic
// CHECK-SAME:    (%[[S:.*]]: f32, %{{.*}}: tensor<4xf32>)
// CHECK-NEXT:    %[[S16:.*]] = arith.truncf %[[S]] : f32 to f16
// CHECK:         linalg.generic
// CHECK-NEXT:    ^bb0(%[[IN:.*]]: f32, %{{.*}}: f16):
// CHECK-NEXT:      %[[IN16:.*]] = arith.truncf %[[IN]] : f32 to f16
// CHECK-NEXT:      %[[M:.*]] = arith.mulf %[[IN16]], %[[S16]] : f16
// CHECK-NEXT:      linalg.yield %[[M]] : f16
#map = affine_map<(d0) -> (d0)>
func.func @generic(%s: f32, %x: tensor<4xf32>) -> tensor<4xf16> {
  %e = tensor.empty() : tensor<4xf16>
  %r = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]}
      ins(%x : tensor<4xf32>) outs(%e : tensor<4xf16>) {
  ^bb0(%in: f32, %out: f16):
    %in16 = arith.truncf %in : f32 to f16
    %s16 = arith.truncf %s : f32 to f16
    %m = arith.mulf %in16, %s16 : f16
    linalg.yield %m : f16
  } -> tensor<4xf16>
  return %r : tensor<4xf16>
}
