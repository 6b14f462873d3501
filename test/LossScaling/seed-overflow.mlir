// A static scale that overflows where the seed is truncated to f16 (here by
// hand; amp-auto-mixed-precision keeps the seed f32 since it is a deny op)
// would skip every step: the pass warns at the truncation.
// RUN: amp-opt %s --amp-loss-scaling='mode=static' -o /dev/null 2>&1 | FileCheck %s
// RUN: amp-opt %s --amp-loss-scaling='mode=static init-scale=1024' -o /dev/null 2>&1 | FileCheck %s --allow-empty --check-prefix=FITS
// CHECK: seed-overflow.mlir:[[@LINE+8]]:{{[0-9]+}}: warning: amp-loss-scaling: the seed is truncated to f16 here, where the scale 65536 overflows: every step will be skipped (use a smaller init-scale or mode=dynamic)
// FITS-NOT: warning

func.func @step(%x: tensor<4xf32>, %w: tensor<4xf32>) -> (tensor<f32>, tensor<4xf32>) {
  %c0 = arith.constant 0 : index
  %v = tensor.extract %x[%c0] : tensor<4xf32>
  %loss = tensor.from_elements %v : tensor<f32>
  %seed = amp.grad_seed %loss : tensor<f32>
  %seed16 = arith.truncf %seed : tensor<f32> to tensor<f16>
  %s = arith.extf %seed16 : tensor<f16> to tensor<f32>
  %sv = tensor.extract %s[] : tensor<f32>
  %g0 = tensor.splat %sv : tensor<4xf32>
  %g = amp.param_grad %g0 : tensor<4xf32>
  %w2v = arith.subf %w, %g : tensor<4xf32>
  %w2 = amp.state_update %w, %w2v : tensor<4xf32>
  return %loss, %w2 : tensor<f32>, tensor<4xf32>
}
