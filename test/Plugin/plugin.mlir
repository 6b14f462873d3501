// UNSUPPORTED: system-windows
// Upstream mlir-opt runs amp-opt's passes from the plugin.
// RUN: mlir-opt %s --load-pass-plugin=%amp_libs/AMPPlugin%shlibext --pass-pipeline="builtin.module(amp-auto-mixed-precision{mode=bf16})" | FileCheck %s
// RUN: mlir-opt %s --load-dialect-plugin=%amp_libs/AMPPlugin%shlibext --pass-pipeline="builtin.module(amp)" | FileCheck %s --check-prefix=F16

// CHECK-LABEL: func.func @mm
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x8xbf16>, tensor<8x4xbf16>) outs(%{{.*}} : tensor<4x4xf32>)
// F16: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x8xf16>, tensor<8x4xf16>) outs(%{{.*}} : tensor<4x4xf32>)
func.func @mm(%a: tensor<4x8xf32>, %b: tensor<8x4xf32>, %c: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x4xf32>) outs(%c : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}
