// RUN: amp-opt %s --split-input-file --amp-optimize-casts | FileCheck %s

// Casts of constants become constants of the new type, created right after
// the original, which goes once it has no use left.

// CHECK-LABEL: func.func @splat
// CHECK-NEXT:    %[[C:.*]] = arith.constant dense<1.500000e+00> : tensor<4x8xf16>
// CHECK-NEXT:    return %[[C]] : tensor<4x8xf16>
func.func @splat() -> tensor<4x8xf16> {
  %c = arith.constant dense<1.5> : tensor<4x8xf32>
  %t = arith.truncf %c : tensor<4x8xf32> to tensor<4x8xf16>
  return %t : tensor<4x8xf16>
}

// -----

// Non-splat: every element is converted (0.1 rounds to the nearest f16,
// 65504 is the largest f16 and fits).

// CHECK-LABEL: func.func @dense
// CHECK-NEXT:    %[[C:.*]] = arith.constant dense<[1.000000e+00, -2.500000e-01, 9.997550e-02, 6.550400e+04]> : tensor<4xf16>
// CHECK-NEXT:    return %[[C]] : tensor<4xf16>
func.func @dense() -> tensor<4xf16> {
  %c = arith.constant dense<[1.0, -0.25, 0.1, 65504.0]> : tensor<4xf32>
  %t = arith.truncf %c : tensor<4xf32> to tensor<4xf16>
  return %t : tensor<4xf16>
}

// -----

// CHECK-LABEL: func.func @dense_bf16
// CHECK-NEXT:    %[[C:.*]] = arith.constant dense<[1.000000e+00, 9.984000e+04, -3.004060e+38]> : tensor<3xbf16>
// CHECK-NEXT:    return %[[C]] : tensor<3xbf16>
func.func @dense_bf16() -> tensor<3xbf16> {
  %c = arith.constant dense<[1.0, 1.0e5, -3.0e38]> : tensor<3xf32>
  %t = arith.truncf %c : tensor<3xf32> to tensor<3xbf16>
  return %t : tensor<3xbf16>
}

// -----

// Scalars; the f32 constant stays while it has another use.

// CHECK-LABEL: func.func @scalar
// CHECK-NEXT:    %[[C:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:    %[[C16:.*]] = arith.constant 1.000000e+00 : f16
// CHECK-NEXT:    return %[[C16]], %[[C]] : f16, f32
func.func @scalar() -> (f16, f32) {
  %c = arith.constant 1.0 : f32
  %t = arith.truncf %c : f32 to f16
  return %t, %c : f16, f32
}

// -----

// Two casts of one constant give one new constant.

// CHECK-LABEL: func.func @shared
// CHECK-NEXT:    %[[C:.*]] = arith.constant 2.000000e+00 : f16
// CHECK-NEXT:    return %[[C]], %[[C]] : f16, f16
func.func @shared() -> (f16, f16) {
  %c = arith.constant 2.0 : f32
  %t1 = arith.truncf %c : f32 to f16
  %t2 = arith.truncf %c : f32 to f16
  return %t1, %t2 : f16, f16
}

// -----

// The rounding mode of the truncf is honoured.

// CHECK-LABEL: func.func @rounding
// CHECK-DAG:     %[[DOWN:.*]] = arith.constant 1.000000e+00 : f16
// CHECK-DAG:     %[[UP:.*]] = arith.constant 1.000980e+00 : f16
// CHECK-NOT:     arith.truncf
// CHECK:         return %[[DOWN]], %[[UP]] : f16, f16
func.func @rounding() -> (f16, f16) {
  // Just above 1 + 2^-11, the midpoint of the f16 values 1 and 1 + 2^-10.
  %c = arith.constant 1.00048924 : f32
  %down = arith.truncf %c toward_zero : f32 to f16
  %up = arith.truncf %c upward : f32 to f16
  return %down, %up : f16, f16
}

// -----

// extf of a constant is exact.

// CHECK-LABEL: func.func @ext
// CHECK-NEXT:    %[[C:.*]] = arith.constant dense<[5.000000e-01, 6.550400e+04]> : tensor<2xf32>
// CHECK-NEXT:    return %[[C]] : tensor<2xf32>
func.func @ext() -> tensor<2xf32> {
  %c = arith.constant dense<[0.5, 65504.0]> : tensor<2xf16>
  %e = arith.extf %c : tensor<2xf16> to tensor<2xf32>
  return %e : tensor<2xf32>
}

// -----

// tosa.const stays a tosa.const.

// CHECK-LABEL: func.func @tosa
// CHECK-NEXT:    %[[C:.*]] = "tosa.const"() <{values = dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf16>}> : () -> tensor<2xf16>
// CHECK-NEXT:    return %[[C]] : tensor<2xf16>
func.func @tosa() -> tensor<2xf16> {
  %c = "tosa.const"() {values = dense<[1.0, 2.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %t = arith.truncf %c : tensor<2xf32> to tensor<2xf16>
  return %t : tensor<2xf16>
}

// -----

// A cast of a tensor.empty is a tensor.empty of the new type, with the same
// dynamic sizes.

// CHECK-LABEL: func.func @empty
// CHECK-SAME:    (%[[D:.*]]: index)
// CHECK-NEXT:    %[[E:.*]] = tensor.empty(%[[D]]) : tensor<?x8xf16>
// CHECK-NEXT:    return %[[E]] : tensor<?x8xf16>
func.func @empty(%d: index) -> tensor<?x8xf16> {
  %e = tensor.empty(%d) : tensor<?x8xf32>
  %t = arith.truncf %e : tensor<?x8xf32> to tensor<?x8xf16>
  return %t : tensor<?x8xf16>
}

// -----

// A cast of a fill of a constant into a tensor.empty is a fill of the new
// type.

// CHECK-LABEL: func.func @fill
// CHECK-SAME:    (%[[D:.*]]: index)
// CHECK-DAG:     %[[C:.*]] = arith.constant 5.000000e-01 : f16
// CHECK-DAG:     %[[E:.*]] = tensor.empty(%[[D]]) : tensor<?xf16>
// CHECK:         %[[F:.*]] = linalg.fill ins(%[[C]] : f16) outs(%[[E]] : tensor<?xf16>) -> tensor<?xf16>
// CHECK-NOT:     arith.truncf
// CHECK-NOT:     f32
// CHECK:         return %[[F]] : tensor<?xf16>
func.func @fill(%d: index) -> tensor<?xf16> {
  %c = arith.constant 0.5 : f32
  %e = tensor.empty(%d) : tensor<?xf32>
  %f = linalg.fill ins(%c : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  %t = arith.truncf %f : tensor<?xf32> to tensor<?xf16>
  return %t : tensor<?xf16>
}

