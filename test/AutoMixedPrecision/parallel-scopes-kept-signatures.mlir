// Painting scopes, the cases that keep a callee's signature: a private
// function whose address is taken (func.constant) is not specialised, so
// its callers are painted apart from it and its calls keep f32 operands;
// a private function of a nested module is painted on its own too (only
// functions directly in the module the pass runs on are specialised). The
// output does not depend on the threads.
// RUN: amp-opt %s --amp-auto-mixed-precision > %t.parallel.mlir
// RUN: amp-opt %s --amp-auto-mixed-precision --mlir-disable-threading > %t.serial.mlir
// RUN: diff %t.parallel.mlir %t.serial.mlir
// RUN: FileCheck %s < %t.parallel.mlir

// CHECK-LABEL: func.func private @taken(%{{.*}}: tensor<16x16xf32>) -> tensor<16x16xf32>
// CHECK:         arith.maximumf %{{.*}}, %{{.*}} : tensor<16x16xf32>
// CHECK-LABEL: func.func @user
// CHECK:         call_indirect %{{.*}}(%{{.*}}) : (tensor<16x16xf32>) -> tensor<16x16xf32>
// CHECK-LABEL: func.func @caller
// CHECK:         %[[M:.*]] = linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<16x16xf16>, tensor<16x16xf16>) outs(%{{.*}} : tensor<16x16xf32>)
// CHECK:         call @taken(%[[M]]) : (tensor<16x16xf32>) -> tensor<16x16xf32>
// CHECK-LABEL: module @inner
// CHECK:         func.func private @helper(%{{.*}}: tensor<16x16xf32>) -> tensor<16x16xf32>
// CHECK:         func.func @inner_caller
// CHECK:           call @helper(%{{.*}}) : (tensor<16x16xf32>) -> tensor<16x16xf32>

func.func private @taken(%x: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %y = arith.maximumf %x, %x : tensor<16x16xf32>
  return %y : tensor<16x16xf32>
}

func.func @user(%a: tensor<16x16xf32>, %b: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %f = func.constant @taken : (tensor<16x16xf32>) -> tensor<16x16xf32>
  %e = tensor.empty() : tensor<16x16xf32>
  %m = linalg.matmul ins(%a, %b : tensor<16x16xf32>, tensor<16x16xf32>) outs(%e : tensor<16x16xf32>) -> tensor<16x16xf32>
  %s = func.call_indirect %f(%m) : (tensor<16x16xf32>) -> tensor<16x16xf32>
  %r = linalg.matmul ins(%s, %b : tensor<16x16xf32>, tensor<16x16xf32>) outs(%e : tensor<16x16xf32>) -> tensor<16x16xf32>
  return %r : tensor<16x16xf32>
}

func.func @caller(%a: tensor<16x16xf32>, %b: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %e = tensor.empty() : tensor<16x16xf32>
  %m = linalg.matmul ins(%a, %b : tensor<16x16xf32>, tensor<16x16xf32>) outs(%e : tensor<16x16xf32>) -> tensor<16x16xf32>
  %s = func.call @taken(%m) : (tensor<16x16xf32>) -> tensor<16x16xf32>
  %r = linalg.matmul ins(%s, %b : tensor<16x16xf32>, tensor<16x16xf32>) outs(%e : tensor<16x16xf32>) -> tensor<16x16xf32>
  return %r : tensor<16x16xf32>
}

module @inner {
  func.func private @helper(%x: tensor<16x16xf32>) -> tensor<16x16xf32> {
    %y = arith.maximumf %x, %x : tensor<16x16xf32>
    return %y : tensor<16x16xf32>
  }
  func.func @inner_caller(%a: tensor<16x16xf32>, %b: tensor<16x16xf32>) -> tensor<16x16xf32> {
    %e = tensor.empty() : tensor<16x16xf32>
    %m = linalg.matmul ins(%a, %b : tensor<16x16xf32>, tensor<16x16xf32>) outs(%e : tensor<16x16xf32>) -> tensor<16x16xf32>
    %s = func.call @helper(%m) : (tensor<16x16xf32>) -> tensor<16x16xf32>
    %r = linalg.matmul ins(%s, %b : tensor<16x16xf32>, tensor<16x16xf32>) outs(%e : tensor<16x16xf32>) -> tensor<16x16xf32>
    return %r : tensor<16x16xf32>
  }
}
