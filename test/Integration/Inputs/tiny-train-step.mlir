// The shape of a `torch-to-amp.py --train` export (arguments: parameters,
// buffers, input, target; results: the new buffers, the loss, one gradient
// per parameter), small: a 3 -> 2 linear layer, one batch-norm's buffers.
module {
  func.func @train_step(%arg0: tensor<2x3xf32>, %arg1: tensor<2xf32>, %arg2: tensor<2xf32>, %arg3: tensor<2xf32>, %arg4: tensor<i64>, %arg5: tensor<4x3xf32>, %arg6: tensor<4x2xf32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<i64>, tensor<f32>, tensor<2x3xf32>, tensor<2xf32>) {
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<f32>
    %loss = linalg.fill ins(%zero : f32) outs(%e : tensor<f32>) -> tensor<f32>
    return %arg2, %arg3, %arg4, %loss, %arg0, %arg1 : tensor<2xf32>, tensor<2xf32>, tensor<i64>, tensor<f32>, tensor<2x3xf32>, tensor<2xf32>
  }
}
