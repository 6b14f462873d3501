// emit=iree: output for IREE (docs/downstream.md). The weights a function
// only reads rounded become bf16 arguments marked amp.rounded_from (the
// caller rounds them once); on target=cpu (the default) convolutions stay
// f32, since IREE's llvm-cpu has no fast 16-bit convolution; on a GPU
// target they run low as usual.
// RUN: amp-opt %s --amp='mode=bf16 emit=iree' | FileCheck %s --check-prefix=CPU
// RUN: amp-opt %s --amp='mode=bf16 emit=iree target=h100' | FileCheck %s --check-prefix=GPU
// RUN: amp-opt %s --amp='mode=bf16' | FileCheck %s --check-prefix=MLIR
// RUN: amp-opt %s --amp='mode=bf16 emit=iree explain=true' -o /dev/null 2>&1 | FileCheck %s --check-prefix=WHY
// Bad values are one-line errors, before any IR is touched.
// RUN: not amp-opt %s --amp='mode=bf16 emit=tf' 2>&1 | FileCheck %s --check-prefix=EMIT
// RUN: not amp-opt %s --amp='mode=bf16 emit=iree target=b200' 2>&1 | FileCheck %s --check-prefix=TARGET
// RUN: not amp-opt %s --amp-auto-mixed-precision='mode=bf16 target=h100' 2>&1 | FileCheck %s --check-prefix=NOEMIT

// CPU-LABEL: func.func @net
// CPU-SAME: (%[[X:[a-z0-9]+]]: tensor<1x4x8x8xf32>, %[[F:[a-z0-9]+]]: tensor<4x4x3x3xf32>, %[[W:[a-z0-9]+]]: tensor<4x16xbf16> {amp.rounded_from = tensor<4x16xf32>}, %[[Y:[a-z0-9]+]]: tensor<36x4xf32>)
// CPU: %[[YL:.*]] = arith.truncf %[[Y]] : tensor<36x4xf32> to tensor<36x4xbf16>
// CPU: linalg.conv_2d_nchw_fchw {{.*}} ins(%[[X]], %[[F]] : tensor<1x4x8x8xf32>, tensor<4x4x3x3xf32>)
// CPU: linalg.matmul ins(%[[YL]], %[[W]] : tensor<36x4xbf16>, tensor<4x16xbf16>) outs(%{{.*}} : tensor<36x16xf32>)
// CPU-NOT: arith.truncf %[[W]]

// GPU-LABEL: func.func @net
// GPU-SAME: %{{[a-z0-9]+}}: tensor<4x4x3x3xbf16> {amp.rounded_from = tensor<4x4x3x3xf32>}
// GPU: linalg.conv_2d_nchw_fchw {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x4x8x8xbf16>, tensor<4x4x3x3xbf16>)

// MLIR-LABEL: func.func @net
// MLIR-SAME: (%{{[a-z0-9]+}}: tensor<1x4x8x8xf32>, %{{[a-z0-9]+}}: tensor<4x4x3x3xf32>, %{{[a-z0-9]+}}: tensor<4x16xf32>, %{{[a-z0-9]+}}: tensor<36x4xf32>)
// MLIR-NOT: amp.rounded_from
// MLIR: linalg.conv_2d_nchw_fchw {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x4x8x8xbf16>, tensor<4x4x3x3xbf16>)

// WHY: emit-iree.mlir:41:8: remark: amp: f32: deny (deny list (emit=iree target=cpu: IREE's llvm-cpu has no fast 16-bit convolution))

// EMIT: amp-opt: for the --emit option: unknown emit 'tf' (expected mlir or iree)
// TARGET: amp-opt: for the --target option: unknown target 'b200' (expected v100, a100, h100 or cpu)
// NOEMIT: error: amp-auto-mixed-precision: target and cpu-features choose the type of mode=auto (and target what emit=iree keeps f32); mode is 'bf16'

func.func @net(%x: tensor<1x4x8x8xf32>, %f: tensor<4x4x3x3xf32>, %w: tensor<4x16xf32>, %y: tensor<36x4xf32>) -> (tensor<1x4x6x6xf32>, tensor<36x16xf32>, tensor<36x4xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x4x6x6xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
         ins(%x, %f : tensor<1x4x8x8xf32>, tensor<4x4x3x3xf32>) outs(%acc : tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  %e2 = tensor.empty() : tensor<36x16xf32>
  %acc2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<36x16xf32>) -> tensor<36x16xf32>
  %m = linalg.matmul ins(%y, %w : tensor<36x4xf32>, tensor<4x16xf32>) outs(%acc2 : tensor<36x16xf32>) -> tensor<36x16xf32>
  // %y is also returned in f32: it keeps its type.
  return %c, %m, %y : tensor<1x4x6x6xf32>, tensor<36x16xf32>, tensor<36x4xf32>
}
