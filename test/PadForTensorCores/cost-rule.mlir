// The cost rule: an op is padded only if its padded iteration space is at
// most max-flop-growth (default 25%) larger. Both sides of the rule, with
// the default and with other thresholds; a rejected op gets a remark.
// RUN: amp-opt %s --split-input-file --amp-pad-for-tensor-cores 2> %t.default.err \
// RUN:   | FileCheck %s --check-prefix=DEFAULT
// RUN: FileCheck %s --check-prefix=DEFAULT-REMARK < %t.default.err
// RUN: amp-opt %s --split-input-file --amp-pad-for-tensor-cores='max-flop-growth=0.2' 2> %t.strict.err \
// RUN:   | FileCheck %s --check-prefix=STRICT
// RUN: FileCheck %s --check-prefix=STRICT-REMARK < %t.strict.err
// RUN: amp-opt %s --split-input-file --amp-pad-for-tensor-cores='max-flop-growth=2' 2> %t.loose.err \
// RUN:   | FileCheck %s --check-prefix=LOOSE
// RUN: count 0 < %t.loose.err
// RUN: amp-opt %s --split-input-file --amp-pad-for-tensor-cores='max-flop-growth=1' 2>/dev/null \
// RUN:   | FileCheck %s --check-prefix=EDGE
// RUN: amp-opt %s --split-input-file --amp-pad-for-tensor-cores='max-flop-growth=0.99' 2>/dev/null \
// RUN:   | FileCheck %s --check-prefix=BELOW
// explain=true also reports what was padded and what was aligned.
// RUN: amp-opt %s --split-input-file --amp-pad-for-tensor-cores='explain=true' \
// RUN:   --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=EXPLAIN
// Statistics.
// RUN: amp-opt %s --amp-pad-for-tensor-cores='stats=true' -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=STATS

// 30x50x70 -> 32x56x72: 32*56*72 / (30*50*70) = 1.229, +23%.
// DEFAULT-LABEL: func.func @plus_23_percent
// DEFAULT:         linalg.matmul ins(%{{.+}}, %{{.+}} : tensor<32x72xf16>, tensor<72x56xf16>) outs(%{{.+}} : tensor<32x56xf32>)
// STRICT-LABEL:  func.func @plus_23_percent
// STRICT-NOT:      tensor.pad
// STRICT:          linalg.matmul ins(%{{.+}}, %{{.+}} : tensor<30x70xf16>, tensor<70x50xf16>) outs(%{{.+}} : tensor<30x50xf32>)
// LOOSE-LABEL:   func.func @plus_23_percent
// LOOSE:           linalg.matmul ins(%{{.+}}, %{{.+}} : tensor<32x72xf16>, tensor<72x56xf16>) outs(%{{.+}} : tensor<32x56xf32>)
// STRICT-REMARK: cost-rule.mlir:[[# @LINE + 3]]:8: remark: amp-pad-for-tensor-cores: not padded: M 30->32, N 50->56, K 70->72 would add 23% multiply-adds (max-flop-growth 20%)
// EXPLAIN:       cost-rule.mlir:[[# @LINE + 2]]:8: remark: amp-pad-for-tensor-cores: padded M 30->32, N 50->56, K 70->72 (+23% multiply-adds)
func.func @plus_23_percent(%a: tensor<30x70xf16>, %b: tensor<70x50xf16>, %c: tensor<30x50xf32>) -> tensor<30x50xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<30x70xf16>, tensor<70x50xf16>)
                     outs(%c : tensor<30x50xf32>) -> tensor<30x50xf32>
  return %r : tensor<30x50xf32>
}

// -----

// A tiny K: 3 -> 8 would multiply the work by 2.67 (+167%); rejected unless
// the threshold allows it.
// DEFAULT-LABEL: func.func @tiny_k
// DEFAULT-NOT:     tensor.pad
// DEFAULT:         linalg.matmul ins(%{{.+}}, %{{.+}} : tensor<64x3xf16>, tensor<3x64xf16>) outs(%{{.+}} : tensor<64x64xf32>)
// LOOSE-LABEL:   func.func @tiny_k
// LOOSE:           tensor.pad %{{.+}} low[0, 0] high[0, 5]
// LOOSE:           linalg.matmul ins(%{{.+}}, %{{.+}} : tensor<64x8xf16>, tensor<8x64xf16>) outs(%{{.+}} : tensor<64x64xf32>)
// DEFAULT-REMARK: cost-rule.mlir:[[# @LINE + 3]]:8: remark: amp-pad-for-tensor-cores: not padded: K 3->8 would add 167% multiply-adds (max-flop-growth 25%)
// STRICT-REMARK:  cost-rule.mlir:[[# @LINE + 2]]:8: remark: amp-pad-for-tensor-cores: not padded: K 3->8 would add 167% multiply-adds (max-flop-growth 20%)
func.func @tiny_k(%a: tensor<64x3xf16>, %b: tensor<3x64xf16>, %c: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<64x3xf16>, tensor<3x64xf16>)
                     outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %r : tensor<64x64xf32>
}

// -----

// The first convolution of an RGB network: C = 3 -> 8 (+167%) is rejected
// by default, F = 64 is aligned already.
// DEFAULT-LABEL: func.func @rgb_conv
// DEFAULT-NOT:     tensor.pad
// DEFAULT:         linalg.conv_2d_nhwc_hwcf
// LOOSE-LABEL:   func.func @rgb_conv
// LOOSE:           linalg.conv_2d_nhwc_hwcf {{.*}} ins(%{{.+}}, %{{.+}} : tensor<1x16x16x8xf16>, tensor<3x3x8x64xf16>) outs(%{{.+}} : tensor<1x14x14x64xf32>)
// DEFAULT-REMARK: cost-rule.mlir:[[# @LINE + 2]]:8: remark: amp-pad-for-tensor-cores: not padded: C 3->8 would add 167% multiply-adds (max-flop-growth 25%)
func.func @rgb_conv(%i: tensor<1x16x16x3xf16>, %f: tensor<3x3x3x64xf16>, %o: tensor<1x14x14x64xf32>) -> tensor<1x14x14x64xf32> {
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
         ins(%i, %f : tensor<1x16x16x3xf16>, tensor<3x3x3x64xf16>)
         outs(%o : tensor<1x14x14x64xf32>) -> tensor<1x14x14x64xf32>
  return %r : tensor<1x14x14x64xf32>
}

// -----

// K = 4 -> 8 doubles the work (+100%): padded when max-flop-growth is 1
// (the bound is inclusive), not when it is a little less.
// EDGE-LABEL:    func.func @double_k
// EDGE:            linalg.matmul ins(%{{.+}}, %{{.+}} : tensor<32x8xf16>, tensor<8x32xf16>) outs(%{{.+}} : tensor<32x32xf32>)
// BELOW-LABEL:   func.func @double_k
// BELOW-NOT:       tensor.pad
// BELOW:           linalg.matmul ins(%{{.+}}, %{{.+}} : tensor<32x4xf16>, tensor<4x32xf16>) outs(%{{.+}} : tensor<32x32xf32>)
// DEFAULT-LABEL: func.func @double_k
// DEFAULT-NOT:     tensor.pad
func.func @double_k(%a: tensor<32x4xf16>, %b: tensor<4x32xf16>, %c: tensor<32x32xf32>) -> tensor<32x32xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<32x4xf16>, tensor<4x32xf16>)
                     outs(%c : tensor<32x32xf32>) -> tensor<32x32xf32>
  return %r : tensor<32x32xf32>
}

// -----

// An aligned op (for explain and the statistics).
// EXPLAIN:       cost-rule.mlir:[[# @LINE + 2]]:8: remark: amp-pad-for-tensor-cores: already aligned to 8
func.func @aligned(%a: tensor<64x96xf16>, %b: tensor<96x64xf16>, %c: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<64x96xf16>, tensor<96x64xf16>)
                     outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %r : tensor<64x64xf32>
}

// STATS:      amp-pad-for-tensor-cores statistics:
// STATS-NEXT:   1 ops-padded
// STATS-NEXT:   1 ops-aligned
// STATS-NEXT:   3 ops-skipped-cost
// STATS-NEXT:   0 ops-skipped-dynamic
