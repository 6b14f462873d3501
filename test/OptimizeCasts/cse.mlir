// RUN: amp-opt %s --split-input-file --amp-optimize-casts | FileCheck %s

// Two casts of one value to one type in one block: one is left.

// CHECK-LABEL: func.func @same_block
// CHECK-SAME:    (%[[X:.*]]: tensor<4xf32>)
// CHECK:         %[[E:.*]] = math.exp %[[X]]
// CHECK-NEXT:    %[[T:.*]] = arith.truncf %[[E]] : tensor<4xf32> to tensor<4xf16>
// CHECK-NEXT:    %[[A:.*]] = arith.addf %[[T]], %[[T]] : tensor<4xf16>
// CHECK-NOT:     arith.truncf
// CHECK:         return %[[A]]
func.func @same_block(%x: tensor<4xf32>) -> tensor<4xf16> {
  %e = math.exp %x : tensor<4xf32>
  %t1 = arith.truncf %e : tensor<4xf32> to tensor<4xf16>
  %t2 = arith.truncf %e : tensor<4xf32> to tensor<4xf16>
  %a = arith.addf %t1, %t2 : tensor<4xf16>
  return %a : tensor<4xf16>
}

// -----

// Casts of %e in both branches of an scf.if merge into one cast right after
// %e, which dominates both branches.

// CHECK-LABEL: func.func @regions
// CHECK:         %[[E:.*]] = math.exp %{{.*}} : tensor<4xf32>
// CHECK-NEXT:    %[[T:.*]] = arith.truncf %[[E]] : tensor<4xf32> to tensor<4xf16>
// CHECK:         scf.if
// CHECK-NOT:       arith.truncf
// CHECK:           math.sin %[[T]]
// CHECK:         } else {
// CHECK-NOT:       arith.truncf
// CHECK:           math.cos %[[T]]
// CHECK:         }
func.func @regions(%x: tensor<4xf32>, %c: i1) -> tensor<4xf16> {
  %e = math.exp %x : tensor<4xf32>
  %r = scf.if %c -> tensor<4xf16> {
    %t1 = arith.truncf %e : tensor<4xf32> to tensor<4xf16>
    %s = math.sin %t1 : tensor<4xf16>
    scf.yield %s : tensor<4xf16>
  } else {
    %t2 = arith.truncf %e : tensor<4xf32> to tensor<4xf16>
    %s = math.cos %t2 : tensor<4xf16>
    scf.yield %s : tensor<4xf16>
  }
  return %r : tensor<4xf16>
}

// -----

// Casts in two blocks of a CFG region, neither dominating the other, merge
// into one cast in the block of their input.

// CHECK-LABEL: func.func @blocks
// CHECK:         %[[E:.*]] = math.exp %{{.*}} : f32
// CHECK-NEXT:    %[[T:.*]] = arith.extf %[[E]] : f32 to f64
// CHECK-NEXT:    cf.cond_br
// CHECK:       ^bb1:
// CHECK-NEXT:    return %[[T]] : f64
// CHECK:       ^bb2:
// CHECK-NEXT:    %[[N:.*]] = arith.negf %[[T]] : f64
// CHECK-NEXT:    return %[[N]] : f64
func.func @blocks(%x: f32, %c: i1) -> f64 {
  %e = math.exp %x : f32
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %e1 = arith.extf %e : f32 to f64
  return %e1 : f64
^bb2:
  %e2 = arith.extf %e : f32 to f64
  %n = arith.negf %e2 : f64
  return %n : f64
}

// -----

// Different target types, rounding modes or fastmath flags are different
// casts.

// CHECK-LABEL: func.func @distinct
// CHECK-SAME:    (%[[X:.*]]: f32)
// CHECK-NEXT:    %[[A:.*]] = arith.truncf %[[X]] : f32 to f16
// CHECK-NEXT:    %[[B:.*]] = arith.truncf %[[X]] : f32 to bf16
// CHECK-NEXT:    %[[C:.*]] = arith.truncf %[[X]] toward_zero : f32 to f16
// CHECK-NEXT:    %[[D:.*]] = arith.truncf %[[X]] fastmath<fast> : f32 to f16
// CHECK-NEXT:    return %[[A]], %[[B]], %[[C]], %[[D]], %[[A]]
func.func @distinct(%x: f32) -> (f16, bf16, f16, f16, f16) {
  %a = arith.truncf %x : f32 to f16
  %b = arith.truncf %x : f32 to bf16
  %c = arith.truncf %x toward_zero : f32 to f16
  %d = arith.truncf %x fastmath<fast> : f32 to f16
  %e = arith.truncf %x : f32 to f16
  return %a, %b, %c, %d, %e : f16, bf16, f16, f16, f16
}

// -----

// Casts in two functions are not merged.

// CHECK-LABEL: func.func @first
// CHECK:         arith.truncf
// CHECK-LABEL: func.func @second
// CHECK:         arith.truncf
func.func @first(%x: f32) -> f16 {
  %t = arith.truncf %x : f32 to f16
  return %t : f16
}
func.func @second(%x: f32) -> f16 {
  %t = arith.truncf %x : f32 to f16
  return %t : f16
}
