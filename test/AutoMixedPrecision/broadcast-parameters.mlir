// With the cast economy (default), a parameter that a low elementwise op
// broadcasts (a bias, an inference batch norm's per-channel mean / variance /
// scale / shift: a function argument or a constant, possibly reshaped) is
// read in f32 by that op: no cast, no rounding; the op's body computes in
// f32 anyway. A broadcast value computed in the function stays an edge of
// the painting (a deny statistic must still taint what it feeds).
// The matmul's f32 result, which the op would round to bf16 only to extend
// it back in its body, is read unrounded (ReadRoundingsWide).
// cast-economy=false is TensorFlow's painting: the bias is cast, and so is
// the matmul's result.
//
// RUN: amp-opt %s --amp-auto-mixed-precision='mode=bf16' | FileCheck %s
// RUN: amp-opt %s --amp-auto-mixed-precision='mode=bf16' | amp-opt --amp-auto-mixed-precision='mode=bf16' | FileCheck %s
// RUN: amp-opt %s --amp-auto-mixed-precision='mode=bf16 cast-economy=false' | FileCheck %s --check-prefix=TF

#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
#row = affine_map<(d0, d1) -> (d0)>

// CHECK-LABEL: func.func @bias_relu_matmul(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<16x32xf32>, %[[W1:[^:]*]]: tensor<32x64xf32>, %[[B:[^:]*]]: tensor<64xf32>, %[[S:[^:]*]]: tensor<1x64xf32>
// CHECK-NOT:   arith.truncf %[[B]]
// CHECK-NOT:   arith.truncf %[[S]]
// CHECK:       %[[MM:.*]] = linalg.matmul
// CHECK-NOT:   arith.truncf %[[MM]]
// CHECK:       %[[SC:.*]] = tensor.collapse_shape %[[S]]
// CHECK:       linalg.generic {{.*}} ins(%[[MM]], %[[B]], %[[SC]] : tensor<16x64xf32>, tensor<64xf32>, tensor<64xf32>) outs(%{{.*}} : tensor<16x64xbf16>)
// CHECK-NEXT:  ^bb0(%[[IN:.*]]: f32, %[[BIAS:.*]]: f32, %[[SCALE:.*]]: f32, %{{.*}}: bf16):
// CHECK-NEXT:    %[[A:.*]] = arith.addf %[[IN]], %[[BIAS]] : f32
// CHECK-NEXT:    %[[M:.*]] = arith.mulf %[[A]], %[[SCALE]] : f32
// CHECK-NEXT:    %[[T:.*]] = arith.truncf %[[M]] : f32 to bf16
// A row statistic computed in the function is painted as before.
// CHECK:       linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<16x64xbf16>, tensor<16xbf16>) outs(%{{.*}} : tensor<16x64xbf16>)
// CHECK:       linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<16x64xbf16>, tensor<64x8xbf16>)

// TF-LABEL:    func.func @bias_relu_matmul(
// TF:          arith.truncf %arg2 : tensor<64xf32> to tensor<64xbf16>
// TF:          %[[TFMM:.*]] = linalg.matmul
// TF:          %[[TFMML:.*]] = arith.truncf %[[TFMM]] : tensor<16x64xf32> to tensor<16x64xbf16>
// TF:          linalg.generic {{.*}} ins(%[[TFMML]], %{{.*}}, %{{.*}} : tensor<16x64xbf16>, tensor<64xbf16>, tensor<64xbf16>)
func.func @bias_relu_matmul(%x: tensor<16x32xf32>, %w1: tensor<32x64xf32>, %b: tensor<64xf32>, %s: tensor<1x64xf32>, %w2: tensor<64x8xf32>) -> tensor<16x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x64xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<16x64xf32>) -> tensor<16x64xf32>
  %mm = linalg.matmul ins(%x, %w1 : tensor<16x32xf32>, tensor<32x64xf32>) outs(%z : tensor<16x64xf32>) -> tensor<16x64xf32>
  %sc = tensor.collapse_shape %s [[0, 1]] : tensor<1x64xf32> into tensor<64xf32>
  %a = linalg.generic {indexing_maps = [#id, #col, #col, #id], iterator_types = ["parallel", "parallel"]}
    ins(%mm, %b, %sc : tensor<16x64xf32>, tensor<64xf32>, tensor<64xf32>) outs(%e : tensor<16x64xf32>) {
  ^bb0(%v: f32, %bias: f32, %scale: f32, %o: f32):
    %0 = arith.addf %v, %bias : f32
    %1 = arith.mulf %0, %scale : f32
    linalg.yield %1 : f32
  } -> tensor<16x64xf32>
  // A row maximum (clear) broadcast back: computed, so still painted.
  %er = tensor.empty() : tensor<16xf32>
  %zr = linalg.fill ins(%zero : f32) outs(%er : tensor<16xf32>) -> tensor<16xf32>
  %mx = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
    ins(%a : tensor<16x64xf32>) outs(%zr : tensor<16xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %0 = arith.maximumf %v, %acc : f32
    linalg.yield %0 : f32
  } -> tensor<16xf32>
  %d = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
    ins(%a, %mx : tensor<16x64xf32>, tensor<16xf32>) outs(%e : tensor<16x64xf32>) {
  ^bb0(%v: f32, %m: f32, %o: f32):
    %0 = arith.mulf %v, %m : f32
    linalg.yield %0 : f32
  } -> tensor<16x64xf32>
  %e2 = tensor.empty() : tensor<16x8xf32>
  %z2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<16x8xf32>) -> tensor<16x8xf32>
  %out = linalg.matmul ins(%d, %w2 : tensor<16x64xf32>, tensor<64x8xf32>) outs(%z2 : tensor<16x8xf32>) -> tensor<16x8xf32>
  return %out : tensor<16x8xf32>
}

// An inference batch norm's 1 / sqrt(var + eps), computed from parameters
// only, is a parameter too: read in f32, not cast.
// CHECK-LABEL: func.func @batch_norm_scale(
// CHECK:       %[[RSTD:.*]] = linalg.generic {{.*}} ins(%arg2 : tensor<64xf32>) outs(%{{.*}} : tensor<64xf32>)
// CHECK-NOT:   arith.truncf %[[RSTD]]
// CHECK:       linalg.generic {{.*}} ins(%{{.*}}, %[[RSTD]] : tensor<16x64xf32>, tensor<64xf32>) outs(%{{.*}} : tensor<16x64xbf16>)
func.func @batch_norm_scale(%x: tensor<16x32xf32>, %w1: tensor<32x64xf32>, %var: tensor<64xf32>, %w2: tensor<64x8xf32>) -> tensor<16x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x64xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<16x64xf32>) -> tensor<16x64xf32>
  %mm = linalg.matmul ins(%x, %w1 : tensor<16x32xf32>, tensor<32x64xf32>) outs(%z : tensor<16x64xf32>) -> tensor<16x64xf32>
  %ev = tensor.empty() : tensor<64xf32>
  %rstd = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
    ins(%var : tensor<64xf32>) outs(%ev : tensor<64xf32>) {
  ^bb0(%v: f32, %o: f32):
    %eps = arith.constant 1.0e-5 : f32
    %0 = arith.addf %v, %eps : f32
    %1 = math.rsqrt %0 : f32
    linalg.yield %1 : f32
  } -> tensor<64xf32>
  %n = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
    ins(%mm, %rstd : tensor<16x64xf32>, tensor<64xf32>) outs(%e : tensor<16x64xf32>) {
  ^bb0(%v: f32, %r: f32, %o: f32):
    %0 = arith.mulf %v, %r : f32
    linalg.yield %0 : f32
  } -> tensor<16x64xf32>
  %e2 = tensor.empty() : tensor<16x8xf32>
  %z2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<16x8xf32>) -> tensor<16x8xf32>
  %out = linalg.matmul ins(%n, %w2 : tensor<16x64xf32>, tensor<64x8xf32>) outs(%z2 : tensor<16x8xf32>) -> tensor<16x8xf32>
  return %out : tensor<16x8xf32>
}
