func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %cst = arith.constant 0.0 : f32
  %0 = arith.addf %x, %cst : tensor<4xf32>
  return %0 : tensor<4xf32>
}
