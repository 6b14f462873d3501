// The markers parse, verify and print in their assembly format, and their
// generic form round-trips.
// RUN: amp-opt %s | FileCheck %s
// RUN: amp-opt %s --mlir-print-op-generic | amp-opt | FileCheck %s

// CHECK-LABEL: func.func @markers
// CHECK-SAME:    (%[[LOSS:.*]]: tensor<f32>, %[[DW:.*]]: tensor<64x128xf32>, %[[W:.*]]: tensor<64x128xf32>)
// CHECK:         %[[SEED:.*]] = amp.grad_seed %[[LOSS]] : tensor<f32>
// CHECK:         %[[G:.*]] = amp.param_grad %[[DW]] : tensor<64x128xf32>
// CHECK:         %[[NEW:.*]] = arith.subf %[[W]], %[[G]] : tensor<64x128xf32>
// CHECK:         %[[W2:.*]] = amp.state_update %[[W]], %[[NEW]] : tensor<64x128xf32>
// CHECK:         return %[[SEED]], %[[W2]]
func.func @markers(%loss: tensor<f32>, %dw: tensor<64x128xf32>,
                   %w: tensor<64x128xf32>) -> (tensor<f32>, tensor<64x128xf32>) {
  %seed = amp.grad_seed %loss : tensor<f32>
  %g = amp.param_grad %dw : tensor<64x128xf32>
  %new = arith.subf %w, %g : tensor<64x128xf32>
  %w2 = amp.state_update %w, %new : tensor<64x128xf32>
  return %seed, %w2 : tensor<f32>, tensor<64x128xf32>
}

// Scalars, f16/bf16/f64 gradients, dynamic shapes, integer state (a step
// counter) and attributes.
// CHECK-LABEL: func.func @types
// CHECK:         amp.grad_seed %{{.*}} : f32
// CHECK:         amp.param_grad %{{.*}} : tensor<8xf16>
// CHECK:         amp.param_grad %{{.*}} : tensor<?x4xbf16>
// CHECK:         amp.param_grad %{{.*}} {note = "bias"} : f64
// CHECK:         amp.state_update %{{.*}}, %{{.*}} : tensor<i32>
func.func @types(%loss: f32, %a: tensor<8xf16>, %b: tensor<?x4xbf16>, %c: f64,
                 %t: tensor<i32>, %t2: tensor<i32>)
    -> (f32, tensor<8xf16>, tensor<?x4xbf16>, f64, tensor<i32>) {
  %seed = amp.grad_seed %loss : f32
  %ga = amp.param_grad %a : tensor<8xf16>
  %gb = amp.param_grad %b : tensor<?x4xbf16>
  %gc = amp.param_grad %c {note = "bias"} : f64
  %t3 = amp.state_update %t, %t2 : tensor<i32>
  return %seed, %ga, %gb, %gc, %t3 : f32, tensor<8xf16>, tensor<?x4xbf16>, f64, tensor<i32>
}

// A marker may sit in a nested region of a function, and in any op with
// FunctionOpInterface.
// CHECK-LABEL: func.func @nested
// CHECK:         scf.if
// CHECK:           amp.param_grad
// CHECK:       ml_program.subgraph @graph
// CHECK:         amp.grad_seed
func.func @nested(%c: i1, %x: tensor<4xf32>) -> tensor<4xf32> {
  %r = scf.if %c -> tensor<4xf32> {
    %g = amp.param_grad %x : tensor<4xf32>
    scf.yield %g : tensor<4xf32>
  } else {
    scf.yield %x : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}
ml_program.subgraph @graph(%loss: tensor<f32>) -> tensor<f32> {
  %seed = amp.grad_seed %loss : tensor<f32>
  ml_program.output %seed : tensor<f32>
}
