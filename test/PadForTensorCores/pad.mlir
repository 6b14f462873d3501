// amp-pad-for-tensor-cores pads M, N, K of f16 / bf16 matmuls and
// batch_matmuls and the channels C, F of 2-D convolutions to multiples of 8
// (16 for i8 inputs) with zeros, and slices the result back.
// RUN: amp-opt %s --split-input-file --amp-pad-for-tensor-cores | FileCheck %s
// Idempotent: a second run changes nothing.
// RUN: amp-opt %s --split-input-file --amp-pad-for-tensor-cores \
// RUN:   | amp-opt --split-input-file --amp-pad-for-tensor-cores | FileCheck %s
// multiple=16 for f16 / bf16 too.
// RUN: amp-opt %s --split-input-file \
// RUN:   --amp-pad-for-tensor-cores='multiple=16 max-flop-growth=1' \
// RUN:   | FileCheck %s --check-prefix=M16

// 30x50x70 -> 32x56x72 (+23% multiply-adds): A, B and the f32 accumulator
// are padded with zeros of their element type, the result sliced back.
// CHECK-LABEL: func.func @matmul_odd
// CHECK-SAME:    (%[[A:.+]]: tensor<30x70xf16>, %[[B:.+]]: tensor<70x50xf16>, %[[C:.+]]: tensor<30x50xf32>)
// CHECK:         %[[Z16:.+]] = arith.constant 0.000000e+00 : f16
// CHECK:         %[[PA:.+]] = tensor.pad %[[A]] low[0, 0] high[2, 2]
// CHECK:           tensor.yield %[[Z16]] : f16
// CHECK:         } : tensor<30x70xf16> to tensor<32x72xf16>
// CHECK:         %[[PB:.+]] = tensor.pad %[[B]] low[0, 0] high[2, 6]
// CHECK:           tensor.yield %[[Z16]] : f16
// CHECK:         } : tensor<70x50xf16> to tensor<72x56xf16>
// CHECK:         %[[Z32:.+]] = arith.constant 0.000000e+00 : f32
// CHECK:         %[[PC:.+]] = tensor.pad %[[C]] low[0, 0] high[2, 6]
// CHECK:           tensor.yield %[[Z32]] : f32
// CHECK:         } : tensor<30x50xf32> to tensor<32x56xf32>
// CHECK:         %[[R:.+]] = linalg.matmul ins(%[[PA]], %[[PB]] : tensor<32x72xf16>, tensor<72x56xf16>) outs(%[[PC]] : tensor<32x56xf32>) -> tensor<32x56xf32>
// CHECK:         %[[S:.+]] = tensor.extract_slice %[[R]][0, 0] [30, 50] [1, 1] : tensor<32x56xf32> to tensor<30x50xf32>
// CHECK:         return %[[S]] : tensor<30x50xf32>
// M16-LABEL: func.func @matmul_odd
// M16:         linalg.matmul ins(%{{.+}}, %{{.+}} : tensor<32x80xf16>, tensor<80x64xf16>) outs(%{{.+}} : tensor<32x64xf32>)
// M16:         tensor.extract_slice %{{.+}}[0, 0] [30, 50] [1, 1] : tensor<32x64xf32> to tensor<30x50xf32>
func.func @matmul_odd(%a: tensor<30x70xf16>, %b: tensor<70x50xf16>, %c: tensor<30x50xf32>) -> tensor<30x50xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<30x70xf16>, tensor<70x50xf16>)
                     outs(%c : tensor<30x50xf32>) -> tensor<30x50xf32>
  return %r : tensor<30x50xf32>
}

// -----

// bf16 with a bf16 accumulator; the zero of the accumulator is bf16.
// CHECK-LABEL: func.func @matmul_bf16
// CHECK:         %[[Z:.+]] = arith.constant 0.000000e+00 : bf16
// CHECK-COUNT-3: tensor.yield %[[Z]] : bf16
// CHECK:         linalg.matmul ins(%{{.+}}, %{{.+}} : tensor<16x24xbf16>, tensor<24x40xbf16>) outs(%{{.+}} : tensor<16x40xbf16>) -> tensor<16x40xbf16>
// CHECK:         tensor.extract_slice %{{.+}}[0, 0] [15, 39] [1, 1] : tensor<16x40xbf16> to tensor<15x39xbf16>
func.func @matmul_bf16(%a: tensor<15x23xbf16>, %b: tensor<23x39xbf16>, %c: tensor<15x39xbf16>) -> tensor<15x39xbf16> {
  %r = linalg.matmul ins(%a, %b : tensor<15x23xbf16>, tensor<23x39xbf16>)
                     outs(%c : tensor<15x39xbf16>) -> tensor<15x39xbf16>
  return %r : tensor<15x39xbf16>
}

// -----

// Only K is unaligned: A and B are padded, the accumulator and the result
// keep their shape (no slice).
// CHECK-LABEL: func.func @matmul_only_k
// CHECK-SAME:    %[[C:[a-z0-9]+]]: tensor<32x64xf32>
// CHECK:         tensor.pad %{{.+}} low[0, 0] high[0, 2]
// CHECK:         } : tensor<32x70xf16> to tensor<32x72xf16>
// CHECK:         tensor.pad %{{.+}} low[0, 0] high[2, 0]
// CHECK:         } : tensor<70x64xf16> to tensor<72x64xf16>
// CHECK-NOT:     tensor.pad
// CHECK:         %[[R:.+]] = linalg.matmul ins(%{{.+}}, %{{.+}} : tensor<32x72xf16>, tensor<72x64xf16>) outs(%[[C]] : tensor<32x64xf32>)
// CHECK-NOT:     tensor.extract_slice
// CHECK:         return %[[R]] : tensor<32x64xf32>
func.func @matmul_only_k(%a: tensor<32x70xf16>, %b: tensor<70x64xf16>, %c: tensor<32x64xf32>) -> tensor<32x64xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<32x70xf16>, tensor<70x64xf16>)
                     outs(%c : tensor<32x64xf32>) -> tensor<32x64xf32>
  return %r : tensor<32x64xf32>
}

// -----

// Transposed forms, given by indexing_maps: A is KxM, B is NxK; the pads
// follow the maps (K of A is its first dimension, N of B its first).
// CHECK-LABEL: func.func @matmul_transposed
// CHECK:         tensor.pad %{{.+}} low[0, 0] high[2, 2]
// CHECK:         } : tensor<70x30xf16> to tensor<72x32xf16>
// CHECK:         tensor.pad %{{.+}} low[0, 0] high[6, 2]
// CHECK:         } : tensor<50x70xf16> to tensor<56x72xf16>
// CHECK:         tensor.pad %{{.+}} low[0, 0] high[2, 6]
// CHECK:         } : tensor<30x50xf32> to tensor<32x56xf32>
// CHECK:         linalg.matmul indexing_maps = [#[[MA:.+]], #[[MB:.+]], #[[MC:.+]]] ins(%{{.+}}, %{{.+}} : tensor<72x32xf16>, tensor<56x72xf16>) outs(%{{.+}} : tensor<32x56xf32>)
// CHECK:         tensor.extract_slice %{{.+}}[0, 0] [30, 50] [1, 1] : tensor<32x56xf32> to tensor<30x50xf32>
func.func @matmul_transposed(%a: tensor<70x30xf16>, %b: tensor<50x70xf16>, %c: tensor<30x50xf32>) -> tensor<30x50xf32> {
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>,
                                      affine_map<(m, n, k) -> (n, k)>,
                                      affine_map<(m, n, k) -> (m, n)>]
                     ins(%a, %b : tensor<70x30xf16>, tensor<50x70xf16>)
                     outs(%c : tensor<30x50xf32>) -> tensor<30x50xf32>
  return %r : tensor<30x50xf32>
}

// -----

// Aligned: nothing to do.
// CHECK-LABEL: func.func @matmul_aligned
// CHECK-NOT:     tensor.pad
// CHECK-NOT:     tensor.extract_slice
// CHECK:         linalg.matmul ins(%{{.+}}, %{{.+}} : tensor<32x64xf16>, tensor<64x16xf16>) outs(%{{.+}} : tensor<32x16xf32>)
// M16-LABEL: func.func @matmul_aligned
// M16-NOT:     tensor.pad
// M16:         linalg.matmul ins(%{{.+}}, %{{.+}} : tensor<32x64xf16>, tensor<64x16xf16>) outs(%{{.+}} : tensor<32x16xf32>)
// M16-LABEL: func.func @matmul_f32
func.func @matmul_aligned(%a: tensor<32x64xf16>, %b: tensor<64x16xf16>, %c: tensor<32x16xf32>) -> tensor<32x16xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<32x64xf16>, tensor<64x16xf16>)
                     outs(%c : tensor<32x16xf32>) -> tensor<32x16xf32>
  return %r : tensor<32x16xf32>
}

// -----

// f32 inputs are not Tensor Core work (nor are mixed f32 x f16).
// CHECK-LABEL: func.func @matmul_f32
// CHECK-NOT:     tensor.pad
// CHECK:         linalg.matmul ins(%{{.+}}, %{{.+}} : tensor<30x70xf32>, tensor<70x50xf32>) outs(%{{.+}} : tensor<30x50xf32>)
// CHECK-NOT:     tensor.pad
// CHECK:         linalg.matmul ins(%{{.+}}, %{{.+}} : tensor<30x70xf32>, tensor<70x50xf16>) outs(%{{.+}} : tensor<30x50xf32>)
func.func @matmul_f32(%a: tensor<30x70xf32>, %b: tensor<70x50xf32>, %b16: tensor<70x50xf16>, %c: tensor<30x50xf32>) -> (tensor<30x50xf32>, tensor<30x50xf32>) {
  %r = linalg.matmul ins(%a, %b : tensor<30x70xf32>, tensor<70x50xf32>)
                     outs(%c : tensor<30x50xf32>) -> tensor<30x50xf32>
  %s = linalg.matmul ins(%a, %b16 : tensor<30x70xf32>, tensor<70x50xf16>)
                     outs(%c : tensor<30x50xf32>) -> tensor<30x50xf32>
  return %r, %s : tensor<30x50xf32>, tensor<30x50xf32>
}

// -----

// batch_matmul: M, N, K are padded, the batch dimension never.
// CHECK-LABEL: func.func @batch_matmul
// CHECK:         tensor.pad %{{.+}} low[0, 0, 0] high[0, 2, 2]
// CHECK:         } : tensor<5x30x70xf16> to tensor<5x32x72xf16>
// CHECK:         tensor.pad %{{.+}} low[0, 0, 0] high[0, 2, 6]
// CHECK:         } : tensor<5x70x50xf16> to tensor<5x72x56xf16>
// CHECK:         tensor.pad %{{.+}} low[0, 0, 0] high[0, 2, 6]
// CHECK:         } : tensor<5x30x50xf32> to tensor<5x32x56xf32>
// CHECK:         linalg.batch_matmul ins(%{{.+}}, %{{.+}} : tensor<5x32x72xf16>, tensor<5x72x56xf16>) outs(%{{.+}} : tensor<5x32x56xf32>) -> tensor<5x32x56xf32>
// CHECK:         tensor.extract_slice %{{.+}}[0, 0, 0] [5, 30, 50] [1, 1, 1] : tensor<5x32x56xf32> to tensor<5x30x50xf32>
func.func @batch_matmul(%a: tensor<5x30x70xf16>, %b: tensor<5x70x50xf16>, %c: tensor<5x30x50xf32>) -> tensor<5x30x50xf32> {
  %r = linalg.batch_matmul ins(%a, %b : tensor<5x30x70xf16>, tensor<5x70x50xf16>)
                           outs(%c : tensor<5x30x50xf32>) -> tensor<5x30x50xf32>
  return %r : tensor<5x30x50xf32>
}

// -----

// NHWC / HWCF convolution with an f32 accumulator (what
// amp-auto-mixed-precision produces): C 30 -> 32 in the input and the
// filter, F 60 -> 64 in the filter and the output; batch, spatial and window
// dimensions unchanged; strides and dilations kept.
// CHECK-LABEL: func.func @conv_nhwc_hwcf
// CHECK:         tensor.pad %{{.+}} low[0, 0, 0, 0] high[0, 0, 0, 2]
// CHECK:         } : tensor<2x11x11x30xf16> to tensor<2x11x11x32xf16>
// CHECK:         tensor.pad %{{.+}} low[0, 0, 0, 0] high[0, 0, 2, 4]
// CHECK:         } : tensor<3x3x30x60xf16> to tensor<3x3x32x64xf16>
// CHECK:         tensor.pad %{{.+}} low[0, 0, 0, 0] high[0, 0, 0, 4]
// CHECK:         } : tensor<2x5x5x60xf32> to tensor<2x5x5x64xf32>
// CHECK:         linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%{{.+}}, %{{.+}} : tensor<2x11x11x32xf16>, tensor<3x3x32x64xf16>) outs(%{{.+}} : tensor<2x5x5x64xf32>) -> tensor<2x5x5x64xf32>
// CHECK:         tensor.extract_slice %{{.+}}[0, 0, 0, 0] [2, 5, 5, 60] [1, 1, 1, 1] : tensor<2x5x5x64xf32> to tensor<2x5x5x60xf32>
func.func @conv_nhwc_hwcf(%i: tensor<2x11x11x30xf16>, %f: tensor<3x3x30x60xf16>, %o: tensor<2x5x5x60xf32>) -> tensor<2x5x5x60xf32> {
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
         ins(%i, %f : tensor<2x11x11x30xf16>, tensor<3x3x30x60xf16>)
         outs(%o : tensor<2x5x5x60xf32>) -> tensor<2x5x5x60xf32>
  return %r : tensor<2x5x5x60xf32>
}

// -----

// NCHW / FCHW convolution, bf16 in and out: C is dimension 1 of the input
// and of the filter, F dimension 0 of the filter and 1 of the output.
// CHECK-LABEL: func.func @conv_nchw_fchw
// CHECK:         tensor.pad %{{.+}} low[0, 0, 0, 0] high[0, 2, 0, 0]
// CHECK:         } : tensor<2x30x10x10xbf16> to tensor<2x32x10x10xbf16>
// CHECK:         tensor.pad %{{.+}} low[0, 0, 0, 0] high[4, 2, 0, 0]
// CHECK:         } : tensor<60x30x3x3xbf16> to tensor<64x32x3x3xbf16>
// CHECK:         tensor.pad %{{.+}} low[0, 0, 0, 0] high[0, 4, 0, 0]
// CHECK:         } : tensor<2x60x4x4xbf16> to tensor<2x64x4x4xbf16>
// CHECK:         linalg.conv_2d_nchw_fchw {dilations = dense<2> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%{{.+}}, %{{.+}} : tensor<2x32x10x10xbf16>, tensor<64x32x3x3xbf16>) outs(%{{.+}} : tensor<2x64x4x4xbf16>) -> tensor<2x64x4x4xbf16>
// CHECK:         tensor.extract_slice %{{.+}}[0, 0, 0, 0] [2, 60, 4, 4] [1, 1, 1, 1] : tensor<2x64x4x4xbf16> to tensor<2x60x4x4xbf16>
func.func @conv_nchw_fchw(%i: tensor<2x30x10x10xbf16>, %f: tensor<60x30x3x3xbf16>, %o: tensor<2x60x4x4xbf16>) -> tensor<2x60x4x4xbf16> {
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<2> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
         ins(%i, %f : tensor<2x30x10x10xbf16>, tensor<60x30x3x3xbf16>)
         outs(%o : tensor<2x60x4x4xbf16>) -> tensor<2x60x4x4xbf16>
  return %r : tensor<2x60x4x4xbf16>
}

// -----

// Other convolutions (here NHWC / FHWC) are not padded.
// CHECK-LABEL: func.func @conv_nhwc_fhwc
// CHECK-NOT:     tensor.pad
// CHECK:         linalg.conv_2d_nhwc_fhwc
func.func @conv_nhwc_fhwc(%i: tensor<2x10x10x30xf16>, %f: tensor<60x3x3x30xf16>, %o: tensor<2x8x8x60xf32>) -> tensor<2x8x8x60xf32> {
  %r = linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
         ins(%i, %f : tensor<2x10x10x30xf16>, tensor<60x3x3x30xf16>)
         outs(%o : tensor<2x8x8x60xf32>) -> tensor<2x8x8x60xf32>
  return %r : tensor<2x8x8x60xf32>
}

// -----

// i8 inputs with an i32 accumulator pad to 16 (int8-multiple): 60x120x250
// -> 64x128x256, with i8 / i32 zeros. The same shape in f16 needs only
// M 60 -> 64 and K 250 -> 256 (N = 120 is a multiple of 8).
// CHECK-LABEL: func.func @matmul_i8
// CHECK:         %[[Z8:.+]] = arith.constant 0 : i8
// CHECK:         tensor.yield %[[Z8]] : i8
// CHECK:         } : tensor<60x250xi8> to tensor<64x256xi8>
// CHECK:         tensor.yield %[[Z8]] : i8
// CHECK:         } : tensor<250x120xi8> to tensor<256x128xi8>
// CHECK:         %[[Z32:.+]] = arith.constant 0 : i32
// CHECK:         tensor.yield %[[Z32]] : i32
// CHECK:         } : tensor<60x120xi32> to tensor<64x128xi32>
// CHECK:         linalg.matmul ins(%{{.+}}, %{{.+}} : tensor<64x256xi8>, tensor<256x128xi8>) outs(%{{.+}} : tensor<64x128xi32>)
// CHECK:         tensor.extract_slice %{{.+}}[0, 0] [60, 120] [1, 1] : tensor<64x128xi32> to tensor<60x120xi32>
// CHECK:         linalg.matmul ins(%{{.+}}, %{{.+}} : tensor<64x256xf16>, tensor<256x120xf16>) outs(%{{.+}} : tensor<64x120xf32>)
// CHECK:         tensor.extract_slice %{{.+}}[0, 0] [60, 120] [1, 1] : tensor<64x120xf32> to tensor<60x120xf32>
func.func @matmul_i8(%a: tensor<60x250xi8>, %b: tensor<250x120xi8>, %c: tensor<60x120xi32>,
                     %a16: tensor<60x250xf16>, %b16: tensor<250x120xf16>, %c32: tensor<60x120xf32>)
    -> (tensor<60x120xi32>, tensor<60x120xf32>) {
  %r = linalg.matmul ins(%a, %b : tensor<60x250xi8>, tensor<250x120xi8>)
                     outs(%c : tensor<60x120xi32>) -> tensor<60x120xi32>
  %s = linalg.matmul ins(%a16, %b16 : tensor<60x250xf16>, tensor<250x120xf16>)
                     outs(%c32 : tensor<60x120xf32>) -> tensor<60x120xf32>
  return %r, %s : tensor<60x120xi32>, tensor<60x120xf32>
}

// -----

// Dynamic dimensions that are not padded (the batch) are fine: the slice
// takes the batch size from the accumulator.
// CHECK-LABEL: func.func @batch_matmul_dynamic_batch
// CHECK-SAME:    %[[C:[a-z0-9]+]]: tensor<?x30x50xf32>
// CHECK:         tensor.pad %{{.+}} low[0, 0, 0] high[0, 2, 2]
// CHECK:         } : tensor<?x30x70xf16> to tensor<?x32x72xf16>
// CHECK:         %[[C0:.+]] = arith.constant 0 : index
// CHECK:         %[[N:.+]] = tensor.dim %[[C]], %[[C0]] : tensor<?x30x50xf32>
// CHECK:         tensor.extract_slice %{{.+}}[0, 0, 0] [%[[N]], 30, 50] [1, 1, 1] : tensor<?x32x56xf32> to tensor<?x30x50xf32>
func.func @batch_matmul_dynamic_batch(%a: tensor<?x30x70xf16>, %b: tensor<?x70x50xf16>, %c: tensor<?x30x50xf32>) -> tensor<?x30x50xf32> {
  %r = linalg.batch_matmul ins(%a, %b : tensor<?x30x70xf16>, tensor<?x70x50xf16>)
                           outs(%c : tensor<?x30x50xf32>) -> tensor<?x30x50xf32>
  return %r : tensor<?x30x50xf32>
}

// -----

// On buffers (after bufferization) nothing is padded.
// CHECK-LABEL: func.func @matmul_memref
// CHECK-NOT:     tensor.pad
// CHECK:         linalg.matmul ins(%{{.+}}, %{{.+}} : memref<30x70xf16>, memref<70x50xf16>) outs(%{{.+}} : memref<30x50xf32>)
func.func @matmul_memref(%a: memref<30x70xf16>, %b: memref<70x50xf16>, %c: memref<30x50xf32>) {
  linalg.matmul ins(%a, %b : memref<30x70xf16>, memref<70x50xf16>)
                outs(%c : memref<30x50xf32>)
  return
}

// -----

// An empty operand means no work: left alone (an empty result could not be
// sliced). A broadcasting matmul (A is a vector) has no M dimension: left
// alone.
// CHECK-LABEL: func.func @empty_and_broadcast
// CHECK-NOT:     tensor.pad
// CHECK:         linalg.matmul ins(%{{.+}}, %{{.+}} : tensor<0x70xf16>, tensor<70x50xf16>) outs(%{{.+}} : tensor<0x50xf32>)
// CHECK:         linalg.matmul indexing_maps = [#{{.+}}, #{{.+}}, #{{.+}}] ins(%{{.+}}, %{{.+}} : tensor<70xf16>, tensor<70x50xf16>) outs(%{{.+}} : tensor<30x50xf32>)
// CHECK-NOT:     tensor.pad
// CHECK:         return
func.func @empty_and_broadcast(%a: tensor<0x70xf16>, %b: tensor<70x50xf16>, %c: tensor<0x50xf32>,
                               %k: tensor<70xf16>, %d: tensor<30x50xf32>) -> (tensor<0x50xf32>, tensor<30x50xf32>) {
  %r = linalg.matmul ins(%a, %b : tensor<0x70xf16>, tensor<70x50xf16>)
                     outs(%c : tensor<0x50xf32>) -> tensor<0x50xf32>
  %s = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k)>,
                                      affine_map<(m, n, k) -> (k, n)>,
                                      affine_map<(m, n, k) -> (m, n)>]
                     ins(%k, %b : tensor<70xf16>, tensor<70x50xf16>)
                     outs(%d : tensor<30x50xf32>) -> tensor<30x50xf32>
  return %r, %s : tensor<0x50xf32>, tensor<30x50xf32>
}
