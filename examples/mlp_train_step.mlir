// One SGD training step of a 2-layer MLP classifier, written out the way a
// frontend's autodiff would emit it (f32, upstream dialects only, static
// shapes).
//
//   x[32x64], one-hot y[32x10]
//   forward:  h      = relu(x . w1 + b1)                      [32x128]
//             logits = h . w2 + b2                            [32x10]
//             loss   = mean_i( -sum_j y * log_softmax(logits) )
//   backward: dlogits = (softmax(logits) - y) / 32
//             dw2 = h^T . dlogits,  db2 = sum_i dlogits
//             dh  = dlogits . w2^T, da1 = dh * (a1 > 0)
//             dw1 = x^T . da1,      db1 = sum_i da1
//   update:   w <- w - lr * g      (lr = 0.1)
//
// Returns (loss, w1', b1', w2', b2').
//
//   amp-opt examples/mlp_train_step.mlir --amp

#id2 = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (j)>
#col = affine_map<(i, j) -> (i)>

func.func @mlp_train_step(%x: tensor<32x64xf32>, %y: tensor<32x10xf32>,
                          %w1: tensor<64x128xf32>, %b1: tensor<128xf32>,
                          %w2: tensor<128x10xf32>, %b2: tensor<10xf32>)
    -> (tensor<f32>, tensor<64x128xf32>, tensor<128xf32>,
        tensor<128x10xf32>, tensor<10xf32>) {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32

  // ---------------------------------------------------------------- forward
  // z1 = x . w1
  %e_h = tensor.empty() : tensor<32x128xf32>
  %acc_h = linalg.fill ins(%zero : f32) outs(%e_h : tensor<32x128xf32>) -> tensor<32x128xf32>
  %z1 = linalg.matmul ins(%x, %w1 : tensor<32x64xf32>, tensor<64x128xf32>)
                      outs(%acc_h : tensor<32x128xf32>) -> tensor<32x128xf32>
  // a1 = z1 + b1 (broadcast over rows)
  %a1 = linalg.generic {indexing_maps = [#id2, #row, #id2],
                        iterator_types = ["parallel", "parallel"]}
      ins(%z1, %b1 : tensor<32x128xf32>, tensor<128xf32>)
      outs(%e_h : tensor<32x128xf32>) {
  ^bb0(%v: f32, %b: f32, %o: f32):
    %s = arith.addf %v, %b : f32
    linalg.yield %s : f32
  } -> tensor<32x128xf32>
  // h = relu(a1)
  %zeros_h = arith.constant dense<0.0> : tensor<32x128xf32>
  %h = arith.maximumf %a1, %zeros_h : tensor<32x128xf32>

  // z2 = h . w2
  %e_l = tensor.empty() : tensor<32x10xf32>
  %acc_l = linalg.fill ins(%zero : f32) outs(%e_l : tensor<32x10xf32>) -> tensor<32x10xf32>
  %z2 = linalg.matmul ins(%h, %w2 : tensor<32x128xf32>, tensor<128x10xf32>)
                      outs(%acc_l : tensor<32x10xf32>) -> tensor<32x10xf32>
  // logits = z2 + b2
  %logits = linalg.generic {indexing_maps = [#id2, #row, #id2],
                            iterator_types = ["parallel", "parallel"]}
      ins(%z2, %b2 : tensor<32x10xf32>, tensor<10xf32>)
      outs(%e_l : tensor<32x10xf32>) {
  ^bb0(%v: f32, %b: f32, %o: f32):
    %s = arith.addf %v, %b : f32
    linalg.yield %s : f32
  } -> tensor<32x10xf32>

  // Softmax cross-entropy, max-subtracting.
  // m_i = max_j logits_ij
  %e_r = tensor.empty() : tensor<32xf32>
  %minit = linalg.fill ins(%ninf : f32) outs(%e_r : tensor<32xf32>) -> tensor<32xf32>
  %m = linalg.generic {indexing_maps = [#id2, #col],
                       iterator_types = ["parallel", "reduction"]}
      ins(%logits : tensor<32x10xf32>) outs(%minit : tensor<32xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %mx = arith.maximumf %v, %acc : f32
    linalg.yield %mx : f32
  } -> tensor<32xf32>
  // shifted = logits - m
  %shifted = linalg.generic {indexing_maps = [#id2, #col, #id2],
                             iterator_types = ["parallel", "parallel"]}
      ins(%logits, %m : tensor<32x10xf32>, tensor<32xf32>)
      outs(%e_l : tensor<32x10xf32>) {
  ^bb0(%v: f32, %mx: f32, %o: f32):
    %d = arith.subf %v, %mx : f32
    linalg.yield %d : f32
  } -> tensor<32x10xf32>
  %ex = math.exp %shifted : tensor<32x10xf32>
  // s_i = sum_j exp
  %sinit = linalg.fill ins(%zero : f32) outs(%e_r : tensor<32xf32>) -> tensor<32xf32>
  %sum = linalg.generic {indexing_maps = [#id2, #col],
                         iterator_types = ["parallel", "reduction"]}
      ins(%ex : tensor<32x10xf32>) outs(%sinit : tensor<32xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %a = arith.addf %v, %acc : f32
    linalg.yield %a : f32
  } -> tensor<32xf32>
  %lse = math.log %sum : tensor<32xf32>
  // logp = shifted - log(s);  p = exp / s
  %logp = linalg.generic {indexing_maps = [#id2, #col, #id2],
                          iterator_types = ["parallel", "parallel"]}
      ins(%shifted, %lse : tensor<32x10xf32>, tensor<32xf32>)
      outs(%e_l : tensor<32x10xf32>) {
  ^bb0(%v: f32, %l: f32, %o: f32):
    %d = arith.subf %v, %l : f32
    linalg.yield %d : f32
  } -> tensor<32x10xf32>
  %p = linalg.generic {indexing_maps = [#id2, #col, #id2],
                       iterator_types = ["parallel", "parallel"]}
      ins(%ex, %sum : tensor<32x10xf32>, tensor<32xf32>)
      outs(%e_l : tensor<32x10xf32>) {
  ^bb0(%v: f32, %s: f32, %o: f32):
    %q = arith.divf %v, %s : f32
    linalg.yield %q : f32
  } -> tensor<32x10xf32>
  // loss = -(1/32) * sum_ij y * logp
  %ylogp = arith.mulf %y, %logp : tensor<32x10xf32>
  %e_s = tensor.empty() : tensor<f32>
  %tinit = linalg.fill ins(%zero : f32) outs(%e_s : tensor<f32>) -> tensor<f32>
  %total = linalg.reduce ins(%ylogp : tensor<32x10xf32>) outs(%tinit : tensor<f32>)
      dimensions = [0, 1]
      (%v: f32, %acc: f32) {
        %a = arith.addf %v, %acc : f32
        linalg.yield %a : f32
      }
  %neg_inv_batch = arith.constant dense<-3.125000e-02> : tensor<f32>
  %loss = arith.mulf %total, %neg_inv_batch : tensor<f32>

  // --------------------------------------------------------------- backward
  // dlogits = (p - y) / 32
  %inv_batch = arith.constant dense<3.125000e-02> : tensor<32x10xf32>
  %pmy = arith.subf %p, %y : tensor<32x10xf32>
  %dlogits = arith.mulf %pmy, %inv_batch : tensor<32x10xf32>

  // dw2 = h^T . dlogits
  %e_hT = tensor.empty() : tensor<128x32xf32>
  %hT = linalg.transpose ins(%h : tensor<32x128xf32>) outs(%e_hT : tensor<128x32xf32>)
      permutation = [1, 0]
  %e_w2 = tensor.empty() : tensor<128x10xf32>
  %acc_w2 = linalg.fill ins(%zero : f32) outs(%e_w2 : tensor<128x10xf32>) -> tensor<128x10xf32>
  %dw2 = linalg.matmul ins(%hT, %dlogits : tensor<128x32xf32>, tensor<32x10xf32>)
                       outs(%acc_w2 : tensor<128x10xf32>) -> tensor<128x10xf32>
  // db2 = sum_i dlogits
  %e_b2 = tensor.empty() : tensor<10xf32>
  %acc_b2 = linalg.fill ins(%zero : f32) outs(%e_b2 : tensor<10xf32>) -> tensor<10xf32>
  %db2 = linalg.reduce ins(%dlogits : tensor<32x10xf32>) outs(%acc_b2 : tensor<10xf32>)
      dimensions = [0]
      (%v: f32, %acc: f32) {
        %a = arith.addf %v, %acc : f32
        linalg.yield %a : f32
      }

  // dh = dlogits . w2^T
  %e_w2T = tensor.empty() : tensor<10x128xf32>
  %w2T = linalg.transpose ins(%w2 : tensor<128x10xf32>) outs(%e_w2T : tensor<10x128xf32>)
      permutation = [1, 0]
  %acc_dh = linalg.fill ins(%zero : f32) outs(%e_h : tensor<32x128xf32>) -> tensor<32x128xf32>
  %dh = linalg.matmul ins(%dlogits, %w2T : tensor<32x10xf32>, tensor<10x128xf32>)
                      outs(%acc_dh : tensor<32x128xf32>) -> tensor<32x128xf32>
  // da1 = dh * (a1 > 0)
  %da1 = linalg.generic {indexing_maps = [#id2, #id2, #id2],
                         iterator_types = ["parallel", "parallel"]}
      ins(%dh, %a1 : tensor<32x128xf32>, tensor<32x128xf32>)
      outs(%e_h : tensor<32x128xf32>) {
  ^bb0(%g: f32, %a: f32, %o: f32):
    %pos = arith.cmpf ogt, %a, %zero : f32
    %r = arith.select %pos, %g, %zero : f32
    linalg.yield %r : f32
  } -> tensor<32x128xf32>

  // dw1 = x^T . da1
  %e_xT = tensor.empty() : tensor<64x32xf32>
  %xT = linalg.transpose ins(%x : tensor<32x64xf32>) outs(%e_xT : tensor<64x32xf32>)
      permutation = [1, 0]
  %e_w1 = tensor.empty() : tensor<64x128xf32>
  %acc_w1 = linalg.fill ins(%zero : f32) outs(%e_w1 : tensor<64x128xf32>) -> tensor<64x128xf32>
  %dw1 = linalg.matmul ins(%xT, %da1 : tensor<64x32xf32>, tensor<32x128xf32>)
                       outs(%acc_w1 : tensor<64x128xf32>) -> tensor<64x128xf32>
  // db1 = sum_i da1
  %e_b1 = tensor.empty() : tensor<128xf32>
  %acc_b1 = linalg.fill ins(%zero : f32) outs(%e_b1 : tensor<128xf32>) -> tensor<128xf32>
  %db1 = linalg.reduce ins(%da1 : tensor<32x128xf32>) outs(%acc_b1 : tensor<128xf32>)
      dimensions = [0]
      (%v: f32, %acc: f32) {
        %a = arith.addf %v, %acc : f32
        linalg.yield %a : f32
      }

  // ----------------------------------------------------------- SGD update
  %lr_w1 = arith.constant dense<1.000000e-01> : tensor<64x128xf32>
  %s_w1 = arith.mulf %lr_w1, %dw1 : tensor<64x128xf32>
  %nw1 = arith.subf %w1, %s_w1 : tensor<64x128xf32>
  %lr_b1 = arith.constant dense<1.000000e-01> : tensor<128xf32>
  %s_b1 = arith.mulf %lr_b1, %db1 : tensor<128xf32>
  %nb1 = arith.subf %b1, %s_b1 : tensor<128xf32>
  %lr_w2 = arith.constant dense<1.000000e-01> : tensor<128x10xf32>
  %s_w2 = arith.mulf %lr_w2, %dw2 : tensor<128x10xf32>
  %nw2 = arith.subf %w2, %s_w2 : tensor<128x10xf32>
  %lr_b2 = arith.constant dense<1.000000e-01> : tensor<10xf32>
  %s_b2 = arith.mulf %lr_b2, %db2 : tensor<10xf32>
  %nb2 = arith.subf %b2, %s_b2 : tensor<10xf32>

  return %loss, %nw1, %nb1, %nw2, %nb2
      : tensor<f32>, tensor<64x128xf32>, tensor<128xf32>, tensor<128x10xf32>, tensor<10xf32>
}
