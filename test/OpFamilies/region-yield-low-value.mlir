// A low op whose region yields a low value defined outside (a tensor.extract
// of a low tensor) yields it as is: no arith.extf in the terminator (the
// output would not verify: yield type f32 for an f16 result).
// RUN: amp-opt %s --amp-auto-mixed-precision | FileCheck %s
// RUN: amp-opt %s --amp-auto-mixed-precision | mlir-opt --verify-each -o /dev/null

// CHECK-LABEL: func.func @pad_value_low
// CHECK:         %[[T:.*]] = math.tanh %{{.*}} : tensor<8x8xf16>
// CHECK-NEXT:    %[[V:.*]] = tensor.extract %[[T]][%{{.*}}, %{{.*}}] : tensor<8x8xf16>
// CHECK-NEXT:    %[[P:.*]] = tensor.pad %[[T]] low[1, 1] high[1, 1] {
// CHECK-NEXT:    ^bb0(%{{.*}}: index, %{{.*}}: index):
// CHECK-NEXT:      tensor.yield %[[V]] : f16
// CHECK-NEXT:    } : tensor<8x8xf16> to tensor<10x10xf16>
// CHECK-NEXT:    linalg.matmul ins(%[[P]], %{{.*}} : tensor<10x10xf16>, tensor<10x10xf16>) outs(%{{.*}} : tensor<10x10xf32>) -> tensor<10x10xf32>
func.func @pad_value_low(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>, %c: tensor<8x8xf32>, %d: tensor<10x10xf32>) -> tensor<10x10xf32> {
  %i = arith.constant 0 : index
  %0 = linalg.matmul ins(%a, %b : tensor<8x8xf32>, tensor<8x8xf32>) outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
  %t = math.tanh %0 : tensor<8x8xf32>
  %v = tensor.extract %t[%i, %i] : tensor<8x8xf32>
  %1 = tensor.pad %t low[1, 1] high[1, 1] {
  ^bb0(%x: index, %y: index):
    tensor.yield %v : f32
  } : tensor<8x8xf32> to tensor<10x10xf32>
  %2 = linalg.matmul ins(%1, %d : tensor<10x10xf32>, tensor<10x10xf32>) outs(%d : tensor<10x10xf32>) -> tensor<10x10xf32>
  return %2 : tensor<10x10xf32>
}

#id = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @generic_yields_low_value
// CHECK:         %[[T:.*]] = math.tanh %{{.*}} : tensor<8x8xf16>
// CHECK-NEXT:    %[[V:.*]] = tensor.extract %[[T]][%{{.*}}, %{{.*}}] : tensor<8x8xf16>
// CHECK-NEXT:    %[[G:.*]] = linalg.generic
// CHECK-SAME:      ins(%[[T]] : tensor<8x8xf16>) outs(%{{.*}} : tensor<8x8xf16>)
// CHECK-NEXT:    ^bb0(%{{.*}}: f16, %{{.*}}: f16):
// CHECK-NEXT:      linalg.yield %[[V]] : f16
// CHECK-NEXT:    } -> tensor<8x8xf16>
func.func @generic_yields_low_value(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>, %c: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %i = arith.constant 0 : index
  %0 = linalg.matmul ins(%a, %b : tensor<8x8xf32>, tensor<8x8xf32>) outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
  %t = math.tanh %0 : tensor<8x8xf32>
  %v = tensor.extract %t[%i, %i] : tensor<8x8xf32>
  %1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
    ins(%t : tensor<8x8xf32>) outs(%c : tensor<8x8xf32>) {
  ^bb0(%x: f32, %o: f32):
    linalg.yield %v : f32
  } -> tensor<8x8xf32>
  %2 = linalg.matmul ins(%1, %b : tensor<8x8xf32>, tensor<8x8xf32>) outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %2 : tensor<8x8xf32>
}
