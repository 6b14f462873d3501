// RUN: amp-opt %s --amp-order-transpose-loops | FileCheck %s

// NHWC -> CHWN (a weight gradient's input): output dimension 0 reads the
// input's contiguous one, so the loops become (h, w, c, n).
// CHECK-DAG: #[[IN:.+]] = affine_map<(d0, d1, d2, d3) -> (d3, d0, d1, d2)>
// CHECK-DAG: #[[OUT:.+]] = affine_map<(d0, d1, d2, d3) -> (d2, d0, d1, d3)>
// CHECK-LABEL: func.func @nhwc_to_chwn
// CHECK:         linalg.generic {indexing_maps = [#[[IN]], #[[OUT]]], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
// CHECK-SAME:      ins(%{{.+}} : tensor<4x6x5x8xbf16>) outs(%{{.+}} : tensor<8x6x5x4xbf16>)
// CHECK-NOT:     linalg.transpose
func.func @nhwc_to_chwn(%x: tensor<4x6x5x8xbf16>) -> tensor<8x6x5x4xbf16> {
  %e = tensor.empty() : tensor<8x6x5x4xbf16>
  %t = linalg.transpose ins(%x : tensor<4x6x5x8xbf16>)
         outs(%e : tensor<8x6x5x4xbf16>) permutation = [3, 1, 2, 0]
  return %t : tensor<8x6x5x4xbf16>
}

// Transposes whose input-contiguous dimension is already one of the last two
// loops stay: NHWC -> HWNC (the output gradient's), attention heads
// (0, 2, 1, 3), a matrix transpose.
// CHECK-LABEL: func.func @kept
// CHECK-COUNT-3: linalg.transpose
// CHECK-NOT:     linalg.generic
func.func @kept(%a: tensor<4x6x5x8xf32>, %b: tensor<2x3x4x5xf32>,
                %c: tensor<3x7xf32>)
    -> (tensor<6x5x4x8xf32>, tensor<2x4x3x5xf32>, tensor<7x3xf32>) {
  %ea = tensor.empty() : tensor<6x5x4x8xf32>
  %ta = linalg.transpose ins(%a : tensor<4x6x5x8xf32>)
          outs(%ea : tensor<6x5x4x8xf32>) permutation = [1, 2, 0, 3]
  %eb = tensor.empty() : tensor<2x4x3x5xf32>
  %tb = linalg.transpose ins(%b : tensor<2x3x4x5xf32>)
          outs(%eb : tensor<2x4x3x5xf32>) permutation = [0, 2, 1, 3]
  %ec = tensor.empty() : tensor<7x3xf32>
  %tc = linalg.transpose ins(%c : tensor<3x7xf32>)
          outs(%ec : tensor<7x3xf32>) permutation = [1, 0]
  return %ta, %tb, %tc : tensor<6x5x4x8xf32>, tensor<2x4x3x5xf32>, tensor<7x3xf32>
}
