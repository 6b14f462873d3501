// Ops whose results are unused follow their operands instead of being
// painted, and a slice of a contraction's f32 accumulator stays f32 with
// the casts after it: both keep the pass a fixed point of its own output,
// with amp-pad-for-tensor-cores (which slices padded results back) and
// amp-optimize-casts (which erases dead casts) in between.
//
// RUN: amp-opt %s --amp-auto-mixed-precision | FileCheck %s
// RUN: amp-opt %s --amp-auto-mixed-precision=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: amp-opt %s --amp --amp-pad-for-tensor-cores=multiple=8 -o %t.1.mlir
// RUN: amp-opt %t.1.mlir --amp --amp-pad-for-tensor-cores=multiple=8 -o %t.2.mlir
// RUN: diff %t.1.mlir %t.2.mlir
// RUN: amp-opt %s --amp=cast-economy=false --amp-pad-for-tensor-cores=multiple=8 -o %t.3.mlir
// RUN: amp-opt %t.3.mlir --amp=cast-economy=false --amp-pad-for-tensor-cores=multiple=8 -o %t.4.mlir
// RUN: diff %t.3.mlir %t.4.mlir
//
// The padded `outs` (a tensor.pad only read as an accumulator) stays f32,
// even with fills or pads on the allow list:
// RUN: amp-opt %s --amp-auto-mixed-precision='allow-add=linalg.fill clear-remove=linalg.fill optimize-casts=true' --amp-pad-for-tensor-cores=multiple=8 -o %t.5.mlir
// RUN: amp-opt %t.5.mlir --amp-auto-mixed-precision='allow-add=linalg.fill clear-remove=linalg.fill optimize-casts=true' --amp-pad-for-tensor-cores=multiple=8 -o %t.6.mlir
// RUN: diff %t.5.mlir %t.6.mlir
// RUN: amp-opt %s --amp-auto-mixed-precision='allow-add=tensor.pad clear-remove=tensor.pad cast-economy=false' --amp-pad-for-tensor-cores=multiple=8 -o %t.7.mlir
// RUN: amp-opt %t.7.mlir --amp-auto-mixed-precision='allow-add=tensor.pad clear-remove=tensor.pad cast-economy=false' --amp-pad-for-tensor-cores=multiple=8 -o %t.8.mlir
// RUN: diff %t.7.mlir %t.8.mlir

// An unused clear op after a contraction reads its f32 accumulator: f32, no
// cast (it used to be painted low, with a truncf, once a slice or a dead
// cast changed what was around it).
// CHECK-LABEL: func.func @unused_after_contraction
// CHECK:         %[[M:.*]] = linalg.matmul
// CHECK-NOT:     arith.truncf
// CHECK:         math.absf %[[M]] : tensor<5x6xf32>
// EXPLAIN: remark: amp: low: allow
// EXPLAIN: remark: amp: f32: clear: result unused, follows its operands, kept f32
func.func @unused_after_contraction(%x: tensor<5x3xf32>, %w: tensor<3x6xf32>, %acc: tensor<5x6xf32>) {
  %m = linalg.matmul ins(%x, %w : tensor<5x3xf32>, tensor<3x6xf32>) outs(%acc : tensor<5x6xf32>) -> tensor<5x6xf32>
  %a = math.absf %m : tensor<5x6xf32>
  return
}

// An unused chain (a pad and casts nobody reads) is unused as a whole.
// CHECK-LABEL: func.func @unused_chain
// CHECK:         %[[C:.*]] = linalg.conv_2d_nhwc_hwcf
// CHECK-NOT:     arith.truncf %[[C]]
// CHECK:         tensor.pad %[[C]]
// CHECK:         } : tensor<1x6x6x4xf32> to tensor<1x8x8x4xf32>
// EXPLAIN: remark: amp: low: allow
// EXPLAIN: remark: amp: f32: clear: result unused, follows its operands, kept f32
func.func @unused_chain(%x: tensor<1x8x8x3xf32>, %w: tensor<3x3x3x4xf32>, %acc: tensor<1x6x6x4xf32>) {
  %c = linalg.conv_2d_nhwc_hwcf ins(%x, %w : tensor<1x8x8x3xf32>, tensor<3x3x3x4xf32>) outs(%acc : tensor<1x6x6x4xf32>) -> tensor<1x6x6x4xf32>
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %c low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x6x6x4xf32> to tensor<1x8x8x4xf32>
  %t = arith.truncf %p : tensor<1x8x8x4xf32> to tensor<1x8x8x4xf16>
  %e = arith.extf %t : tensor<1x8x8x4xf16> to tensor<1x8x8x4xf32>
  return
}

// An unused op after a low op follows it: low, no cast either.
// CHECK-LABEL: func.func @unused_after_low
// CHECK:         %[[R:.*]] = arith.maximumf %{{.*}}, %{{.*}} : tensor<5x6xf16>
// CHECK-NEXT:    math.absf %[[R]] : tensor<5x6xf16>
// CHECK:         linalg.matmul ins(%[[R]], %{{.*}} : tensor<5x6xf16>, tensor<6x2xf16>)
// EXPLAIN: remark: amp: low: clear: result unused, follows its operands, runs low
func.func @unused_after_low(%x: tensor<5x3xf32>, %w: tensor<3x6xf32>, %acc: tensor<5x6xf32>, %w2: tensor<6x2xf32>, %acc2: tensor<5x2xf32>) -> tensor<5x2xf32> {
  %m = linalg.matmul ins(%x, %w : tensor<5x3xf32>, tensor<3x6xf32>) outs(%acc : tensor<5x6xf32>) -> tensor<5x6xf32>
  %r = arith.maximumf %m, %acc : tensor<5x6xf32>
  %a = math.absf %r : tensor<5x6xf32>
  %m2 = linalg.matmul ins(%r, %w2 : tensor<5x6xf32>, tensor<6x2xf32>) outs(%acc2 : tensor<5x2xf32>) -> tensor<5x2xf32>
  return %m2 : tensor<5x2xf32>
}

// A slice of the accumulator stays f32; the value is truncated after it,
// on the smaller tensor (and a slice of that slice too).
// CHECK-LABEL: func.func @slice_of_accumulator
// CHECK:         %[[M:.*]] = linalg.matmul
// CHECK-NEXT:    %[[S:.*]] = tensor.extract_slice %[[M]][0, 0] [4, 6] [1, 1] : tensor<5x6xf32> to tensor<4x6xf32>
// CHECK-NEXT:    %[[S2:.*]] = tensor.extract_slice %[[S]][0, 0] [4, 4] [1, 1] : tensor<4x6xf32> to tensor<4x4xf32>
// CHECK-NEXT:    %[[T:.*]] = arith.truncf %[[S2]] : tensor<4x4xf32> to tensor<4x4xf16>
// CHECK:         linalg.matmul ins(%[[T]], %{{.*}} : tensor<4x4xf16>, tensor<4x2xf16>)
// EXPLAIN: remark: amp: f32: clear: slice of the f32 accumulator of linalg.matmul
// EXPLAIN: remark: amp: f32: clear: slice of the f32 accumulator of linalg.matmul
func.func @slice_of_accumulator(%x: tensor<5x3xf32>, %w: tensor<3x6xf32>, %acc: tensor<5x6xf32>, %w2: tensor<4x2xf32>, %acc2: tensor<4x2xf32>) -> tensor<4x2xf32> {
  %m = linalg.matmul ins(%x, %w : tensor<5x3xf32>, tensor<3x6xf32>) outs(%acc : tensor<5x6xf32>) -> tensor<5x6xf32>
  %s = tensor.extract_slice %m[0, 0] [4, 6] [1, 1] : tensor<5x6xf32> to tensor<4x6xf32>
  %s2 = tensor.extract_slice %s[0, 0] [4, 4] [1, 1] : tensor<4x6xf32> to tensor<4x4xf32>
  %m2 = linalg.matmul ins(%s2, %w2 : tensor<4x4xf32>, tensor<4x2xf32>) outs(%acc2 : tensor<4x2xf32>) -> tensor<4x2xf32>
  return %m2 : tensor<4x2xf32>
}

// A contraction into a filled `outs`.
// CHECK-LABEL: func.func @filled_outs
// CHECK:         linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<5x6xf32>)
// CHECK:         linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<5x3xf16>, tensor<3x6xf16>) outs(%{{.*}} : tensor<5x6xf32>)
func.func @filled_outs(%x: tensor<5x3xf32>, %w: tensor<3x6xf32>) -> tensor<5x6xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<5x6xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<5x6xf32>) -> tensor<5x6xf32>
  %m = linalg.matmul ins(%x, %w : tensor<5x3xf32>, tensor<3x6xf32>) outs(%f : tensor<5x6xf32>) -> tensor<5x6xf32>
  return %m : tensor<5x6xf32>
}
