func.func @f(%a: tensor<43x14xf32>, %w: tensor<14x23xf32>, %acc: tensor<43x23xf32>) {
  %m = linalg.matmul ins(%a, %w : tensor<43x14xf32>, tensor<14x23xf32>) outs(%acc : tensor<43x23xf32>) -> tensor<43x23xf32>
  return
}
