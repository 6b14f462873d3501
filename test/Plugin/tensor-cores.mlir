// UNSUPPORTED: system-windows
// Upstream mlir-opt runs amp-pad-for-tensor-cores and amp-lower-to-runtime
// from the plugin.
// RUN: mlir-opt %s --load-pass-plugin=%amp_libs/AMPPlugin%shlibext \
// RUN:   --pass-pipeline="builtin.module(amp-pad-for-tensor-cores{multiple=16})" \
// RUN:   | FileCheck %s --check-prefix=PAD
// RUN: mlir-opt %s --load-pass-plugin=%amp_libs/AMPPlugin%shlibext \
// RUN:   --pass-pipeline="builtin.module(one-shot-bufferize{bufferize-function-boundaries},amp-lower-to-runtime)" \
// RUN:   | FileCheck %s --check-prefix=RT

// PAD-LABEL: func.func @mm
// PAD:         linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<32x16xf16>, tensor<16x16xf16>) outs(%{{.*}} : tensor<32x16xf32>)
// PAD:         tensor.extract_slice %{{.*}}[0, 0] [30, 16] [1, 1] : tensor<32x16xf32> to tensor<30x16xf32>
// RT:        func.func private @amp_rt_matmul_f16_f32(
// RT-LABEL:  func.func @mm
// RT:          call @amp_rt_matmul_f16_f32(
// RT-NOT:      linalg.matmul
func.func @mm(%a: tensor<30x16xf16>, %b: tensor<16x16xf16>, %c: tensor<30x16xf32>) -> tensor<30x16xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<30x16xf16>, tensor<16x16xf16>) outs(%c : tensor<30x16xf32>) -> tensor<30x16xf32>
  return %0 : tensor<30x16xf32>
}
