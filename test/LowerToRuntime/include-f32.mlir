// amp-lower-to-runtime{include-f32=true} also lowers f32 x f32 -> f32
// contractions, to the _f32_f32 entry points (same signatures and
// accumulate semantics as the low-precision ones). Without the option they
// stay linalg ops. Mixed f32 / low-precision operands never get a call.
// RUN: amp-opt %s --split-input-file --amp-lower-to-runtime='include-f32=true' \
// RUN:   | FileCheck %s
// RUN: amp-opt %s --split-input-file --amp-lower-to-runtime \
// RUN:   | FileCheck %s --check-prefix=DEFAULT
// RUN: amp-opt %s --amp-lower-to-runtime='include-f32=true stats=true' \
// RUN:   -o /dev/null 2>&1 | FileCheck %s --check-prefix=STATS
// RUN: amp-opt %s --amp-lower-to-runtime='stats=true' \
// RUN:   -o /dev/null 2>&1 | FileCheck %s --check-prefix=STATS-DEFAULT
// STATS:      amp-lower-to-runtime statistics:
// STATS-NEXT:   6 ops-lowered
// STATS-NEXT:   3 ops-left
// f32 contractions are not counted without the option; the bf16 one is.
// STATS-DEFAULT:      amp-lower-to-runtime statistics:
// STATS-DEFAULT-NEXT:   1 ops-lowered
// STATS-DEFAULT-NEXT:   1 ops-left

// CHECK-DAG:   func.func private @amp_rt_matmul_f32_f32(memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, i32, i32) attributes {llvm.emit_c_interface}
// CHECK-DAG:   func.func private @amp_rt_batch_matmul_f32_f32(memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>, memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>, memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>, i32, i32) attributes {llvm.emit_c_interface}
// CHECK-DAG:   func.func private @amp_rt_conv2d_nhwc_hwcf_f32_f32(memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>, memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>, memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>, i64, i64, i64, i64) attributes {llvm.emit_c_interface}
// CHECK-DAG:   func.func private @amp_rt_conv2d_nchw_fchw_f32_f32(memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>, memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>, memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>, i64, i64, i64, i64) attributes {llvm.emit_c_interface}

// CHECK-LABEL: func.func @f32_ops
// CHECK-SAME:    (%[[A:.+]]: memref<30x70xf32>, %[[B:.+]]: memref<70x50xf32>, %[[C:.+]]: memref<30x50xf32>
// CHECK:         %[[CA:.+]] = memref.cast %[[A]] : memref<30x70xf32> to memref<?x?xf32, strided<[?, ?], offset: ?>>
// CHECK:         %[[CB:.+]] = memref.cast %[[B]] : memref<70x50xf32> to memref<?x?xf32, strided<[?, ?], offset: ?>>
// CHECK:         %[[CC:.+]] = memref.cast %[[C]] : memref<30x50xf32> to memref<?x?xf32, strided<[?, ?], offset: ?>>
// CHECK:         %[[TA:.+]] = arith.constant 0 : i32
// CHECK:         %[[TB:.+]] = arith.constant 0 : i32
// CHECK:         call @amp_rt_matmul_f32_f32(%[[CA]], %[[CB]], %[[CC]], %[[TA]], %[[TB]])
// Transposed B (N x K).
// CHECK:         %[[T0:.+]] = arith.constant 0 : i32
// CHECK:         %[[T1:.+]] = arith.constant 1 : i32
// CHECK:         call @amp_rt_matmul_f32_f32(%{{.+}}, %{{.+}}, %{{.+}}, %[[T0]], %[[T1]])
// CHECK:         call @amp_rt_batch_matmul_f32_f32(
// CHECK:         %[[SH:.+]] = arith.constant 2 : i64
// CHECK:         %[[SW:.+]] = arith.constant 1 : i64
// CHECK:         %[[DH:.+]] = arith.constant 1 : i64
// CHECK:         %[[DW:.+]] = arith.constant 3 : i64
// CHECK:         call @amp_rt_conv2d_nhwc_hwcf_f32_f32(%{{.+}}, %{{.+}}, %{{.+}}, %[[SH]], %[[SW]], %[[DH]], %[[DW]])
// CHECK:         call @amp_rt_conv2d_nchw_fchw_f32_f32(
// CHECK-NOT:     linalg.
// CHECK:         return

// DEFAULT-LABEL: func.func @f32_ops
// DEFAULT-NOT:   call
// DEFAULT:       linalg.matmul ins(%{{.+}}, %{{.+}} : memref<30x70xf32>, memref<70x50xf32>)
// DEFAULT:       linalg.matmul indexing_maps
// DEFAULT:       linalg.batch_matmul
// DEFAULT:       linalg.conv_2d_nhwc_hwcf
// DEFAULT:       linalg.conv_2d_nchw_fchw
// DEFAULT-NOT:   call
// DEFAULT:       return
func.func @f32_ops(%a: memref<30x70xf32>, %b: memref<70x50xf32>, %c: memref<30x50xf32>,
                   %bt: memref<50x70xf32>,
                   %ba: memref<4x8x16xf32>, %bb: memref<4x16x2xf32>, %bc: memref<4x8x2xf32>,
                   %i: memref<1x11x12x3xf32>, %f: memref<3x2x3x8xf32>, %o: memref<1x5x6x8xf32>,
                   %i2: memref<2x3x10x10xf32>, %f2: memref<4x3x3x3xf32>, %o2: memref<2x4x8x8xf32>) {
  linalg.matmul ins(%a, %b : memref<30x70xf32>, memref<70x50xf32>)
                outs(%c : memref<30x50xf32>)
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                 affine_map<(m, n, k) -> (n, k)>,
                                 affine_map<(m, n, k) -> (m, n)>]
                ins(%a, %bt : memref<30x70xf32>, memref<50x70xf32>) outs(%c : memref<30x50xf32>)
  linalg.batch_matmul ins(%ba, %bb : memref<4x8x16xf32>, memref<4x16x2xf32>) outs(%bc : memref<4x8x2xf32>)
  linalg.conv_2d_nhwc_hwcf {strides = dense<[2, 1]> : tensor<2xi64>, dilations = dense<[1, 3]> : tensor<2xi64>}
    ins(%i, %f : memref<1x11x12x3xf32>, memref<3x2x3x8xf32>) outs(%o : memref<1x5x6x8xf32>)
  linalg.conv_2d_nchw_fchw {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
    ins(%i2, %f2 : memref<2x3x10x10xf32>, memref<4x3x3x3xf32>) outs(%o2 : memref<2x4x8x8xf32>)
  return
}

// -----

// The same pipeline run on an AMP program: bf16 still goes to its own entry
// point. Mixed operands and an f32 contraction with a low-precision output
// have no entry point and stay.
// CHECK:       func.func private @amp_rt_matmul_bf16_f32(
// CHECK-LABEL: func.func @mixed
// CHECK:         call @amp_rt_matmul_bf16_f32(
// CHECK:         linalg.matmul ins(%{{.+}}, %{{.+}} : memref<8x16xf32>, memref<16x4xbf16>) outs(%{{.+}} : memref<8x4xf32>)
// CHECK:         linalg.matmul ins(%{{.+}}, %{{.+}} : memref<8x16xbf16>, memref<16x4xf32>) outs(%{{.+}} : memref<8x4xf32>)
// CHECK:         linalg.matmul ins(%{{.+}}, %{{.+}} : memref<8x16xf32>, memref<16x4xf32>) outs(%{{.+}} : memref<8x4xbf16>)
// CHECK-NOT:     call
// CHECK:         return
// DEFAULT-LABEL: func.func @mixed
// DEFAULT:         call @amp_rt_matmul_bf16_f32(
// DEFAULT-NOT:     call
func.func @mixed(%x: memref<8x16xbf16>, %y: memref<16x4xbf16>, %z: memref<8x4xf32>,
                 %a32: memref<8x16xf32>, %b32: memref<16x4xf32>, %w: memref<8x4xbf16>) {
  linalg.matmul ins(%x, %y : memref<8x16xbf16>, memref<16x4xbf16>) outs(%z : memref<8x4xf32>)
  linalg.matmul ins(%a32, %y : memref<8x16xf32>, memref<16x4xbf16>) outs(%z : memref<8x4xf32>)
  linalg.matmul ins(%x, %b32 : memref<8x16xbf16>, memref<16x4xf32>) outs(%z : memref<8x4xf32>)
  linalg.matmul ins(%a32, %b32 : memref<8x16xf32>, memref<16x4xf32>) outs(%w : memref<8x4xbf16>)
  return
}
