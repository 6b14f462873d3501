// Sums that run low (a sum reduction, infer in bf16; linalg.pooling_*_sum,
// infer in f16) read low inputs but keep an f32 init and result, like a
// contraction's accumulator: in bf16 storage a sum of 1024 ones would stop
// at 256, in f16 a 56x56 window of ones at 2048.
// RUN: amp-opt %s --amp-auto-mixed-precision=mode=bf16 | FileCheck %s --check-prefix=BF16
// RUN: amp-opt %s --amp-auto-mixed-precision=mode=f16 | FileCheck %s --check-prefix=F16

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>

// BF16-LABEL: func.func @mean_between_matmuls
// BF16:         %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// BF16:         %[[MM:.*]] = linalg.matmul {{.*}} -> tensor<8x1024xf32>
// BF16-NEXT:    %[[MM16:.*]] = arith.truncf %[[MM]] : tensor<8x1024xf32> to tensor<8x1024xbf16>
// BF16:         %[[INIT:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%{{.*}} : tensor<8xf32>) -> tensor<8xf32>
// BF16-NEXT:    %[[SUM:.*]] = linalg.generic
// BF16-SAME:      ins(%[[MM16]] : tensor<8x1024xbf16>) outs(%[[INIT]] : tensor<8xf32>)
// BF16-NEXT:    ^bb0(%[[X:.*]]: bf16, %[[ACC:.*]]: f32):
// BF16-NEXT:      %[[XE:.*]] = arith.extf %[[X]] : bf16 to f32
// BF16-NEXT:      %[[S:.*]] = arith.addf %[[ACC]], %[[XE]] : f32
// BF16-NEXT:      linalg.yield %[[S]] : f32
// BF16-NEXT:    } -> tensor<8xf32>
func.func @mean_between_matmuls(%a: tensor<8x1024xf32>, %b: tensor<1024x1024xf32>, %c: tensor<8x1024xf32>, %w: tensor<8x8xf32>, %d: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %zero = arith.constant 0.0 : f32
  %0 = linalg.matmul ins(%a, %b : tensor<8x1024xf32>, tensor<1024x1024xf32>) outs(%c : tensor<8x1024xf32>) -> tensor<8x1024xf32>
  %e = tensor.empty() : tensor<8xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  %1 = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
    ins(%0 : tensor<8x1024xf32>) outs(%init : tensor<8xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %acc, %x : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  %e2 = tensor.empty() : tensor<8x8xf32>
  %2 = linalg.broadcast ins(%1 : tensor<8xf32>) outs(%e2 : tensor<8x8xf32>) dimensions = [1]
  %3 = linalg.matmul ins(%2, %w : tensor<8x8xf32>, tensor<8x8xf32>) outs(%d : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %3 : tensor<8x8xf32>
}

// Global average pooling (sum over a 56x56 window) between convolutions.
// F16-LABEL: func.func @global_pool_between_convs
// F16:         %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// F16:         %[[C1:.*]] = linalg.conv_2d_nhwc_hwcf {{.*}} -> tensor<1x56x56x8xf32>
// F16-NEXT:    %[[C1H:.*]] = arith.truncf %[[C1]] : tensor<1x56x56x8xf32> to tensor<1x56x56x8xf16>
// F16:         %[[INIT:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%{{.*}} : tensor<1x1x1x8xf32>) -> tensor<1x1x1x8xf32>
// F16-NEXT:    %[[SUM:.*]] = linalg.pooling_nhwc_sum {{.*}} ins(%[[C1H]], %{{.*}} : tensor<1x56x56x8xf16>, tensor<56x56xf16>) outs(%[[INIT]] : tensor<1x1x1x8xf32>) -> tensor<1x1x1x8xf32>
// F16-NEXT:    %[[SUMH:.*]] = arith.truncf %[[SUM]] : tensor<1x1x1x8xf32> to tensor<1x1x1x8xf16>
// F16:         linalg.conv_2d_nhwc_hwcf {{.*}} ins(%[[SUMH]], %{{.*}} : tensor<1x1x1x8xf16>, tensor<1x1x8x8xf16>)
func.func @global_pool_between_convs(%i: tensor<1x58x58x3xf32>, %f: tensor<3x3x3x8xf32>, %o: tensor<1x56x56x8xf32>, %f2: tensor<1x1x8x8xf32>, %o2: tensor<1x1x1x8xf32>) -> tensor<1x1x1x8xf32> {
  %zero = arith.constant 0.0 : f32
  %win = tensor.empty() : tensor<56x56xf32>
  %0 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%i, %f : tensor<1x58x58x3xf32>, tensor<3x3x3x8xf32>) outs(%o : tensor<1x56x56x8xf32>) -> tensor<1x56x56x8xf32>
  %e = tensor.empty() : tensor<1x1x1x8xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x1x1x8xf32>) -> tensor<1x1x1x8xf32>
  %1 = linalg.pooling_nhwc_sum {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%0, %win : tensor<1x56x56x8xf32>, tensor<56x56xf32>) outs(%init : tensor<1x1x1x8xf32>) -> tensor<1x1x1x8xf32>
  %2 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%1, %f2 : tensor<1x1x1x8xf32>, tensor<1x1x8x8xf32>) outs(%o2 : tensor<1x1x1x8xf32>) -> tensor<1x1x1x8xf32>
  return %2 : tensor<1x1x1x8xf32>
}
