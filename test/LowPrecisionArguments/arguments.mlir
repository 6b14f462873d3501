// RUN: amp-opt %s --amp-low-precision-arguments --split-input-file | FileCheck %s

// A weight only read rounded becomes a bf16 argument; the activation that a
// residual add also reads in f32 keeps its type (and its truncf).
// CHECK-LABEL: func.func @layer
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>, %[[W:.*]]: tensor<8x8xbf16> {amp.rounded_from = tensor<8x8xf32>})
// CHECK: %[[XL:.*]] = arith.truncf %[[X]] : tensor<4x8xf32> to tensor<4x8xbf16>
// CHECK-NOT: arith.truncf %[[W]]
// CHECK: linalg.matmul ins(%[[XL]], %[[W]] : tensor<4x8xbf16>, tensor<8x8xbf16>)
// CHECK: arith.addf %{{.*}}, %[[X]] : tensor<4x8xf32>
func.func @layer(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>) -> tensor<4x8xf32> {
  %xl = arith.truncf %x : tensor<4x8xf32> to tensor<4x8xbf16>
  %wl = arith.truncf %w : tensor<8x8xf32> to tensor<8x8xbf16>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %m = linalg.matmul ins(%xl, %wl : tensor<4x8xbf16>, tensor<8x8xbf16>) outs(%acc : tensor<4x8xf32>) -> tensor<4x8xf32>
  %r = arith.addf %m, %x : tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

// A call inside the module rounds the operand at the call; two casts of one
// argument to the same type both go. A caller whose argument then only
// feeds that rounding takes it rounded in turn, whichever function comes
// first; one that also reads it in f32 keeps the cast at the call.
// CHECK-LABEL: func.func @first_caller
// CHECK-SAME: (%[[F:.*]]: tensor<8xf16> {amp.rounded_from = tensor<8xf32>})
// CHECK-NEXT: call @callee(%[[F]]) : (tensor<8xf16>) -> tensor<8xf16>
// CHECK-LABEL: func.func @callee
// CHECK-SAME: (%[[A:.*]]: tensor<8xf16> {amp.rounded_from = tensor<8xf32>})
// CHECK-NEXT: arith.addf %[[A]], %[[A]] : tensor<8xf16>
// CHECK-LABEL: func.func @f32_caller
// CHECK-SAME: (%[[C:.*]]: tensor<8xf32>)
// CHECK: %[[R:.*]] = arith.truncf %[[C]] : tensor<8xf32> to tensor<8xf16>
// CHECK: call @callee(%[[R]]) : (tensor<8xf16>) -> tensor<8xf16>
func.func @first_caller(%a: tensor<8xf32>) -> tensor<8xf16> {
  %r = call @callee(%a) : (tensor<8xf32>) -> tensor<8xf16>
  return %r : tensor<8xf16>
}
func.func @callee(%a: tensor<8xf32>) -> tensor<8xf16> {
  %1 = arith.truncf %a : tensor<8xf32> to tensor<8xf16>
  %2 = arith.truncf %a : tensor<8xf32> to tensor<8xf16>
  %3 = arith.addf %1, %2 : tensor<8xf16>
  return %3 : tensor<8xf16>
}
func.func @f32_caller(%a: tensor<8xf32>) -> (tensor<8xf16>, tensor<8xf32>) {
  %r = call @callee(%a) : (tensor<8xf32>) -> tensor<8xf16>
  return %r, %a : tensor<8xf16>, tensor<8xf32>
}

// -----

// Kept: casts to two different types, a truncf with a rounding mode, an
// argument with no use, and a declaration.
// CHECK-LABEL: func.func @kept
// CHECK-SAME: (%{{.*}}: tensor<8xf32>, %{{.*}}: tensor<8xf32>, %{{.*}}: tensor<8xf32>)
// CHECK-NOT: amp.rounded_from
// CHECK: func.func private @decl(tensor<8xf32>)
func.func @kept(%a: tensor<8xf32>, %b: tensor<8xf32>, %c: tensor<8xf32>) -> (tensor<8xf16>, tensor<8xbf16>, tensor<8xbf16>) {
  %1 = arith.truncf %a : tensor<8xf32> to tensor<8xf16>
  %2 = arith.truncf %a : tensor<8xf32> to tensor<8xbf16>
  %3 = arith.truncf %b to_nearest_away : tensor<8xf32> to tensor<8xbf16>
  return %1, %2, %3 : tensor<8xf16>, tensor<8xbf16>, tensor<8xbf16>
}
func.func private @decl(tensor<8xf32>)
