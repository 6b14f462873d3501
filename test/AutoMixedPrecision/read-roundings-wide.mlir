// With the cast economy (default), a rounding the pass inserts for low
// elementwise readers that only extend it back to f32 is dropped: they read
// the f32 value (one rounding fewer, no tensor cast). Contractions keep their
// low inputs, user casts stay, and a value read again after a large tensor
// is made keeps its low copy (the f32 one would stay alive across it).
// cast-economy=false inserts every rounding, as TensorFlow does.
//
// RUN: amp-opt %s --amp-auto-mixed-precision='mode=bf16' | FileCheck %s
// RUN: amp-opt %s --amp-auto-mixed-precision='mode=bf16' | amp-opt --amp-auto-mixed-precision='mode=bf16' | FileCheck %s
// RUN: amp-opt %s --amp-auto-mixed-precision='mode=bf16 cast-economy=false' | FileCheck %s --check-prefix=TF
// RUN: amp-opt %s --amp-auto-mixed-precision='mode=bf16 stats=true' -o /dev/null 2>&1 | FileCheck %s --check-prefix=STATS
// RUN: amp-opt %s --amp-auto-mixed-precision='mode=bf16 stats=true cast-economy=false' -o /dev/null 2>&1 | FileCheck %s --check-prefix=STATS-TF
// The convolution's result, and the second matmul's in @read_again_later:
// STATS:    2 roundings-read-wide
// STATS-TF: 0 roundings-read-wide

#id4 = affine_map<(n, c, h, w) -> (n, c, h, w)>
#ch = affine_map<(n, c, h, w) -> (c)>
#id = affine_map<(d0, d1) -> (d0, d1)>
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
