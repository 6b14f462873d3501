// RUN: amp-opt %s --split-input-file --amp-optimize-casts | FileCheck %s

// truncf(extf(x)) back to the type of x is exact: it folds to x, and the
// extf, now dead, goes too.

// CHECK-LABEL: func.func @trunc_of_ext
// CHECK-SAME:    (%[[X:.*]]: tensor<4xf16>)
// CHECK-NOT:     arith.extf
// CHECK-NOT:     arith.truncf
// CHECK:         return %[[X]] : tensor<4xf16>
func.func @trunc_of_ext(%x: tensor<4xf16>) -> tensor<4xf16> {
  %e = arith.extf %x : tensor<4xf16> to tensor<4xf32>
  %t = arith.truncf %e : tensor<4xf32> to tensor<4xf16>
  return %t : tensor<4xf16>
}

// -----

// The extf still has a use of its own: only the truncf goes.

// CHECK-LABEL: func.func @trunc_of_ext_shared
// CHECK-SAME:    (%[[X:.*]]: f16)
// CHECK:         %[[E:.*]] = arith.extf %[[X]] : f16 to f32
// CHECK-NOT:     arith.truncf
// CHECK:         return %[[X]], %[[E]] : f16, f32
func.func @trunc_of_ext_shared(%x: f16) -> (f16, f32) {
  %e = arith.extf %x : f16 to f32
  %t = arith.truncf %e : f32 to f16
  return %t, %e : f16, f32
}

// -----

// extf(truncf(x)) rounds x: never folded.

// CHECK-LABEL: func.func @ext_of_trunc_kept
// CHECK-SAME:    (%[[X:.*]]: tensor<4xf32>)
// CHECK:         %[[T:.*]] = arith.truncf %[[X]] : tensor<4xf32> to tensor<4xf16>
// CHECK:         %[[E:.*]] = arith.extf %[[T]] : tensor<4xf16> to tensor<4xf32>
// CHECK:         return %[[E]] : tensor<4xf32>
func.func @ext_of_trunc_kept(%x: tensor<4xf32>) -> tensor<4xf32> {
  %t = arith.truncf %x : tensor<4xf32> to tensor<4xf16>
  %e = arith.extf %t : tensor<4xf16> to tensor<4xf32>
  return %e : tensor<4xf32>
}

// -----

// truncf(truncf(x)) rounds twice: never folded.

// CHECK-LABEL: func.func @trunc_of_trunc_kept
// CHECK-SAME:    (%[[X:.*]]: f64)
// CHECK:         %[[T:.*]] = arith.truncf %[[X]] : f64 to f32
// CHECK:         %[[T2:.*]] = arith.truncf %[[T]] : f32 to f16
// CHECK:         return %[[T2]] : f16
func.func @trunc_of_trunc_kept(%x: f64) -> f16 {
  %t = arith.truncf %x : f64 to f32
  %t2 = arith.truncf %t : f32 to f16
  return %t2 : f16
}

// -----

// extf(extf(x)) is one extf.

// CHECK-LABEL: func.func @ext_of_ext
// CHECK-SAME:    (%[[X:.*]]: bf16)
// CHECK-NEXT:    %[[E:.*]] = arith.extf %[[X]] : bf16 to f64
// CHECK-NEXT:    return %[[E]] : f64
func.func @ext_of_ext(%x: bf16) -> f64 {
  %e = arith.extf %x : bf16 to f32
  %e2 = arith.extf %e : f32 to f64
  return %e2 : f64
}

// -----

// truncf(extf(x)) to a type wider than x: one extf (bf16 values are all f32
// values).

// CHECK-LABEL: func.func @trunc_of_ext_to_wider
// CHECK-SAME:    (%[[X:.*]]: bf16)
// CHECK-NEXT:    %[[E:.*]] = arith.extf %[[X]] : bf16 to f32
// CHECK-NEXT:    return %[[E]] : f32
func.func @trunc_of_ext_to_wider(%x: bf16) -> f32 {
  %e = arith.extf %x : bf16 to f64
  %t = arith.truncf %e : f64 to f32
  return %t : f32
}

// -----

// truncf(extf(x)) to a type narrower than x rounds once, as truncf(x) does.

// CHECK-LABEL: func.func @trunc_of_ext_to_narrower
// CHECK-SAME:    (%[[X:.*]]: f32)
// CHECK-NEXT:    %[[T:.*]] = arith.truncf %[[X]] to_nearest_away : f32 to f16
// CHECK-NEXT:    return %[[T]] : f16
func.func @trunc_of_ext_to_narrower(%x: f32) -> f16 {
  %e = arith.extf %x : f32 to f64
  %t = arith.truncf %e to_nearest_away : f64 to f16
  return %t : f16
}

// -----

// bf16 -> f32 -> f16 is no single cast (same width, different types): kept.

// CHECK-LABEL: func.func @bf16_to_f16_kept
// CHECK-SAME:    (%[[X:.*]]: bf16)
// CHECK:         %[[E:.*]] = arith.extf %[[X]] : bf16 to f32
// CHECK:         %[[T:.*]] = arith.truncf %[[E]] : f32 to f16
// CHECK:         return %[[T]] : f16
func.func @bf16_to_f16_kept(%x: bf16) -> f16 {
  %e = arith.extf %x : bf16 to f32
  %t = arith.truncf %e : f32 to f16
  return %t : f16
}
