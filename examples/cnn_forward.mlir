// Forward pass of a small CNN classifier (f32, upstream dialects only,
// static shapes):
//
//   x[4x16x16x3] (NHWC) -> conv 3x3x3->8 (valid) + bias -> relu   [4x14x14x8]
//                       -> max-pool 2x2 / 2                       [4x7x7x8]
//                       -> flatten                                [4x392]
//                       -> dense 392->10 + bias                   [4x10]
//                       -> softmax (max-subtracting)              [4x10]
//
//   amp-opt examples/cnn_forward.mlir --amp

#id4 = affine_map<(n, h, w, c) -> (n, h, w, c)>
#ch4 = affine_map<(n, h, w, c) -> (c)>
#id2 = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (j)>
#col = affine_map<(i, j) -> (i)>

func.func @cnn_forward(%x: tensor<4x16x16x3xf32>, %k: tensor<3x3x3x8xf32>,
                       %kb: tensor<8xf32>, %w: tensor<392x10xf32>,
                       %b: tensor<10xf32>) -> tensor<4x10xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32

  // conv + bias + relu
  %e_c = tensor.empty() : tensor<4x14x14x8xf32>
  %acc_c = linalg.fill ins(%zero : f32) outs(%e_c : tensor<4x14x14x8xf32>) -> tensor<4x14x14x8xf32>
  %conv = linalg.conv_2d_nhwc_hwcf
      {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %k : tensor<4x16x16x3xf32>, tensor<3x3x3x8xf32>)
      outs(%acc_c : tensor<4x14x14x8xf32>) -> tensor<4x14x14x8xf32>
  %biased = linalg.generic {indexing_maps = [#id4, #ch4, #id4],
                            iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%conv, %kb : tensor<4x14x14x8xf32>, tensor<8xf32>)
      outs(%e_c : tensor<4x14x14x8xf32>) {
  ^bb0(%v: f32, %bb: f32, %o: f32):
    %s = arith.addf %v, %bb : f32
    linalg.yield %s : f32
  } -> tensor<4x14x14x8xf32>
  %zeros_c = arith.constant dense<0.0> : tensor<4x14x14x8xf32>
  %relu = arith.maximumf %biased, %zeros_c : tensor<4x14x14x8xf32>

  // 2x2 max pool, stride 2
  %window = tensor.empty() : tensor<2x2xf32>
  %e_p = tensor.empty() : tensor<4x7x7x8xf32>
  %acc_p = linalg.fill ins(%ninf : f32) outs(%e_p : tensor<4x7x7x8xf32>) -> tensor<4x7x7x8xf32>
  %pool = linalg.pooling_nhwc_max
      {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%relu, %window : tensor<4x14x14x8xf32>, tensor<2x2xf32>)
      outs(%acc_p : tensor<4x7x7x8xf32>) -> tensor<4x7x7x8xf32>

  // flatten + dense
  %flat = tensor.collapse_shape %pool [[0], [1, 2, 3]]
      : tensor<4x7x7x8xf32> into tensor<4x392xf32>
  %e_l = tensor.empty() : tensor<4x10xf32>
  %acc_l = linalg.fill ins(%zero : f32) outs(%e_l : tensor<4x10xf32>) -> tensor<4x10xf32>
  %mm = linalg.matmul ins(%flat, %w : tensor<4x392xf32>, tensor<392x10xf32>)
                      outs(%acc_l : tensor<4x10xf32>) -> tensor<4x10xf32>
  %logits = linalg.generic {indexing_maps = [#id2, #row, #id2],
                            iterator_types = ["parallel", "parallel"]}
      ins(%mm, %b : tensor<4x10xf32>, tensor<10xf32>)
      outs(%e_l : tensor<4x10xf32>) {
  ^bb0(%v: f32, %bb: f32, %o: f32):
    %s = arith.addf %v, %bb : f32
    linalg.yield %s : f32
  } -> tensor<4x10xf32>

  // softmax over classes
  %e_r = tensor.empty() : tensor<4xf32>
  %minit = linalg.fill ins(%ninf : f32) outs(%e_r : tensor<4xf32>) -> tensor<4xf32>
  %m = linalg.generic {indexing_maps = [#id2, #col],
                       iterator_types = ["parallel", "reduction"]}
      ins(%logits : tensor<4x10xf32>) outs(%minit : tensor<4xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %mx = arith.maximumf %v, %acc : f32
    linalg.yield %mx : f32
  } -> tensor<4xf32>
  %shifted = linalg.generic {indexing_maps = [#id2, #col, #id2],
                             iterator_types = ["parallel", "parallel"]}
      ins(%logits, %m : tensor<4x10xf32>, tensor<4xf32>)
      outs(%e_l : tensor<4x10xf32>) {
  ^bb0(%v: f32, %mx: f32, %o: f32):
    %d = arith.subf %v, %mx : f32
    linalg.yield %d : f32
  } -> tensor<4x10xf32>
  %ex = math.exp %shifted : tensor<4x10xf32>
  %sinit = linalg.fill ins(%zero : f32) outs(%e_r : tensor<4xf32>) -> tensor<4xf32>
  %sum = linalg.generic {indexing_maps = [#id2, #col],
                         iterator_types = ["parallel", "reduction"]}
      ins(%ex : tensor<4x10xf32>) outs(%sinit : tensor<4xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %a = arith.addf %v, %acc : f32
    linalg.yield %a : f32
  } -> tensor<4xf32>
  %probs = linalg.generic {indexing_maps = [#id2, #col, #id2],
                           iterator_types = ["parallel", "parallel"]}
      ins(%ex, %sum : tensor<4x10xf32>, tensor<4xf32>)
      outs(%e_l : tensor<4x10xf32>) {
  ^bb0(%v: f32, %s: f32, %o: f32):
    %q = arith.divf %v, %s : f32
    linalg.yield %q : f32
  } -> tensor<4x10xf32>
  return %probs : tensor<4x10xf32>
}
