// explain=true: one remark per op that touches f32 values, with its class
// and why it ended up low or f32. An op that does not verify with low types
// falls back to f32 with a warning.
//
// RUN: amp-opt %s --split-input-file --verify-diagnostics \
// RUN:   --amp-auto-mixed-precision='mode=f16 explain=true' -o /dev/null
// RUN: amp-opt %s --split-input-file --verify-diagnostics \
// RUN:   --amp-auto-mixed-precision='mode=f16 explain=true' | FileCheck %s

// CHECK-LABEL: func.func @deny_after_allow
// CHECK:         %[[MM:.*]] = linalg.matmul {{.*}} -> tensor<8x8xf32>
// CHECK-NEXT:    %[[E:.*]] = math.exp %[[MM]] : tensor<8x8xf32>
// CHECK-NEXT:    arith.addf %[[E]], %[[E]] : tensor<8x8xf32>
func.func @deny_after_allow(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>, %c: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-remark @below {{amp: low: allow (allow list (default)): low-precision inputs, f32 accumulation}}
  %0 = linalg.matmul ins(%a, %b : tensor<8x8xf32>, tensor<8x8xf32>) outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
  // expected-remark @below {{amp: f32: deny (deny list (default))}}
  %1 = math.exp %0 : tensor<8x8xf32>
  // expected-remark @below {{amp: f32: infer: fed by math.exp at loc(}}
  %2 = arith.addf %1, %1 : tensor<8x8xf32>
  return %2 : tensor<8x8xf32>
}

// -----

// CHECK-LABEL: func.func @between
// CHECK:         math.tanh %{{.*}} : tensor<8x8xf16>
// CHECK:         linalg.fill ins(%{{.*}} : f16) outs(%{{.*}} : tensor<8x8xf16>) -> tensor<8x8xf16>
// CHECK-NEXT:    %[[MAX:.*]] = arith.maximumf %{{.*}}, %{{.*}} : tensor<8x8xf16>
// CHECK:         %[[MAX32:.*]] = arith.extf %[[MAX]] : tensor<8x8xf16> to tensor<8x8xf32>
// CHECK:         math.atanh %[[MAX32]] : tensor<8x8xf32>
func.func @between(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>, %c: tensor<8x8xf32>) -> (tensor<8x8xf32>, tensor<8x8xf32>) {
  // expected-remark @below {{amp: f32: source: kept f32}}
  %cst = arith.constant 0.0 : f32
  // expected-remark @below {{amp: low: allow}}
  %0 = linalg.matmul ins(%a, %b : tensor<8x8xf32>, tensor<8x8xf32>) outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
  // expected-remark @below {{amp: low: infer: between allow ops, runs low}}
  %1 = math.tanh %0 : tensor<8x8xf32>
  // expected-remark @below {{amp: f32: source: kept f32}}
  %e = tensor.empty() : tensor<8x8xf32>
  // expected-remark @below {{amp: low: clear: next to low-precision arith.maximumf}}
  %2 = linalg.fill ins(%cst : f32) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
  // expected-remark @below {{amp: low: clear: next to low-precision math.tanh}}
  %3 = arith.maximumf %1, %2 : tensor<8x8xf32>
  // expected-remark @below {{amp: low: allow}}
  %4 = linalg.matmul ins(%3, %b : tensor<8x8xf32>, tensor<8x8xf32>) outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
  // expected-remark @below {{amp: f32: unlisted (not on any list): kept f32}}
  %5 = math.atanh %3 : tensor<8x8xf32>
  return %4, %5 : tensor<8x8xf32>, tensor<8x8xf32>
}

// -----

// CHECK-LABEL: func.func @tosa_clamp
// CHECK:         tosa.clamp %{{.*}} {max_val = 6.000000e+00 : f16, min_val = 0.000000e+00 : f16} : (tensor<1x8x8xf16>) -> tensor<1x8x8xf16>
func.func @tosa_clamp(%a: tensor<1x8x8xf32>, %b: tensor<1x8x8xf32>) -> tensor<1x8x8xf32> {
  // expected-remark @below {{amp: f32: source: kept f32}}
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  // expected-remark @below {{amp: low: allow (allow list (default))}}
  %0 = tosa.matmul %a, %b, %zp, %zp : (tensor<1x8x8xf32>, tensor<1x8x8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x8xf32>
  // expected-remark @below {{amp: low: clear: next to low-precision tosa.matmul}}
  %1 = tosa.clamp %0 {min_val = 0.0 : f32, max_val = 6.0 : f32} : (tensor<1x8x8xf32>) -> tensor<1x8x8xf32>
  // expected-remark @below {{amp: low: allow}}
  %2 = tosa.matmul %1, %b, %zp, %zp : (tensor<1x8x8xf32>, tensor<1x8x8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x8xf32>
  return %2 : tensor<1x8x8xf32>
}
