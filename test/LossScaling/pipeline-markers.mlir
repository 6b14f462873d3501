// The markers through amp-auto-mixed-precision: unlisted ops, so they stay
// f32 (an f32 boundary: low producers get an arith.extf), and a marker on a
// value that is already f16 is left to amp-loss-scaling, which extends it.
// RUN: amp-opt %s --split-input-file --amp | FileCheck %s
// RUN: amp-opt %s --split-input-file --amp='mode=bf16' | FileCheck %s --check-prefix=BF16

// The gradient is a low-precision elementwise op between two matmuls: it
// reaches the marker extended to f32.
// CHECK-LABEL: func.func @low_grad(
// CHECK-SAME:    %{{[^:]*}}: tensor<f32>, %{{[^:]*}}: tensor<8x8xf32>, %[[W:[^:]*]]: tensor<8x8xf32>
// CHECK:         %[[S:.*]] = tensor.extract
// CHECK:         %[[INV:.*]] = arith.divf %{{.*}}, %[[S]]
// CHECK:         %[[MM:.*]] = linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<8x8xf16>, tensor<8x8xf16>) outs(%{{.*}} : tensor<8x8xf32>)
// CHECK:         %[[D16:.*]] = arith.mulf %{{.*}}, %{{.*}} : tensor<8x8xf16>
// CHECK:         %[[D:.*]] = arith.extf %[[D16]] : tensor<8x8xf16> to tensor<8x8xf32>
// CHECK:         %[[G:.*]] = arith.mulf %[[D]], %{{.*}} : tensor<8x8xf32>
// CHECK:         %[[OK:.*]] = arith.cmpf oeq
// CHECK:         %[[NW:.*]] = arith.subf %[[W]], %[[G]] : tensor<8x8xf32>
// CHECK:         arith.select %[[OK]], %[[NW]], %[[W]] : tensor<8x8xf32>
// BF16-LABEL: func.func @low_grad(
// BF16:         %[[MM:.*]] = linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<8x8xbf16>, tensor<8x8xbf16>) outs(%{{.*}} : tensor<8x8xf32>)
// BF16-NOT:     arith.select
// BF16:         return
func.func @low_grad(%loss: tensor<f32>, %x: tensor<8x8xf32>, %w: tensor<8x8xf32>)
    -> (tensor<8x8xf32>, tensor<8x8xf32>) {
  %seed = amp.grad_seed %loss : tensor<f32>
  %e = tensor.empty() : tensor<8x8xf32>
  %sb = linalg.broadcast ins(%seed : tensor<f32>) outs(%e : tensor<8x8xf32>) dimensions = [0, 1]
  %mm = linalg.matmul ins(%x, %sb : tensor<8x8xf32>, tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
  %d = arith.mulf %mm, %mm : tensor<8x8xf32>
  %back = linalg.matmul ins(%d, %x : tensor<8x8xf32>, tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
  %g = amp.param_grad %d : tensor<8x8xf32>
  %nw = arith.subf %w, %g : tensor<8x8xf32>
  %w2 = amp.state_update %w, %nw : tensor<8x8xf32>
  return %w2, %back : tensor<8x8xf32>, tensor<8x8xf32>
}

// -----

// A gradient that is f16 in the input: extended before it is unscaled, the
// arith.extf that fed the f32 update is the unscaled value.
// CHECK-LABEL: func.func @f16_grad(
// CHECK-SAME:    %[[D16:[^:]*]]: tensor<4xf16>, %[[W:[^:]*]]: tensor<4xf32>
// CHECK:         %[[D:.*]] = arith.extf %[[D16]] : tensor<4xf16> to tensor<4xf32>
// CHECK:         %[[G:.*]] = arith.mulf %[[D]], %{{.*}} : tensor<4xf32>
// CHECK-NOT:     arith.extf
// CHECK:         %[[NW:.*]] = arith.subf %[[W]], %[[G]] : tensor<4xf32>
// CHECK:         arith.select %{{.*}}, %[[NW]], %[[W]] : tensor<4xf32>
func.func @f16_grad(%loss: tensor<f32>, %d: tensor<4xf16>, %w: tensor<4xf32>)
    -> (tensor<f32>, tensor<4xf32>) {
  %seed = amp.grad_seed %loss : tensor<f32>
  %g = amp.param_grad %d : tensor<4xf16>
  %g32 = arith.extf %g : tensor<4xf16> to tensor<4xf32>
  %nw = arith.subf %w, %g32 : tensor<4xf32>
  %w2 = amp.state_update %w, %nw : tensor<4xf32>
  return %seed, %w2 : tensor<f32>, tensor<4xf32>
}
