// RUN: amp-opt %s --split-input-file --amp-optimize-casts --verify-diagnostics | FileCheck %s

// A constant with a value outside the range of the target type keeps its
// cast (which is still merged and hoisted), with one remark on the constant.

// CHECK-LABEL: func.func @scalar
// CHECK-NEXT:    %[[C:.*]] = arith.constant 1.000000e+05 : f32
// CHECK-NEXT:    %[[T:.*]] = arith.truncf %[[C]] : f32 to f16
// CHECK-NEXT:    return %[[T]], %[[T]] : f16, f16
func.func @scalar() -> (f16, f16) {
  // expected-remark @below {{value 1.0e+05 is outside the f16 range (|x| <= 65504); cast kept}}
  %c = arith.constant 1.0e5 : f32
  %t1 = arith.truncf %c : f32 to f16
  %t2 = arith.truncf %c : f32 to f16
  return %t1, %t2 : f16, f16
}

// -----

// One element out of range is enough; the first one is reported.

// CHECK-LABEL: func.func @dense
// CHECK:         %[[C:.*]] = arith.constant dense<[1.000000e+00, -7.000000e+04, 1.000000e+06]> : tensor<3xf32>
// CHECK-NEXT:    %[[T:.*]] = arith.truncf %[[C]] : tensor<3xf32> to tensor<3xf16>
// CHECK-NEXT:    return %[[T]]
func.func @dense() -> tensor<3xf16> {
  // expected-remark @below {{value -7.0e+04 is outside the f16 range (|x| <= 65504); cast kept}}
  %c = arith.constant dense<[1.0, -70000.0, 1.0e6]> : tensor<3xf32>
  %t = arith.truncf %c : tensor<3xf32> to tensor<3xf16>
  return %t : tensor<3xf16>
}

// -----

// Just above 65504 (it would round back to 65504) is still outside.

// CHECK-LABEL: func.func @splat
// CHECK:         arith.truncf
func.func @splat() -> tensor<8xf16> {
  // expected-remark @below {{value 6.5505e+04 is outside the f16 range (|x| <= 65504); cast kept}}
  %c = arith.constant dense<65505.0> : tensor<8xf32>
  %t = arith.truncf %c : tensor<8xf32> to tensor<8xf16>
  return %t : tensor<8xf16>
}

// -----

// bf16 has the exponent range of f32, but f64 values can overflow it.

// CHECK-LABEL: func.func @bf16
// CHECK:         arith.truncf %{{.*}} : f64 to bf16
func.func @bf16() -> bf16 {
  // expected-remark @below {{value 1.0e+39 is outside the bf16 range (|x| <= 3.39E+38); cast kept}}
  %c = arith.constant 1.0e39 : f64
  %t = arith.truncf %c : f64 to bf16
  return %t : bf16
}

// -----

// A fill of an out-of-range constant keeps its cast.

// CHECK-LABEL: func.func @fill
// CHECK:         linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<4xf32>)
// CHECK:         arith.truncf %{{.*}} : tensor<4xf32> to tensor<4xf16>
func.func @fill() -> tensor<4xf16> {
  // expected-remark @below {{value -1.0e+05 is outside the f16 range (|x| <= 65504); cast kept}}
  %c = arith.constant -1.0e5 : f32
  %e = tensor.empty() : tensor<4xf32>
  %f = linalg.fill ins(%c : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %t = arith.truncf %f : tensor<4xf32> to tensor<4xf16>
  return %t : tensor<4xf16>
}
