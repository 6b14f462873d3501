// RUN: amp-opt %s -split-input-file --amp-block-convs | FileCheck %s

// Two convolutions with a batch-norm / ReLU / pad between them: both become
// generics on nChw16c activations, the layout changes only at the ends (the
// input's pack as an expand_shape + transpose, the result's unpack as a
// transpose + collapse_shape), and the ops between run on blocked tensors.
// CHECK-DAG:   #[[IN:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8) -> (d0, d5, d2 + d7, d3 + d8, d6)>
// CHECK-DAG:   #[[FILTER:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8) -> (d1 * 16 + d4, d5 * 16 + d6, d7, d8)>
// CHECK-DAG:   #[[OUT:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8) -> (d0, d1, d2, d3, d4)>
// CHECK-LABEL: func.func @chain(
// CHECK-SAME:    %[[X:.+]]: tensor<2x32x8x8xbf16>, %[[W1:.+]]: tensor<32x32x3x3xbf16>, %[[W2:.+]]: tensor<16x32x3x3xbf16>, %[[G:.+]]: tensor<32xf32>
// CHECK-NOT:   linalg.pack
// CHECK-NOT:   linalg.unpack
// CHECK:       %[[XE:.+]] = tensor.expand_shape %[[X]] {{\[\[}}0], [1, 2], [3], [4]] output_shape [2, 2, 16, 8, 8]
// CHECK:       %[[XT:.+]] = linalg.transpose ins(%[[XE]] : tensor<2x2x16x8x8xbf16>) {{.*}} permutation = [0, 1, 3, 4, 2]
// CHECK:       %[[XP:.+]] = tensor.pad %[[XT]] low[0, 0, 1, 1, 0] high[0, 0, 1, 1, 0]
// CHECK:       %[[C1:.+]] = linalg.generic {indexing_maps = [#[[IN]], #[[FILTER]], #[[OUT]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction", "reduction"]}
// CHECK-SAME:    ins(%[[XP]], %[[W1]] : tensor<2x2x10x10x16xbf16>, tensor<32x32x3x3xbf16>) outs(%{{.+}} : tensor<2x2x8x8x16xf32>) attrs = {amp.blocked_conv = array<i64: 1, 1, 1, 1>}
// CHECK:         arith.extf
// CHECK:         arith.extf
// CHECK:         arith.mulf
// CHECK:         arith.addf
// CHECK:       %[[GE:.+]] = tensor.expand_shape %[[G]] {{\[\[}}0, 1]] output_shape [2, 16]
// CHECK:       %[[BN:.+]] = linalg.generic {{.*}} ins(%[[C1]], %[[GE]] : tensor<2x2x8x8x16xf32>, tensor<2x16xf32>) outs(%{{.+}} : tensor<2x2x8x8x16xbf16>)
// CHECK:       %[[C2:.+]] = linalg.generic {{.*}} ins(%[[BN]], %[[W2]] : tensor<2x2x8x8x16xbf16>, tensor<16x32x3x3xbf16>) outs(%{{.+}} : tensor<2x1x6x6x16xf32>) attrs = {amp.blocked_conv = array<i64: 1, 1, 1, 1>}
// CHECK:       %[[YT:.+]] = linalg.transpose ins(%[[C2]] : tensor<2x1x6x6x16xf32>) {{.*}} permutation = [0, 1, 4, 2, 3]
// CHECK:       %[[Y:.+]] = tensor.collapse_shape %[[YT]] {{\[\[}}0], [1, 2], [3], [4]] : tensor<2x1x16x6x6xf32> into tensor<2x16x6x6xf32>
// The unpack's destination is an empty tensor: no linalg.copy into it.
// CHECK:       %[[YS:.+]] = tensor.extract_slice %[[Y]]
// CHECK-NOT:   linalg.pack
// CHECK-NOT:   linalg.unpack
// CHECK-NOT:   linalg.copy
// CHECK:       return %[[YS]]
#id = affine_map<(n, c, h, w) -> (n, c, h, w)>
#ch = affine_map<(n, c, h, w) -> (c)>
func.func @chain(%x: tensor<2x32x8x8xbf16>, %w1: tensor<32x32x3x3xbf16>,
                 %w2: tensor<16x32x3x3xbf16>, %g: tensor<32xf32>)
    -> tensor<2x16x6x6xf32> {
  %zero = arith.constant 0.0 : f32
  %zb = arith.constant 0.0 : bf16
  %p0 = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zb : bf16
  } : tensor<2x32x8x8xbf16> to tensor<2x32x10x10xbf16>
  %e1 = tensor.empty() : tensor<2x32x8x8xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<2x32x8x8xf32>) -> tensor<2x32x8x8xf32>
  %c1 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
      ins(%p0, %w1 : tensor<2x32x10x10xbf16>, tensor<32x32x3x3xbf16>) outs(%f1 : tensor<2x32x8x8xf32>) -> tensor<2x32x8x8xf32>
  %e2 = tensor.empty() : tensor<2x32x8x8xbf16>
  %r = linalg.generic {indexing_maps = [#id, #ch, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c1, %g : tensor<2x32x8x8xf32>, tensor<32xf32>) outs(%e2 : tensor<2x32x8x8xbf16>) {
  ^bb0(%a: f32, %gg: f32, %o: bf16):
    %m = arith.mulf %a, %gg : f32
    %mx = arith.maximumf %m, %zero : f32
    %t = arith.truncf %mx : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<2x32x8x8xbf16>
  %e3 = tensor.empty() : tensor<2x16x6x6xf32>
  %f3 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<2x16x6x6xf32>) -> tensor<2x16x6x6xf32>
  %c2 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
      ins(%r, %w2 : tensor<2x32x8x8xbf16>, tensor<16x32x3x3xbf16>) outs(%f3 : tensor<2x16x6x6xf32>) -> tensor<2x16x6x6xf32>
  return %c2 : tensor<2x16x6x6xf32>
}

// -----

// Strides and dilations are kept in the maps and in the attribute.
// CHECK:       #[[IN2:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8) -> (d0, d5, d2 * 2 + d7, d3 + d8 * 3, d6)>
// CHECK-LABEL: func.func @strided_dilated(
// CHECK:       linalg.generic {indexing_maps = [#[[IN2]], #{{.+}}, #{{.+}}], {{.*}} attrs = {amp.blocked_conv = array<i64: 2, 1, 1, 3>}
func.func @strided_dilated(%x: tensor<1x16x9x9xf32>, %w: tensor<16x16x3x2xf32>,
                           %y: tensor<1x16x4x6xf32>) -> tensor<1x16x4x6xf32> {
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<[1, 3]> : vector<2xi64>, strides = dense<[2, 1]> : vector<2xi64>}
      ins(%x, %w : tensor<1x16x9x9xf32>, tensor<16x16x3x2xf32>) outs(%y : tensor<1x16x4x6xf32>) -> tensor<1x16x4x6xf32>
  return %c : tensor<1x16x4x6xf32>
}

// -----

// Depthwise convolutions: over (n, cb, p, q, ci, r, s), the filter CHW read
// at (cb * 16 + ci, r, s); two in a row stay blocked between them (the
// second's 3x3 filter is larger than its 1x1 output, which for a dense
// convolution would mean a weight gradient). A depthwise convolution on 8
// channels is left alone.
// CHECK-DAG:   #[[DIN:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2 * 2 + d5, d3 * 2 + d6, d4)>
// CHECK-DAG:   #[[DF:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1 * 16 + d4, d5, d6)>
// CHECK-DAG:   #[[DOUT:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3, d4)>
// CHECK-LABEL: func.func @depthwise(
// CHECK:       %[[D1:.+]] = linalg.generic {indexing_maps = [#[[DIN]], #[[DF]], #[[DOUT]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]}
// CHECK-SAME:    ins(%{{.+}}, %{{.+}} : tensor<2x2x9x9x16xf32>, tensor<32x3x3xf32>) outs(%{{.+}} : tensor<2x2x4x4x16xf32>) attrs = {amp.blocked_conv = array<i64: 2, 2, 1, 1>}
// CHECK:         arith.mulf
// CHECK:         arith.addf
// CHECK-NOT:   tensor.collapse_shape
// CHECK:       linalg.generic {indexing_maps = [#[[DIN]], #[[DF]], #[[DOUT]]], {{.*}} ins(%[[D1]], %{{.+}} : tensor<2x2x4x4x16xf32>, tensor<32x3x3xf32>) {{.*}} attrs = {amp.blocked_conv = array<i64: 2, 2, 1, 1>}
// CHECK:       tensor.collapse_shape
// CHECK:       linalg.depthwise_conv_2d_nchw_chw
// CHECK-SAME:    tensor<1x8x6x6xf32>
func.func @depthwise(%x: tensor<2x32x9x9xf32>, %w: tensor<32x3x3xf32>, %y: tensor<2x32x4x4xf32>,
                     %y2: tensor<2x32x1x1xf32>, %x8: tensor<1x8x6x6xf32>, %w8: tensor<8x3x3xf32>,
                     %y8: tensor<1x8x4x4xf32>) -> (tensor<2x32x1x1xf32>, tensor<1x8x4x4xf32>) {
  %a = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%x, %w : tensor<2x32x9x9xf32>, tensor<32x3x3xf32>) outs(%y : tensor<2x32x4x4xf32>) -> tensor<2x32x4x4xf32>
  %b = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%a, %w : tensor<2x32x4x4xf32>, tensor<32x3x3xf32>) outs(%y2 : tensor<2x32x1x1xf32>) -> tensor<2x32x1x1xf32>
  %c = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x8, %w8 : tensor<1x8x6x6xf32>, tensor<8x3x3xf32>) outs(%y8 : tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  return %b, %c : tensor<2x32x1x1xf32>, tensor<1x8x4x4xf32>
}

// -----

// A stem on RGB (3 input channels): the input stays NCHW, the output is
// blocked, over (n, kb, p, q, ki, c, r, s).
// CHECK-DAG:   #[[SIN:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d5, d2 * 2 + d6, d3 * 2 + d7)>
// CHECK-DAG:   #[[SF:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d1 * 16 + d4, d5, d6, d7)>
// CHECK-DAG:   #[[SOUT:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d3, d4)>
// CHECK-LABEL: func.func @stem(
// CHECK-SAME:    %[[RGB:[a-z0-9]+]]: tensor<1x3x9x9xf32>
// CHECK:       linalg.generic {indexing_maps = [#[[SIN]], #[[SF]], #[[SOUT]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
// CHECK-SAME:    ins(%[[RGB]], %{{.+}} : tensor<1x3x9x9xf32>, tensor<32x3x3x3xf32>) outs(%{{.+}} : tensor<1x2x4x4x16xf32>) attrs = {amp.blocked_conv = array<i64: 2, 2, 1, 1>}
func.func @stem(%rgb: tensor<1x3x9x9xf32>, %w: tensor<32x3x3x3xf32>, %y: tensor<1x32x4x4xf32>) -> tensor<1x32x4x4xf32> {
  %a = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>}
      ins(%rgb, %w : tensor<1x3x9x9xf32>, tensor<32x3x3x3xf32>) outs(%y : tensor<1x32x4x4xf32>) -> tensor<1x32x4x4xf32>
  return %a : tensor<1x32x4x4xf32>
}

// -----

// Left alone: 8 output channels, a weight gradient written as a
// convolution (its 6x6 filter is larger than its 3x3 output), dynamic
// shapes, and NHWC.
// CHECK-LABEL: func.func @left_alone(
// CHECK-NOT:   amp.blocked_conv
// CHECK-COUNT-4: linalg.conv_2d_
// CHECK-NOT:   amp.blocked_conv
// CHECK:       return
func.func @left_alone(%x: tensor<1x16x8x8xf32>, %w8: tensor<8x16x3x3xf32>, %y8: tensor<1x8x6x6xf32>,
                      %wg: tensor<16x16x6x6xf32>, %yg: tensor<1x16x3x3xf32>,
                      %xd: tensor<?x16x8x8xf32>, %w16: tensor<16x16x3x3xf32>, %yd: tensor<?x16x6x6xf32>,
                      %xn: tensor<1x8x8x16xf32>, %wn: tensor<3x3x16x16xf32>, %yn: tensor<1x6x6x16xf32>)
    -> (tensor<1x8x6x6xf32>, tensor<1x16x3x3xf32>, tensor<?x16x6x6xf32>, tensor<1x6x6x16xf32>) {
  %b = linalg.conv_2d_nchw_fchw ins(%x, %w8 : tensor<1x16x8x8xf32>, tensor<8x16x3x3xf32>) outs(%y8 : tensor<1x8x6x6xf32>) -> tensor<1x8x6x6xf32>
  %c = linalg.conv_2d_nchw_fchw ins(%x, %wg : tensor<1x16x8x8xf32>, tensor<16x16x6x6xf32>) outs(%yg : tensor<1x16x3x3xf32>) -> tensor<1x16x3x3xf32>
  %d = linalg.conv_2d_nchw_fchw ins(%xd, %w16 : tensor<?x16x8x8xf32>, tensor<16x16x3x3xf32>) outs(%yd : tensor<?x16x6x6xf32>) -> tensor<?x16x6x6xf32>
  %e = linalg.conv_2d_nhwc_hwcf ins(%xn, %wn : tensor<1x8x8x16xf32>, tensor<3x3x16x16xf32>) outs(%yn : tensor<1x6x6x16xf32>) -> tensor<1x6x6x16xf32>
  return %b, %c, %d, %e : tensor<1x8x6x6xf32>, tensor<1x16x3x3xf32>, tensor<?x16x6x6xf32>, tensor<1x6x6x16xf32>
}

// -----

// Train-mode batch norm squares the centered activation (a generic reading
// the same value twice) before summing it per channel: the duplicate input
// is merged first, so the unpack still moves past the square and the sum,
// and only the per-channel result changes layout.
// CHECK-LABEL: func.func @square_then_sum(
// CHECK:       %[[C:.+]] = linalg.generic {{.*}} attrs = {amp.blocked_conv
// CHECK:       %[[SQ:.+]] = linalg.generic {{.*}} ins(%[[C]] : tensor<2x2x6x6x16xf32>)
// CHECK:         arith.mulf %[[IN:.+]], %[[IN]] : f32
// CHECK:       %[[SUM:.+]] = linalg.generic {{.*}} ins(%[[SQ]] : tensor<2x2x6x6x16xf32>) outs(%{{.+}} : tensor<1x2x1x1x16xf32>)
// CHECK:       linalg.transpose ins(%[[SUM]] : tensor<1x2x1x1x16xf32>)
// CHECK-NOT:   linalg.transpose
// CHECK:       return
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#chan = affine_map<(d0, d1, d2, d3) -> (0, d1, 0, 0)>
func.func @square_then_sum(%x: tensor<2x32x8x8xf32>, %w: tensor<32x32x3x3xf32>) -> tensor<1x32x1x1xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x32x6x6xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x32x6x6xf32>) -> tensor<2x32x6x6xf32>
  %c = linalg.conv_2d_nchw_fchw ins(%x, %w : tensor<2x32x8x8xf32>, tensor<32x32x3x3xf32>) outs(%f : tensor<2x32x6x6xf32>) -> tensor<2x32x6x6xf32>
  %sq = linalg.generic {indexing_maps = [#id4, #id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c, %c : tensor<2x32x6x6xf32>, tensor<2x32x6x6xf32>) outs(%e : tensor<2x32x6x6xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<2x32x6x6xf32>
  %e1 = tensor.empty() : tensor<1x32x1x1xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<1x32x1x1xf32>) -> tensor<1x32x1x1xf32>
  %s = linalg.generic {indexing_maps = [#id4, #chan], iterator_types = ["reduction", "parallel", "reduction", "reduction"]} ins(%sq : tensor<2x32x6x6xf32>) outs(%f1 : tensor<1x32x1x1xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.addf %a, %o : f32
    linalg.yield %r : f32
  } -> tensor<1x32x1x1xf32>
  return %s : tensor<1x32x1x1xf32>
}

// -----

// torch-mlir's data gradient of a stride-2 convolution: the output
// gradient of the next convolution, inserted with stride 2 into zeros,
// feeds a convolution. The next convolution's pack moves above the
// insertion (into a blocked fill), meets the previous one's unpack and
// both go: the strided insertion runs on the blocked tensor.
// CHECK-LABEL: func.func @insert_into_zeros(
// CHECK:       %[[C1:.+]] = linalg.generic {{.*}} attrs = {amp.blocked_conv
// CHECK-NOT:   linalg.transpose
// CHECK:       %[[Z:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<1x2x9x9x16xf32>)
// CHECK-NEXT:  %[[I:.+]] = tensor.insert_slice %[[C1]] into %[[Z]][0, 0, 1, 1, 0] [1, 2, 4, 4, 16] [1, 1, 2, 2, 1] : tensor<1x2x4x4x16xf32> into tensor<1x2x9x9x16xf32>
// CHECK-NOT:   linalg.transpose
// CHECK:       linalg.generic {{.*}} ins(%[[I]], %{{.+}} : tensor<1x2x9x9x16xf32>, tensor<32x32x3x3xf32>) {{.*}} attrs = {amp.blocked_conv
// CHECK:       return
func.func @insert_into_zeros(%x: tensor<1x32x6x6xf32>, %w1: tensor<32x32x3x3xf32>, %w2: tensor<32x32x3x3xf32>) -> tensor<1x32x7x7xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x32x4x4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x32x4x4xf32>) -> tensor<1x32x4x4xf32>
  %c1 = linalg.conv_2d_nchw_fchw ins(%x, %w1 : tensor<1x32x6x6xf32>, tensor<32x32x3x3xf32>) outs(%f : tensor<1x32x4x4xf32>) -> tensor<1x32x4x4xf32>
  %ez = tensor.empty() : tensor<1x32x9x9xf32>
  %z = linalg.fill ins(%zero : f32) outs(%ez : tensor<1x32x9x9xf32>) -> tensor<1x32x9x9xf32>
  %i = tensor.insert_slice %c1 into %z[0, 0, 1, 1] [1, 32, 4, 4] [1, 1, 2, 2] : tensor<1x32x4x4xf32> into tensor<1x32x9x9xf32>
  %e2 = tensor.empty() : tensor<1x32x7x7xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<1x32x7x7xf32>) -> tensor<1x32x7x7xf32>
  %c2 = linalg.conv_2d_nchw_fchw ins(%i, %w2 : tensor<1x32x9x9xf32>, tensor<32x32x3x3xf32>) outs(%f2 : tensor<1x32x7x7xf32>) -> tensor<1x32x7x7xf32>
  return %c2 : tensor<1x32x7x7xf32>
}

// -----

// A max pool between two convolutions (a ResNet stem) runs on the blocked
// activations too, its loops (n, cb, p, q, r, s, ci) with the 16 channels
// innermost: no relayout between the convolutions.
// CHECK-DAG:   #[[PIN:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2 * 2 + d4, d3 * 2 + d5, d6)>
// CHECK-DAG:   #[[PWIN:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5)>
// CHECK-DAG:   #[[POUT:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3, d6)>
// CHECK-LABEL: func.func @conv_pool_conv(
// CHECK:         linalg.generic {{.*}} attrs = {amp.blocked_conv
// CHECK-NOT:     linalg.transpose
// CHECK:         %[[POOL:.+]] = linalg.generic {indexing_maps = [#[[PIN]], #[[PWIN]], #[[POUT]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "parallel"]}
// CHECK-SAME:      ins(%{{.+}}, %{{.+}} : tensor<1x2x9x9x16xbf16>, tensor<3x3xbf16>) outs(%{{.+}} : tensor<1x2x4x4x16xbf16>)
// CHECK:           arith.maximumf
// CHECK-NOT:     linalg.transpose
// CHECK:         linalg.generic {{.*}} ins(%[[POOL]], %{{.+}} : tensor<1x2x4x4x16xbf16>, {{.*}} attrs = {amp.blocked_conv
func.func @conv_pool_conv(%x: tensor<1x32x9x9xbf16>, %w1: tensor<32x32x1x1xbf16>, %w2: tensor<32x32x1x1xbf16>) -> tensor<1x32x4x4xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF80 : bf16
  %e1 = tensor.empty() : tensor<1x32x9x9xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<1x32x9x9xf32>) -> tensor<1x32x9x9xf32>
  %c1 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %w1 : tensor<1x32x9x9xbf16>, tensor<32x32x1x1xbf16>) outs(%f1 : tensor<1x32x9x9xf32>) -> tensor<1x32x9x9xf32>
  %eb = tensor.empty() : tensor<1x32x9x9xbf16>
  %b = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
    ins(%c1 : tensor<1x32x9x9xf32>) outs(%eb : tensor<1x32x9x9xbf16>) {
  ^bb0(%in: f32, %o: bf16):
    %t = arith.truncf %in : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<1x32x9x9xbf16>
  %ep = tensor.empty() : tensor<1x32x4x4xbf16>
  %fp = linalg.fill ins(%ninf : bf16) outs(%ep : tensor<1x32x4x4xbf16>) -> tensor<1x32x4x4xbf16>
  %win = tensor.empty() : tensor<3x3xbf16>
  %p = linalg.pooling_nchw_max {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>}
    ins(%b, %win : tensor<1x32x9x9xbf16>, tensor<3x3xbf16>) outs(%fp : tensor<1x32x4x4xbf16>) -> tensor<1x32x4x4xbf16>
  %e2 = tensor.empty() : tensor<1x32x4x4xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<1x32x4x4xf32>) -> tensor<1x32x4x4xf32>
  %c2 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%p, %w2 : tensor<1x32x4x4xbf16>, tensor<32x32x1x1xbf16>) outs(%f2 : tensor<1x32x4x4xf32>) -> tensor<1x32x4x4xf32>
  return %c2 : tensor<1x32x4x4xf32>
}

// -----

// A weight gradient as torch-mlir writes it: the convolution of the
// transposed, padded activation by the transposed output gradient (C x K x
// R x S), read through a transpose. It becomes a generic on the blocked
// activation (padded in the blocked layout) and the blocked output
// gradient that writes K x C x R x S, over (kb, ki, cb, ci, r, s, n, p, q);
// the transposes go.
// CHECK-DAG:   #[[GX:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8) -> (d6, d2, d4 + d7, d5 + d8, d3)>
// CHECK-DAG:   #[[GDY:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8) -> (d6, d0, d7, d8, d1)>
// CHECK-DAG:   #[[GW:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8) -> (d0 * 16 + d1, d2 * 16 + d3, d4, d5)>
// CHECK-LABEL: func.func @filter_gradient(
// CHECK-SAME:    %[[X:.+]]: tensor<2x32x8x8xbf16>, %[[DY:.+]]: tensor<2x16x8x8xbf16>
// CHECK:       %[[XE:.+]] = tensor.expand_shape %[[X]] {{\[\[}}0], [1, 2], [3], [4]] output_shape [2, 2, 16, 8, 8]
// CHECK:       %[[XB:.+]] = linalg.transpose ins(%[[XE]] : tensor<2x2x16x8x8xbf16>) {{.*}} permutation = [0, 1, 3, 4, 2]
// CHECK:       %[[XP:.+]] = tensor.pad %[[XB]] low[0, 0, 1, 1, 0] high[0, 0, 1, 1, 0]
// CHECK:       %[[ZERO:.+]] = linalg.fill {{.*}} -> tensor<16x32x3x3xf32>
// CHECK:       %[[DE:.+]] = tensor.expand_shape %[[DY]] {{\[\[}}0], [1, 2], [3], [4]] output_shape [2, 1, 16, 8, 8]
// CHECK:       %[[DB:.+]] = linalg.transpose ins(%[[DE]] : tensor<2x1x16x8x8xbf16>) {{.*}} permutation = [0, 1, 3, 4, 2]
// CHECK:       %[[G:.+]] = linalg.generic {indexing_maps = [#[[GX]], #[[GDY]], #[[GW]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
// CHECK-SAME:    ins(%[[XP]], %[[DB]] : tensor<2x2x10x10x16xbf16>, tensor<2x1x8x8x16xbf16>) outs(%[[ZERO]] : tensor<16x32x3x3xf32>) attrs = {amp.blocked_conv = array<i64: 1, 1, 1, 1>}
// CHECK:         arith.mulf
// CHECK:         arith.addf
// CHECK-NOT:   linalg.transpose
// CHECK:       return %[[G]]
func.func @filter_gradient(%x: tensor<2x32x8x8xbf16>, %dy: tensor<2x16x8x8xbf16>) -> tensor<16x32x3x3xf32> {
  %zb = arith.constant 0.0 : bf16
  %zero = arith.constant 0.0 : f32
  %ex = tensor.empty() : tensor<32x2x8x8xbf16>
  %xt = linalg.transpose ins(%x : tensor<2x32x8x8xbf16>) outs(%ex : tensor<32x2x8x8xbf16>) permutation = [1, 0, 2, 3]
  %ed = tensor.empty() : tensor<16x2x8x8xbf16>
  %dyt = linalg.transpose ins(%dy : tensor<2x16x8x8xbf16>) outs(%ed : tensor<16x2x8x8xbf16>) permutation = [1, 0, 2, 3]
  %xp = tensor.pad %xt low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zb : bf16
  } : tensor<32x2x8x8xbf16> to tensor<32x2x10x10xbf16>
  %e = tensor.empty() : tensor<32x16x3x3xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<32x16x3x3xf32>) -> tensor<32x16x3x3xf32>
  %g = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
      ins(%xp, %dyt : tensor<32x2x10x10xbf16>, tensor<16x2x8x8xbf16>) outs(%f : tensor<32x16x3x3xf32>) -> tensor<32x16x3x3xf32>
  %eg = tensor.empty() : tensor<16x32x3x3xf32>
  %gt = linalg.transpose ins(%g : tensor<32x16x3x3xf32>) outs(%eg : tensor<16x32x3x3xf32>) permutation = [1, 0, 2, 3]
  return %gt : tensor<16x32x3x3xf32>
}

// -----

// A strided convolution's weight gradient in amp-ungroup-summed-convs'
// form: the padded activation trimmed by a slice (dropped: the generic
// reads the rows it needs), the output gradient transposed between reshapes
// that add and drop a unit dimension, the forward stride 2 as the
// dilation: the attribute holds the forward convolution's (2, 2, 1, 1).
// Read as C x K x R x S, the result is transposed back.
// CHECK-DAG:   #[[SX:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8) -> (d6, d2, d7 * 2 + d4, d8 * 2 + d5, d3)>
// CHECK-LABEL: func.func @strided_filter_gradient(
// CHECK:       %[[XP:.+]] = tensor.pad {{.*}} low[0, 0, 1, 1, 0] high[0, 0, 1, 1, 0]
// CHECK:       %[[G:.+]] = linalg.generic {indexing_maps = [#[[SX]], {{.*}} ins(%[[XP]], %{{.+}} : tensor<2x1x10x10x16xf32>, tensor<2x2x4x4x16xf32>) outs(%{{.+}} : tensor<32x16x3x3xf32>) attrs = {amp.blocked_conv = array<i64: 2, 2, 1, 1>}
// CHECK:       %[[T:.+]] = linalg.transpose ins(%[[G]] : tensor<32x16x3x3xf32>) {{.*}} permutation = [1, 0, 2, 3]
// CHECK:       return %[[T]]
func.func @strided_filter_gradient(%x: tensor<2x16x8x8xf32>, %dy: tensor<2x32x4x4xf32>) -> tensor<16x32x3x3xf32> {
  %zero = arith.constant 0.0 : f32
  %ex = tensor.empty() : tensor<16x2x8x8xf32>
  %xt = linalg.transpose ins(%x : tensor<2x16x8x8xf32>) outs(%ex : tensor<16x2x8x8xf32>) permutation = [1, 0, 2, 3]
  %xp = tensor.pad %xt low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<16x2x8x8xf32> to tensor<16x2x10x10xf32>
  %xs = tensor.extract_slice %xp[0, 0, 0, 0] [16, 2, 9, 9] [1, 1, 1, 1] : tensor<16x2x10x10xf32> to tensor<16x2x9x9xf32>
  %d5 = tensor.expand_shape %dy [[0], [1], [2, 3], [4]] output_shape [2, 32, 1, 4, 4] : tensor<2x32x4x4xf32> into tensor<2x32x1x4x4xf32>
  %e5 = tensor.empty() : tensor<32x2x1x4x4xf32>
  %d5t = linalg.transpose ins(%d5 : tensor<2x32x1x4x4xf32>) outs(%e5 : tensor<32x2x1x4x4xf32>) permutation = [1, 0, 2, 3, 4]
  %d4 = tensor.collapse_shape %d5t [[0], [1, 2], [3], [4]] : tensor<32x2x1x4x4xf32> into tensor<32x2x4x4xf32>
  %e = tensor.empty() : tensor<16x32x3x3xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<16x32x3x3xf32>) -> tensor<16x32x3x3xf32>
  %g = linalg.conv_2d_nchw_fchw {dilations = dense<2> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
      ins(%xs, %d4 : tensor<16x2x9x9xf32>, tensor<32x2x4x4xf32>) outs(%f : tensor<16x32x3x3xf32>) -> tensor<16x32x3x3xf32>
  return %g : tensor<16x32x3x3xf32>
}

// -----

// Left alone: a weight gradient whose output gradient is transposed by
// another permutation (not autodiff's swap of batch and channels), one on 8
// channels, and one whose input is padded in the channels.
// CHECK-LABEL: func.func @filter_gradient_left_alone(
// CHECK-NOT:   amp.blocked_conv
// CHECK-COUNT-3: linalg.conv_2d_nchw_fchw
// CHECK-NOT:   amp.blocked_conv
// CHECK:       return
func.func @filter_gradient_left_alone(%x: tensor<2x32x8x8xf32>, %dy: tensor<2x16x8x8xf32>, %dy8: tensor<2x8x8x8xf32>,
                                      %xc: tensor<2x16x8x8xf32>)
    -> (tensor<32x16x1x1xf32>, tensor<32x8x1x1xf32>, tensor<32x16x1x1xf32>) {
  %zero = arith.constant 0.0 : f32
  %ex = tensor.empty() : tensor<32x2x8x8xf32>
  %xt = linalg.transpose ins(%x : tensor<2x32x8x8xf32>) outs(%ex : tensor<32x2x8x8xf32>) permutation = [1, 0, 2, 3]
  %ed = tensor.empty() : tensor<16x2x8x8xf32>
  %dyw = linalg.transpose ins(%dy : tensor<2x16x8x8xf32>) outs(%ed : tensor<16x2x8x8xf32>) permutation = [1, 0, 3, 2]
  %e = tensor.empty() : tensor<32x16x1x1xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<32x16x1x1xf32>) -> tensor<32x16x1x1xf32>
  %a = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
      ins(%xt, %dyw : tensor<32x2x8x8xf32>, tensor<16x2x8x8xf32>) outs(%f : tensor<32x16x1x1xf32>) -> tensor<32x16x1x1xf32>
  %e8 = tensor.empty() : tensor<8x2x8x8xf32>
  %dy8t = linalg.transpose ins(%dy8 : tensor<2x8x8x8xf32>) outs(%e8 : tensor<8x2x8x8xf32>) permutation = [1, 0, 2, 3]
  %eo8 = tensor.empty() : tensor<32x8x1x1xf32>
  %f8 = linalg.fill ins(%zero : f32) outs(%eo8 : tensor<32x8x1x1xf32>) -> tensor<32x8x1x1xf32>
  %b = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
      ins(%xt, %dy8t : tensor<32x2x8x8xf32>, tensor<8x2x8x8xf32>) outs(%f8 : tensor<32x8x1x1xf32>) -> tensor<32x8x1x1xf32>
  %ec = tensor.empty() : tensor<16x2x8x8xf32>
  %xct = linalg.transpose ins(%xc : tensor<2x16x8x8xf32>) outs(%ec : tensor<16x2x8x8xf32>) permutation = [1, 0, 2, 3]
  %xcp = tensor.pad %xct low[16, 0, 0, 0] high[0, 0, 0, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<16x2x8x8xf32> to tensor<32x2x8x8xf32>
  %dyt = linalg.transpose ins(%dy : tensor<2x16x8x8xf32>) outs(%ed : tensor<16x2x8x8xf32>) permutation = [1, 0, 2, 3]
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
      ins(%xcp, %dyt : tensor<32x2x8x8xf32>, tensor<16x2x8x8xf32>) outs(%f : tensor<32x16x1x1xf32>) -> tensor<32x16x1x1xf32>
  return %a, %b, %c : tensor<32x16x1x1xf32>, tensor<32x8x1x1xf32>, tensor<32x16x1x1xf32>
}

// -----

// A stem's weight gradient (3 input channels): the image stays NCHW, the
// output gradient is blocked, over (kb, ki, c, r, s, n, p, q).
// CHECK-DAG:   #[[PX:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d5, d2, d6 * 2 + d3, d7 * 2 + d4)>
// CHECK-DAG:   #[[PDY:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d5, d0, d6, d7, d1)>
// CHECK-DAG:   #[[PW:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0 * 16 + d1, d2, d3, d4)>
// CHECK-LABEL: func.func @stem_filter_gradient(
// CHECK-SAME:    %[[X:.+]]: tensor<2x3x8x8xf32>
// CHECK:       %[[XP:.+]] = tensor.pad %[[X]] low[0, 0, 1, 1] high[0, 0, 1, 1]
// CHECK:       %[[G:.+]] = linalg.generic {indexing_maps = [#[[PX]], #[[PDY]], #[[PW]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
// CHECK-SAME:    ins(%[[XP]], %{{.+}} : tensor<2x3x10x10xf32>, tensor<2x2x4x4x16xf32>) outs(%{{.+}} : tensor<32x3x3x3xf32>) attrs = {amp.blocked_conv = array<i64: 2, 2, 1, 1>}
// CHECK:       return %[[G]]
func.func @stem_filter_gradient(%x: tensor<2x3x8x8xf32>, %dy: tensor<2x32x4x4xf32>) -> tensor<32x3x3x3xf32> {
  %zero = arith.constant 0.0 : f32
  %ex = tensor.empty() : tensor<3x2x8x8xf32>
  %xt = linalg.transpose ins(%x : tensor<2x3x8x8xf32>) outs(%ex : tensor<3x2x8x8xf32>) permutation = [1, 0, 2, 3]
  %xp = tensor.pad %xt low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<3x2x8x8xf32> to tensor<3x2x10x10xf32>
  %xs = tensor.extract_slice %xp[0, 0, 0, 0] [3, 2, 9, 9] [1, 1, 1, 1] : tensor<3x2x10x10xf32> to tensor<3x2x9x9xf32>
  %ed = tensor.empty() : tensor<32x2x4x4xf32>
  %dyt = linalg.transpose ins(%dy : tensor<2x32x4x4xf32>) outs(%ed : tensor<32x2x4x4xf32>) permutation = [1, 0, 2, 3]
  %e = tensor.empty() : tensor<3x32x3x3xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<3x32x3x3xf32>) -> tensor<3x32x3x3xf32>
  %g = linalg.conv_2d_nchw_fchw {dilations = dense<2> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
      ins(%xs, %dyt : tensor<3x2x9x9xf32>, tensor<32x2x4x4xf32>) outs(%f : tensor<3x32x3x3xf32>) -> tensor<3x32x3x3xf32>
  %eg = tensor.empty() : tensor<32x3x3x3xf32>
  %gt = linalg.transpose ins(%g : tensor<3x32x3x3xf32>) outs(%eg : tensor<32x3x3x3xf32>) permutation = [1, 0, 2, 3]
  return %gt : tensor<32x3x3x3xf32>
}
