// amp-lower-to-runtime replaces low-precision matmuls, batch_matmuls and 2-D
// convolutions (depthwise too) on memrefs by calls into libamp_rt, with every memref cast to
// the fully dynamic strided layout and each callee declared once.
// RUN: amp-opt %s --split-input-file --amp-lower-to-runtime | FileCheck %s
// Statistics.
// RUN: amp-opt %s --amp-lower-to-runtime='stats=true' -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=STATS
// STATS:      amp-lower-to-runtime statistics:
// STATS-NEXT:   18 ops-lowered
// STATS-NEXT:   2 ops-left

// CHECK-LABEL: module
// CHECK:       func.func private @amp_rt_matmul_f16_f32(memref<?x?xf16, strided<[?, ?], offset: ?>>, memref<?x?xf16, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, i32, i32) attributes {llvm.emit_c_interface}
// CHECK-NOT:   func.func private @amp_rt_matmul_f16_f32
// CHECK-LABEL: func.func @matmul_f16_f32
// CHECK-SAME:    (%[[A:.+]]: memref<30x70xf16>, %[[B:.+]]: memref<70x50xf16>, %[[C:.+]]: memref<30x50xf32>)
// CHECK:         %[[CA:.+]] = memref.cast %[[A]] : memref<30x70xf16> to memref<?x?xf16, strided<[?, ?], offset: ?>>
// CHECK:         %[[CB:.+]] = memref.cast %[[B]] : memref<70x50xf16> to memref<?x?xf16, strided<[?, ?], offset: ?>>
// CHECK:         %[[CC:.+]] = memref.cast %[[C]] : memref<30x50xf32> to memref<?x?xf32, strided<[?, ?], offset: ?>>
// CHECK:         %[[TA:.+]] = arith.constant 0 : i32
// CHECK:         %[[TB:.+]] = arith.constant 0 : i32
// CHECK:         call @amp_rt_matmul_f16_f32(%[[CA]], %[[CB]], %[[CC]], %[[TA]], %[[TB]]) : (memref<?x?xf16, strided<[?, ?], offset: ?>>, memref<?x?xf16, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, i32, i32) -> ()
// CHECK:         call @amp_rt_matmul_f16_f32(
// CHECK-NOT:     linalg.matmul
// CHECK:         return
func.func @matmul_f16_f32(%a: memref<30x70xf16>, %b: memref<70x50xf16>, %c: memref<30x50xf32>) {
  linalg.matmul ins(%a, %b : memref<30x70xf16>, memref<70x50xf16>)
                outs(%c : memref<30x50xf32>)
  // A second call: the same declaration.
  linalg.matmul ins(%a, %b : memref<30x70xf16>, memref<70x50xf16>)
                outs(%c : memref<30x50xf32>)
  return
}

// -----

// The output types the runtime has: f32 or the input type.
// CHECK-DAG:   func.func private @amp_rt_matmul_f16_f16(memref<?x?xf16, strided<[?, ?], offset: ?>>, memref<?x?xf16, strided<[?, ?], offset: ?>>, memref<?x?xf16, strided<[?, ?], offset: ?>>, i32, i32) attributes {llvm.emit_c_interface}
// CHECK-DAG:   func.func private @amp_rt_matmul_bf16_f32(memref<?x?xbf16, strided<[?, ?], offset: ?>>, memref<?x?xbf16, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, i32, i32) attributes {llvm.emit_c_interface}
// CHECK-DAG:   func.func private @amp_rt_matmul_bf16_bf16(memref<?x?xbf16, strided<[?, ?], offset: ?>>, memref<?x?xbf16, strided<[?, ?], offset: ?>>, memref<?x?xbf16, strided<[?, ?], offset: ?>>, i32, i32) attributes {llvm.emit_c_interface}
// CHECK-LABEL: func.func @matmul_types
// CHECK:         call @amp_rt_matmul_f16_f16(
// CHECK:         call @amp_rt_matmul_bf16_f32(
// CHECK:         call @amp_rt_matmul_bf16_bf16(
// CHECK-NOT:     linalg.matmul
func.func @matmul_types(%a: memref<8x16xf16>, %b: memref<16x4xf16>, %c: memref<8x4xf16>,
                        %x: memref<8x16xbf16>, %y: memref<16x4xbf16>, %z: memref<8x4xf32>, %w: memref<8x4xbf16>) {
  linalg.matmul ins(%a, %b : memref<8x16xf16>, memref<16x4xf16>) outs(%c : memref<8x4xf16>)
  linalg.matmul ins(%x, %y : memref<8x16xbf16>, memref<16x4xbf16>) outs(%z : memref<8x4xf32>)
  linalg.matmul ins(%x, %y : memref<8x16xbf16>, memref<16x4xbf16>) outs(%w : memref<8x4xbf16>)
  return
}

// -----

// Transposed forms given by indexing_maps: transA = 1 for a KxM A, transB = 1
// for an NxK B.
// CHECK-LABEL: func.func @matmul_transposed
// CHECK:         %[[A1:.+]] = arith.constant 1 : i32
// CHECK:         %[[B0:.+]] = arith.constant 0 : i32
// CHECK:         call @amp_rt_matmul_f16_f32(%{{.+}}, %{{.+}}, %{{.+}}, %[[A1]], %[[B0]])
// CHECK:         %[[A0:.+]] = arith.constant 0 : i32
// CHECK:         %[[B1:.+]] = arith.constant 1 : i32
// CHECK:         call @amp_rt_matmul_f16_f32(%{{.+}}, %{{.+}}, %{{.+}}, %[[A0]], %[[B1]])
// CHECK:         %[[AA:.+]] = arith.constant 1 : i32
// CHECK:         %[[BB:.+]] = arith.constant 1 : i32
// CHECK:         call @amp_rt_matmul_f16_f32(%{{.+}}, %{{.+}}, %{{.+}}, %[[AA]], %[[BB]])
// CHECK-NOT:     linalg.matmul
func.func @matmul_transposed(%at: memref<16x8xf16>, %b: memref<16x4xf16>, %a: memref<8x16xf16>,
                             %bt: memref<4x16xf16>, %c: memref<8x4xf32>) {
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>,
                                 affine_map<(m, n, k) -> (k, n)>,
                                 affine_map<(m, n, k) -> (m, n)>]
                ins(%at, %b : memref<16x8xf16>, memref<16x4xf16>) outs(%c : memref<8x4xf32>)
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                 affine_map<(m, n, k) -> (n, k)>,
                                 affine_map<(m, n, k) -> (m, n)>]
                ins(%a, %bt : memref<8x16xf16>, memref<4x16xf16>) outs(%c : memref<8x4xf32>)
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>,
                                 affine_map<(m, n, k) -> (n, k)>,
                                 affine_map<(m, n, k) -> (m, n)>]
                ins(%at, %bt : memref<16x8xf16>, memref<4x16xf16>) outs(%c : memref<8x4xf32>)
  return
}

// -----

// batch_matmul, plain and with B transposed.
// CHECK:       func.func private @amp_rt_batch_matmul_f16_f32(memref<?x?x?xf16, strided<[?, ?, ?], offset: ?>>, memref<?x?x?xf16, strided<[?, ?, ?], offset: ?>>, memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>, i32, i32) attributes {llvm.emit_c_interface}
// CHECK-LABEL: func.func @batch_matmul
// CHECK:         memref.cast %{{.+}} : memref<4x8x16xf16> to memref<?x?x?xf16, strided<[?, ?, ?], offset: ?>>
// CHECK:         memref.cast %{{.+}} : memref<4x16x2xf16> to memref<?x?x?xf16, strided<[?, ?, ?], offset: ?>>
// CHECK:         memref.cast %{{.+}} : memref<4x8x2xf32> to memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>
// CHECK:         %[[F:.+]] = arith.constant 0 : i32
// CHECK:         %[[G:.+]] = arith.constant 0 : i32
// CHECK:         call @amp_rt_batch_matmul_f16_f32(%{{.+}}, %{{.+}}, %{{.+}}, %[[F]], %[[G]])
// CHECK:         %[[H:.+]] = arith.constant 0 : i32
// CHECK:         %[[T:.+]] = arith.constant 1 : i32
// CHECK:         call @amp_rt_batch_matmul_f16_f32(%{{.+}}, %{{.+}}, %{{.+}}, %[[H]], %[[T]])
// CHECK-NOT:     linalg.batch_matmul
func.func @batch_matmul(%a: memref<4x8x16xf16>, %b: memref<4x16x2xf16>, %bt: memref<4x2x16xf16>, %c: memref<4x8x2xf32>) {
  linalg.batch_matmul ins(%a, %b : memref<4x8x16xf16>, memref<4x16x2xf16>) outs(%c : memref<4x8x2xf32>)
  linalg.batch_matmul indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>,
                                       affine_map<(b, m, n, k) -> (b, n, k)>,
                                       affine_map<(b, m, n, k) -> (b, m, n)>]
                      ins(%a, %bt : memref<4x8x16xf16>, memref<4x2x16xf16>) outs(%c : memref<4x8x2xf32>)
  return
}

// -----

// Convolutions: strides and dilations (H, W) become i64 arguments.
// CHECK-DAG:   func.func private @amp_rt_conv2d_nhwc_hwcf_f16_f32(memref<?x?x?x?xf16, strided<[?, ?, ?, ?], offset: ?>>, memref<?x?x?x?xf16, strided<[?, ?, ?, ?], offset: ?>>, memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>, i64, i64, i64, i64) attributes {llvm.emit_c_interface}
// CHECK-DAG:   func.func private @amp_rt_conv2d_nchw_fchw_bf16_bf16(memref<?x?x?x?xbf16, strided<[?, ?, ?, ?], offset: ?>>, memref<?x?x?x?xbf16, strided<[?, ?, ?, ?], offset: ?>>, memref<?x?x?x?xbf16, strided<[?, ?, ?, ?], offset: ?>>, i64, i64, i64, i64) attributes {llvm.emit_c_interface}
// CHECK-LABEL: func.func @convs
// CHECK:         memref.cast %{{.+}} : memref<1x11x12x3xf16> to memref<?x?x?x?xf16, strided<[?, ?, ?, ?], offset: ?>>
// CHECK:         memref.cast %{{.+}} : memref<3x2x3x8xf16> to memref<?x?x?x?xf16, strided<[?, ?, ?, ?], offset: ?>>
// CHECK:         memref.cast %{{.+}} : memref<1x5x4x8xf32> to memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>
// CHECK:         %[[SH:.+]] = arith.constant 2 : i64
// CHECK:         %[[SW:.+]] = arith.constant 3 : i64
// CHECK:         %[[DH:.+]] = arith.constant 1 : i64
// CHECK:         %[[DW:.+]] = arith.constant 2 : i64
// CHECK:         call @amp_rt_conv2d_nhwc_hwcf_f16_f32(%{{.+}}, %{{.+}}, %{{.+}}, %[[SH]], %[[SW]], %[[DH]], %[[DW]])
// CHECK:         memref.cast %{{.+}} : memref<2x3x10x10xbf16> to memref<?x?x?x?xbf16, strided<[?, ?, ?, ?], offset: ?>>
// CHECK:         %[[S1:.+]] = arith.constant 1 : i64
// CHECK:         %[[S2:.+]] = arith.constant 1 : i64
// CHECK:         %[[D1:.+]] = arith.constant 2 : i64
// CHECK:         %[[D2:.+]] = arith.constant 2 : i64
// CHECK:         call @amp_rt_conv2d_nchw_fchw_bf16_bf16(%{{.+}}, %{{.+}}, %{{.+}}, %[[S1]], %[[S2]], %[[D1]], %[[D2]])
// CHECK-NOT:     linalg.conv
func.func @convs(%i: memref<1x11x12x3xf16>, %f: memref<3x2x3x8xf16>, %o: memref<1x5x4x8xf32>,
                 %i2: memref<2x3x10x10xbf16>, %f2: memref<4x3x3x3xbf16>, %o2: memref<2x4x6x6xbf16>) {
  linalg.conv_2d_nhwc_hwcf {strides = dense<[2, 3]> : tensor<2xi64>, dilations = dense<[1, 2]> : tensor<2xi64>}
    ins(%i, %f : memref<1x11x12x3xf16>, memref<3x2x3x8xf16>) outs(%o : memref<1x5x4x8xf32>)
  linalg.conv_2d_nchw_fchw {strides = dense<1> : tensor<2xi64>, dilations = dense<2> : tensor<2xi64>}
    ins(%i2, %f2 : memref<2x3x10x10xbf16>, memref<4x3x3x3xbf16>) outs(%o2 : memref<2x4x6x6xbf16>)
  return
}

// -----

// Depthwise convolutions (3-D filters): one grouped convolution per call.
// CHECK-DAG:   func.func private @amp_rt_depthwise_conv2d_nchw_chw_bf16_f32(memref<?x?x?x?xbf16, strided<[?, ?, ?, ?], offset: ?>>, memref<?x?x?xbf16, strided<[?, ?, ?], offset: ?>>, memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>, i64, i64, i64, i64) attributes {llvm.emit_c_interface}
// CHECK-DAG:   func.func private @amp_rt_depthwise_conv2d_nhwc_hwc_f16_f16(memref<?x?x?x?xf16, strided<[?, ?, ?, ?], offset: ?>>, memref<?x?x?xf16, strided<[?, ?, ?], offset: ?>>, memref<?x?x?x?xf16, strided<[?, ?, ?, ?], offset: ?>>, i64, i64, i64, i64) attributes {llvm.emit_c_interface}
// CHECK-LABEL: func.func @depthwise
// CHECK:         memref.cast %{{.+}} : memref<32x3x3xbf16> to memref<?x?x?xbf16, strided<[?, ?, ?], offset: ?>>
// CHECK:         %[[SH:.+]] = arith.constant 2 : i64
// CHECK:         %[[SW:.+]] = arith.constant 2 : i64
// CHECK:         %[[DH:.+]] = arith.constant 1 : i64
// CHECK:         %[[DW:.+]] = arith.constant 1 : i64
// CHECK:         call @amp_rt_depthwise_conv2d_nchw_chw_bf16_f32(%{{.+}}, %{{.+}}, %{{.+}}, %[[SH]], %[[SW]], %[[DH]], %[[DW]])
// CHECK:         memref.cast %{{.+}} : memref<3x3x16xf16> to memref<?x?x?xf16, strided<[?, ?, ?], offset: ?>>
// CHECK:         %[[S1:.+]] = arith.constant 1 : i64
// CHECK:         %[[S2:.+]] = arith.constant 1 : i64
// CHECK:         %[[D1:.+]] = arith.constant 2 : i64
// CHECK:         %[[D2:.+]] = arith.constant 2 : i64
// CHECK:         call @amp_rt_depthwise_conv2d_nhwc_hwc_f16_f16(%{{.+}}, %{{.+}}, %{{.+}}, %[[S1]], %[[S2]], %[[D1]], %[[D2]])
// CHECK-NOT:     linalg.depthwise
func.func @depthwise(%i: memref<2x32x9x9xbf16>, %f: memref<32x3x3xbf16>, %o: memref<2x32x4x4xf32>,
                     %i2: memref<1x10x10x16xf16>, %f2: memref<3x3x16xf16>, %o2: memref<1x6x6x16xf16>) {
  linalg.depthwise_conv_2d_nchw_chw {strides = dense<2> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
    ins(%i, %f : memref<2x32x9x9xbf16>, memref<32x3x3xbf16>) outs(%o : memref<2x32x4x4xf32>)
  linalg.depthwise_conv_2d_nhwc_hwc {strides = dense<1> : tensor<2xi64>, dilations = dense<2> : tensor<2xi64>}
    ins(%i2, %f2 : memref<1x10x10x16xf16>, memref<3x3x16xf16>) outs(%o2 : memref<1x6x6x16xf16>)
  return
}

// -----

// Grouped convolutions on 5-D tensors (torch-mlir's weight gradient of a
// strided convolution): one grouped NCHW convolution per call, also from a
// subview whose group and channel dimensions are one strided run.
// CHECK-DAG:   func.func private @amp_rt_conv2d_ngchw_gfchw_bf16_f32(memref<?x?x?x?x?xbf16, strided<[?, ?, ?, ?, ?], offset: ?>>, memref<?x?x?x?x?xbf16, strided<[?, ?, ?, ?, ?], offset: ?>>, memref<?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?], offset: ?>>, i64, i64, i64, i64) attributes {llvm.emit_c_interface}
// CHECK-LABEL: func.func @grouped
// CHECK-SAME:    (%[[I:.+]]: memref<4x8x1x14x14xbf16>, %[[F:.+]]: memref<8x16x1x7x7xbf16>, %[[O:.+]]: memref<4x8x16x2x2xf32>
// CHECK-DAG:     %[[IC:.+]] = memref.cast %[[I]] : memref<4x8x1x14x14xbf16> to memref<?x?x?x?x?xbf16, strided<[?, ?, ?, ?, ?], offset: ?>>
// CHECK-DAG:     %[[FC:.+]] = memref.cast %[[F]] : memref<8x16x1x7x7xbf16> to memref<?x?x?x?x?xbf16, strided<[?, ?, ?, ?, ?], offset: ?>>
// CHECK-DAG:     %[[OC:.+]] = memref.cast %[[O]] : memref<4x8x16x2x2xf32> to memref<?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?], offset: ?>>
// CHECK:         %[[SH:.+]] = arith.constant 1 : i64
// CHECK:         %[[SW:.+]] = arith.constant 1 : i64
// CHECK:         %[[DH:.+]] = arith.constant 2 : i64
// CHECK:         %[[DW:.+]] = arith.constant 2 : i64
// CHECK:         call @amp_rt_conv2d_ngchw_gfchw_bf16_f32(%[[IC]], %[[FC]], %[[OC]], %[[SH]], %[[SW]], %[[DH]], %[[DW]])
// CHECK:         call @amp_rt_conv2d_ngchw_gfchw_bf16_f32(
// CHECK-NOT:     linalg.conv_2d_ngchw_gfchw
func.func @grouped(%i: memref<4x8x1x14x14xbf16>, %f: memref<8x16x1x7x7xbf16>, %o: memref<4x8x16x2x2xf32>,
                   %big: memref<4x8x1x14x20xbf16>) {
  linalg.conv_2d_ngchw_gfchw {dilations = dense<2> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
    ins(%i, %f : memref<4x8x1x14x14xbf16>, memref<8x16x1x7x7xbf16>) outs(%o : memref<4x8x16x2x2xf32>)
  %sub = memref.subview %big[0, 0, 0, 0, 3] [4, 8, 1, 14, 14] [1, 1, 1, 1, 1]
    : memref<4x8x1x14x20xbf16> to memref<4x8x1x14x14xbf16, strided<[2240, 280, 280, 20, 1], offset: 3>>
  linalg.conv_2d_ngchw_gfchw {dilations = dense<2> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
    ins(%sub, %f : memref<4x8x1x14x14xbf16, strided<[2240, 280, 280, 20, 1], offset: 3>>, memref<8x16x1x7x7xbf16>) outs(%o : memref<4x8x16x2x2xf32>)
  return
}

// -----

// Strided subviews (and dynamic shapes) pass: the cast only erases the
// static layout.
// CHECK-LABEL: func.func @strided_subviews
// CHECK:         %[[SA:.+]] = memref.subview
// CHECK:         %[[SB:.+]] = memref.subview
// CHECK:         %[[CA:.+]] = memref.cast %[[SA]] : memref<8x16xf16, strided<[64, 1], offset: ?>> to memref<?x?xf16, strided<[?, ?], offset: ?>>
// CHECK:         %[[CB:.+]] = memref.cast %[[SB]] : memref<16x4xf16, strided<[128, 2]>> to memref<?x?xf16, strided<[?, ?], offset: ?>>
// CHECK:         %[[CC:.+]] = memref.cast %{{.+}} : memref<?x?xf32> to memref<?x?xf32, strided<[?, ?], offset: ?>>
// CHECK:         call @amp_rt_matmul_f16_f32(%[[CA]], %[[CB]], %[[CC]],
func.func @strided_subviews(%a: memref<32x64xf16>, %b: memref<32x64xf16>, %c: memref<?x?xf32>, %i: index) {
  %sa = memref.subview %a[%i, 0] [8, 16] [1, 1] : memref<32x64xf16> to memref<8x16xf16, strided<[64, 1], offset: ?>>
  %sb = memref.subview %b[0, 0] [16, 4] [2, 2] : memref<32x64xf16> to memref<16x4xf16, strided<[128, 2]>>
  linalg.matmul ins(%sa, %sb : memref<8x16xf16, strided<[64, 1], offset: ?>>, memref<16x4xf16, strided<[128, 2]>>)
                outs(%c : memref<?x?xf32>)
  return
}

// -----

// An operand already in the runtime's layout is passed without a cast.
// CHECK-LABEL: func.func @already_dynamic
// CHECK-SAME:    (%[[A:.+]]: memref<?x?xf16, strided<[?, ?], offset: ?>>, %[[B:.+]]: memref<?x?xf16, strided<[?, ?], offset: ?>>, %[[C:.+]]: memref<?x?xf32, strided<[?, ?], offset: ?>>)
// CHECK-NOT:     memref.cast
// CHECK:         call @amp_rt_matmul_f16_f32(%[[A]], %[[B]], %[[C]],
func.func @already_dynamic(%a: memref<?x?xf16, strided<[?, ?], offset: ?>>, %b: memref<?x?xf16, strided<[?, ?], offset: ?>>, %c: memref<?x?xf32, strided<[?, ?], offset: ?>>) {
  linalg.matmul ins(%a, %b : memref<?x?xf16, strided<[?, ?], offset: ?>>, memref<?x?xf16, strided<[?, ?], offset: ?>>)
                outs(%c : memref<?x?xf32, strided<[?, ?], offset: ?>>)
  return
}

// -----

// Left for the upstream lowering: f32 inputs (not Tensor Core work), an
// output type without an entry point (f64), a broadcasting matmul, a
// convolution layout the runtime does not implement, and ops on tensors.
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT:     call
// CHECK:         linalg.matmul ins(%{{.+}}, %{{.+}} : memref<8x16xf32>, memref<16x4xf32>) outs(%{{.+}} : memref<8x4xf32>)
// CHECK:         linalg.matmul ins(%{{.+}}, %{{.+}} : memref<8x16xf16>, memref<16x4xf16>) outs(%{{.+}} : memref<8x4xf64>)
// CHECK:         linalg.matmul indexing_maps = [#{{.+}}, #{{.+}}, #{{.+}}] ins(%{{.+}}, %{{.+}} : memref<16xf16>, memref<16x4xf16>) outs(%{{.+}} : memref<8x4xf32>)
// CHECK:         linalg.conv_2d_nhwc_fhwc
// CHECK:         linalg.matmul ins(%{{.+}}, %{{.+}} : tensor<8x16xf16>, tensor<16x4xf16>) outs(%{{.+}} : tensor<8x4xf32>)
// CHECK-NOT:     call
// CHECK:         return
func.func @left_alone(%a32: memref<8x16xf32>, %b32: memref<16x4xf32>, %c: memref<8x4xf32>,
                      %a: memref<8x16xf16>, %b: memref<16x4xf16>, %c64: memref<8x4xf64>, %k: memref<16xf16>,
                      %i: memref<1x10x10x8xf16>, %f: memref<16x3x3x8xf16>, %o: memref<1x8x8x16xf32>,
                      %ta: tensor<8x16xf16>, %tb: tensor<16x4xf16>, %tc: tensor<8x4xf32>) -> tensor<8x4xf32> {
  linalg.matmul ins(%a32, %b32 : memref<8x16xf32>, memref<16x4xf32>) outs(%c : memref<8x4xf32>)
  linalg.matmul ins(%a, %b : memref<8x16xf16>, memref<16x4xf16>) outs(%c64 : memref<8x4xf64>)
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k)>,
                                 affine_map<(m, n, k) -> (k, n)>,
                                 affine_map<(m, n, k) -> (m, n)>]
                ins(%k, %b : memref<16xf16>, memref<16x4xf16>) outs(%c : memref<8x4xf32>)
  linalg.conv_2d_nhwc_fhwc {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
    ins(%i, %f : memref<1x10x10x8xf16>, memref<16x3x3x8xf16>) outs(%o : memref<1x8x8x16xf32>)
  %r = linalg.matmul ins(%ta, %tb : tensor<8x16xf16>, tensor<16x4xf16>) outs(%tc : tensor<8x4xf32>) -> tensor<8x4xf32>
  return %r : tensor<8x4xf32>
}
