// amp-strip-markers replaces the markers by their identities: the output
// is upstream-only IR (it parses without the amp dialect).
// RUN: amp-opt %s --amp-strip-markers | FileCheck %s
// RUN: amp-opt %s --amp-strip-markers | mlir-opt --verify-diagnostics > /dev/null
// amp-loss-scaling{mode=none} is the same rewrite.
// RUN: amp-opt %s --amp-loss-scaling=mode=none | FileCheck %s

// CHECK-LABEL: func.func @step(
// CHECK-SAME:    %[[LOSS:[^:]*]]: tensor<f32>, %[[DW:[^:]*]]: tensor<4xf32>, %[[W:[^:]*]]: tensor<4xf32>)
// CHECK-NEXT:    %[[ONES:.*]] = arith.constant dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT:    %[[DL:.*]] = arith.mulf %[[LOSS]], %[[ONES]] : tensor<f32>
// CHECK-NEXT:    %[[NW:.*]] = arith.subf %[[W]], %[[DW]] : tensor<4xf32>
// CHECK-NEXT:    return %[[DL]], %[[NW]] : tensor<f32>, tensor<4xf32>
func.func @step(%loss: tensor<f32>, %dw: tensor<4xf32>, %w: tensor<4xf32>)
    -> (tensor<f32>, tensor<4xf32>) {
  %seed = amp.grad_seed %loss : tensor<f32>
  %dl = arith.mulf %loss, %seed : tensor<f32>
  %g = amp.param_grad %dw : tensor<4xf32>
  %nw = arith.subf %w, %g : tensor<4xf32>
  %w2 = amp.state_update %w, %nw : tensor<4xf32>
  return %dl, %w2 : tensor<f32>, tensor<4xf32>
}

// A scalar f16 loss; markers in a region.
// CHECK-LABEL: func.func @scalar(
// CHECK-SAME:    %[[L16:[^:]*]]: f16, %[[C:[^:]*]]: i1, %[[X:[^:]*]]: tensor<4xf32>)
// CHECK:         %[[ONE16:.*]] = arith.constant 1.000000e+00 : f16
// CHECK:         scf.if %[[C]]
// CHECK-NEXT:      scf.yield %[[X]] : tensor<4xf32>
// CHECK:         return %[[ONE16]], %{{.*}} : f16, tensor<4xf32>
func.func @scalar(%l16: f16, %c: i1, %x: tensor<4xf32>) -> (f16, tensor<4xf32>) {
  %s16 = amp.grad_seed %l16 : f16
  %r = scf.if %c -> tensor<4xf32> {
    %g = amp.param_grad %x : tensor<4xf32>
    scf.yield %g : tensor<4xf32>
  } else {
    scf.yield %x : tensor<4xf32>
  }
  return %s16, %r : f16, tensor<4xf32>
}

// A dynamically shaped loss: a splat of one.
// CHECK-LABEL: func.func @dynamic(
// CHECK-SAME:    %[[LD:[^:]*]]: tensor<?xf32>)
// CHECK:         %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK:         %[[C0:.*]] = arith.constant 0 : index
// CHECK:         %[[DIM:.*]] = tensor.dim %[[LD]], %[[C0]] : tensor<?xf32>
// CHECK:         %[[ONES:.*]] = tensor.splat %[[ONE]][%[[DIM]]] : tensor<?xf32>
// CHECK:         return %[[ONES]] : tensor<?xf32>
func.func @dynamic(%ld: tensor<?xf32>) -> tensor<?xf32> {
  %sd = amp.grad_seed %ld : tensor<?xf32>
  return %sd : tensor<?xf32>
}
