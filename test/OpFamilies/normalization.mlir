// A sum whose result is combined again with the values it sums (mean and
// variance of layer / batch norm, softmax denominators) is
// `linalg.generic:normalization`, deny in both modes: in bf16 the chain it
// scales would otherwise run with an 8-bit mantissa between matmuls (on
// torch's TransformerEncoderLayer, rel. L2 3.3e-3 instead of 8.7e-4;
// docs/policy.md). Other sums keep their class (bf16: infer), e.g. a bias
// gradient, which only its update reads, or a sum that is only returned. A
// user entry for linalg.generic:sum-reduction still covers normalizations.
//
// RUN: amp-opt %s --amp-auto-mixed-precision='mode=bf16' | FileCheck %s
// RUN: amp-opt %s --amp-auto-mixed-precision='mode=bf16 explain=true' -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=REMARK
// RUN: amp-opt %s --amp-auto-mixed-precision='mode=bf16 deny-remove=linalg.generic:normalization infer-add=linalg.generic:normalization' \
// RUN:   | FileCheck %s --check-prefix=OLD
// RUN: amp-opt %s --amp-auto-mixed-precision='mode=bf16 explain=true infer-remove=linalg.generic:sum-reduction clear-add=linalg.generic:sum-reduction' \
// RUN:   -o /dev/null 2>&1 | FileCheck %s --check-prefix=USER
// RUN: amp-opt %s --amp-auto-mixed-precision='mode=f16' | FileCheck %s --check-prefix=F16
// RUN: echo '{"deny": ["linalg.generic:normalization"]}' > %t.json
// RUN: amp-opt %s --amp-auto-mixed-precision="mode=bf16 policy=%t.json" \
// RUN:   | FileCheck %s --check-prefix=BN-USER

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#col = affine_map<(d0, d1) -> (d1)>
#vec = affine_map<(d0) -> (d0)>

// Layer norm between two matmuls: mean, x - mean, variance, rsqrt, scale.
// REMARK: normalization.mlir:[[@LINE+21]]:{{.*}} remark: amp: f32: deny (linalg.generic:normalization (default))
// REMARK: normalization.mlir:[[@LINE+34]]:{{.*}} remark: amp: f32: deny (linalg.generic:normalization (default))
// USER:   normalization.mlir:[[@LINE+19]]:{{.*}} remark: amp: low: clear: next to low-precision
// CHECK-LABEL: func.func @layer_norm
// CHECK:       %[[MM:.*]] = linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<16x64xbf16>, tensor<64x64xbf16>) outs(%{{.*}} : tensor<16x64xf32>)
// CHECK:       %[[MEAN:.*]] = linalg.generic {{.*}} ins(%[[MM]] : tensor<16x64xf32>) outs(%{{.*}} : tensor<16xf32>)
// CHECK:       %[[DEV:.*]] = linalg.generic {{.*}} ins(%[[MM]], %[[MEAN]] : tensor<16x64xf32>, tensor<16xf32>) outs(%{{.*}} : tensor<16x64xf32>)
// CHECK:       %[[VAR:.*]] = linalg.generic {{.*}} ins(%[[DEV]] : tensor<16x64xf32>) outs(%{{.*}} : tensor<16xf32>)
// CHECK:       %[[NORM:.*]] = linalg.generic {{.*}} ins(%[[DEV]], %[[VAR]] : tensor<16x64xf32>, tensor<16xf32>) outs(%{{.*}} : tensor<16x64xf32>)
// CHECK:       %[[LOW:.*]] = arith.truncf %[[NORM]] : tensor<16x64xf32> to tensor<16x64xbf16>
// CHECK:       linalg.matmul ins(%[[LOW]], %{{.*}} : tensor<16x64xbf16>, tensor<64x64xbf16>)
// Before (the whole norm in bf16 between the matmuls, statistics read f32):
// OLD-LABEL:   func.func @layer_norm
// OLD:         linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<16x64xbf16>, tensor<16xf32>) outs(%{{.*}} : tensor<16x64xbf16>)
func.func @layer_norm(%x: tensor<16x64xf32>, %w1: tensor<64x64xf32>, %w2: tensor<64x64xf32>) -> tensor<16x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x64xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<16x64xf32>) -> tensor<16x64xf32>
  %er = tensor.empty() : tensor<16xf32>
  %zr = linalg.fill ins(%zero : f32) outs(%er : tensor<16xf32>) -> tensor<16xf32>
  %h = linalg.matmul ins(%x, %w1 : tensor<16x64xf32>, tensor<64x64xf32>) outs(%z : tensor<16x64xf32>) -> tensor<16x64xf32>
  %mean = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
    ins(%h : tensor<16x64xf32>) outs(%zr : tensor<16xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  } -> tensor<16xf32>
  %dev = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
    ins(%h, %mean : tensor<16x64xf32>, tensor<16xf32>) outs(%e : tensor<16x64xf32>) {
  ^bb0(%a: f32, %m: f32, %o: f32):
    %n = arith.constant 0.015625 : f32
    %mm = arith.mulf %m, %n : f32
    %d = arith.subf %a, %mm : f32
    linalg.yield %d : f32
  } -> tensor<16x64xf32>
  %var = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
    ins(%dev : tensor<16x64xf32>) outs(%zr : tensor<16xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %sq = arith.mulf %a, %a : f32
    %s = arith.addf %sq, %acc : f32
    linalg.yield %s : f32
  } -> tensor<16xf32>
  %norm = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
    ins(%dev, %var : tensor<16x64xf32>, tensor<16xf32>) outs(%e : tensor<16x64xf32>) {
  ^bb0(%a: f32, %v: f32, %o: f32):
    %n = arith.constant 0.015625 : f32
    %eps = arith.constant 1.0e-5 : f32
    %vm = arith.mulf %v, %n : f32
    %ve = arith.addf %vm, %eps : f32
    %r = math.rsqrt %ve : f32
    %y = arith.mulf %a, %r : f32
    linalg.yield %y : f32
  } -> tensor<16x64xf32>
  %out = linalg.matmul ins(%norm, %w2 : tensor<16x64xf32>, tensor<64x64xf32>) outs(%z : tensor<16x64xf32>) -> tensor<16x64xf32>
  return %out : tensor<16x64xf32>
}

// A bias gradient (a sum of the upstream gradient, read by the update of a
// parameter of the reduced shape) stays a sum-reduction: bf16 infer, so it
// follows the matmul (and the cast economy keeps it f32 here, as the matmul
// result is returned in f32 too).
// REMARK: normalization.mlir:[[@LINE+9]]:{{.*}} remark: amp: f32: {{.*}}kept f32, its casts would move more bytes
// REMARK-NOT: deny (linalg.generic:normalization
func.func @bias_grad(%x: tensor<16x64xf32>, %w: tensor<64x64xf32>, %b: tensor<64xf32>) -> (tensor<64xf32>, tensor<16x64xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x64xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<16x64xf32>) -> tensor<16x64xf32>
  %ec = tensor.empty() : tensor<64xf32>
  %zc = linalg.fill ins(%zero : f32) outs(%ec : tensor<64xf32>) -> tensor<64xf32>
  %g = linalg.matmul ins(%x, %w : tensor<16x64xf32>, tensor<64x64xf32>) outs(%z : tensor<16x64xf32>) -> tensor<16x64xf32>
  %db = linalg.generic {indexing_maps = [#id, #col], iterator_types = ["reduction", "parallel"]}
    ins(%g : tensor<16x64xf32>) outs(%zc : tensor<64xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  } -> tensor<64xf32>
  %nb = linalg.generic {indexing_maps = [#vec, #vec, #vec], iterator_types = ["parallel"]}
    ins(%b, %db : tensor<64xf32>, tensor<64xf32>) outs(%ec : tensor<64xf32>) {
  ^bb0(%p: f32, %d: f32, %o: f32):
    %lr = arith.constant 0.1 : f32
    %step = arith.mulf %d, %lr : f32
    %u = arith.subf %p, %step : f32
    linalg.yield %u : f32
  } -> tensor<64xf32>
  return %nb, %g : tensor<64xf32>, tensor<16x64xf32>
}

// Batch norm with batch statistics between two convolutions: the sums run
// over the batch (and H, W) per channel, `linalg.generic:batch-normalization`,
// which bf16 runs like PyTorch's autocast: the statistics read the bf16
// activations into f32 accumulators, and the centered and normalized
// activations are bf16; the per-channel statistics (the mean computed from
// the sum, which the centering reads) stay f32. In f16 they stay f32
// (deny), as layer norm does in both modes. A user entry for
// linalg.generic:normalization covers it.
// REMARK: normalization.mlir:[[@LINE+27]]:{{.*}} remark: amp: low: infer: between allow ops, runs low
// REMARK: normalization.mlir:[[@LINE+32]]:{{.*}} remark: amp: f32: infer: computes from the batch statistic
// CHECK-LABEL: func.func @batch_norm
// CHECK:       %[[C:.*]] = linalg.conv_2d_nchw_fchw ins(%{{.*}}, %{{.*}} : tensor<2x4x3x3xbf16>, tensor<4x4x1x1xbf16>) outs(%{{.*}} : tensor<2x4x3x3xf32>)
// CHECK:       %[[CL:.*]] = arith.truncf %[[C]] : tensor<2x4x3x3xf32> to tensor<2x4x3x3xbf16>
// CHECK:       %[[SUM:.*]] = linalg.generic {{.*}} ins(%[[CL]] : tensor<2x4x3x3xbf16>) outs(%{{.*}} : tensor<1x4x1x1xf32>)
// CHECK:       %[[MEAN:.*]] = linalg.generic {{.*}} ins(%[[SUM]] : tensor<1x4x1x1xf32>) outs(%{{.*}} : tensor<1x4x1x1xf32>)
// CHECK:       %[[DEV:.*]] = linalg.generic {{.*}} ins(%[[CL]], %[[MEAN]] : tensor<2x4x3x3xbf16>, tensor<1x4x1x1xf32>) outs(%{{.*}} : tensor<2x4x3x3xbf16>)
// CHECK:       linalg.generic {{.*}} ins(%[[DEV]] : tensor<2x4x3x3xbf16>) outs(%{{.*}} : tensor<1x4x1x1xf32>)
// CHECK:       %[[NORM:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<2x4x3x3xbf16>)
// CHECK:       linalg.conv_2d_nchw_fchw ins(%[[NORM]], %{{.*}} : tensor<2x4x3x3xbf16>, tensor<4x4x1x1xbf16>)
// F16-LABEL:   func.func @batch_norm
// F16:         %[[C:.*]] = linalg.conv_2d_nchw_fchw {{.*}} outs(%{{.*}} : tensor<2x4x3x3xf32>)
// F16:         linalg.generic {{.*}} ins(%[[C]] : tensor<2x4x3x3xf32>) outs(%{{.*}} : tensor<1x4x1x1xf32>)
// F16:         linalg.generic {{.*}} ins(%[[C]], %{{.*}} : tensor<2x4x3x3xf32>, tensor<1x4x1x1xf32>) outs(%{{.*}} : tensor<2x4x3x3xf32>)
// BN-USER-LABEL: func.func @batch_norm
// BN-USER:       %[[C:.*]] = linalg.conv_2d_nchw_fchw {{.*}} outs(%{{.*}} : tensor<2x4x3x3xf32>)
// BN-USER:       linalg.generic {{.*}} ins(%[[C]] : tensor<2x4x3x3xf32>) outs(%{{.*}} : tensor<1x4x1x1xf32>)
#nchw = affine_map<(n, c, h, w) -> (n, c, h, w)>
#chan = affine_map<(n, c, h, w) -> (0, c, 0, 0)>
func.func @batch_norm(%x: tensor<2x4x3x3xf32>, %w1: tensor<4x4x1x1xf32>, %w2: tensor<4x4x1x1xf32>) -> tensor<2x4x3x3xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x4x3x3xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<2x4x3x3xf32>) -> tensor<2x4x3x3xf32>
  %es = tensor.empty() : tensor<1x4x1x1xf32>
  %zs = linalg.fill ins(%zero : f32) outs(%es : tensor<1x4x1x1xf32>) -> tensor<1x4x1x1xf32>
  %c = linalg.conv_2d_nchw_fchw ins(%x, %w1 : tensor<2x4x3x3xf32>, tensor<4x4x1x1xf32>) outs(%z : tensor<2x4x3x3xf32>) -> tensor<2x4x3x3xf32>
  %sum = linalg.generic {indexing_maps = [#nchw, #chan], iterator_types = ["reduction", "parallel", "reduction", "reduction"]}
    ins(%c : tensor<2x4x3x3xf32>) outs(%zs : tensor<1x4x1x1xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.addf %a, %acc : f32
    linalg.yield %r : f32
  } -> tensor<1x4x1x1xf32>
  %mean = linalg.generic {indexing_maps = [#nchw, #nchw], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
    ins(%sum : tensor<1x4x1x1xf32>) outs(%es : tensor<1x4x1x1xf32>) {
  ^bb0(%a: f32, %o: f32):
    %n = arith.constant 18.0 : f32
    %m = arith.divf %a, %n : f32
    linalg.yield %m : f32
  } -> tensor<1x4x1x1xf32>
  %dev = linalg.generic {indexing_maps = [#nchw, #chan, #nchw], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
    ins(%c, %mean : tensor<2x4x3x3xf32>, tensor<1x4x1x1xf32>) outs(%e : tensor<2x4x3x3xf32>) {
  ^bb0(%a: f32, %m: f32, %o: f32):
    %d = arith.subf %a, %m : f32
    linalg.yield %d : f32
  } -> tensor<2x4x3x3xf32>
  %var = linalg.generic {indexing_maps = [#nchw, #chan], iterator_types = ["reduction", "parallel", "reduction", "reduction"]}
    ins(%dev : tensor<2x4x3x3xf32>) outs(%zs : tensor<1x4x1x1xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %sq = arith.mulf %a, %a : f32
    %r = arith.addf %sq, %acc : f32
    linalg.yield %r : f32
  } -> tensor<1x4x1x1xf32>
  %norm = linalg.generic {indexing_maps = [#nchw, #chan, #nchw], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
    ins(%dev, %var : tensor<2x4x3x3xf32>, tensor<1x4x1x1xf32>) outs(%e : tensor<2x4x3x3xf32>) {
  ^bb0(%a: f32, %v: f32, %o: f32):
    %n = arith.constant 0.0555555 : f32
    %eps = arith.constant 1.0e-5 : f32
    %vm = arith.mulf %v, %n : f32
    %ve = arith.addf %vm, %eps : f32
    %r = math.rsqrt %ve : f32
    %y = arith.mulf %a, %r : f32
    linalg.yield %y : f32
  } -> tensor<2x4x3x3xf32>
  %out = linalg.conv_2d_nchw_fchw ins(%norm, %w2 : tensor<2x4x3x3xf32>, tensor<4x4x1x1xf32>) outs(%z : tensor<2x4x3x3xf32>) -> tensor<2x4x3x3xf32>
  return %out : tensor<2x4x3x3xf32>
}

// A residual stream that a layer norm's statistics read and a later matmul
// reads too (here directly; in amp-gen-model's transformer block through a
// mean pooling, which bf16 infers) is "between allow ops", but it stays f32
// in both modes, with the bias add that computes it: rounding it puts the
// cancellation of `h - mean(h)` on 16-bit inputs (d_model 2: 10% of the
// first loss in bf16, tools/amp-fuzz/step-fuzz.py seed 60). PyTorch's
// autocast keeps it f32 too (f32 residual + bf16 matmul result is f32). The
// later matmul reads it rounded.
// REMARK: normalization.mlir:[[@LINE+19]]:{{.*}} remark: amp: f32: infer: feeds the normalization statistic linalg.generic at loc({{.*}}normalization.mlir":[[@LINE+20]]:{{.*}}), kept f32
// REMARK: normalization.mlir:[[@LINE+19]]:{{.*}} remark: amp: f32: deny (linalg.generic:normalization (default))
// CHECK-LABEL: func.func @residual_into_layer_norm
// CHECK:       %[[MM:.*]] = linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<16x64xbf16>, tensor<64x64xbf16>) outs(%{{.*}} : tensor<16x64xf32>)
// CHECK:       %[[H:.*]] = arith.addf %{{.*}}, %[[MM]] : tensor<16x64xf32>
// CHECK:       %[[HL:.*]] = arith.truncf %[[H]] : tensor<16x64xf32> to tensor<16x64xbf16>
// CHECK:       linalg.generic {{.*}} ins(%[[H]] : tensor<16x64xf32>) outs(%{{.*}} : tensor<16xf32>)
// CHECK:       linalg.matmul ins(%[[HL]], %{{.*}} : tensor<16x64xbf16>, tensor<64x64xbf16>)
// F16-LABEL:   func.func @residual_into_layer_norm
// F16:         %[[MM:.*]] = linalg.matmul {{.*}} outs(%{{.*}} : tensor<16x64xf32>)
// F16:         %[[H:.*]] = arith.addf %{{.*}}, %[[MM]] : tensor<16x64xf32>
// F16:         linalg.generic {{.*}} ins(%[[H]] : tensor<16x64xf32>) outs(%{{.*}} : tensor<16xf32>)
func.func @residual_into_layer_norm(%x: tensor<16x64xf32>, %w1: tensor<64x64xf32>, %w2: tensor<64x64xf32>) -> (tensor<16x64xf32>, tensor<16x64xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x64xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<16x64xf32>) -> tensor<16x64xf32>
  %er = tensor.empty() : tensor<16xf32>
  %zr = linalg.fill ins(%zero : f32) outs(%er : tensor<16xf32>) -> tensor<16xf32>
  %a = linalg.matmul ins(%x, %w1 : tensor<16x64xf32>, tensor<64x64xf32>) outs(%z : tensor<16x64xf32>) -> tensor<16x64xf32>
  %h = arith.addf %x, %a : tensor<16x64xf32>
  %mean = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
    ins(%h : tensor<16x64xf32>) outs(%zr : tensor<16xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %s = arith.addf %v, %acc : f32
    linalg.yield %s : f32
  } -> tensor<16xf32>
  %dev = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
    ins(%h, %mean : tensor<16x64xf32>, tensor<16xf32>) outs(%e : tensor<16x64xf32>) {
  ^bb0(%v: f32, %m: f32, %o: f32):
    %n = arith.constant 0.015625 : f32
    %mm = arith.mulf %m, %n : f32
    %d = arith.subf %v, %mm : f32
    linalg.yield %d : f32
  } -> tensor<16x64xf32>
  %out = linalg.matmul ins(%h, %w2 : tensor<16x64xf32>, tensor<64x64xf32>) outs(%z : tensor<16x64xf32>) -> tensor<16x64xf32>
  return %dev, %out : tensor<16x64xf32>, tensor<16x64xf32>
}
