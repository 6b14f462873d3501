// Softmax regression on 64 features / 10 classes, batch 32, with a
// hand-written dynamic loss-scaling ABI (docs/training-step.md): the
// arguments loss_scale S (f32) and good_steps (i32), the results their new
// values and step_ok (i1). It mimics what mixed precision does to the
// gradients:
//
//   dlogits_s = (softmax(logits) - y) * S / 32         (the seed is S)
//   dw_s = x^T . dlogits_s,  db_s = sum_i dlogits_s
//   g = extf(truncf(g_s to f16)) / S                   (f16 storage: a scaled
//                                                        gradient over 65504
//                                                        becomes inf)
//   ok = every g is finite
//   ok:     w <- w - 0.1 g, good_steps + 1; after 20 good steps S *= 2
//   not ok: w, b unchanged (the step is skipped), S *= 0.5, good_steps = 0
//
// @train_step_scaled returns (loss, w', b', S', good_steps', step_ok).

#id2 = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (j)>
#col = affine_map<(i, j) -> (i)>
#sc2 = affine_map<(i, j) -> ()>
#id1 = affine_map<(i) -> (i)>
#sc1 = affine_map<(i) -> ()>

func.func @train_step_scaled(
    %x: tensor<32x64xf32> {amp.role = "input"},
    %y: tensor<32x10xf32> {amp.role = "label"},
    %w: tensor<64x10xf32> {amp.role = "param"},
    %b: tensor<10xf32> {amp.role = "param"},
    %S: tensor<f32> {amp.role = "loss_scale"},
    %n: tensor<i32> {amp.role = "good_steps"})
    -> (tensor<f32> {amp.role = "loss"},
        tensor<64x10xf32> {amp.role = "update", amp.updates = 2 : i64},
        tensor<10xf32> {amp.role = "update", amp.updates = 3 : i64},
        tensor<f32> {amp.role = "loss_scale"},
        tensor<i32> {amp.role = "good_steps"},
        tensor<i1> {amp.role = "step_ok"}) {
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

  // ------------------------------------------------- backward, scaled by S
  %pmy = arith.subf %p, %y : tensor<32x10xf32>
  %inv_batch = arith.constant 3.125000e-02 : f32
  %dls = linalg.generic {indexing_maps = [#id2, #sc2, #id2],
                         iterator_types = ["parallel", "parallel"]}
      ins(%pmy, %S : tensor<32x10xf32>, tensor<f32>)
      outs(%e_l : tensor<32x10xf32>) {
  ^bb0(%v: f32, %s: f32, %o: f32):
    %t = arith.mulf %v, %s : f32
    %u = arith.mulf %t, %inv_batch : f32
    linalg.yield %u : f32
  } -> tensor<32x10xf32>
  %e_xT = tensor.empty() : tensor<64x32xf32>
  %xT = linalg.transpose ins(%x : tensor<32x64xf32>) outs(%e_xT : tensor<64x32xf32>)
      permutation = [1, 0]
  %e_w = tensor.empty() : tensor<64x10xf32>
  %acc_w = linalg.fill ins(%zero : f32) outs(%e_w : tensor<64x10xf32>) -> tensor<64x10xf32>
  %dws = linalg.matmul ins(%xT, %dls : tensor<64x32xf32>, tensor<32x10xf32>)
                       outs(%acc_w : tensor<64x10xf32>) -> tensor<64x10xf32>
  %e_b = tensor.empty() : tensor<10xf32>
  %acc_b = linalg.fill ins(%zero : f32) outs(%e_b : tensor<10xf32>) -> tensor<10xf32>
  %dbs = linalg.reduce ins(%dls : tensor<32x10xf32>) outs(%acc_b : tensor<10xf32>)
      dimensions = [0]
      (%v: f32, %acc: f32) {
        %a = arith.addf %v, %acc : f32
        linalg.yield %a : f32
      }

  // ------------------------------- f16 storage, unscale, all-finite check
  %dw = linalg.generic {indexing_maps = [#id2, #sc2, #id2],
                        iterator_types = ["parallel", "parallel"]}
      ins(%dws, %S : tensor<64x10xf32>, tensor<f32>)
      outs(%e_w : tensor<64x10xf32>) {
  ^bb0(%v: f32, %s: f32, %o: f32):
    %h = arith.truncf %v : f32 to f16
    %e = arith.extf %h : f16 to f32
    %u = arith.divf %e, %s : f32
    linalg.yield %u : f32
  } -> tensor<64x10xf32>
  %db = linalg.generic {indexing_maps = [#id1, #sc1, #id1],
                        iterator_types = ["parallel"]}
      ins(%dbs, %S : tensor<10xf32>, tensor<f32>)
      outs(%e_b : tensor<10xf32>) {
  ^bb0(%v: f32, %s: f32, %o: f32):
    %h = arith.truncf %v : f32 to f16
    %e = arith.extf %h : f16 to f32
    %u = arith.divf %e, %s : f32
    linalg.yield %u : f32
  } -> tensor<10xf32>
  %true = arith.constant true
  %inf = arith.constant 0x7F800000 : f32
  %e_ok = tensor.empty() : tensor<i1>
  %ok_init = linalg.fill ins(%true : i1) outs(%e_ok : tensor<i1>) -> tensor<i1>
  %ok_w = linalg.generic {indexing_maps = [#id2, #sc2],
                          iterator_types = ["reduction", "reduction"]}
      ins(%dw : tensor<64x10xf32>) outs(%ok_init : tensor<i1>) {
  ^bb0(%v: f32, %acc: i1):
    %a = math.absf %v : f32
    %f = arith.cmpf olt, %a, %inf : f32
    %r = arith.andi %f, %acc : i1
    linalg.yield %r : i1
  } -> tensor<i1>
  %ok_all = linalg.generic {indexing_maps = [#id1, #sc1],
                            iterator_types = ["reduction"]}
      ins(%db : tensor<10xf32>) outs(%ok_w : tensor<i1>) {
  ^bb0(%v: f32, %acc: i1):
    %a = math.absf %v : f32
    %f = arith.cmpf olt, %a, %inf : f32
    %r = arith.andi %f, %acc : i1
    linalg.yield %r : i1
  } -> tensor<i1>
  %ok = tensor.extract %ok_all[] : tensor<i1>

  // ------------------------------------------ SGD, skipped on overflow
  %nw, %nb = scf.if %ok -> (tensor<64x10xf32>, tensor<10xf32>) {
    %lr_w = arith.constant dense<1.000000e-01> : tensor<64x10xf32>
    %sw = arith.mulf %lr_w, %dw : tensor<64x10xf32>
    %uw = arith.subf %w, %sw : tensor<64x10xf32>
    %lr_b = arith.constant dense<1.000000e-01> : tensor<10xf32>
    %sb = arith.mulf %lr_b, %db : tensor<10xf32>
    %ub = arith.subf %b, %sb : tensor<10xf32>
    scf.yield %uw, %ub : tensor<64x10xf32>, tensor<10xf32>
  } else {
    scf.yield %w, %b : tensor<64x10xf32>, tensor<10xf32>
  }

  // ------------------------------------------------- loss-scale update
  %s = tensor.extract %S[] : tensor<f32>
  %c = tensor.extract %n[] : tensor<i32>
  %one = arith.constant 1 : i32
  %zero_i = arith.constant 0 : i32
  %interval = arith.constant 20 : i32
  %two = arith.constant 2.0 : f32
  %half = arith.constant 0.5 : f32
  %c1 = arith.addi %c, %one : i32
  %grow = arith.cmpi eq, %c1, %interval : i32
  %s2 = arith.mulf %s, %two : f32
  %s_ok = arith.select %grow, %s2, %s : f32
  %c_ok = arith.select %grow, %zero_i, %c1 : i32
  %s_half = arith.mulf %s, %half : f32
  %s_new = arith.select %ok, %s_ok, %s_half : f32
  %c_new = arith.select %ok, %c_ok, %zero_i : i32
  %S_new = tensor.from_elements %s_new : tensor<f32>
  %n_new = tensor.from_elements %c_new : tensor<i32>
  %ok_t = tensor.from_elements %ok : tensor<i1>

  return %loss, %nw, %nb, %S_new, %n_new, %ok_t
      : tensor<f32>, tensor<64x10xf32>, tensor<10xf32>, tensor<f32>, tensor<i32>, tensor<i1>
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
