// Numbers of the report on graphs small enough to count by hand.
// RUN: amp-opt %s --amp='report=%t.json' -o /dev/null
// RUN: %PYTHON %S/report_query.py %t.json | FileCheck %s --match-full-lines

// @mm: an 8x16 . 16x32 matmul (allow) and an exp (deny).
// FLOPs: 2*M*N*K = 2*8*32*16 = 8192, all of them in f16.
// CHECK-DAG: functions.mm.contraction_flops.total = 8192
// CHECK-DAG: functions.mm.contraction_flops.low = 8192
// CHECK-DAG: functions.mm.contraction_flops.low_share = 1
// Casts: truncf of tensor<8x16xf32> to f16 = 128 elements x 2 bytes = 256,
// of tensor<16x32xf32> = 512 x 2 = 1024; amp-optimize-casts keeps both.
// CHECK-DAG: functions.mm.casts.inserted.count = 2
// CHECK-DAG: functions.mm.casts.inserted.bytes = 1280
// CHECK-DAG: functions.mm.casts.removed.count = 0
// CHECK-DAG: functions.mm.casts.output.bytes = 1280
// CHECK-DAG: functions.mm.ops.by_class.allow = 1
// CHECK-DAG: functions.mm.ops.by_class.deny = 1
// CHECK-DAG: functions.mm.ops.by_class.infer = 0
// CHECK-DAG: functions.mm.ops.by_precision.low = 1
// CHECK-DAG: functions.mm.ops.by_precision.f32 = 1
// CHECK-DAG: functions.mm.ops.by_class_and_precision.deny.f32 = 1
// No markers: every value an op defines counts, in f32 the matmul and exp
// results (2 x 1024 bytes), after the rewrite also the two f16 copies.
// CHECK-DAG: functions.mm.training_step = false
// CHECK-DAG: functions.mm.saved_for_backward.f32.values = 2
// CHECK-DAG: functions.mm.saved_for_backward.f32.bytes = 2048
// CHECK-DAG: functions.mm.saved_for_backward.amp.values = 4
// CHECK-DAG: functions.mm.saved_for_backward.amp.bytes = 3328
// CHECK-DAG: functions.mm.saved_for_backward.amp_argument_copies.values = 2
// CHECK-DAG: functions.mm.saved_for_backward.amp_argument_copies.bytes = 1280
// Roofline on h100 (66.9 TFLOP/s f32, 3.35 TB/s), f32: the matmul reads
// 512 + 2048 + 1024 (accumulator) and writes 1024 bytes, the exp moves
// 2 x 1024: (4608 + 2048) / 3.35e12 = 1.98687e-09 s, both memory bound.
// AMP: the casts move 4 x 128 + 2 x 128 = 768 and 4 x 512 + 2 x 512 = 3072
// bytes, the matmul 256 + 1024 + 1024 + 1024: 9216 / 3.35e12 s.
// CHECK-DAG: functions.mm.estimate.f32.bytes = 6656
// CHECK-DAG: functions.mm.estimate.f32.flops = 8448
// CHECK-DAG: functions.mm.estimate.f32.seconds = 1.98687e-09
// CHECK-DAG: functions.mm.estimate.amp.bytes = 9216
// CHECK-DAG: functions.mm.estimate.amp.seconds = 2.75104e-09
// CHECK-DAG: functions.mm.estimate.speedup = 0.722222
func.func @mm(%a: tensor<8x16xf32>, %b: tensor<16x32xf32>, %c: tensor<8x32xf32>) -> tensor<8x32xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x32xf32>) outs(%c : tensor<8x32xf32>) -> tensor<8x32xf32>
  %1 = math.exp %0 : tensor<8x32xf32>
  return %1 : tensor<8x32xf32>
}

// @bias: the f16 bias add between two matmuls gets a truncf of its f32
// constant (16 x 2 = 32 bytes), which amp-optimize-casts folds into an f16
// constant. Inserted: %a, %w (4x8: 64 bytes each), %w2, the bias and the
// first matmul's result (4x4: 32 bytes each).
// CHECK-DAG: functions.bias.casts.inserted.count = 5
// CHECK-DAG: functions.bias.casts.inserted.bytes = 224
// CHECK-DAG: functions.bias.casts.removed.count = 1
// CHECK-DAG: functions.bias.casts.removed.bytes = 32
// CHECK-DAG: functions.bias.casts.output.count = 4
// CHECK-DAG: functions.bias.casts.output.bytes = 192
// 2*4*4*8 + 2*4*4*4 = 384 FLOPs.
// CHECK-DAG: functions.bias.contraction_flops.total = 384
// CHECK-DAG: functions.bias.contraction_flops.low = 384
// Classes: two matmuls, the addf (infer, between them), the fill (clear,
// an accumulator: stays f32).
// CHECK-DAG: functions.bias.ops.by_class.allow = 2
// CHECK-DAG: functions.bias.ops.by_class.infer = 1
// CHECK-DAG: functions.bias.ops.by_class.clear = 1
// CHECK-DAG: functions.bias.ops.by_class.deny = 0
// CHECK-DAG: functions.bias.ops.by_precision.low = 3
// CHECK-DAG: functions.bias.ops.by_precision.f32 = 1
// CHECK-DAG: functions.bias.ops.by_class_and_precision.clear.f32 = 1
func.func @bias(%a: tensor<4x8xf32>, %w: tensor<8x4xf32>, %w2: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %bias = arith.constant dense<0.5> : tensor<4x4xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x4xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  %mm = linalg.matmul ins(%a, %w : tensor<4x8xf32>, tensor<8x4xf32>) outs(%acc : tensor<4x4xf32>) -> tensor<4x4xf32>
  %r = arith.addf %mm, %bias : tensor<4x4xf32>
  %m2 = linalg.matmul ins(%r, %w2 : tensor<4x4xf32>, tensor<4x4xf32>) outs(%acc : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %m2 : tensor<4x4xf32>
}

// @step: a training step. The forward activation %h = tanh(x . w1) runs in
// f16 (an infer op between two matmuls) and is read after amp.grad_seed
// (by the transpose of the backward matmul): f32 8x32x4 = 1024 bytes become
// 8x32x2 = 512; the loss (4 bytes) is returned after the seed too.
// CHECK-DAG: functions.step.training_step = true
// CHECK-DAG: functions.step.saved_for_backward.f32.values = 2
// CHECK-DAG: functions.step.saved_for_backward.f32.bytes = 1028
// CHECK-DAG: functions.step.saved_for_backward.amp.values = 2
// CHECK-DAG: functions.step.saved_for_backward.amp.bytes = 516
// CHECK-DAG: functions.step.saved_for_backward.ratio = 0.501946
// The f16 copies of x, w1 and w2 are only read by the forward matmuls.
// CHECK-DAG: functions.step.saved_for_backward.amp_argument_copies.bytes = 0
// 2*8*32*16 + 2*8*4*32 + 2*32*4*8 = 8192 + 2048 + 2048.
// CHECK-DAG: functions.step.contraction_flops.total = 12288
// CHECK-DAG: functions.step.contraction_flops.low = 12288
#id = affine_map<(d0, d1) -> (d0, d1)>
#all = affine_map<(d0, d1) -> ()>
func.func @step(%x: tensor<8x16xf32>, %w1: tensor<16x32xf32>, %w2: tensor<32x4xf32>) -> (tensor<f32>, tensor<32x4xf32>) {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<8x32xf32>
  %acc0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<8x32xf32>) -> tensor<8x32xf32>
  %z = linalg.matmul ins(%x, %w1 : tensor<8x16xf32>, tensor<16x32xf32>) outs(%acc0 : tensor<8x32xf32>) -> tensor<8x32xf32>
  %h = math.tanh %z : tensor<8x32xf32>
  %e1 = tensor.empty() : tensor<8x4xf32>
  %acc1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<8x4xf32>) -> tensor<8x4xf32>
  %y = linalg.matmul ins(%h, %w2 : tensor<8x32xf32>, tensor<32x4xf32>) outs(%acc1 : tensor<8x4xf32>) -> tensor<8x4xf32>
  %e2 = tensor.empty() : tensor<f32>
  %acc2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<f32>) -> tensor<f32>
  %loss = linalg.generic {indexing_maps = [#id, #all], iterator_types = ["reduction", "reduction"]}
      ins(%y : tensor<8x4xf32>) outs(%acc2 : tensor<f32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %out : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  %seed = amp.grad_seed %loss : tensor<f32>
  %e3 = tensor.empty() : tensor<8x4xf32>
  %dy = linalg.broadcast ins(%seed : tensor<f32>) outs(%e3 : tensor<8x4xf32>) dimensions = [0, 1]
  %e4 = tensor.empty() : tensor<32x8xf32>
  %ht = linalg.transpose ins(%h : tensor<8x32xf32>) outs(%e4 : tensor<32x8xf32>) permutation = [1, 0]
  %e5 = tensor.empty() : tensor<32x4xf32>
  %acc5 = linalg.fill ins(%zero : f32) outs(%e5 : tensor<32x4xf32>) -> tensor<32x4xf32>
  %dw2 = linalg.matmul ins(%ht, %dy : tensor<32x8xf32>, tensor<8x4xf32>) outs(%acc5 : tensor<32x4xf32>) -> tensor<32x4xf32>
  %g = amp.param_grad %dw2 : tensor<32x4xf32>
  return %loss, %g : tensor<f32>, tensor<32x4xf32>
}

// Totals are sums over the functions.
// CHECK-DAG: total.contraction_flops.total = 20864
// CHECK-DAG: total.casts.inserted.count = {{[0-9]+}}
// CHECK-DAG: total.training_step = true
// CHECK-DAG: format = amp-report
// CHECK-DAG: version = 1
// CHECK-DAG: target.name = h100
