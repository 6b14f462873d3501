// RUN: amp-opt %s -split-input-file --amp-prepare-destinations | FileCheck %s
// RUN: amp-opt %s -split-input-file --amp-prepare-destinations \
// RUN:   --one-shot-bufferize='bufferize-function-boundaries=true function-boundary-type-conversion=identity-layout-map' \
// RUN:   --cse --canonicalize | FileCheck %s --check-prefix=BUF

// One zero fill shared by two convolutions (torch-mlir's export does this):
// each gets its own fill, and bufferization copies nothing.
// CHECK-LABEL: func.func @shared_fill
// CHECK:      %[[E1:.+]] = tensor.empty() : tensor<1x4x6x6xf32>
// CHECK:      %[[F1:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%[[E1]] : tensor<1x4x6x6xf32>)
// CHECK:      linalg.conv_2d_nchw_fchw {{.*}} outs(%[[F1]] : tensor<1x4x6x6xf32>)
// CHECK:      %[[E2:.+]] = tensor.empty() : tensor<1x4x6x6xf32>
// CHECK:      %[[F2:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%[[E2]] : tensor<1x4x6x6xf32>)
// CHECK:      linalg.conv_2d_nchw_fchw {{.*}} outs(%[[F2]] : tensor<1x4x6x6xf32>)
// BUF-LABEL:  func.func @shared_fill
// BUF-NOT:    memref.copy
// BUF:        return
func.func @shared_fill(%x: tensor<1x4x8x8xf32>, %k1: tensor<4x4x3x3xf32>,
                       %k2: tensor<4x4x3x3xf32>)
    -> (tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x4x6x6xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  %a = linalg.conv_2d_nchw_fchw ins(%x, %k1 : tensor<1x4x8x8xf32>, tensor<4x4x3x3xf32>)
      outs(%f : tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  %b = linalg.conv_2d_nchw_fchw ins(%x, %k2 : tensor<1x4x8x8xf32>, tensor<4x4x3x3xf32>)
      outs(%f : tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  return %a, %b : tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32>
}

// -----

// A constant pad: a fill of the padded tensor and a linalg.copy of the
// source into its interior, which bufferizes in place (a copy loop into a
// subview; the self-copy of the insertion, between two equal subviews,
// goes with cse and canonicalize, as in the fast pipeline).
// CHECK-LABEL: func.func @pad
// CHECK-SAME: (%[[X:.+]]: tensor<2x3x4x4xbf16>)
// CHECK-NOT:  tensor.pad
// CHECK:      %[[F:.+]] = linalg.fill ins(%{{.+}} : bf16) outs(%{{.+}} : tensor<2x3x6x6xbf16>)
// CHECK:      %[[S:.+]] = tensor.extract_slice %[[F]][0, 0, 1, 1] [2, 3, 4, 4] [1, 1, 1, 1]
// CHECK:      %[[C:.+]] = linalg.copy ins(%[[X]] : tensor<2x3x4x4xbf16>) outs(%[[S]] : tensor<2x3x4x4xbf16>)
// CHECK:      %[[R:.+]] = tensor.insert_slice %[[C]] into %[[F]][0, 0, 1, 1] [2, 3, 4, 4] [1, 1, 1, 1]
// CHECK:      return %[[R]]
// BUF-LABEL:  func.func @pad
// BUF-NOT:    memref.copy
// BUF:        linalg.copy ins(%{{.+}} : memref<2x3x4x4xbf16{{.*}}>) outs(%{{.+}} : memref<2x3x4x4xbf16, strided<[108, 36, 6, 1], offset: 7>>)
// BUF-NOT:    memref.copy
// BUF:        return
func.func @pad(%x: tensor<2x3x4x4xbf16>) -> tensor<2x3x6x6xbf16> {
  %zero = arith.constant 0.0 : bf16
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : bf16
  } : tensor<2x3x4x4xbf16> to tensor<2x3x6x6xbf16>
  return %p : tensor<2x3x6x6xbf16>
}

// -----

// A rank-reducing insertion and a dynamic source stay as they are; a fill
// used once, or by something other than a linalg op's init, is not cloned.
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT:  linalg.copy
// CHECK:      tensor.insert_slice %arg0 into
// CHECK:      linalg.fill
// CHECK-NOT:  linalg.fill
// CHECK:      tensor.insert_slice %arg1 into
// CHECK-NOT:  linalg.fill
func.func @left_alone(%v: tensor<4xf32>, %d: tensor<?x4xf32>, %n: index)
    -> (tensor<3x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3x4xf32>
  %r = tensor.insert_slice %v into %e[1, 0] [1, 4] [1, 1] : tensor<4xf32> into tensor<3x4xf32>
  %e2 = tensor.empty() : tensor<8x4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e2 : tensor<8x4xf32>) -> tensor<8x4xf32>
  %s = tensor.insert_slice %d into %f[0, 0] [%n, 4] [1, 1] : tensor<?x4xf32> into tensor<8x4xf32>
  return %r, %s, %f : tensor<3x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>
}

// -----

// An insert_slice into a splat constant (torch's backward of a pad): the
// copy's destination slice of the constant folds to a constant, and the
// rewrite must still stop after one copy (it used to repeat until the
// greedy driver gave up, and the pass failed).
// CHECK-LABEL: func.func @insert_into_constant
// CHECK:       %[[C:.+]] = linalg.copy ins(%{{.+}} : tensor<2x4xf32>)
// CHECK-NOT:   linalg.copy
// CHECK:       tensor.insert_slice %[[C]] into
// CHECK-NOT:   linalg.copy
// CHECK:       return
func.func @insert_into_constant(%x: tensor<2x4xf32>) -> tensor<4x6xf32> {
  %zeros = arith.constant dense<0.0> : tensor<4x6xf32>
  %r = tensor.insert_slice %x into %zeros[1, 1] [2, 4] [1, 1]
      : tensor<2x4xf32> into tensor<4x6xf32>
  return %r : tensor<4x6xf32>
}
