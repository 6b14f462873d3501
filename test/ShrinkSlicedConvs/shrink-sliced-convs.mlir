// amp-shrink-sliced-convs: a convolution whose only use is a smaller
// tensor.extract_slice (through reshapes and elementwise ops) computes just
// that slice: its output, its init's fill and the input window it reads
// shrink.
// RUN: amp-opt %s --split-input-file --amp-shrink-sliced-convs | FileCheck %s

// torch-mlir's weight gradient of a 1x1 convolution of stride 2: a grouped
// convolution (batch 4 as the groups) with a 2x2 output window of which the
// 1x1 corner is read, through a collapse_shape and two slices.
// CHECK-LABEL: func.func @weight_gradient
// CHECK-SAME:    (%[[X:.+]]: tensor<16x4x1x14x14xf32>, %[[DY:.+]]: tensor<4x32x1x7x7xf32>)
// CHECK:         %[[XS:.+]] = tensor.extract_slice %[[X]][0, 0, 0, 0, 0] [16, 4, 1, 13, 13] [1, 1, 1, 1, 1]
// CHECK:         %[[E:.+]] = tensor.empty() : tensor<16x4x32x1x1xf32>
// CHECK:         %[[F:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%[[E]] : tensor<16x4x32x1x1xf32>)
// CHECK:         %[[C:.+]] = linalg.conv_2d_ngchw_gfchw {dilations = dense<2> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
// CHECK-SAME:      ins(%[[XS]], %[[DY]] : tensor<16x4x1x13x13xf32>, tensor<4x32x1x7x7xf32>) outs(%[[F]] : tensor<16x4x32x1x1xf32>)
// CHECK:         tensor.collapse_shape %[[C]] {{\[}}[0], [1, 2], [3], [4]] : tensor<16x4x32x1x1xf32> into tensor<16x128x1x1xf32>
// CHECK-NOT:     tensor.extract_slice
func.func @weight_gradient(%x: tensor<16x4x1x14x14xf32>, %dy: tensor<4x32x1x7x7xf32>) -> tensor<16x128x1x1xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x4x32x2x2xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<16x4x32x2x2xf32>) -> tensor<16x4x32x2x2xf32>
  %c = linalg.conv_2d_ngchw_gfchw {dilations = dense<2> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
    ins(%x, %dy : tensor<16x4x1x14x14xf32>, tensor<4x32x1x7x7xf32>) outs(%f : tensor<16x4x32x2x2xf32>) -> tensor<16x4x32x2x2xf32>
  %r = tensor.collapse_shape %c [[0], [1, 2], [3], [4]] : tensor<16x4x32x2x2xf32> into tensor<16x128x2x2xf32>
  %s1 = tensor.extract_slice %r[0, 0, 0, 0] [16, 128, 1, 2] [1, 1, 1, 1] : tensor<16x128x2x2xf32> to tensor<16x128x1x2xf32>
  %s2 = tensor.extract_slice %s1[0, 0, 0, 0] [16, 128, 1, 1] [1, 1, 1, 1] : tensor<16x128x1x2xf32> to tensor<16x128x1x1xf32>
  return %s2 : tensor<16x128x1x1xf32>
}

// -----

// Through an elementwise op (the AMP rounding of the result).
// CHECK-LABEL: func.func @through_rounding
// CHECK:         %[[XS:.+]] = tensor.extract_slice %{{.+}}[0, 0, 0, 0] [2, 3, 7, 7] [1, 1, 1, 1]
// CHECK:         %[[C:.+]] = linalg.conv_2d_nchw_fchw {{.*}} ins(%[[XS]], %{{.+}} : tensor<2x3x7x7xbf16>, tensor<8x3x3x3xbf16>) outs(%{{.+}} : tensor<2x8x3x3xf32>)
// CHECK:         %[[T:.+]] = linalg.generic {{.*}} ins(%[[C]] : tensor<2x8x3x3xf32>) outs(%{{.+}} : tensor<2x8x3x3xbf16>)
// CHECK-NOT:     tensor.extract_slice
// CHECK:         return %[[T]]
#id = affine_map<(n, c, h, w) -> (n, c, h, w)>
func.func @through_rounding(%x: tensor<2x3x10x10xbf16>, %w: tensor<8x3x3x3xbf16>) -> tensor<2x8x3x3xbf16> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x8x4x4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x8x4x4xf32>) -> tensor<2x8x4x4xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>}
    ins(%x, %w : tensor<2x3x10x10xbf16>, tensor<8x3x3x3xbf16>) outs(%f : tensor<2x8x4x4xf32>) -> tensor<2x8x4x4xf32>
  %eb = tensor.empty() : tensor<2x8x4x4xbf16>
  %t = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c : tensor<2x8x4x4xf32>) outs(%eb : tensor<2x8x4x4xbf16>) {
  ^bb0(%in: f32, %out: bf16):
    %r = arith.truncf %in : f32 to bf16
    linalg.yield %r : bf16
  } -> tensor<2x8x4x4xbf16>
  %s = tensor.extract_slice %t[0, 0, 0, 0] [2, 8, 3, 3] [1, 1, 1, 1] : tensor<2x8x4x4xbf16> to tensor<2x8x3x3xbf16>
  return %s : tensor<2x8x3x3xbf16>
}

// -----

// A result read whole elsewhere too: the convolution stays as it is.
// CHECK-LABEL: func.func @other_use
// CHECK:         %[[C:.+]] = linalg.conv_2d_nchw_fchw {{.*}} outs(%{{.+}} : tensor<2x8x4x4xf32>)
// CHECK:         tensor.extract_slice %[[C]][0, 0, 0, 0] [2, 8, 3, 3]
func.func @other_use(%x: tensor<2x3x10x10xf32>, %w: tensor<8x3x3x3xf32>) -> (tensor<2x8x3x3xf32>, tensor<2x8x4x4xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x8x4x4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x8x4x4xf32>) -> tensor<2x8x4x4xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>}
    ins(%x, %w : tensor<2x3x10x10xf32>, tensor<8x3x3x3xf32>) outs(%f : tensor<2x8x4x4xf32>) -> tensor<2x8x4x4xf32>
  %s = tensor.extract_slice %c[0, 0, 0, 0] [2, 8, 3, 3] [1, 1, 1, 1] : tensor<2x8x4x4xf32> to tensor<2x8x3x3xf32>
  return %s, %c : tensor<2x8x3x3xf32>, tensor<2x8x4x4xf32>
}

// -----

// torch-mlir's data gradient of a convolution whose output was concatenated
// (DenseNet's layer: the gradient of its one new channel, channel 3 of 4, is
// sliced out of a 4-channel one): the filter is flipped and transposed by a
// generic that reads it by linalg.index. Its slice must read filter channel
// 3: the index of the sliced dimension is offset (the pattern that sliced
// the generic without offsetting its indices read channel 0: wrong
// gradients, found by tools/amp-fuzz/torch-fuzz.py seed 32).
// CHECK-LABEL: func.func @sliced_data_gradient_of_indexed_filter
// CHECK-SAME:    (%[[DY:.+]]: tensor<2x16x15x15xf32>, %[[W:.+]]: tensor<16x4x3x3xf32>)
// CHECK-DAG:     %[[C3:.+]] = arith.constant 3 : index
// CHECK:         %[[FLIP:.+]] = linalg.generic {{.*}} outs(%{{.+}} : tensor<1x16x3x3xf32>)
// CHECK:           %[[I1:.+]] = linalg.index 1 : index
// CHECK:           tensor.extract %[[W]][%[[I1]], %[[C3]], %{{.+}}, %{{.+}}] : tensor<16x4x3x3xf32>
// CHECK:         linalg.conv_2d_nchw_fchw {{.*}} ins(%[[DY]], %[[FLIP]] : tensor<2x16x15x15xf32>, tensor<1x16x3x3xf32>) outs(%{{.+}} : tensor<2x1x13x13xf32>)
// CHECK-NOT:     tensor.extract_slice
#flip_out = affine_map<(f, c, h, w) -> (f, c, h, w)>
func.func @sliced_data_gradient_of_indexed_filter(%dy: tensor<2x16x15x15xf32>, %w: tensor<16x4x3x3xf32>) -> tensor<2x1x13x13xf32> {
  %zero = arith.constant 0.0 : f32
  %c2 = arith.constant 2 : index
  %ef = tensor.empty() : tensor<4x16x3x3xf32>
  %flip = linalg.generic {indexing_maps = [#flip_out], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      outs(%ef : tensor<4x16x3x3xf32>) {
  ^bb0(%out: f32):
    %i0 = linalg.index 0 : index
    %i1 = linalg.index 1 : index
    %i2 = linalg.index 2 : index
    %i3 = linalg.index 3 : index
    %h = arith.subi %c2, %i2 : index
    %v = arith.subi %c2, %i3 : index
    %x = tensor.extract %w[%i1, %i0, %h, %v] : tensor<16x4x3x3xf32>
    linalg.yield %x : f32
  } -> tensor<4x16x3x3xf32>
  %e = tensor.empty() : tensor<2x4x13x13xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x4x13x13xf32>) -> tensor<2x4x13x13xf32>
  %dx = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
    ins(%dy, %flip : tensor<2x16x15x15xf32>, tensor<4x16x3x3xf32>) outs(%f : tensor<2x4x13x13xf32>) -> tensor<2x4x13x13xf32>
  %s = tensor.extract_slice %dx[0, 3, 0, 0] [2, 1, 13, 13] [1, 1, 1, 1] : tensor<2x4x13x13xf32> to tensor<2x1x13x13xf32>
  return %s : tensor<2x1x13x13xf32>
}
