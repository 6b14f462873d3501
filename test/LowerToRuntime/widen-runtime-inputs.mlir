// amp-widen-runtime-inputs: the 16-bit inputs of libamp_rt's contractions,
// when an elementwise op made them (through a zero padding), are widened to
// f32 in the IR, and the contraction reads f32; amp-fuse-elementwise then
// fuses the extension into the producer, which stores the rounded value as
// f32. Inputs that would need a widened copy of their own (arguments,
// results of other ops), 16-bit outputs, other paddings and dynamic shapes
// are left for libamp_rt.

// RUN: amp-opt %s --split-input-file --pass-pipeline='builtin.module(convert-elementwise-to-linalg,func.func(amp-widen-runtime-inputs))' \
// RUN:   | FileCheck %s
// RUN: amp-opt %s --split-input-file --pass-pipeline='builtin.module(convert-elementwise-to-linalg,func.func(amp-widen-runtime-inputs),amp-fuse-elementwise,canonicalize)' \
// RUN:   | FileCheck %s --check-prefix=FUSED
// RUN: amp-opt %s --split-input-file --pass-pipeline='builtin.module(convert-elementwise-to-linalg,func.func(amp-widen-runtime-inputs{f16=false}))' \
// RUN:   | FileCheck %s --check-prefix=NOF16

// CHECK-LABEL: func.func @matmul_of_roundings
// CHECK-SAME:    (%[[X:.+]]: tensor<8x64xf32>, %[[W:.+]]: tensor<64x32xf32>
// CHECK:         %[[RX:.+]] = linalg.generic {{.*}} ins(%[[X]] : tensor<8x64xf32>) outs(%{{.+}} : tensor<8x64xbf16>)
// CHECK:         %[[WX:.+]] = linalg.generic {{.*}} ins(%[[RX]] : tensor<8x64xbf16>) outs(%{{.+}} : tensor<8x64xf32>)
// CHECK-NEXT:    ^bb0(%[[IN:.+]]: bf16, %{{.+}}: f32):
// CHECK-NEXT:      %[[E:.+]] = arith.extf %[[IN]] : bf16 to f32
// CHECK-NEXT:      linalg.yield %[[E]] : f32
// CHECK:         %[[RW:.+]] = linalg.generic {{.*}} ins(%[[W]] : tensor<64x32xf32>) outs(%{{.+}} : tensor<64x32xbf16>)
// CHECK:         %[[WW:.+]] = linalg.generic {{.*}} ins(%[[RW]] : tensor<64x32xbf16>) outs(%{{.+}} : tensor<64x32xf32>)
// CHECK:         linalg.matmul ins(%[[WX]], %[[WW]] : tensor<8x64xf32>, tensor<64x32xf32>) outs(%{{.+}} : tensor<8x32xf32>)
// The fused producer rounds and widens back: one loop, an f32 result.
// FUSED-LABEL:   func.func @matmul_of_roundings
// FUSED:           %[[A:.+]] = linalg.generic {{.*}} outs(%{{.+}} : tensor<8x64xf32>)
// FUSED:             arith.truncf %{{.+}} : f32 to bf16
// FUSED-NEXT:        arith.extf %{{.+}} : bf16 to f32
// FUSED:           %[[B:.+]] = linalg.generic {{.*}} outs(%{{.+}} : tensor<64x32xf32>)
// FUSED:           linalg.matmul ins(%[[A]], %[[B]] : tensor<8x64xf32>, tensor<64x32xf32>)
// FUSED-NOT:       bf16>
func.func @matmul_of_roundings(%x: tensor<8x64xf32>, %w: tensor<64x32xf32>,
                               %acc: tensor<8x32xf32>) -> tensor<8x32xf32> {
  %rx = arith.truncf %x : tensor<8x64xf32> to tensor<8x64xbf16>
  %rw = arith.truncf %w : tensor<64x32xf32> to tensor<64x32xbf16>
  %y = linalg.matmul ins(%rx, %rw : tensor<8x64xbf16>, tensor<64x32xbf16>)
                     outs(%acc : tensor<8x32xf32>) -> tensor<8x32xf32>
  return %y : tensor<8x32xf32>
}

// -----

// A convolution's zero padding is made on the widened source (f32 zero), so
// that the extension meets the ReLU that rounded the activation. f16 alike;
// f16=false leaves it.
// CHECK-LABEL: func.func @conv_through_padding
// CHECK:         %[[R:.+]] = linalg.generic {{.*}} outs(%{{.+}} : tensor<2x16x8x8xf16>)
// CHECK:         %[[WR:.+]] = linalg.generic {{.*}} ins(%[[R]] : tensor<2x16x8x8xf16>) outs(%{{.+}} : tensor<2x16x8x8xf32>)
// CHECK:         %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK:         %[[P:.+]] = tensor.pad %[[WR]] low[0, 0, 1, 1] high[0, 0, 1, 1]
// CHECK:           tensor.yield %[[ZERO]] : f32
// CHECK:         } : tensor<2x16x8x8xf32> to tensor<2x16x10x10xf32>
// CHECK:         linalg.conv_2d_nchw_fchw {{.*}} ins(%[[P]], %{{.+}} : tensor<2x16x10x10xf32>, tensor<32x16x3x3xf32>)
// FUSED-LABEL:   func.func @conv_through_padding
// FUSED:           arith.maximumf
// FUSED:           arith.truncf %{{.+}} : f32 to f16
// FUSED-NEXT:      arith.extf %{{.+}} : f16 to f32
// FUSED:           tensor.pad %{{.+}} low[0, 0, 1, 1]
// FUSED:           } : tensor<2x16x8x8xf32> to tensor<2x16x10x10xf32>
// NOF16-LABEL:   func.func @conv_through_padding
// NOF16:           linalg.conv_2d_nchw_fchw {{.*}} ins(%{{.+}}, %{{.+}} : tensor<2x16x10x10xf16>, tensor<32x16x3x3xf16>)
func.func @conv_through_padding(%x: tensor<2x16x8x8xf32>,
                                %f: tensor<32x16x3x3xf32>,
                                %acc: tensor<2x32x8x8xf32>) -> tensor<2x32x8x8xf32> {
  %zero = arith.constant dense<0.0> : tensor<2x16x8x8xf32>
  %relu = arith.maximumf %x, %zero : tensor<2x16x8x8xf32>
  %r = arith.truncf %relu : tensor<2x16x8x8xf32> to tensor<2x16x8x8xf16>
  %rf = arith.truncf %f : tensor<32x16x3x3xf32> to tensor<32x16x3x3xf16>
  %c0 = arith.constant 0.0 : f16
  %p = tensor.pad %r low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %c0 : f16
  } : tensor<2x16x8x8xf16> to tensor<2x16x10x10xf16>
  %y = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>,
                                 strides = dense<1> : tensor<2xi64>}
      ins(%p, %rf : tensor<2x16x10x10xf16>, tensor<32x16x3x3xf16>)
      outs(%acc : tensor<2x32x8x8xf32>) -> tensor<2x32x8x8xf32>
  return %y : tensor<2x32x8x8xf32>
}

// -----

// An f32 input with a widened one: libamp_rt's f32 x f32 entry point.
// CHECK-LABEL: func.func @f32_and_rounding
// CHECK:         %[[W:.+]] = linalg.generic {{.*}} outs(%{{.+}} : tensor<64x32xf32>)
// CHECK:         linalg.matmul ins(%arg0, %[[W]] : tensor<8x64xf32>, tensor<64x32xf32>)
func.func @f32_and_rounding(%x: tensor<8x64xf32>, %w: tensor<64x32xf32>,
                            %acc: tensor<8x32xf32>) -> tensor<8x32xf32> {
  %rw = arith.truncf %w : tensor<64x32xf32> to tensor<64x32xbf16>
  %y = linalg.matmul ins(%x, %rw : tensor<8x64xf32>, tensor<64x32xbf16>)
                     outs(%acc : tensor<8x32xf32>) -> tensor<8x32xf32>
  return %y : tensor<8x32xf32>
}

// -----

// Left alone: a 16-bit argument (a weight a training step carries in bf16)
// would need a copy of its own, so neither input is widened; a 16-bit
// output has no f32 x f32 entry point; a padding with another value; a
// dynamic shape.
// CHECK-LABEL: func.func @left
// CHECK-NOT:     extf
// CHECK:         linalg.matmul ins(%{{.+}}, %arg1 : tensor<8x64xbf16>, tensor<64x32xbf16>) outs(%{{.+}} : tensor<8x32xf32>)
// CHECK:         linalg.matmul ins(%{{.+}}, %{{.+}} : tensor<8x64xbf16>, tensor<64x32xbf16>) outs(%{{.+}} : tensor<8x32xbf16>)
// CHECK:         linalg.conv_2d_nchw_fchw {{.*}} ins(%{{.+}}, %{{.+}} : tensor<1x4x6x6xbf16>, tensor<4x4x3x3xbf16>)
// CHECK:         linalg.matmul ins(%{{.+}}, %{{.+}} : tensor<?x64xbf16>, tensor<64x32xbf16>)
func.func @left(%x: tensor<8x64xf32>, %wb: tensor<64x32xbf16>,
                %w: tensor<64x32xf32>, %acc: tensor<8x32xf32>,
                %accb: tensor<8x32xbf16>, %i: tensor<1x4x4x4xf32>,
                %f: tensor<4x4x3x3xf32>, %acci: tensor<1x4x4x4xf32>,
                %d: tensor<?x64xf32>, %accd: tensor<?x32xf32>)
    -> (tensor<8x32xf32>, tensor<8x32xbf16>, tensor<1x4x4x4xf32>,
        tensor<?x32xf32>) {
  %rx = arith.truncf %x : tensor<8x64xf32> to tensor<8x64xbf16>
  %a = linalg.matmul ins(%rx, %wb : tensor<8x64xbf16>, tensor<64x32xbf16>)
                     outs(%acc : tensor<8x32xf32>) -> tensor<8x32xf32>
  %rx2 = arith.truncf %x : tensor<8x64xf32> to tensor<8x64xbf16>
  %rw = arith.truncf %w : tensor<64x32xf32> to tensor<64x32xbf16>
  %b = linalg.matmul ins(%rx2, %rw : tensor<8x64xbf16>, tensor<64x32xbf16>)
                     outs(%accb : tensor<8x32xbf16>) -> tensor<8x32xbf16>
  %ri = arith.truncf %i : tensor<1x4x4x4xf32> to tensor<1x4x4x4xbf16>
  %rf = arith.truncf %f : tensor<4x4x3x3xf32> to tensor<4x4x3x3xbf16>
  %one = arith.constant 1.0 : bf16
  %p = tensor.pad %ri low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %one : bf16
  } : tensor<1x4x4x4xbf16> to tensor<1x4x6x6xbf16>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>,
                                 strides = dense<1> : tensor<2xi64>}
      ins(%p, %rf : tensor<1x4x6x6xbf16>, tensor<4x4x3x3xbf16>)
      outs(%acci : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %rd = arith.truncf %d : tensor<?x64xf32> to tensor<?x64xbf16>
  %rw2 = arith.truncf %w : tensor<64x32xf32> to tensor<64x32xbf16>
  %e = linalg.matmul ins(%rd, %rw2 : tensor<?x64xbf16>, tensor<64x32xbf16>)
                     outs(%accd : tensor<?x32xf32>) -> tensor<?x32xf32>
  return %a, %b, %c, %e : tensor<8x32xf32>, tensor<8x32xbf16>,
                          tensor<1x4x4x4xf32>, tensor<?x32xf32>
}

// -----

// A training step (a result marked amp.updates): widened by default, left
// with training-steps=false (what low-contractions=auto sets).
// RUN: amp-opt %s --split-input-file --pass-pipeline='builtin.module(convert-elementwise-to-linalg,func.func(amp-widen-runtime-inputs{training-steps=false}))' \
// RUN:   | FileCheck %s --check-prefix=NOTRAIN
// CHECK-LABEL: func.func @step
// CHECK:         linalg.matmul ins(%{{.+}}, %{{.+}} : tensor<8x64xf32>, tensor<64x32xf32>)
// NOTRAIN-LABEL: func.func @matmul_of_roundings
// NOTRAIN:         linalg.matmul ins(%{{.+}}, %{{.+}} : tensor<8x64xf32>, tensor<64x32xf32>)
// NOTRAIN-LABEL: func.func @step
// NOTRAIN:         linalg.matmul ins(%{{.+}}, %{{.+}} : tensor<8x64xbf16>, tensor<64x32xbf16>)
func.func @step(%x: tensor<8x64xf32>, %w: tensor<64x32xf32>,
                %acc: tensor<8x32xf32>)
    -> (tensor<8x32xf32>, tensor<64x32xf32> {amp.updates = 1 : i64}) {
  %rx = arith.truncf %x : tensor<8x64xf32> to tensor<8x64xbf16>
  %rw = arith.truncf %w : tensor<64x32xf32> to tensor<64x32xbf16>
  %y = linalg.matmul ins(%rx, %rw : tensor<8x64xbf16>, tensor<64x32xbf16>)
                     outs(%acc : tensor<8x32xf32>) -> tensor<8x32xf32>
  return %y, %w : tensor<8x32xf32>, tensor<64x32xf32>
}
