// f16 / bf16 gradients are extended to f32 before they are unscaled; an
// arith.extf of the marker becomes the unscaled f32 value itself, other
// users of the low-precision gradient get it truncated back. f64 gradients
// are unscaled in f64. A bf16 loss gets the scale truncated to bf16.
// RUN: amp-opt %s --amp-loss-scaling=mode=static | FileCheck %s

// CHECK-LABEL: func.func @f16_grads(
// CHECK-SAME:    %[[LOSS:[^:]*]]: tensor<f32>, %[[D:[^:]*]]: tensor<4xf16>, %[[W:[^:]*]]: tensor<4xf32>, %[[M:[^:]*]]: tensor<4xf16>
// CHECK:         %[[S:.*]] = arith.constant 6.553600e+04 : f32
// CHECK:         %[[INV:.*]] = arith.divf %{{.*}}, %[[S]] : f32
// CHECK:         %[[D32:.*]] = arith.extf %[[D]] : tensor<4xf16> to tensor<4xf32>
// CHECK:         %[[INVS:.*]] = tensor.splat %[[INV]] : tensor<4xf32>
// CHECK:         %[[G:.*]] = arith.mulf %[[D32]], %[[INVS]] : tensor<4xf32>
// CHECK:         %[[G16:.*]] = arith.truncf %[[G]] : tensor<4xf32> to tensor<4xf16>
// CHECK:         linalg.generic {{.*}} ins(%[[G]] : tensor<4xf32>)
// CHECK:         %[[OK:.*]] = arith.cmpf oeq
// CHECK-NOT:     arith.extf
// CHECK:         %[[NW:.*]] = arith.subf %[[W]], %[[G]] : tensor<4xf32>
// CHECK:         arith.select %[[OK]], %[[NW]], %[[W]] : tensor<4xf32>
// CHECK:         arith.addf %[[M]], %[[G16]] : tensor<4xf16>
func.func @f16_grads(%loss: tensor<f32>, %d: tensor<4xf16>, %w: tensor<4xf32>,
                     %m: tensor<4xf16>) -> (tensor<4xf32>, tensor<4xf16>, tensor<f32>) {
  %seed = amp.grad_seed %loss : tensor<f32>
  %g = amp.param_grad %d : tensor<4xf16>
  %g32 = arith.extf %g : tensor<4xf16> to tensor<4xf32>
  %nw = arith.subf %w, %g32 : tensor<4xf32>
  %w2 = amp.state_update %w, %nw : tensor<4xf32>
  %nm = arith.addf %m, %g : tensor<4xf16>
  return %w2, %nm, %seed : tensor<4xf32>, tensor<4xf16>, tensor<f32>
}

// CHECK-LABEL: func.func @bf16_and_f64(
// CHECK-SAME:    %[[LOSS:[^:]*]]: tensor<bf16>, %[[A:[^:]*]]: tensor<2x3xbf16>, %[[B:[^:]*]]: f64
// CHECK:         %[[S:.*]] = arith.constant 6.553600e+04 : f32
// CHECK:         %[[INV:.*]] = arith.divf %{{.*}}, %[[S]] : f32
// CHECK:         %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:         %[[S16:.*]] = arith.truncf %[[S]] : f32 to bf16
// CHECK:         %[[SEED:.*]] = tensor.splat %[[S16]] : tensor<bf16>
// CHECK:         %[[A32:.*]] = arith.extf %[[A]] : tensor<2x3xbf16> to tensor<2x3xf32>
// CHECK:         %[[GA:.*]] = arith.mulf %[[A32]], %{{.*}} : tensor<2x3xf32>
// CHECK:         %[[INV64:.*]] = arith.extf %[[INV]] : f32 to f64
// CHECK:         %[[GB:.*]] = arith.mulf %[[B]], %[[INV64]] : f64
// CHECK:         %[[ZERO64:.*]] = arith.constant 0.000000e+00 : f64
// CHECK:         %[[PB64:.*]] = arith.mulf %[[GB]], %[[ZERO64]] : f64
// CHECK:         %[[PB:.*]] = arith.truncf %[[PB64]] : f64 to f32
// CHECK:         arith.addf %{{.*}}, %[[PB]] : f32
// CHECK:         return %[[SEED]], %[[GA]], %[[GB]]
func.func @bf16_and_f64(%loss: tensor<bf16>, %a: tensor<2x3xbf16>, %b: f64)
    -> (tensor<bf16>, tensor<2x3xf32>, f64) {
  %seed = amp.grad_seed %loss : tensor<bf16>
  %ga = amp.param_grad %a : tensor<2x3xbf16>
  %ga32 = arith.extf %ga : tensor<2x3xbf16> to tensor<2x3xf32>
  %gb = amp.param_grad %b : f64
  return %seed, %ga32, %gb : tensor<bf16>, tensor<2x3xf32>, f64
}
