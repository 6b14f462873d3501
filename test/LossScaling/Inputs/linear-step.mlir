// One SGD step of a linear model with a mean-squared-error loss, with the
// training-step markers (docs/training-step.md):
//
//   z = x . w + b                       x[8x16], w[16x4], b[4]
//   loss = sum((z - y)^2) / 8
//   dz = 2 (z - y) * seed / 8,  dw = x^T . dz,  db = sum_i dz
//   w' = w - 0.1 dw,  b' = b - 0.1 db

#id2 = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (j)>

func.func @linear_step(%x: tensor<8x16xf32> {amp.role = "input"},
                       %y: tensor<8x4xf32> {amp.role = "label"},
                       %w: tensor<16x4xf32> {amp.role = "param"},
                       %b: tensor<4xf32> {amp.role = "param"})
    -> (tensor<f32> {amp.role = "loss"},
        tensor<16x4xf32> {amp.role = "update", amp.updates = 2 : i64},
        tensor<4xf32> {amp.role = "update", amp.updates = 3 : i64}) {
  %zero = arith.constant 0.0 : f32
  // forward
  %e_z = tensor.empty() : tensor<8x4xf32>
  %acc_z = linalg.fill ins(%zero : f32) outs(%e_z : tensor<8x4xf32>) -> tensor<8x4xf32>
  %xw = linalg.matmul ins(%x, %w : tensor<8x16xf32>, tensor<16x4xf32>)
                      outs(%acc_z : tensor<8x4xf32>) -> tensor<8x4xf32>
  %z = linalg.generic {indexing_maps = [#id2, #row, #id2],
                       iterator_types = ["parallel", "parallel"]}
      ins(%xw, %b : tensor<8x4xf32>, tensor<4xf32>) outs(%e_z : tensor<8x4xf32>) {
  ^bb0(%v: f32, %bb: f32, %o: f32):
    %s = arith.addf %v, %bb : f32
    linalg.yield %s : f32
  } -> tensor<8x4xf32>
  %r = arith.subf %z, %y : tensor<8x4xf32>
  %r2 = arith.mulf %r, %r : tensor<8x4xf32>
  %e_s = tensor.empty() : tensor<f32>
  %acc_s = linalg.fill ins(%zero : f32) outs(%e_s : tensor<f32>) -> tensor<f32>
  %sum = linalg.reduce ins(%r2 : tensor<8x4xf32>) outs(%acc_s : tensor<f32>)
      dimensions = [0, 1]
      (%v: f32, %a: f32) {
        %t = arith.addf %v, %a : f32
        linalg.yield %t : f32
      }
  %inv_batch = arith.constant dense<0.125> : tensor<f32>
  %loss = arith.mulf %sum, %inv_batch : tensor<f32>
  // backward
  %seed = amp.grad_seed %loss : tensor<f32>
  %seed_b = linalg.broadcast ins(%seed : tensor<f32>) outs(%e_z : tensor<8x4xf32>)
      dimensions = [0, 1]
  %two_over_batch = arith.constant dense<0.25> : tensor<8x4xf32>
  %dr = arith.mulf %r, %two_over_batch : tensor<8x4xf32>
  %dz = arith.mulf %dr, %seed_b : tensor<8x4xf32>
  %e_xt = tensor.empty() : tensor<16x8xf32>
  %xt = linalg.transpose ins(%x : tensor<8x16xf32>) outs(%e_xt : tensor<16x8xf32>)
      permutation = [1, 0]
  %e_w = tensor.empty() : tensor<16x4xf32>
  %acc_w = linalg.fill ins(%zero : f32) outs(%e_w : tensor<16x4xf32>) -> tensor<16x4xf32>
  %dw = linalg.matmul ins(%xt, %dz : tensor<16x8xf32>, tensor<8x4xf32>)
                      outs(%acc_w : tensor<16x4xf32>) -> tensor<16x4xf32>
  %e_b = tensor.empty() : tensor<4xf32>
  %acc_b = linalg.fill ins(%zero : f32) outs(%e_b : tensor<4xf32>) -> tensor<4xf32>
  %db = linalg.reduce ins(%dz : tensor<8x4xf32>) outs(%acc_b : tensor<4xf32>)
      dimensions = [0]
      (%v: f32, %a: f32) {
        %t = arith.addf %v, %a : f32
        linalg.yield %t : f32
      }
  %gw = amp.param_grad %dw : tensor<16x4xf32>
  %gb = amp.param_grad %db : tensor<4xf32>
  // SGD
  %lr_w = arith.constant dense<0.1> : tensor<16x4xf32>
  %sw = arith.mulf %lr_w, %gw : tensor<16x4xf32>
  %nw = arith.subf %w, %sw : tensor<16x4xf32>
  %w2 = amp.state_update %w, %nw : tensor<16x4xf32>
  %lr_b = arith.constant dense<0.1> : tensor<4xf32>
  %sb = arith.mulf %lr_b, %gb : tensor<4xf32>
  %nb = arith.subf %b, %sb : tensor<4xf32>
  %b2 = amp.state_update %b, %nb : tensor<4xf32>
  return %loss, %w2, %b2 : tensor<f32>, tensor<16x4xf32>, tensor<4xf32>
}
