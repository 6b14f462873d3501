// Softmax regression (multinomial logistic regression) on 64 features and
// 10 classes, batch 32, f32, written out the way a frontend's autodiff would
// emit it, with `amp.role` attributes for amp-run (docs/training-step.md).
//
//   forward:  logits = x . w + b                         [32x10]
//             loss   = mean_i( -sum_j y * log_softmax(logits) )
//   backward: dlogits = (softmax(logits) - y) / 32
//             dw = x^T . dlogits,  db = sum_i dlogits
//   update:   SGD with momentum 0.9, lr 0.05:
//             v <- 0.9 v + g,  p <- p - 0.05 v
//
// @train_step returns (loss, w', b', vw', vb'); @predict returns the logits.

#id2 = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (j)>
#col = affine_map<(i, j) -> (i)>

func.func @train_step(
    %x: tensor<32x64xf32> {amp.role = "input"},
    %y: tensor<32x10xf32> {amp.role = "label"},
    %w: tensor<64x10xf32> {amp.role = "param"},
    %b: tensor<10xf32> {amp.role = "param"},
    %vw: tensor<64x10xf32> {amp.role = "opt_state"},
    %vb: tensor<10xf32> {amp.role = "opt_state"})
    -> (tensor<f32> {amp.role = "loss"},
        tensor<64x10xf32> {amp.role = "update", amp.updates = 2 : i64},
        tensor<10xf32> {amp.role = "update", amp.updates = 3 : i64},
        tensor<64x10xf32> {amp.role = "update", amp.updates = 4 : i64},
        tensor<10xf32> {amp.role = "update", amp.updates = 5 : i64}) {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32

  // ---------------------------------------------------------------- forward
  %e_l = tensor.empty() : tensor<32x10xf32>
  %acc_l = linalg.fill ins(%zero : f32) outs(%e_l : tensor<32x10xf32>) -> tensor<32x10xf32>
  %z = linalg.matmul ins(%x, %w : tensor<32x64xf32>, tensor<64x10xf32>)
                     outs(%acc_l : tensor<32x10xf32>) -> tensor<32x10xf32>
  %logits = linalg.generic {indexing_maps = [#id2, #row, #id2],
                            iterator_types = ["parallel", "parallel"]}
      ins(%z, %b : tensor<32x10xf32>, tensor<10xf32>)
      outs(%e_l : tensor<32x10xf32>) {
  ^bb0(%v: f32, %bb: f32, %o: f32):
    %s = arith.addf %v, %bb : f32
    linalg.yield %s : f32
  } -> tensor<32x10xf32>

  // Softmax cross-entropy, max-subtracting.
  %e_r = tensor.empty() : tensor<32xf32>
  %minit = linalg.fill ins(%ninf : f32) outs(%e_r : tensor<32xf32>) -> tensor<32xf32>
  %m = linalg.generic {indexing_maps = [#id2, #col],
                       iterator_types = ["parallel", "reduction"]}
      ins(%logits : tensor<32x10xf32>) outs(%minit : tensor<32xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %mx = arith.maximumf %v, %acc : f32
    linalg.yield %mx : f32
  } -> tensor<32xf32>
  %shifted = linalg.generic {indexing_maps = [#id2, #col, #id2],
                             iterator_types = ["parallel", "parallel"]}
      ins(%logits, %m : tensor<32x10xf32>, tensor<32xf32>)
      outs(%e_l : tensor<32x10xf32>) {
  ^bb0(%v: f32, %mx: f32, %o: f32):
    %d = arith.subf %v, %mx : f32
    linalg.yield %d : f32
  } -> tensor<32x10xf32>
  %ex = math.exp %shifted : tensor<32x10xf32>
  %sinit = linalg.fill ins(%zero : f32) outs(%e_r : tensor<32xf32>) -> tensor<32xf32>
  %sum = linalg.generic {indexing_maps = [#id2, #col],
                         iterator_types = ["parallel", "reduction"]}
      ins(%ex : tensor<32x10xf32>) outs(%sinit : tensor<32xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %a = arith.addf %v, %acc : f32
    linalg.yield %a : f32
  } -> tensor<32xf32>
  %lse = math.log %sum : tensor<32xf32>
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
  %inv_batch = arith.constant dense<3.125000e-02> : tensor<32x10xf32>
  %pmy = arith.subf %p, %y : tensor<32x10xf32>
  %dlogits = arith.mulf %pmy, %inv_batch : tensor<32x10xf32>
  %e_xT = tensor.empty() : tensor<64x32xf32>
  %xT = linalg.transpose ins(%x : tensor<32x64xf32>) outs(%e_xT : tensor<64x32xf32>)
      permutation = [1, 0]
  %e_w = tensor.empty() : tensor<64x10xf32>
  %acc_w = linalg.fill ins(%zero : f32) outs(%e_w : tensor<64x10xf32>) -> tensor<64x10xf32>
  %dw = linalg.matmul ins(%xT, %dlogits : tensor<64x32xf32>, tensor<32x10xf32>)
                      outs(%acc_w : tensor<64x10xf32>) -> tensor<64x10xf32>
  %e_b = tensor.empty() : tensor<10xf32>
  %acc_b = linalg.fill ins(%zero : f32) outs(%e_b : tensor<10xf32>) -> tensor<10xf32>
  %db = linalg.reduce ins(%dlogits : tensor<32x10xf32>) outs(%acc_b : tensor<10xf32>)
      dimensions = [0]
      (%v: f32, %acc: f32) {
        %a = arith.addf %v, %acc : f32
        linalg.yield %a : f32
      }

  // ------------------------------------------------- SGD with momentum
  %mu_w = arith.constant dense<9.000000e-01> : tensor<64x10xf32>
  %mvw = arith.mulf %mu_w, %vw : tensor<64x10xf32>
  %nvw = arith.addf %mvw, %dw : tensor<64x10xf32>
  %lr_w = arith.constant dense<5.000000e-02> : tensor<64x10xf32>
  %sw = arith.mulf %lr_w, %nvw : tensor<64x10xf32>
  %nw = arith.subf %w, %sw : tensor<64x10xf32>
  %mu_b = arith.constant dense<9.000000e-01> : tensor<10xf32>
  %mvb = arith.mulf %mu_b, %vb : tensor<10xf32>
  %nvb = arith.addf %mvb, %db : tensor<10xf32>
  %lr_b = arith.constant dense<5.000000e-02> : tensor<10xf32>
  %sb = arith.mulf %lr_b, %nvb : tensor<10xf32>
  %nb = arith.subf %b, %sb : tensor<10xf32>

  return %loss, %nw, %nb, %nvw, %nvb
      : tensor<f32>, tensor<64x10xf32>, tensor<10xf32>, tensor<64x10xf32>, tensor<10xf32>
}

// Evaluation: the logits of a batch with the trained parameters.
func.func @predict(
    %x: tensor<32x64xf32> {amp.role = "input"},
    %w: tensor<64x10xf32> {amp.role = "param"},
    %b: tensor<10xf32> {amp.role = "param"})
    -> (tensor<32x10xf32> {amp.role = "logits"}) {
  %zero = arith.constant 0.0 : f32
  %e_l = tensor.empty() : tensor<32x10xf32>
  %acc_l = linalg.fill ins(%zero : f32) outs(%e_l : tensor<32x10xf32>) -> tensor<32x10xf32>
  %z = linalg.matmul ins(%x, %w : tensor<32x64xf32>, tensor<64x10xf32>)
                     outs(%acc_l : tensor<32x10xf32>) -> tensor<32x10xf32>
  %logits = linalg.generic {indexing_maps = [#id2, #row, #id2],
                            iterator_types = ["parallel", "parallel"]}
      ins(%z, %b : tensor<32x10xf32>, tensor<10xf32>)
      outs(%e_l : tensor<32x10xf32>) {
  ^bb0(%v: f32, %bb: f32, %o: f32):
    %s = arith.addf %v, %bb : f32
    linalg.yield %s : f32
  } -> tensor<32x10xf32>
  return %logits : tensor<32x10xf32>
}
