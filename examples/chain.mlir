func.func @chain(%x: tensor<8x16xf32>, %w: tensor<16x8xf32>) -> tensor<8x8xf32> {
  %cst = arith.constant 0.0 : f32
  %e = math.exp %x : tensor<8x16xf32>
  %m = arith.mulf %e, %x : tensor<8x16xf32>
  %a = arith.maximumf %m, %x : tensor<8x16xf32>
  %t = math.tanh %a : tensor<8x16xf32>
  %b = arith.maximumf %t, %x : tensor<8x16xf32>
  %empty = tensor.empty() : tensor<8x8xf32>
  %zero = linalg.fill ins(%cst : f32) outs(%empty : tensor<8x8xf32>) -> tensor<8x8xf32>
  %mm = linalg.matmul ins(%b, %w : tensor<8x16xf32>, tensor<16x8xf32>) outs(%zero : tensor<8x8xf32>) -> tensor<8x8xf32>
  %r = math.tanh %mm : tensor<8x8xf32>
  return %r : tensor<8x8xf32>
}
