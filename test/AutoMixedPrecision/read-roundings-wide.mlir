// With the cast economy (default), a rounding the pass inserts for low
// elementwise readers that only extend it back to f32 is dropped: they read
// the f32 value (one rounding fewer, no tensor cast), and a low elementwise
// op whose readers only extend its result yields it f32 (a chain rounds
// once, at its end). Contractions keep their low inputs, user casts stay,
// and a value read again after a tensor of its size is made keeps its low
// copy (the f32 one would stay alive across it), unless that tensor is at
// least twice as large.
// cast-economy=false inserts every rounding, as TensorFlow does.
//
// RUN: amp-opt %s --amp-auto-mixed-precision='mode=bf16' | FileCheck %s
// RUN: amp-opt %s --amp-auto-mixed-precision='mode=bf16' | amp-opt --amp-auto-mixed-precision='mode=bf16' | FileCheck %s
// RUN: amp-opt %s --amp-auto-mixed-precision='mode=bf16 cast-economy=false' | FileCheck %s --check-prefix=TF
// RUN: amp-opt %s --amp-auto-mixed-precision='mode=bf16 stats=true' -o /dev/null 2>&1 | FileCheck %s --check-prefix=STATS
// RUN: amp-opt %s --amp-auto-mixed-precision='mode=bf16 stats=true cast-economy=false' -o /dev/null 2>&1 | FileCheck %s --check-prefix=STATS-TF
// One each in @conv_batch_norm, @read_again_later and
// @saved_activation_stays_low (a contraction's result), three in
// @batch_norm_chain (the convolution's result, two yields) and in
// @residual_across_block (the gather's yield, the projection's result, the
// bias add's yield), two in @read_by_f32_op, three in
// @broadcast_mean_yields_wide (the sum's rounding, the mean's and the
// scaling's yields), two in @broadcast_sum_read_wide (the sum's
// rounding, the scaling's yield) and in @small_batch_mean_stays_rounded
// (the sum's rounding, the scaling's yield):
// STATS:    18 roundings-read-wide
// STATS-TF: 0 roundings-read-wide

#id4 = affine_map<(n, c, h, w) -> (n, c, h, w)>
#ch = affine_map<(n, c, h, w) -> (c)>
#id = affine_map<(d0, d1) -> (d0, d1)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#mA = affine_map<(m, n, k) -> (m, k)>
#mB = affine_map<(m, n, k) -> (k, n)>
#mC = affine_map<(m, n, k) -> (m, n)>

// A convolution's f32 accumulator read by a batch norm: no truncf, the
// normalisation reads f32 and writes bf16 for the next convolution.
// CHECK-LABEL: func.func @conv_batch_norm
// CHECK:         %[[CONV:.*]] = linalg.conv_2d_nchw_fchw {{.*}} ins(%{{.*}}, %{{.*}} : tensor<2x8x10x10xbf16>, tensor<8x8x3x3xbf16>) outs(%{{.*}} : tensor<2x8x8x8xf32>)
// CHECK-NOT:     arith.truncf %[[CONV]]
// CHECK:         %[[BN:.*]] = linalg.generic {{.*}} ins(%[[CONV]], %{{.*}} : tensor<2x8x8x8xf32>, tensor<8xf32>) outs(%{{.*}} : tensor<2x8x8x8xbf16>)
// CHECK-NEXT:    ^bb0(%[[X:.*]]: f32, %[[S:.*]]: f32, %{{.*}}: bf16):
// CHECK-NEXT:      %[[M:.*]] = arith.mulf %[[X]], %[[S]] : f32
// CHECK-NEXT:      %[[R:.*]] = arith.maximumf %[[M]], %{{.*}} : f32
// CHECK-NEXT:      %[[T:.*]] = arith.truncf %[[R]] : f32 to bf16
// CHECK-NEXT:      linalg.yield %[[T]] : bf16
// CHECK:         linalg.conv_2d_nchw_fchw {{.*}} ins(%{{.*}}, %{{.*}} : tensor<2x8x8x8xbf16>, tensor<8x8x1x1xbf16>)
// TF-LABEL:      func.func @conv_batch_norm
// TF:            %[[CONV:.*]] = linalg.conv_2d_nchw_fchw
// TF:            %[[LOW:.*]] = arith.truncf %[[CONV]] : tensor<2x8x8x8xf32> to tensor<2x8x8x8xbf16>
// TF:            linalg.generic {{.*}} ins(%[[LOW]], %{{.*}} : tensor<2x8x8x8xbf16>, tensor<8xbf16>)
func.func @conv_batch_norm(%x: tensor<2x8x10x10xf32>, %w: tensor<8x8x3x3xf32>, %scale: tensor<8xf32>, %w2: tensor<8x8x1x1xf32>) -> tensor<2x8x8x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x8x8x8xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<2x8x8x8xf32>) -> tensor<2x8x8x8xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
    ins(%x, %w : tensor<2x8x10x10xf32>, tensor<8x8x3x3xf32>) outs(%z : tensor<2x8x8x8xf32>) -> tensor<2x8x8x8xf32>
  %bn = linalg.generic {indexing_maps = [#id4, #ch, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
    ins(%c, %scale : tensor<2x8x8x8xf32>, tensor<8xf32>) outs(%e : tensor<2x8x8x8xf32>) {
  ^bb0(%v: f32, %s: f32, %o: f32):
    %0 = arith.mulf %v, %s : f32
    %1 = arith.maximumf %0, %zero : f32
    linalg.yield %1 : f32
  } -> tensor<2x8x8x8xf32>
  %z2 = linalg.fill ins(%zero : f32) outs(%e : tensor<2x8x8x8xf32>) -> tensor<2x8x8x8xf32>
  %c2 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
    ins(%bn, %w2 : tensor<2x8x8x8xf32>, tensor<8x8x1x1xf32>) outs(%z2 : tensor<2x8x8x8xf32>) -> tensor<2x8x8x8xf32>
  return %c2 : tensor<2x8x8x8xf32>
}

// A contraction written as a generic extends its inputs in its body like an
// elementwise op; its bf16 inputs are what makes it fast, so the roundings
// of its operands stay. So does the rounding of a value that a matmul also
// reads (the elementwise reader then shares the bf16 copy).
// CHECK-LABEL: func.func @contraction_readers
// CHECK-SAME:    (%[[A:[^:]*]]: tensor<8x16xf32>, %[[B:[^:]*]]: tensor<16x8xf32>
// CHECK-DAG:     %[[A16:.*]] = arith.truncf %[[A]] : tensor<8x16xf32> to tensor<8x16xbf16>
// CHECK-DAG:     %[[B16:.*]] = arith.truncf %[[B]] : tensor<16x8xf32> to tensor<16x8xbf16>
// CHECK:         %[[G:.*]] = linalg.generic {{.*}} ins(%[[A16]], %[[B16]] : tensor<8x16xbf16>, tensor<16x8xbf16>) outs(%{{.*}} : tensor<8x8xf32>)
// CHECK:         %[[G16:.*]] = arith.truncf %[[G]] : tensor<8x8xf32> to tensor<8x8xbf16>
// CHECK:         %[[ADD:.*]] = linalg.generic {{.*}} ins(%[[G16]] : tensor<8x8xbf16>) outs(%{{.*}} : tensor<8x8xbf16>)
// CHECK:         linalg.matmul ins(%[[G16]], %[[ADD]] : tensor<8x8xbf16>, tensor<8x8xbf16>)
func.func @contraction_readers(%a: tensor<8x16xf32>, %b: tensor<16x8xf32>, %acc: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %g = linalg.generic {indexing_maps = [#mA, #mB, #mC], iterator_types = ["parallel", "parallel", "reduction"]}
    ins(%a, %b : tensor<8x16xf32>, tensor<16x8xf32>) outs(%acc : tensor<8x8xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %0 = arith.mulf %x, %y : f32
    %1 = arith.addf %o, %0 : f32
    linalg.yield %1 : f32
  } -> tensor<8x8xf32>
  %e = tensor.empty() : tensor<8x8xf32>
  %add = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
    ins(%g : tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) {
  ^bb0(%x: f32, %o: f32):
    %0 = arith.addf %x, %x : f32
    linalg.yield %0 : f32
  } -> tensor<8x8xf32>
  %mm = linalg.matmul ins(%g, %add : tensor<8x8xf32>, tensor<8x8xf32>) outs(%acc : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %mm : tensor<8x8xf32>
}

// The matmul result is read by a bias add right away and again by a second
// elementwise op after another 16x16 tensor is made (as a backward pass
// reads a saved activation): the f32 result would stay alive across that
// allocation, so the bf16 copy stays. The second matmul's result, read right
// away, is read f32.
// CHECK-LABEL: func.func @read_again_later
// CHECK:         %[[MM:.*]] = linalg.matmul
// CHECK:         %[[LOW:.*]] = arith.truncf %[[MM]] : tensor<16x16xf32> to tensor<16x16xbf16>
// CHECK:         linalg.generic {{.*}} ins(%[[LOW]] : tensor<16x16xbf16>)
// CHECK:         linalg.matmul
// CHECK:         linalg.generic {{.*}} ins(%[[LOW]], %{{.*}} : tensor<16x16xbf16>, tensor<16x16xf32>)
func.func @read_again_later(%x: tensor<16x16xf32>, %w: tensor<16x16xf32>, %acc: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %mm = linalg.matmul ins(%x, %w : tensor<16x16xf32>, tensor<16x16xf32>) outs(%acc : tensor<16x16xf32>) -> tensor<16x16xf32>
  %e = tensor.empty() : tensor<16x16xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
    ins(%mm : tensor<16x16xf32>) outs(%e : tensor<16x16xf32>) {
  ^bb0(%v: f32, %o: f32):
    %c = arith.constant 0.0 : f32
    %0 = arith.maximumf %v, %c : f32
    linalg.yield %0 : f32
  } -> tensor<16x16xf32>
  %mm2 = linalg.matmul ins(%r, %w : tensor<16x16xf32>, tensor<16x16xf32>) outs(%acc : tensor<16x16xf32>) -> tensor<16x16xf32>
  %g = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
    ins(%mm, %mm2 : tensor<16x16xf32>, tensor<16x16xf32>) outs(%e : tensor<16x16xf32>) {
  ^bb0(%v: f32, %d: f32, %o: f32):
    %0 = arith.mulf %v, %d : f32
    linalg.yield %0 : f32
  } -> tensor<16x16xf32>
  %out = linalg.matmul ins(%g, %w : tensor<16x16xf32>, tensor<16x16xf32>) outs(%acc : tensor<16x16xf32>) -> tensor<16x16xf32>
  return %out : tensor<16x16xf32>
}

// A rounding the program itself wrote is kept: its author asked for it.
// CHECK-LABEL: func.func @user_rounding
// CHECK:         %[[MM:.*]] = linalg.matmul
// CHECK:         %[[U:.*]] = arith.truncf %[[MM]] : tensor<8x8xf32> to tensor<8x8xbf16>
// CHECK:         linalg.generic {{.*}} ins(%[[U]] : tensor<8x8xbf16>)
func.func @user_rounding(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>, %acc: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %mm = linalg.matmul ins(%a, %b : tensor<8x8xf32>, tensor<8x8xf32>) outs(%acc : tensor<8x8xf32>) -> tensor<8x8xf32>
  %u = arith.truncf %mm : tensor<8x8xf32> to tensor<8x8xbf16>
  %e = tensor.empty() : tensor<8x8xf32>
  %g = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
    ins(%u : tensor<8x8xbf16>) outs(%e : tensor<8x8xf32>) {
  ^bb0(%v: bf16, %o: f32):
    %0 = arith.extf %v : bf16 to f32
    %1 = arith.mulf %0, %0 : f32
    linalg.yield %1 : f32
  } -> tensor<8x8xf32>
  %out = linalg.matmul ins(%g, %b : tensor<8x8xf32>, tensor<8x8xf32>) outs(%acc : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %out : tensor<8x8xf32>
}

// A batch norm after a convolution, as torch-mlir decomposes it (x - mean,
// * invstd, * gamma, + beta), painted bf16 between two convolutions: each op
// only extends the previous one's result, so each yields f32 and the chain
// rounds once, at its end, for the next convolution (PyTorch's batch norm on
// a bf16 tensor rounds once too).
// CHECK-LABEL: func.func @batch_norm_chain
// CHECK:         %[[CONV:.*]] = linalg.conv_2d_nchw_fchw
// CHECK-NOT:     arith.truncf
// CHECK:         %[[SUB:.*]] = linalg.generic {{.*}} ins(%[[CONV]], %{{.*}} : tensor<2x4x6x6xf32>, tensor<4xf32>) outs(%{{.*}} : tensor<2x4x6x6xf32>)
// CHECK-NOT:       truncf
// CHECK:           linalg.yield %{{.*}} : f32
// CHECK:         %[[MUL:.*]] = linalg.generic {{.*}} ins(%[[SUB]], %{{.*}} : tensor<2x4x6x6xf32>, tensor<4xf32>) outs(%{{.*}} : tensor<2x4x6x6xf32>)
// CHECK-NOT:       truncf
// CHECK:           linalg.yield %{{.*}} : f32
// CHECK:         %[[ADD:.*]] = linalg.generic {{.*}} ins(%[[MUL]], %{{.*}} : tensor<2x4x6x6xf32>, tensor<4xf32>) outs(%{{.*}} : tensor<2x4x6x6xbf16>)
// CHECK:           %[[T:.*]] = arith.truncf %{{.*}} : f32 to bf16
// CHECK-NEXT:      linalg.yield %[[T]] : bf16
// CHECK:         linalg.conv_2d_nchw_fchw {{.*}} ins(%[[ADD]], %{{.*}} : tensor<2x4x6x6xbf16>, tensor<4x4x1x1xbf16>)
// TF-LABEL:      func.func @batch_norm_chain
// TF-COUNT-3:    arith.truncf %{{.*}} : f32 to bf16
func.func @batch_norm_chain(%x: tensor<2x4x8x8xf32>, %w: tensor<4x4x3x3xf32>, %mean: tensor<4xf32>, %scale: tensor<4xf32>, %beta: tensor<4xf32>, %w2: tensor<4x4x1x1xf32>) -> tensor<2x4x6x6xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x4x6x6xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<2x4x6x6xf32>) -> tensor<2x4x6x6xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
    ins(%x, %w : tensor<2x4x8x8xf32>, tensor<4x4x3x3xf32>) outs(%z : tensor<2x4x6x6xf32>) -> tensor<2x4x6x6xf32>
  %sub = linalg.generic {indexing_maps = [#id4, #ch, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
    ins(%c, %mean : tensor<2x4x6x6xf32>, tensor<4xf32>) outs(%e : tensor<2x4x6x6xf32>) {
  ^bb0(%v: f32, %m: f32, %o: f32):
    %0 = arith.subf %v, %m : f32
    linalg.yield %0 : f32
  } -> tensor<2x4x6x6xf32>
  %mul = linalg.generic {indexing_maps = [#id4, #ch, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
    ins(%sub, %scale : tensor<2x4x6x6xf32>, tensor<4xf32>) outs(%e : tensor<2x4x6x6xf32>) {
  ^bb0(%v: f32, %s: f32, %o: f32):
    %0 = arith.mulf %v, %s : f32
    linalg.yield %0 : f32
  } -> tensor<2x4x6x6xf32>
  %add = linalg.generic {indexing_maps = [#id4, #ch, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
    ins(%mul, %beta : tensor<2x4x6x6xf32>, tensor<4xf32>) outs(%e : tensor<2x4x6x6xf32>) {
  ^bb0(%v: f32, %b: f32, %o: f32):
    %0 = arith.addf %v, %b : f32
    linalg.yield %0 : f32
  } -> tensor<2x4x6x6xf32>
  %z2 = linalg.fill ins(%zero : f32) outs(%e : tensor<2x4x6x6xf32>) -> tensor<2x4x6x6xf32>
  %c2 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
    ins(%add, %w2 : tensor<2x4x6x6xf32>, tensor<4x4x1x1xf32>) outs(%z2 : tensor<2x4x6x6xf32>) -> tensor<2x4x6x6xf32>
  return %c2 : tensor<2x4x6x6xf32>
}

// A residual add between two matmuls reads the residual `x` (f32: an
// embedding's gather, also read by an f32 reduction) and the projection,
// reshaped as torch-mlir does. The projection's bias add yields f32 through the
// expand_shape, and `x` is read f32 although it stays alive across the
// block: the 16x64 tensor made in between has 4x its bytes (autocast keeps
// a residual stream f32 all along). The sum is rounded once, for the last
// matmul.
// CHECK-LABEL: func.func @residual_across_block
// CHECK-SAME:    (%[[IDS:[^:]*]]: tensor<16xi64>
// CHECK:         %[[X:.*]] = linalg.generic {{.*}} ins(%[[IDS]] : tensor<16xi64>) outs(%{{.*}} : tensor<16x16xf32>)
// CHECK-NOT:     arith.truncf %[[X]]
// CHECK:         %[[HID:.*]] = linalg.matmul {{.*}} outs(%{{.*}} : tensor<16x64xf32>)
// CHECK:         %[[PROJ:.*]] = linalg.matmul {{.*}} outs(%{{.*}} : tensor<16x16xf32>)
// CHECK:         %[[BIAS:.*]] = linalg.generic {{.*}} ins(%[[PROJ]], %{{.*}} : tensor<16x16xf32>, tensor<16xf32>) outs(%{{.*}} : tensor<16x16xf32>)
// CHECK:         %[[XE:.*]] = tensor.expand_shape %[[X]] {{.*}} : tensor<16x16xf32> into tensor<2x8x16xf32>
// CHECK:         %[[EXP:.*]] = tensor.expand_shape %[[BIAS]] {{.*}} : tensor<16x16xf32> into tensor<2x8x16xf32>
// CHECK:         %[[RES:.*]] = linalg.generic {{.*}} ins(%[[XE]], %[[EXP]] : tensor<2x8x16xf32>, tensor<2x8x16xf32>) outs(%{{.*}} : tensor<2x8x16xbf16>)
// CHECK:           arith.truncf %{{.*}} : f32 to bf16
// CHECK:         %[[FLAT:.*]] = tensor.collapse_shape %[[RES]]
// CHECK:         linalg.matmul ins(%[[FLAT]], %{{.*}} : tensor<16x16xbf16>, tensor<16x16xbf16>)
func.func @residual_across_block(%ids: tensor<16xi64>, %table: tensor<4x16xf32>, %in: tensor<16x16xf32>, %w1: tensor<16x64xf32>, %w2: tensor<64x16xf32>, %b: tensor<16xf32>, %w3: tensor<16x16xf32>) -> (tensor<16x16xf32>, tensor<16xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x16xf32>
  %x = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, #id], iterator_types = ["parallel", "parallel"]}
    ins(%ids : tensor<16xi64>) outs(%e : tensor<16x16xf32>) {
  ^bb0(%i: i64, %o: f32):
    %row = arith.index_cast %i : i64 to index
    %col = linalg.index 1 : index
    %0 = tensor.extract %table[%row, %col] : tensor<4x16xf32>
    linalg.yield %0 : f32
  } -> tensor<16x16xf32>
  %e1 = tensor.empty() : tensor<16xf32>
  %z1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<16xf32>) -> tensor<16xf32>
  %sum = linalg.generic {indexing_maps = [#id, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
    ins(%x : tensor<16x16xf32>) outs(%z1 : tensor<16xf32>) {
  ^bb0(%v: f32, %o: f32):
    %0 = arith.addf %v, %o : f32
    linalg.yield %0 : f32
  } -> tensor<16xf32>
  %eh = tensor.empty() : tensor<16x64xf32>
  %zh = linalg.fill ins(%zero : f32) outs(%eh : tensor<16x64xf32>) -> tensor<16x64xf32>
  %hid = linalg.matmul ins(%in, %w1 : tensor<16x16xf32>, tensor<16x64xf32>) outs(%zh : tensor<16x64xf32>) -> tensor<16x64xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<16x16xf32>) -> tensor<16x16xf32>
  %proj = linalg.matmul ins(%hid, %w2 : tensor<16x64xf32>, tensor<64x16xf32>) outs(%z : tensor<16x16xf32>) -> tensor<16x16xf32>
  %biased = linalg.generic {indexing_maps = [#id, affine_map<(d0, d1) -> (d1)>, #id], iterator_types = ["parallel", "parallel"]}
    ins(%proj, %b : tensor<16x16xf32>, tensor<16xf32>) outs(%e : tensor<16x16xf32>) {
  ^bb0(%v: f32, %c: f32, %o: f32):
    %0 = arith.addf %v, %c : f32
    linalg.yield %0 : f32
  } -> tensor<16x16xf32>
  %x3 = tensor.expand_shape %x [[0, 1], [2]] output_shape [2, 8, 16] : tensor<16x16xf32> into tensor<2x8x16xf32>
  %p3 = tensor.expand_shape %biased [[0, 1], [2]] output_shape [2, 8, 16] : tensor<16x16xf32> into tensor<2x8x16xf32>
  %e3 = tensor.empty() : tensor<2x8x16xf32>
  %res = linalg.generic {indexing_maps = [#id3, #id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
    ins(%x3, %p3 : tensor<2x8x16xf32>, tensor<2x8x16xf32>) outs(%e3 : tensor<2x8x16xf32>) {
  ^bb0(%u: f32, %v: f32, %o: f32):
    %0 = arith.addf %u, %v : f32
    linalg.yield %0 : f32
  } -> tensor<2x8x16xf32>
  %flat = tensor.collapse_shape %res [[0, 1], [2]] : tensor<2x8x16xf32> into tensor<16x16xf32>
  %out = linalg.matmul ins(%flat, %w3 : tensor<16x16xf32>, tensor<16x16xf32>) outs(%z : tensor<16x16xf32>) -> tensor<16x16xf32>
  return %out, %sum : tensor<16x16xf32>, tensor<16xf32>
}

// A low bias add read only by an f32 op (the exp of a softmax-like tail):
// it yields f32 and the extf of its result is gone.
// CHECK-LABEL: func.func @read_by_f32_op
// CHECK:         %[[MM:.*]] = linalg.matmul
// CHECK:         %[[B:.*]] = linalg.generic {{.*}} ins(%[[MM]], %{{.*}} : tensor<8x8xf32>, tensor<8x8xf32>) outs(%{{.*}} : tensor<8x8xf32>)
// CHECK-NOT:     arith.extf
// CHECK:         linalg.generic {{.*}} ins(%[[B]] : tensor<8x8xf32>)
// CHECK:           math.exp
func.func @read_by_f32_op(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>, %bias: tensor<8x8xf32>, %acc: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %mm = linalg.matmul ins(%a, %b : tensor<8x8xf32>, tensor<8x8xf32>) outs(%acc : tensor<8x8xf32>) -> tensor<8x8xf32>
  %e = tensor.empty() : tensor<8x8xf32>
  %add = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
    ins(%mm, %bias : tensor<8x8xf32>, tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) {
  ^bb0(%v: f32, %c: f32, %o: f32):
    %0 = arith.addf %v, %c : f32
    linalg.yield %0 : f32
  } -> tensor<8x8xf32>
  %exp = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
    ins(%add : tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) {
  ^bb0(%v: f32, %o: f32):
    %0 = math.exp %v : f32
    linalg.yield %0 : f32
  } -> tensor<8x8xf32>
  return %exp : tensor<8x8xf32>
}

// A low op's result read right away and again after a tensor four times its
// size (as a backward pass reads a saved activation) stays bf16: each such
// value would cost little in f32, all of them would double the saved
// activations. Only a rounding of a value that an f32 op also reads (the
// residual stream above) is read wide past larger tensors.
// CHECK-LABEL: func.func @saved_activation_stays_low
// CHECK:         %[[ACT:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<16x16xbf16>)
// CHECK:           arith.truncf %{{.*}} : f32 to bf16
// CHECK:         linalg.generic {{.*}} ins(%[[ACT]] : tensor<16x16xbf16>)
// CHECK:         linalg.matmul {{.*}} outs(%{{.*}} : tensor<16x64xf32>)
// CHECK:         linalg.generic {{.*}} ins(%[[ACT]], %{{.*}} : tensor<16x16xbf16>, tensor<16x16xf32>)
func.func @saved_activation_stays_low(%a: tensor<16x16xf32>, %w: tensor<16x16xf32>, %w1: tensor<16x64xf32>, %w2: tensor<64x16xf32>, %bias: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x16xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<16x16xf32>) -> tensor<16x16xf32>
  %mm = linalg.matmul ins(%a, %w : tensor<16x16xf32>, tensor<16x16xf32>) outs(%z : tensor<16x16xf32>) -> tensor<16x16xf32>
  %act = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
    ins(%mm, %bias : tensor<16x16xf32>, tensor<16x16xf32>) outs(%e : tensor<16x16xf32>) {
  ^bb0(%v: f32, %c: f32, %o: f32):
    %0 = arith.addf %v, %c : f32
    linalg.yield %0 : f32
  } -> tensor<16x16xf32>
  %relu = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
    ins(%act : tensor<16x16xf32>) outs(%e : tensor<16x16xf32>) {
  ^bb0(%v: f32, %o: f32):
    %0 = arith.maximumf %v, %zero : f32
    linalg.yield %0 : f32
  } -> tensor<16x16xf32>
  %eh = tensor.empty() : tensor<16x64xf32>
  %zh = linalg.fill ins(%zero : f32) outs(%eh : tensor<16x64xf32>) -> tensor<16x64xf32>
  %hid = linalg.matmul ins(%relu, %w1 : tensor<16x16xf32>, tensor<16x64xf32>) outs(%zh : tensor<16x64xf32>) -> tensor<16x64xf32>
  %back = linalg.matmul ins(%hid, %w2 : tensor<16x64xf32>, tensor<64x16xf32>) outs(%z : tensor<16x16xf32>) -> tensor<16x16xf32>
  %grad = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
    ins(%act, %back : tensor<16x16xf32>, tensor<16x16xf32>) outs(%e : tensor<16x16xf32>) {
  ^bb0(%v: f32, %g: f32, %o: f32):
    %0 = arith.cmpf ogt, %v, %zero : f32
    %1 = arith.select %0, %g, %zero : f32
    linalg.yield %1 : f32
  } -> tensor<16x16xf32>
  %out = linalg.matmul ins(%grad, %w : tensor<16x16xf32>, tensor<16x16xf32>) outs(%z : tensor<16x16xf32>) -> tensor<16x16xf32>
  return %out : tensor<16x16xf32>
}

// A batch norm's backward: the output gradient (a matmul's result, low)
// centered by its per-channel mean. The mean is read by broadcasting, after
// an activation-sized tensor is made: it yields f32 all the same (a few
// bytes per channel), and the centering subtracts the unrounded mean, as
// PyTorch's batch-norm backward does. With the mean rounded, the difference
// of two nearly equal gradients is mostly rounding error (torch-fuzz seed
// 1799).
// CHECK-LABEL: func.func @broadcast_mean_yields_wide
// CHECK:         %[[MM:.*]] = linalg.matmul
// CHECK-NEXT:    %[[DY:.*]] = arith.truncf %[[MM]] : tensor<8x64xf32> to tensor<8x64xbf16>
// CHECK:         %[[SUM:.*]] = linalg.generic {{.*}} iterator_types = ["reduction", "parallel"]} ins(%[[DY]] : tensor<8x64xbf16>) outs(%{{.*}} : tensor<64xf32>)
// CHECK:         %[[MEAN:.*]] = linalg.generic {{.*}} ins(%[[SUM]] : tensor<64xf32>) outs(%{{.*}} : tensor<64xf32>)
// CHECK-NOT:       truncf
// CHECK:           linalg.yield %{{.*}} : f32
// CHECK:         %[[SCALED:.*]] = linalg.generic {{.*}} ins(%[[DY]] : tensor<8x64xbf16>) outs(%{{.*}} : tensor<8x64xf32>)
// CHECK:         %[[CENTERED:.*]] = linalg.generic {{.*}} ins(%[[SCALED]], %[[MEAN]] : tensor<8x64xf32>, tensor<64xf32>) outs(%{{.*}} : tensor<8x64xbf16>)
// CHECK-NEXT:    ^bb0(%[[X:.*]]: f32, %[[M:.*]]: f32, %{{.*}}: bf16):
// CHECK-NEXT:      arith.subf %[[X]], %[[M]] : f32
// CHECK:         linalg.matmul ins(%[[CENTERED]], %{{.*}} : tensor<8x64xbf16>, tensor<64x32xbf16>)
// TF-LABEL:      func.func @broadcast_mean_yields_wide
// TF:            linalg.generic {{.*}} outs(%{{.*}} : tensor<64xbf16>)
#rowsum = affine_map<(d0, d1) -> (d1)>
#vec = affine_map<(d0) -> (d0)>
func.func @broadcast_mean_yields_wide(%a: tensor<8x16xf32>, %b: tensor<16x64xf32>, %w: tensor<64x32xf32>) -> tensor<8x32xf32> {
  %zero = arith.constant 0.0 : f32
  %inv = arith.constant 0.125 : f32
  %e = tensor.empty() : tensor<8x64xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<8x64xf32>) -> tensor<8x64xf32>
  %dy = linalg.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x64xf32>) outs(%acc : tensor<8x64xf32>) -> tensor<8x64xf32>
  %ev = tensor.empty() : tensor<64xf32>
  %zv = linalg.fill ins(%zero : f32) outs(%ev : tensor<64xf32>) -> tensor<64xf32>
  %sum = linalg.generic {indexing_maps = [#id, #rowsum], iterator_types = ["reduction", "parallel"]} ins(%dy : tensor<8x64xf32>) outs(%zv : tensor<64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %out : f32
    linalg.yield %s : f32
  } -> tensor<64xf32>
  %mean = linalg.generic {indexing_maps = [#vec, #vec], iterator_types = ["parallel"]} ins(%sum : tensor<64xf32>) outs(%ev : tensor<64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.mulf %in, %inv : f32
    linalg.yield %m : f32
  } -> tensor<64xf32>
  %scaled = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%dy : tensor<8x64xf32>) outs(%e : tensor<8x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.mulf %in, %inv : f32
    linalg.yield %m : f32
  } -> tensor<8x64xf32>
  %centered = linalg.generic {indexing_maps = [#id, #rowsum, #id], iterator_types = ["parallel", "parallel"]} ins(%scaled, %mean : tensor<8x64xf32>, tensor<64xf32>) outs(%e : tensor<8x64xf32>) {
  ^bb0(%in: f32, %m: f32, %out: f32):
    %d = arith.subf %in, %m : f32
    linalg.yield %d : f32
  } -> tensor<8x64xf32>
  %eo = tensor.empty() : tensor<8x32xf32>
  %acco = linalg.fill ins(%zero : f32) outs(%eo : tensor<8x32xf32>) -> tensor<8x32xf32>
  %r = linalg.matmul ins(%centered, %w : tensor<8x64xf32>, tensor<64x32xf32>) outs(%acco : tensor<8x32xf32>) -> tensor<8x32xf32>
  return %r : tensor<8x32xf32>
}

// The same with the per-channel sum read directly, through torch-mlir's
// unit-dimension reshape (1 x 64 read at row 0): the sum is an f32
// accumulator, so the low reader would get a rounding of it, which it reads
// wide instead, although an activation-sized tensor is made in between.
// CHECK-LABEL: func.func @broadcast_sum_read_wide
// CHECK:         %[[SUM:.*]] = linalg.generic {{.*}} iterator_types = ["reduction", "parallel"]} {{.*}} outs(%{{.*}} : tensor<64xf32>)
// CHECK-NOT:     arith.truncf
// CHECK:         %[[UNIT:.*]] = tensor.expand_shape %[[SUM]] {{.*}} : tensor<64xf32> into tensor<1x64xf32>
// CHECK:         %[[CENTERED:.*]] = linalg.generic {{.*}} ins(%{{.*}}, %[[UNIT]] : tensor<8x64xf32>, tensor<1x64xf32>) outs(%{{.*}} : tensor<8x64xbf16>)
// CHECK:         linalg.matmul ins(%[[CENTERED]], %{{.*}} : tensor<8x64xbf16>, tensor<64x32xbf16>)
// TF-LABEL:      func.func @broadcast_sum_read_wide
// TF:            arith.truncf %{{.*}} : tensor<64xf32> to tensor<64xbf16>
#unitrow = affine_map<(d0, d1) -> (0, d1)>
func.func @broadcast_sum_read_wide(%a: tensor<8x16xf32>, %b: tensor<16x64xf32>, %w: tensor<64x32xf32>) -> tensor<8x32xf32> {
  %zero = arith.constant 0.0 : f32
  %inv = arith.constant 0.125 : f32
  %e = tensor.empty() : tensor<8x64xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<8x64xf32>) -> tensor<8x64xf32>
  %dy = linalg.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x64xf32>) outs(%acc : tensor<8x64xf32>) -> tensor<8x64xf32>
  %ev = tensor.empty() : tensor<64xf32>
  %zv = linalg.fill ins(%zero : f32) outs(%ev : tensor<64xf32>) -> tensor<64xf32>
  %sum = linalg.generic {indexing_maps = [#id, #rowsum], iterator_types = ["reduction", "parallel"]} ins(%dy : tensor<8x64xf32>) outs(%zv : tensor<64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %out : f32
    linalg.yield %s : f32
  } -> tensor<64xf32>
  %unit = tensor.expand_shape %sum [[0, 1]] output_shape [1, 64] : tensor<64xf32> into tensor<1x64xf32>
  %scaled = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%dy : tensor<8x64xf32>) outs(%e : tensor<8x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.mulf %in, %inv : f32
    linalg.yield %m : f32
  } -> tensor<8x64xf32>
  %centered = linalg.generic {indexing_maps = [#id, #unitrow, #id], iterator_types = ["parallel", "parallel"]} ins(%scaled, %unit : tensor<8x64xf32>, tensor<1x64xf32>) outs(%e : tensor<8x64xf32>) {
  ^bb0(%in: f32, %m: f32, %out: f32):
    %d = arith.subf %in, %m : f32
    linalg.yield %d : f32
  } -> tensor<8x64xf32>
  %eo = tensor.empty() : tensor<8x32xf32>
  %acco = linalg.fill ins(%zero : f32) outs(%eo : tensor<8x32xf32>) -> tensor<8x32xf32>
  %r = linalg.matmul ins(%centered, %w : tensor<8x64xf32>, tensor<64x32xf32>) outs(%acco : tensor<8x32xf32>) -> tensor<8x32xf32>
  return %r : tensor<8x32xf32>
}

// With a batch of 2 the "per-channel" mean is half of what its reader
// iterates over, not a small fraction: the liveness rule applies as to any
// value, and the scaled gradient, made between the mean and its reader,
// keeps the mean rounded.
// CHECK-LABEL: func.func @small_batch_mean_stays_rounded
// CHECK:         linalg.generic {{.*}} iterator_types = ["reduction", "parallel"]} {{.*}} outs(%{{.*}} : tensor<64xf32>)
// CHECK:         linalg.generic {{.*}} outs(%{{.*}} : tensor<64xbf16>)
// CHECK:           arith.truncf %{{.*}} : f32 to bf16
// CHECK:         linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<2x64xf32>, tensor<64xbf16>)
func.func @small_batch_mean_stays_rounded(%a: tensor<2x16xf32>, %b: tensor<16x64xf32>, %w: tensor<64x32xf32>) -> tensor<2x32xf32> {
  %zero = arith.constant 0.0 : f32
  %inv = arith.constant 0.5 : f32
  %e = tensor.empty() : tensor<2x64xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<2x64xf32>) -> tensor<2x64xf32>
  %dy = linalg.matmul ins(%a, %b : tensor<2x16xf32>, tensor<16x64xf32>) outs(%acc : tensor<2x64xf32>) -> tensor<2x64xf32>
  %ev = tensor.empty() : tensor<64xf32>
  %zv = linalg.fill ins(%zero : f32) outs(%ev : tensor<64xf32>) -> tensor<64xf32>
  %sum = linalg.generic {indexing_maps = [#id, #rowsum], iterator_types = ["reduction", "parallel"]} ins(%dy : tensor<2x64xf32>) outs(%zv : tensor<64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %out : f32
    linalg.yield %s : f32
  } -> tensor<64xf32>
  %mean = linalg.generic {indexing_maps = [#vec, #vec], iterator_types = ["parallel"]} ins(%sum : tensor<64xf32>) outs(%ev : tensor<64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.mulf %in, %inv : f32
    linalg.yield %m : f32
  } -> tensor<64xf32>
  %scaled = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%dy : tensor<2x64xf32>) outs(%e : tensor<2x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.mulf %in, %inv : f32
    linalg.yield %m : f32
  } -> tensor<2x64xf32>
  %centered = linalg.generic {indexing_maps = [#id, #rowsum, #id], iterator_types = ["parallel", "parallel"]} ins(%scaled, %mean : tensor<2x64xf32>, tensor<64xf32>) outs(%e : tensor<2x64xf32>) {
  ^bb0(%in: f32, %m: f32, %out: f32):
    %d = arith.subf %in, %m : f32
    linalg.yield %d : f32
  } -> tensor<2x64xf32>
  %eo = tensor.empty() : tensor<2x32xf32>
  %acco = linalg.fill ins(%zero : f32) outs(%eo : tensor<2x32xf32>) -> tensor<2x32xf32>
  %r = linalg.matmul ins(%centered, %w : tensor<2x64xf32>, tensor<64x32xf32>) outs(%acco : tensor<2x32xf32>) -> tensor<2x32xf32>
  return %r : tensor<2x32xf32>
}

