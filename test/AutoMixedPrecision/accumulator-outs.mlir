// A contraction accumulates in f32: its `outs` stay f32 even when the value
// given as `outs` is one the painting made low (it gets an arith.extf), and
// the output verifies (issue 13).
// RUN: amp-opt %s --amp-auto-mixed-precision | FileCheck %s
// RUN: amp-opt %s --amp | FileCheck %s --check-prefix=PIPE
// RUN: amp-opt %s --amp-auto-mixed-precision=cast-economy=false | FileCheck %s --check-prefix=LOOP

// A low elementwise result (an infer op between two matmuls) as `outs`.
// CHECK-LABEL: func.func @matmul_low_outs
// CHECK:         %[[S:.*]] = arith.addf %{{.*}}, %{{.*}} : tensor<64x64xf16>
// CHECK:         %[[E:.*]] = arith.extf %[[S]] : tensor<64x64xf16> to tensor<64x64xf32>
// CHECK:         linalg.matmul ins(%[[S]], %{{.*}} : tensor<64x64xf16>, tensor<64x64xf16>) outs(%[[E]] : tensor<64x64xf32>) -> tensor<64x64xf32>
// PIPE-LABEL: func.func @matmul_low_outs
// PIPE:         linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<64x64xf16>, tensor<64x64xf16>) outs(%{{.*}} : tensor<64x64xf32>) -> tensor<64x64xf32>
func.func @matmul_low_outs(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>, %x: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %e = tensor.empty() : tensor<64x64xf32>
  %m = linalg.matmul ins(%a, %b : tensor<64x64xf32>, tensor<64x64xf32>) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  %s = arith.addf %m, %x : tensor<64x64xf32>
  %m2 = linalg.matmul ins(%s, %b : tensor<64x64xf32>, tensor<64x64xf32>) outs(%s : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %m2 : tensor<64x64xf32>
}

// The result of one matmul as the `outs` of the next: it is f32 already.
// CHECK-LABEL: func.func @matmul_chain
// CHECK:         %[[M:.*]] = linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<12x32xf16>, tensor<32x64xf16>) outs(%{{.*}} : tensor<12x64xf32>) -> tensor<12x64xf32>
// CHECK-NEXT:    linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<12x32xf16>, tensor<32x64xf16>) outs(%[[M]] : tensor<12x64xf32>) -> tensor<12x64xf32>
func.func @matmul_chain(%a: tensor<12x32xf32>, %b: tensor<32x64xf32>, %c: tensor<12x32xf32>, %d: tensor<32x64xf32>) -> tensor<12x64xf32> {
  %e = tensor.empty() : tensor<12x64xf32>
  %m = linalg.matmul ins(%a, %b : tensor<12x32xf32>, tensor<32x64xf32>) outs(%e : tensor<12x64xf32>) -> tensor<12x64xf32>
  %m2 = linalg.matmul ins(%c, %d : tensor<12x32xf32>, tensor<32x64xf32>) outs(%m : tensor<12x64xf32>) -> tensor<12x64xf32>
  return %m2 : tensor<12x64xf32>
}

// CHECK-LABEL: func.func @batch_matmul_low_outs
// CHECK:         %[[S:.*]] = arith.mulf %{{.*}}, %{{.*}} : tensor<2x16x16xf16>
// CHECK:         %[[E:.*]] = arith.extf %[[S]] : tensor<2x16x16xf16> to tensor<2x16x16xf32>
// CHECK:         linalg.batch_matmul ins(%[[S]], %{{.*}} : tensor<2x16x16xf16>, tensor<2x16x16xf16>) outs(%[[E]] : tensor<2x16x16xf32>) -> tensor<2x16x16xf32>
func.func @batch_matmul_low_outs(%a: tensor<2x16x16xf32>, %b: tensor<2x16x16xf32>, %x: tensor<2x16x16xf32>) -> tensor<2x16x16xf32> {
  %e = tensor.empty() : tensor<2x16x16xf32>
  %m = linalg.batch_matmul ins(%a, %b : tensor<2x16x16xf32>, tensor<2x16x16xf32>) outs(%e : tensor<2x16x16xf32>) -> tensor<2x16x16xf32>
  %s = arith.mulf %m, %x : tensor<2x16x16xf32>
  %m2 = linalg.batch_matmul ins(%s, %b : tensor<2x16x16xf32>, tensor<2x16x16xf32>) outs(%s : tensor<2x16x16xf32>) -> tensor<2x16x16xf32>
  return %m2 : tensor<2x16x16xf32>
}

// A low vector (the input of a matvec) also used as the accumulator of
// another matvec.
// CHECK-LABEL: func.func @matvec_low_outs
// CHECK:         %[[S:.*]] = arith.addf %{{.*}}, %{{.*}} : tensor<64xf16>
// CHECK:         %[[E:.*]] = arith.extf %[[S]] : tensor<64xf16> to tensor<64xf32>
// CHECK:         linalg.matvec ins(%{{.*}}, %[[S]] : tensor<64x64xf16>, tensor<64xf16>) outs(%[[E]] : tensor<64xf32>) -> tensor<64xf32>
func.func @matvec_low_outs(%a: tensor<64x64xf32>, %v: tensor<64xf32>, %x: tensor<64xf32>) -> tensor<64xf32> {
  %e = tensor.empty() : tensor<64xf32>
  %m = linalg.matvec ins(%a, %v : tensor<64x64xf32>, tensor<64xf32>) outs(%e : tensor<64xf32>) -> tensor<64xf32>
  %s = arith.addf %m, %x : tensor<64xf32>
  %m2 = linalg.matvec ins(%a, %s : tensor<64x64xf32>, tensor<64xf32>) outs(%s : tensor<64xf32>) -> tensor<64xf32>
  return %m2 : tensor<64xf32>
}

// CHECK-LABEL: func.func @conv_nhwc_low_outs
// CHECK:         %[[S:.*]] = arith.addf %{{.*}}, %{{.*}} : tensor<1x8x8x16xf16>
// CHECK:         %[[E:.*]] = arith.extf %[[S]] : tensor<1x8x8x16xf16> to tensor<1x8x8x16xf32>
// CHECK:         linalg.conv_2d_nhwc_hwcf {{.*}} ins(%[[S]], %{{.*}} : tensor<1x8x8x16xf16>, tensor<1x1x16x16xf16>) outs(%[[E]] : tensor<1x8x8x16xf32>) -> tensor<1x8x8x16xf32>
func.func @conv_nhwc_low_outs(%in: tensor<1x8x8x16xf32>, %w: tensor<1x1x16x16xf32>, %x: tensor<1x8x8x16xf32>) -> tensor<1x8x8x16xf32> {
  %e = tensor.empty() : tensor<1x8x8x16xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%in, %w : tensor<1x8x8x16xf32>, tensor<1x1x16x16xf32>) outs(%e : tensor<1x8x8x16xf32>) -> tensor<1x8x8x16xf32>
  %s = arith.addf %c, %x : tensor<1x8x8x16xf32>
  %c2 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%s, %w : tensor<1x8x8x16xf32>, tensor<1x1x16x16xf32>) outs(%s : tensor<1x8x8x16xf32>) -> tensor<1x8x8x16xf32>
  return %c2 : tensor<1x8x8x16xf32>
}

// CHECK-LABEL: func.func @conv_nchw_low_outs
// CHECK:         %[[S:.*]] = arith.addf %{{.*}}, %{{.*}} : tensor<1x16x8x8xf16>
// CHECK:         %[[E:.*]] = arith.extf %[[S]] : tensor<1x16x8x8xf16> to tensor<1x16x8x8xf32>
// CHECK:         linalg.conv_2d_nchw_fchw {{.*}} ins(%[[S]], %{{.*}} : tensor<1x16x8x8xf16>, tensor<16x16x1x1xf16>) outs(%[[E]] : tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32>
func.func @conv_nchw_low_outs(%in: tensor<1x16x8x8xf32>, %w: tensor<16x16x1x1xf32>, %x: tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32> {
  %e = tensor.empty() : tensor<1x16x8x8xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%in, %w : tensor<1x16x8x8xf32>, tensor<16x16x1x1xf32>) outs(%e : tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32>
  %s = arith.addf %c, %x : tensor<1x16x8x8xf32>
  %c2 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%s, %w : tensor<1x16x8x8xf32>, tensor<16x16x1x1xf32>) outs(%s : tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32>
  return %c2 : tensor<1x16x8x8xf32>
}

// A carried value (an scf.for iter_arg painted low) as `outs` (without the
// cast economy, which keeps this loop f32).
// LOOP-LABEL: func.func @loop_carried_outs
// LOOP:         scf.for {{.*}} iter_args(%[[C:.*]] = %{{.*}}) -> (tensor<64x64xf16>)
// LOOP:           %[[E:.*]] = arith.extf %[[C]] : tensor<64x64xf16> to tensor<64x64xf32>
// LOOP:           linalg.matmul ins(%[[C]], %{{.*}} : tensor<64x64xf16>, tensor<64x64xf16>) outs(%[[E]] : tensor<64x64xf32>) -> tensor<64x64xf32>
func.func @loop_carried_outs(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %a) -> (tensor<64x64xf32>) {
    %m = linalg.matmul ins(%acc, %b : tensor<64x64xf32>, tensor<64x64xf32>) outs(%acc : tensor<64x64xf32>) -> tensor<64x64xf32>
    %t = linalg.transpose ins(%m : tensor<64x64xf32>) outs(%acc : tensor<64x64xf32>) permutation = [1, 0]
    scf.yield %t : tensor<64x64xf32>
  }
  return %r : tensor<64x64xf32>
}
