// Ops of another dialect declare their class through
// AmpPrecisionOpInterface: amp_test.matmul natively (allow, with an f32
// accumulator operand and result), amp_test.scale through an external model
// registered the way a plugin would (deny). amp_test.opaque has no class.
// RUN: amp-opt %s --amp-auto-mixed-precision | FileCheck %s
// A CLI edit still beats the interface.
// RUN: amp-opt %s --amp-auto-mixed-precision='allow-add=amp_test.scale' | FileCheck %s --check-prefix=EDIT

// CHECK-LABEL: func.func @vendor
// CHECK-SAME:  (%[[X:.*]]: tensor<4x4xf32>, %[[W:.*]]: tensor<4x4xf32>, %[[ACC:.*]]: tensor<4x4xf32>)
// CHECK-DAG:   %[[X16:.*]] = arith.truncf %[[X]] : tensor<4x4xf32> to tensor<4x4xf16>
// CHECK-DAG:   %[[W16:.*]] = arith.truncf %[[W]] : tensor<4x4xf32> to tensor<4x4xf16>
// CHECK:       %[[M:.*]] = amp_test.matmul %[[X16]], %[[W16]], %[[ACC]] : tensor<4x4xf16>, tensor<4x4xf16>, tensor<4x4xf32> -> tensor<4x4xf32>
// CHECK:       %[[S:.*]] = amp_test.scale %[[M]] : tensor<4x4xf32> -> tensor<4x4xf32>
// CHECK:       %[[N:.*]] = arith.negf %[[S]] : tensor<4x4xf32>
// CHECK:       %[[O:.*]] = amp_test.opaque %[[N]] : tensor<4x4xf32> -> tensor<4x4xf32>
// EDIT-LABEL:  func.func @vendor
// EDIT:        amp_test.scale %{{.*}} : tensor<4x4xf16> -> tensor<4x4xf16>
func.func @vendor(%x: tensor<4x4xf32>, %w: tensor<4x4xf32>, %acc: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %m = amp_test.matmul %x, %w, %acc : tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  %s = amp_test.scale %m : tensor<4x4xf32> -> tensor<4x4xf32>
  %n = arith.negf %s : tensor<4x4xf32>
  %o = amp_test.opaque %n : tensor<4x4xf32> -> tensor<4x4xf32>
  return %o : tensor<4x4xf32>
}
