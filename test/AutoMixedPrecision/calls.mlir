// RUN: amp-opt %s --amp-auto-mixed-precision | FileCheck %s
// RUN: amp-opt %s --amp-auto-mixed-precision='keep-public-signatures=false' | FileCheck %s --check-prefix=OPEN

// A private function called only directly is specialised: its arguments and
// result follow the painting across both call sites, so layer-to-layer values
// stay f16. Public functions keep their f32 signature.
// CHECK-LABEL: func.func private @layer
// CHECK-SAME:  (%[[A:.*]]: tensor<8x8xf16>, %[[B:.*]]: tensor<8x8xf16>) -> tensor<8x8xf16>
// CHECK:       %[[MM:.*]] = linalg.matmul ins(%[[A]], %[[B]] : tensor<8x8xf16>, tensor<8x8xf16>) outs(%{{.*}} : tensor<8x8xf32>)
// CHECK:       %[[MM16:.*]] = arith.truncf %[[MM]] : tensor<8x8xf32> to tensor<8x8xf16>
// CHECK:       %[[T:.*]] = math.tanh %[[MM16]] : tensor<8x8xf16>
// CHECK:       return %[[T]] : tensor<8x8xf16>
func.func private @layer(%x: tensor<8x8xf32>, %w: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %cst = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<8x8xf32>
  %zero = linalg.fill ins(%cst : f32) outs(%empty : tensor<8x8xf32>) -> tensor<8x8xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<8x8xf32>, tensor<8x8xf32>) outs(%zero : tensor<8x8xf32>) -> tensor<8x8xf32>
  %t = math.tanh %mm : tensor<8x8xf32>
  return %t : tensor<8x8xf32>
}

// CHECK-LABEL: func.func @two_layers
// CHECK-SAME:  (%[[X:.*]]: tensor<8x8xf32>, %[[W:.*]]: tensor<8x8xf32>) -> tensor<8x8xf32>
// CHECK-DAG:   %[[W16:.*]] = arith.truncf %[[W]] : tensor<8x8xf32> to tensor<8x8xf16>
// CHECK-DAG:   %[[X16:.*]] = arith.truncf %[[X]] : tensor<8x8xf32> to tensor<8x8xf16>
// CHECK:       %[[H:.*]] = call @layer(%[[X16]], %[[W16]]) : (tensor<8x8xf16>, tensor<8x8xf16>) -> tensor<8x8xf16>
// CHECK:       %[[Y:.*]] = call @layer(%[[H]], %[[W16]]) : (tensor<8x8xf16>, tensor<8x8xf16>) -> tensor<8x8xf16>
// CHECK:       %[[Y32:.*]] = arith.extf %[[Y]] : tensor<8x8xf16> to tensor<8x8xf32>
// CHECK:       return %[[Y32]] : tensor<8x8xf32>
// OPEN-LABEL:  func.func @two_layers
// OPEN-SAME:   (%{{.*}}: tensor<8x8xf16>, %{{.*}}: tensor<8x8xf16>) -> tensor<8x8xf16>
func.func @two_layers(%x: tensor<8x8xf32>, %w: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %a = func.call @layer(%x, %w) : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  %b = func.call @layer(%a, %w) : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  return %b : tensor<8x8xf32>
}

// A public callee is not specialised. With keep-public-signatures=false its
// argument, used only by exp, stays f32 (no cast pair around it).
// OPEN-LABEL: func.func @public_callee
// OPEN-SAME:  (%{{.*}}: tensor<8x8xf32>) -> tensor<8x8xf32>
// OPEN-NEXT:  math.exp
// CHECK-LABEL: func.func @public_callee
// CHECK-SAME:  (%{{.*}}: tensor<8x8xf32>) -> tensor<8x8xf32>
func.func @public_callee(%x: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %e = math.exp %x : tensor<8x8xf32>
  return %e : tensor<8x8xf32>
}

// External declarations keep their signatures.
// CHECK-LABEL: func.func private @external(tensor<8x8xf32>) -> tensor<8x8xf32>
func.func private @external(tensor<8x8xf32>) -> tensor<8x8xf32>

// CHECK-LABEL: func.func @calls_public
// CHECK:       %[[MM:.*]] = linalg.matmul
// CHECK:       call @public_callee(%[[MM]]) : (tensor<8x8xf32>) -> tensor<8x8xf32>
// CHECK:       call @external(%{{.*}}) : (tensor<8x8xf32>) -> tensor<8x8xf32>
func.func @calls_public(%x: tensor<8x8xf32>, %w: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %cst = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<8x8xf32>
  %zero = linalg.fill ins(%cst : f32) outs(%empty : tensor<8x8xf32>) -> tensor<8x8xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<8x8xf32>, tensor<8x8xf32>) outs(%zero : tensor<8x8xf32>) -> tensor<8x8xf32>
  %a = func.call @public_callee(%mm) : (tensor<8x8xf32>) -> tensor<8x8xf32>
  %b = func.call @external(%a) : (tensor<8x8xf32>) -> tensor<8x8xf32>
  return %b : tensor<8x8xf32>
}
