// --amp strips the markers of every function of the module, with threads or
// without (bf16: no loss scaling, so a gradient needs no seed here).
// RUN: amp-opt %s --amp='mode=bf16' | FileCheck %s
// RUN: amp-opt %s --amp='mode=bf16' --mlir-disable-threading | FileCheck %s

// CHECK-LABEL: func.func @a(
// CHECK-NOT:     amp.
// CHECK:         return
// CHECK-LABEL: func.func @b(
// CHECK-NOT:     amp.
// CHECK:         return
func.func @a(%w: tensor<4xf32>, %g: tensor<4xf32>) -> tensor<4xf32> {
  %g2 = amp.param_grad %g : tensor<4xf32>
  %nw = arith.subf %w, %g2 : tensor<4xf32>
  %w2 = amp.state_update %w, %nw : tensor<4xf32>
  return %w2 : tensor<4xf32>
}
func.func @b(%w: tensor<4xf32>, %g: tensor<4xf32>) -> tensor<4xf32> {
  %nw = arith.addf %w, %g : tensor<4xf32>
  %w2 = amp.state_update %w, %nw : tensor<4xf32>
  return %w2 : tensor<4xf32>
}
