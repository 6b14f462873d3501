// Bug found by the fuzzer (tools/amp-fuzz, seed 30434 config 0, shrunk):
// `amp-opt --amp=mode=bf16` is not idempotent without any padding. The
// first run keeps the dead `tensor.pad` of the convolution's f32 result in
// f32 (its only user is the dead truncf/extf/truncf chain, which
// amp-optimize-casts then erases); the second run sees the pad without
// users and paints it bf16: `arith.truncf` of the conv result, a bf16 pad.
// Fixed: ops whose results are unused (transitively: the dead casts count
// as unused) take no part in the painting and follow their operands.
//
// RUN: amp-opt %s --amp=mode=bf16 -o %t.1.mlir
// RUN: amp-opt %t.1.mlir --amp=mode=bf16 -o %t.2.mlir
// RUN: diff %t.1.mlir %t.2.mlir

func.func @f0(%a30: tensor<1x12x4x1xf32>, %a31: tensor<2x1x1x1xf32>) -> tensor<1x1x6xf32> {
  %v34 = arith.constant dense<0.5> : tensor<1x6x2x1xf32>
  %v35 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%a30, %a31 : tensor<1x12x4x1xf32>, tensor<2x1x1x1xf32>) outs(%v34 : tensor<1x6x2x1xf32>) -> tensor<1x6x2x1xf32>
  %s37 = arith.constant 0.0 : f32
  %v36 = tensor.pad %v35 low[2, 1, 2, 0] high[0, 0, 0, 0] {
  ^bb0(%i38: index, %i39: index, %i40: index, %i41: index):
    tensor.yield %s37 : f32
  } : tensor<1x6x2x1xf32> to tensor<3x7x4x1xf32>
  %v42 = arith.truncf %v36 : tensor<3x7x4x1xf32> to tensor<3x7x4x1xbf16>
  %v43 = arith.extf %v42 : tensor<3x7x4x1xbf16> to tensor<3x7x4x1xf32>
  %v44 = arith.truncf %v43 : tensor<3x7x4x1xf32> to tensor<3x7x4x1xbf16>
  %v55 = arith.constant dense<0.5> : tensor<1x1x6xf32>
  return %v55 : tensor<1x1x6xf32>
}
