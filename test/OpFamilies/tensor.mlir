// tensor ops (clear) between matmuls follow them into f16. tensor.pad's
// region yields the pad value: it is truncated inside the region.
//
// RUN: amp-opt %s --amp-auto-mixed-precision | FileCheck %s
// RUN: amp-opt %s --amp-auto-mixed-precision=mode=bf16 | FileCheck %s --check-prefix=BF16
// RUN: amp-opt %s --amp-auto-mixed-precision | mlir-opt --verify-each -o /dev/null

// CHECK-LABEL: func.func @pad_between_matmuls
// CHECK-DAG:     %[[PV:.*]] = arith.constant 1.500000e+00 : f32
// CHECK:         %[[MM:.*]] = linalg.matmul {{.*}} -> tensor<8x8xf32>
// CHECK-NEXT:    %[[MM16:.*]] = arith.truncf %[[MM]] : tensor<8x8xf32> to tensor<8x8xf16>
// CHECK-NEXT:    %[[P:.*]] = tensor.pad %[[MM16]] low[1, 1] high[1, 1] {
// CHECK-NEXT:    ^bb0(%{{.*}}: index, %{{.*}}: index):
// CHECK-NEXT:      %[[PV16:.*]] = arith.truncf %[[PV]] : f32 to f16
// CHECK-NEXT:      tensor.yield %[[PV16]] : f16
// CHECK-NEXT:    } : tensor<8x8xf16> to tensor<10x10xf16>
// CHECK-NEXT:    %[[S:.*]] = tensor.extract_slice %[[P]][0, 0] [8, 10] [1, 1] : tensor<10x10xf16> to tensor<8x10xf16>
// CHECK:         linalg.matmul ins(%[[S]], %{{.*}} : tensor<8x10xf16>, tensor<10x10xf16>) outs(%{{.*}} : tensor<8x10xf32>) -> tensor<8x10xf32>
// BF16-LABEL: func.func @pad_between_matmuls
// BF16:         tensor.pad %{{.*}} low[1, 1] high[1, 1] {
// BF16-NEXT:    ^bb0(%{{.*}}: index, %{{.*}}: index):
// BF16-NEXT:      %[[PV16:.*]] = arith.truncf %{{.*}} : f32 to bf16
// BF16-NEXT:      tensor.yield %[[PV16]] : bf16
// BF16-NEXT:    } : tensor<8x8xbf16> to tensor<10x10xbf16>
func.func @pad_between_matmuls(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>, %w: tensor<10x10xf32>) -> tensor<8x10xf32> {
  %c = arith.constant 0.0 : f32
  %pv = arith.constant 1.5 : f32
  %e = tensor.empty() : tensor<8x8xf32>
  %z = linalg.fill ins(%c : f32) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<8x8xf32>, tensor<8x8xf32>) outs(%z : tensor<8x8xf32>) -> tensor<8x8xf32>
  %1 = tensor.pad %0 low[1, 1] high[1, 1] {
  ^bb0(%i: index, %j: index):
    tensor.yield %pv : f32
  } : tensor<8x8xf32> to tensor<10x10xf32>
  %s = tensor.extract_slice %1[0, 0] [8, 10] [1, 1] : tensor<10x10xf32> to tensor<8x10xf32>
  %e2 = tensor.empty() : tensor<8x10xf32>
  %z2 = linalg.fill ins(%c : f32) outs(%e2 : tensor<8x10xf32>) -> tensor<8x10xf32>
  %2 = linalg.matmul ins(%s, %w : tensor<8x10xf32>, tensor<10x10xf32>) outs(%z2 : tensor<8x10xf32>) -> tensor<8x10xf32>
  return %2 : tensor<8x10xf32>
}

// A pad value computed inside the region is computed in f32 and truncated
// right before the yield.
// CHECK-LABEL: func.func @pad_computed_value
// CHECK:         tensor.pad %{{.*}} low[0, 1] high[0, 1] {
// CHECK-NEXT:    ^bb0(%{{.*}}: index, %{{.*}}: index):
// CHECK-NEXT:      %[[V:.*]] = arith.negf %{{.*}} : f32
// CHECK-NEXT:      %[[V16:.*]] = arith.truncf %[[V]] : f32 to f16
// CHECK-NEXT:      tensor.yield %[[V16]] : f16
// CHECK-NEXT:    } : tensor<8x8xf16> to tensor<8x10xf16>
func.func @pad_computed_value(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>, %c: tensor<8x8xf32>, %w: tensor<10x8xf32>, %d: tensor<8x8xf32>, %s: f32) -> tensor<8x8xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<8x8xf32>, tensor<8x8xf32>) outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
  %1 = tensor.pad %0 low[0, 1] high[0, 1] {
  ^bb0(%i: index, %j: index):
    %v = arith.negf %s : f32
    tensor.yield %v : f32
  } : tensor<8x8xf32> to tensor<8x10xf32>
  %2 = linalg.matmul ins(%1, %w : tensor<8x10xf32>, tensor<10x8xf32>) outs(%d : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %2 : tensor<8x8xf32>
}

// A pad region that computes from a scalar which an earlier rewrite made f16
// reads an extf of it and truncates what it yields.
// CHECK-LABEL: func.func @pad_region_reads_low
// CHECK:         %[[V:.*]] = tensor.extract %{{.*}}[%{{.*}}, %{{.*}}] : tensor<8x8xf16>
// CHECK-NEXT:    %[[V32:.*]] = arith.extf %[[V]] : f16 to f32
// CHECK-NEXT:    tensor.pad %{{.*}} low[1, 1] high[1, 1] {
// CHECK-NEXT:    ^bb0(%{{.*}}: index, %{{.*}}: index):
// CHECK-NEXT:      %[[N:.*]] = arith.negf %[[V32]] : f32
// CHECK-NEXT:      %[[N16:.*]] = arith.truncf %[[N]] : f32 to f16
// CHECK-NEXT:      tensor.yield %[[N16]] : f16
// CHECK-NEXT:    } : tensor<8x8xf16> to tensor<10x10xf16>
func.func @pad_region_reads_low(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>, %c: tensor<8x8xf32>, %d: tensor<10x10xf32>) -> tensor<10x10xf32> {
  %i = arith.constant 0 : index
  %0 = linalg.matmul ins(%a, %b : tensor<8x8xf32>, tensor<8x8xf32>) outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
  %t = math.tanh %0 : tensor<8x8xf32>
  %v = tensor.extract %t[%i, %i] : tensor<8x8xf32>
  %1 = tensor.pad %t low[1, 1] high[1, 1] {
  ^bb0(%x: index, %y: index):
    %n = arith.negf %v : f32
    tensor.yield %n : f32
  } : tensor<8x8xf32> to tensor<10x10xf32>
  %2 = linalg.matmul ins(%1, %d : tensor<10x10xf32>, tensor<10x10xf32>) outs(%d : tensor<10x10xf32>) -> tensor<10x10xf32>
  return %2 : tensor<10x10xf32>
}

// expand_shape -> collapse_shape -> extract_slice -> insert_slice -> concat
// between matmuls: all f16 (the insert_slice destination is truncated); an
// extracted scalar returned from the function is extended back to f32.
// CHECK-LABEL: func.func @reshapes_and_slices
// CHECK-SAME:    (%{{.*}}: tensor<8x8xf32>, %{{.*}}: tensor<8x8xf32>, %[[C:.*]]: tensor<8x8xf32>, %[[ACC:.*]]: tensor<16x8xf32>) -> (tensor<16x8xf32>, f32)
// CHECK-DAG:     %[[C16:.*]] = arith.truncf %[[C]] : tensor<8x8xf32> to tensor<8x8xf16>
// CHECK:         %[[MM:.*]] = linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<8x8xf16>, tensor<8x8xf16>) outs(%[[C]] : tensor<8x8xf32>) -> tensor<8x8xf32>
// CHECK-NEXT:    %[[MM16:.*]] = arith.truncf %[[MM]] : tensor<8x8xf32> to tensor<8x8xf16>
// CHECK-NEXT:    %[[EX:.*]] = tensor.expand_shape %[[MM16]] {{\[\[}}0, 1], [2]] output_shape [2, 4, 8] : tensor<8x8xf16> into tensor<2x4x8xf16>
// CHECK-NEXT:    %[[CO:.*]] = tensor.collapse_shape %[[EX]] {{\[\[}}0, 1], [2]] : tensor<2x4x8xf16> into tensor<8x8xf16>
// CHECK-NEXT:    %[[SL:.*]] = tensor.extract_slice %[[CO]][0, 0] [4, 8] [1, 1] : tensor<8x8xf16> to tensor<4x8xf16>
// CHECK-NEXT:    %[[IN:.*]] = tensor.insert_slice %[[SL]] into %[[C16]][4, 0] [4, 8] [1, 1] : tensor<4x8xf16> into tensor<8x8xf16>
// CHECK-NEXT:    %[[CAT:.*]] = tensor.concat dim(0) %[[IN]], %[[CO]] : (tensor<8x8xf16>, tensor<8x8xf16>) -> tensor<16x8xf16>
// CHECK-NEXT:    %[[R:.*]] = linalg.matmul ins(%[[CAT]], %{{.*}} : tensor<16x8xf16>, tensor<8x8xf16>) outs(%[[ACC]] : tensor<16x8xf32>) -> tensor<16x8xf32>
// CHECK:         %[[X:.*]] = tensor.extract %[[CO]][%{{.*}}, %{{.*}}] : tensor<8x8xf16>
// CHECK-NEXT:    %[[X32:.*]] = arith.extf %[[X]] : f16 to f32
// CHECK-NEXT:    return %[[R]], %[[X32]] : tensor<16x8xf32>, f32
func.func @reshapes_and_slices(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>, %c: tensor<8x8xf32>, %acc: tensor<16x8xf32>) -> (tensor<16x8xf32>, f32) {
  %0 = linalg.matmul ins(%a, %b : tensor<8x8xf32>, tensor<8x8xf32>) outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
  %1 = tensor.expand_shape %0 [[0, 1], [2]] output_shape [2, 4, 8] : tensor<8x8xf32> into tensor<2x4x8xf32>
  %2 = tensor.collapse_shape %1 [[0, 1], [2]] : tensor<2x4x8xf32> into tensor<8x8xf32>
  %3 = tensor.extract_slice %2[0, 0] [4, 8] [1, 1] : tensor<8x8xf32> to tensor<4x8xf32>
  %4 = tensor.insert_slice %3 into %c[4, 0] [4, 8] [1, 1] : tensor<4x8xf32> into tensor<8x8xf32>
  %5 = tensor.concat dim(0) %4, %2 : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<16x8xf32>
  %6 = linalg.matmul ins(%5, %b : tensor<16x8xf32>, tensor<8x8xf32>) outs(%acc : tensor<16x8xf32>) -> tensor<16x8xf32>
  %i = arith.constant 0 : index
  %x = tensor.extract %2[%i, %i] : tensor<8x8xf32>
  return %6, %x : tensor<16x8xf32>, f32
}

// Data movement after the last matmul with no low consumer stays f32 and
// reads the accumulator directly.
// CHECK-LABEL: func.func @movement_after_matmul
// CHECK:         %[[MM:.*]] = linalg.matmul {{.*}} -> tensor<8x8xf32>
// CHECK-NEXT:    %[[EX:.*]] = tensor.expand_shape %[[MM]] {{.*}} : tensor<8x8xf32> into tensor<2x4x8xf32>
// CHECK-NEXT:    return %[[EX]] : tensor<2x4x8xf32>
func.func @movement_after_matmul(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>, %c: tensor<8x8xf32>) -> tensor<2x4x8xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<8x8xf32>, tensor<8x8xf32>) outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
  %1 = tensor.expand_shape %0 [[0, 1], [2]] output_shape [2, 4, 8] : tensor<8x8xf32> into tensor<2x4x8xf32>
  return %1 : tensor<2x4x8xf32>
}
