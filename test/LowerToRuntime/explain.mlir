// With explain=true every candidate gets a remark: the entry point it was
// lowered to, or why it stays for the upstream lowering.
// RUN: amp-opt %s --split-input-file --verify-diagnostics \
// RUN:   --amp-lower-to-runtime='explain=true' | FileCheck %s
// Without explain, no remarks (amp-opt checks expected-* annotations even
// without --verify-diagnostics, so they are dropped first).
// RUN: sed -e '/expected-remark/d' %s \
// RUN:   | amp-opt --split-input-file --amp-lower-to-runtime -o /dev/null 2>&1 \
// RUN:   | count 0

// CHECK-LABEL: func.func @remarks
// CHECK:         call @amp_rt_matmul_f16_f32
// CHECK:         linalg.matmul ins(%{{.+}}, %{{.+}} : memref<8x16xf32>, memref<16x4xf32>)
// CHECK:         linalg.matmul ins(%{{.+}}, %{{.+}} : memref<8x16xf16>, memref<16x4xf16>) outs(%{{.+}} : memref<8x4xf64>)
// CHECK:         linalg.matmul indexing_maps
// CHECK:         linalg.matmul ins(%{{.+}}, %{{.+}} : memref<8x16xf16, #map>, memref<16x4xf16>)
func.func @remarks(%a: memref<8x16xf16>, %b: memref<16x4xf16>, %c: memref<8x4xf32>,
                   %a32: memref<8x16xf32>, %b32: memref<16x4xf32>, %c64: memref<8x4xf64>,
                   %ct: memref<4x8xf32>, %am: memref<8x16xf16, affine_map<(i, j) -> (j, i)>>) {
  // expected-remark @below {{amp-lower-to-runtime: lowered to @amp_rt_matmul_f16_f32}}
  linalg.matmul ins(%a, %b : memref<8x16xf16>, memref<16x4xf16>) outs(%c : memref<8x4xf32>)
  // expected-remark @below {{amp-lower-to-runtime: left for the upstream lowering: inputs are not f16 / bf16}}
  linalg.matmul ins(%a32, %b32 : memref<8x16xf32>, memref<16x4xf32>) outs(%c : memref<8x4xf32>)
  // expected-remark @below {{amp-lower-to-runtime: left for the upstream lowering: no runtime entry point for f16 inputs and an f64 output}}
  linalg.matmul ins(%a, %b : memref<8x16xf16>, memref<16x4xf16>) outs(%c64 : memref<8x4xf64>)
  // expected-remark @below {{amp-lower-to-runtime: left for the upstream lowering: the indexing map of C is not MxN}}
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                 affine_map<(m, n, k) -> (k, n)>,
                                 affine_map<(m, n, k) -> (n, m)>]
                ins(%a, %b : memref<8x16xf16>, memref<16x4xf16>) outs(%ct : memref<4x8xf32>)
  // expected-remark @below {{amp-lower-to-runtime: left for the upstream lowering: an operand has a non-strided layout}}
  linalg.matmul ins(%am, %b : memref<8x16xf16, affine_map<(i, j) -> (j, i)>>, memref<16x4xf16>) outs(%c : memref<8x4xf32>)
  return
}

// -----

// A memory space other than the default one is not host memory.
// CHECK-LABEL: func.func @memory_space
// CHECK:         linalg.matmul
func.func @memory_space(%a: memref<8x16xf16, 1>, %b: memref<16x4xf16, 1>, %c: memref<8x4xf32, 1>) {
  // expected-remark @below {{amp-lower-to-runtime: left for the upstream lowering: an operand is not in the default memory space}}
  linalg.matmul ins(%a, %b : memref<8x16xf16, 1>, memref<16x4xf16, 1>) outs(%c : memref<8x4xf32, 1>)
  return
}

// -----

// The runtime merges the group and channel dimensions of
// conv_2d_ngchw_gfchw's operands into NCHW channels: a subview that splits
// them (every other group) stays for the upstream lowering.
// CHECK-LABEL: func.func @grouped_split_channels
// CHECK:         linalg.conv_2d_ngchw_gfchw
func.func @grouped_split_channels(%i: memref<2x8x3x9x9xbf16>, %f: memref<4x5x3x3x3xbf16>, %o: memref<2x4x5x7x7xf32>) {
  %sub = memref.subview %i[0, 0, 0, 0, 0] [2, 4, 3, 9, 9] [1, 2, 1, 1, 1]
    : memref<2x8x3x9x9xbf16> to memref<2x4x3x9x9xbf16, strided<[1944, 486, 81, 9, 1]>>
  // expected-remark @below {{amp-lower-to-runtime: left for the upstream lowering: the group and channel dimensions of an operand are not one strided run}}
  linalg.conv_2d_ngchw_gfchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
    ins(%sub, %f : memref<2x4x3x9x9xbf16, strided<[1944, 486, 81, 9, 1]>>, memref<4x5x3x3x3xbf16>) outs(%o : memref<2x4x5x7x7xf32>)
  return
}
