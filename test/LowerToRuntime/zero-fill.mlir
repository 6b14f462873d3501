// A linalg.fill with zero right before a runtime op, on a fresh buffer that
// nothing else touches in between, is dropped and the op calls the
// `_overwrite` entry point (C = A B, beta = 0) instead of accumulating into
// the zeros. Anything else keeps the fill and the accumulating call.
// RUN: amp-opt %s --split-input-file --amp-lower-to-runtime='explain=true' 2>%t.remarks | FileCheck %s
// RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
// REMARK: lowered to @amp_rt_matmul_bf16_f32_overwrite (the zero fill of its output is dropped)

// CHECK-LABEL: func.func @zero_fill
// CHECK:         %[[C:.+]] = memref.alloc() : memref<8x4xf32>
// CHECK-NOT:     linalg.fill
// CHECK:         %[[CC:.+]] = memref.cast %[[C]]
// CHECK:         call @amp_rt_matmul_bf16_f32_overwrite({{.*}}, %[[CC]],
// CHECK-NOT:     linalg.fill
// CHECK:         return %[[C]]
func.func @zero_fill(%a: memref<8x16xbf16>, %b: memref<16x4xbf16>) -> memref<8x4xf32> {
  %zero = arith.constant 0.0 : f32
  %c = memref.alloc() : memref<8x4xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<8x4xf32>)
  linalg.matmul ins(%a, %b : memref<8x16xbf16>, memref<16x4xbf16>)
                outs(%c : memref<8x4xf32>)
  return %c : memref<8x4xf32>
}

// -----

// -0.0 is a zero too; ops between the fill and the matmul that do not touch
// the buffer do not matter; a view of the result after the matmul neither.
// CHECK-LABEL: func.func @negative_zero_and_unrelated_ops
// CHECK-NOT:     linalg.fill ins(%{{.*}} : bf16)
// CHECK:         linalg.fill ins(%{{.*}} : f32)
// CHECK-NOT:     linalg.fill ins(%{{.*}} : bf16)
// CHECK:         call @amp_rt_batch_matmul_bf16_bf16_overwrite(
// CHECK:         memref.subview
func.func @negative_zero_and_unrelated_ops(%a: memref<2x8x16xbf16>, %b: memref<2x16x4xbf16>,
                                           %x: memref<4xf32>) -> memref<1x8x4xbf16, strided<[32, 4, 1]>> {
  %zero = arith.constant -0.0 : bf16
  %one = arith.constant 1.0 : f32
  %c = memref.alloc() : memref<2x8x4xbf16>
  linalg.fill ins(%zero : bf16) outs(%c : memref<2x8x4xbf16>)
  linalg.fill ins(%one : f32) outs(%x : memref<4xf32>)
  linalg.batch_matmul ins(%a, %b : memref<2x8x16xbf16>, memref<2x16x4xbf16>)
                      outs(%c : memref<2x8x4xbf16>)
  %v = memref.subview %c[0, 0, 0] [1, 8, 4] [1, 1, 1] : memref<2x8x4xbf16> to memref<1x8x4xbf16, strided<[32, 4, 1]>>
  return %v : memref<1x8x4xbf16, strided<[32, 4, 1]>>
}

// -----

// A convolution's zero-filled output: the same.
// CHECK-LABEL: func.func @conv_zero_fill
// CHECK-NOT:     linalg.fill
// CHECK:         call @amp_rt_conv2d_nhwc_hwcf_f16_f32_overwrite(
func.func @conv_zero_fill(%i: memref<1x6x6x3xf16>, %f: memref<3x3x3x8xf16>) -> memref<1x4x4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %o = memref.alloc() : memref<1x4x4x8xf32>
  linalg.fill ins(%zero : f32) outs(%o : memref<1x4x4x8xf32>)
  linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%i, %f : memref<1x6x6x3xf16>, memref<3x3x3x8xf16>) outs(%o : memref<1x4x4x8xf32>)
  return %o : memref<1x4x4x8xf32>
}

// -----

// A non-zero fill is the initial value of the sum: kept, accumulated into.
// CHECK-LABEL: func.func @nonzero_fill
// CHECK:         linalg.fill
// CHECK:         call @amp_rt_matmul_bf16_f32(
func.func @nonzero_fill(%a: memref<8x16xbf16>, %b: memref<16x4xbf16>) -> memref<8x4xf32> {
  %one = arith.constant 1.0 : f32
  %c = memref.alloc() : memref<8x4xf32>
  linalg.fill ins(%one : f32) outs(%c : memref<8x4xf32>)
  linalg.matmul ins(%a, %b : memref<8x16xbf16>, memref<16x4xbf16>)
                outs(%c : memref<8x4xf32>)
  return %c : memref<8x4xf32>
}

// -----

// The zeros are read between the fill and the matmul: kept.
// CHECK-LABEL: func.func @read_between
// CHECK:         linalg.fill
// CHECK:         memref.copy
// CHECK:         call @amp_rt_matmul_bf16_f32(
func.func @read_between(%a: memref<8x16xbf16>, %b: memref<16x4xbf16>,
                        %keep: memref<8x4xf32>) -> memref<8x4xf32> {
  %zero = arith.constant 0.0 : f32
  %c = memref.alloc() : memref<8x4xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<8x4xf32>)
  memref.copy %c, %keep : memref<8x4xf32> to memref<8x4xf32>
  linalg.matmul ins(%a, %b : memref<8x16xbf16>, memref<16x4xbf16>)
                outs(%c : memref<8x4xf32>)
  return %c : memref<8x4xf32>
}

// -----

// A view of the buffer made before the fill may be used anywhere: kept.
// CHECK-LABEL: func.func @view_before
// CHECK:         linalg.fill
// CHECK:         call @amp_rt_matmul_bf16_f32(
func.func @view_before(%a: memref<8x16xbf16>, %b: memref<16x4xbf16>) -> memref<4x4xf32, strided<[4, 1]>> {
  %zero = arith.constant 0.0 : f32
  %c = memref.alloc() : memref<8x4xf32>
  %v = memref.subview %c[0, 0] [4, 4] [1, 1] : memref<8x4xf32> to memref<4x4xf32, strided<[4, 1]>>
  linalg.fill ins(%zero : f32) outs(%c : memref<8x4xf32>)
  linalg.matmul ins(%a, %b : memref<8x16xbf16>, memref<16x4xbf16>)
                outs(%c : memref<8x4xf32>)
  return %v : memref<4x4xf32, strided<[4, 1]>>
}

// -----

// The output is not a fresh allocation (a function argument may alias the
// inputs or be read by the caller's other views): kept.
// CHECK-LABEL: func.func @argument_output
// CHECK:         linalg.fill
// CHECK:         call @amp_rt_matmul_bf16_f32(
func.func @argument_output(%a: memref<8x16xbf16>, %b: memref<16x4xbf16>, %c: memref<8x4xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<8x4xf32>)
  linalg.matmul ins(%a, %b : memref<8x16xbf16>, memref<16x4xbf16>)
                outs(%c : memref<8x4xf32>)
  return
}

// -----

// The fill is in another block than the matmul: kept.
// CHECK-LABEL: func.func @fill_in_other_block
// CHECK:         scf.if
// CHECK:           linalg.fill
// CHECK:         call @amp_rt_matmul_bf16_f32(
func.func @fill_in_other_block(%a: memref<8x16xbf16>, %b: memref<16x4xbf16>, %p: i1) -> memref<8x4xf32> {
  %zero = arith.constant 0.0 : f32
  %c = memref.alloc() : memref<8x4xf32>
  scf.if %p {
    linalg.fill ins(%zero : f32) outs(%c : memref<8x4xf32>)
  }
  linalg.matmul ins(%a, %b : memref<8x16xbf16>, memref<16x4xbf16>)
                outs(%c : memref<8x4xf32>)
  return %c : memref<8x4xf32>
}
