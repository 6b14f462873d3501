// amp-fuse-elementwise: chains of elementwise generics on tensors become one
// generic (an AMP cast, a bias add and a relu: one loop nest, no
// intermediate buffer), splat constants and fills become scalars, but named
// contractions stay named for amp-lower-to-runtime.
// RUN: amp-opt %s --split-input-file --convert-elementwise-to-linalg \
// RUN:   --amp-fuse-elementwise | FileCheck %s

// The matmul's f32 result is cast to bf16, the bias added and relu applied:
// the bias and the relu (and a splat constant) become one generic, which
// reads the cast. The cast itself stays next to the matmul, its only
// reader: amp-lower-to-runtime folds it into the runtime call, which then
// writes bf16, and the fused loop reads half the bytes.
// CHECK-LABEL: func.func @cast_bias_relu
// CHECK:         %[[MM:.+]] = linalg.matmul
// CHECK:         %[[CAST:.+]] = linalg.generic
// CHECK-SAME:      ins(%[[MM]] : tensor<8x16xf32>)
// CHECK-NEXT:      ^bb0
// CHECK-NEXT:      arith.truncf
// CHECK-NEXT:      linalg.yield
// CHECK:         %[[R:.+]] = linalg.generic
// CHECK-SAME:      ins(%[[CAST]], %{{.+}} : tensor<8x16xbf16>, tensor<16xbf16>)
// CHECK:           arith.addf
// CHECK:           arith.maximumf
// CHECK:           linalg.yield
// CHECK-NOT:     linalg.generic
// CHECK:         return %[[R]]
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
func.func @cast_bias_relu(%x: tensor<8x32xbf16>, %w: tensor<32x16xbf16>, %b: tensor<16xbf16>) -> tensor<8x16xbf16> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x16xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<8x32xbf16>, tensor<32x16xbf16>) outs(%fill : tensor<8x16xf32>) -> tensor<8x16xf32>
  %cast = arith.truncf %mm : tensor<8x16xf32> to tensor<8x16xbf16>
  %e1 = tensor.empty() : tensor<8x16xbf16>
  %biased = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%cast, %b : tensor<8x16xbf16>, tensor<16xbf16>) outs(%e1 : tensor<8x16xbf16>) {
  ^bb0(%in: bf16, %bias: bf16, %out: bf16):
    %s = arith.addf %in, %bias : bf16
    linalg.yield %s : bf16
  } -> tensor<8x16xbf16>
  %zeros = arith.constant dense<0.0> : tensor<8x16xbf16>
  %relu = arith.maximumf %biased, %zeros : tensor<8x16xbf16>
  return %relu : tensor<8x16xbf16>
}

// -----

// An elementwise producer (the cast of the weights) is not fused into the
// matmul that consumes it: the matmul must stay a linalg.matmul.
// CHECK-LABEL: func.func @not_into_contractions
// CHECK:         %[[W:.+]] = linalg.generic
// CHECK:           arith.truncf
// CHECK:         linalg.matmul ins(%{{.+}}, %[[W]] : tensor<8x32xbf16>, tensor<32x16xbf16>)
// CHECK:         %[[I:.+]] = linalg.generic
// CHECK:           arith.truncf
// CHECK:         linalg.conv_2d_nhwc_hwcf {{.*}} ins(%[[I]], %{{.+}} : tensor<1x6x6x3xbf16>, tensor<3x3x3x4xbf16>)
func.func @not_into_contractions(%x: tensor<8x32xbf16>, %w: tensor<32x16xf32>, %c: tensor<8x16xf32>,
                                 %i: tensor<1x6x6x3xf32>, %f: tensor<3x3x3x4xbf16>, %o: tensor<1x4x4x4xf32>) -> (tensor<8x16xf32>, tensor<1x4x4x4xf32>) {
  %wl = arith.truncf %w : tensor<32x16xf32> to tensor<32x16xbf16>
  %r = linalg.matmul ins(%x, %wl : tensor<8x32xbf16>, tensor<32x16xbf16>) outs(%c : tensor<8x16xf32>) -> tensor<8x16xf32>
  %il = arith.truncf %i : tensor<1x6x6x3xf32> to tensor<1x6x6x3xbf16>
  %q = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
         ins(%il, %f : tensor<1x6x6x3xbf16>, tensor<3x3x3x4xbf16>) outs(%o : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  return %r, %q : tensor<8x16xf32>, tensor<1x4x4x4xf32>
}

// -----

// No reshape propagation: a matmul between reshapes (a transformer's
// attention projection) stays a 2-D linalg.matmul (upstream's
// linalg-fuse-elementwise-ops turns it into a 4-D generic contraction).
// CHECK-LABEL: func.func @projection
// CHECK:         tensor.collapse_shape
// CHECK:         %[[P:.+]] = linalg.matmul ins(%{{.+}}, %{{.+}} : tensor<32x64xf32>, tensor<64x64xf32>)
// CHECK:         tensor.expand_shape %[[P]]
// CHECK:         linalg.generic
// CHECK-SAME:      iterator_types = ["parallel", "parallel", "parallel", "parallel"]
// CHECK-NOT:     "reduction"
func.func @projection(%x: tensor<2x16x64xf32>, %w: tensor<64x64xf32>, %c: tensor<32x64xf32>) -> tensor<2x16x4x16xf32> {
  %flat = tensor.collapse_shape %x [[0, 1], [2]] : tensor<2x16x64xf32> into tensor<32x64xf32>
  %p = linalg.matmul ins(%flat, %w : tensor<32x64xf32>, tensor<64x64xf32>) outs(%c : tensor<32x64xf32>) -> tensor<32x64xf32>
  %heads = tensor.expand_shape %p [[0, 1], [2, 3]] output_shape [2, 16, 4, 16] : tensor<32x64xf32> into tensor<2x16x4x16xf32>
  %r = math.tanh %heads : tensor<2x16x4x16xf32>
  return %r : tensor<2x16x4x16xf32>
}

// -----

// A producer with two uses is not fused (that would compute it twice).
// CHECK-LABEL: func.func @two_uses
// CHECK:         %[[Z:.+]] = linalg.generic
// CHECK:           arith.addf
// CHECK:         %[[A:.+]] = linalg.generic {{.*}} ins(%[[Z]]
// CHECK:           arith.maximumf
// CHECK:         %[[M:.+]] = linalg.generic {{.*}} ins(%[[Z]]
// CHECK:           arith.mulf
// CHECK:         return %[[A]], %[[M]]
func.func @two_uses(%x: tensor<64xf32>, %y: tensor<64xf32>) -> (tensor<64xf32>, tensor<64xf32>) {
  %z = arith.addf %x, %y : tensor<64xf32>
  %a = arith.maximumf %z, %y : tensor<64xf32>
  %m = arith.mulf %z, %x : tensor<64xf32>
  return %a, %m : tensor<64xf32>, tensor<64xf32>
}

// -----

// Momentum SGD: the new momentum is returned and read by the weight update.
// One generic computes both (the producer's result becomes a second result
// of the fused op), instead of writing the momentum and reading it back.
// CHECK-LABEL: func.func @momentum_update
// CHECK-SAME:    (%[[W:.+]]: tensor<64x32xf32>, %[[V:.+]]: tensor<64x32xf32>, %[[G:.+]]: tensor<64x32xf32>)
// CHECK:         %[[F:.+]]:2 = linalg.generic
// CHECK-SAME:      ins(%[[W]], %[[V]], %[[G]] : tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>)
// CHECK:           %[[M:.+]] = arith.mulf
// CHECK:           %[[NV:.+]] = arith.addf %[[M]]
// CHECK:           %[[S:.+]] = arith.mulf %[[NV]]
// CHECK:           %[[NW:.+]] = arith.subf %{{.+}}, %[[S]]
// CHECK:           linalg.yield %[[NV]], %[[NW]]
// CHECK-NOT:     linalg.generic
// CHECK:         return %[[F]]#1, %[[F]]#0
func.func @momentum_update(%w: tensor<64x32xf32>, %v: tensor<64x32xf32>, %g: tensor<64x32xf32>)
    -> (tensor<64x32xf32>, tensor<64x32xf32>) {
  %mu = arith.constant dense<0.9> : tensor<64x32xf32>
  %lr = arith.constant dense<0.1> : tensor<64x32xf32>
  %m = arith.mulf %v, %mu : tensor<64x32xf32>
  %nv = arith.addf %m, %g : tensor<64x32xf32>
  %s = arith.mulf %nv, %lr : tensor<64x32xf32>
  %nw = arith.subf %w, %s : tensor<64x32xf32>
  return %nw, %nv : tensor<64x32xf32>, tensor<64x32xf32>
}

// -----

// A producer read by two generics stays its own op (fusing it into both
// would compute it twice).
// CHECK-LABEL: func.func @two_consumers
// CHECK-COUNT-3: linalg.generic
// CHECK-NOT:     linalg.generic
// CHECK:         return
func.func @two_consumers(%x: tensor<64x32xf32>, %y: tensor<64x32xf32>)
    -> (tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>) {
  %p = arith.addf %x, %y : tensor<64x32xf32>
  %a = arith.mulf %p, %x : tensor<64x32xf32>
  %b = arith.mulf %p, %y : tensor<64x32xf32>
  return %p, %a, %b : tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>
}

// -----

// A producer that the consumer reads both as an input and as its init is
// not fused as a "returned" producer (its other use is not a return):
// replacing the producer's result would make the fused op its own init.
// Before, amp-fuse-elementwise crashed here (amp-fuzz
// --lowering=fast-library, seed 9400038). Both ops stay, the consumer
// reading the producer twice.

// CHECK-LABEL: func.func @producer_read_as_input_and_init
// CHECK-SAME:    (%[[X:.+]]: tensor<8x6xf32>)
// CHECK:         %[[P:.+]] = linalg.generic
// CHECK-SAME:      ins(%[[X]] : tensor<8x6xf32>)
// CHECK:           arith.mulf
// CHECK:         %[[C:.+]] = linalg.generic
// CHECK-SAME:      ins(%[[P]] : tensor<8x6xf32>) outs(%[[P]] : tensor<8x6xf32>)
// CHECK:           arith.subf
// CHECK:         return %[[C]]
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @producer_read_as_input_and_init(%x: tensor<8x6xf32>) -> tensor<8x6xf32> {
  %e = tensor.empty() : tensor<8x6xf32>
  %p = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x6xf32>) outs(%e : tensor<8x6xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.mulf %a, %a : f32
    linalg.yield %m : f32
  } -> tensor<8x6xf32>
  %c = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%p : tensor<8x6xf32>) outs(%p : tensor<8x6xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.subf %a, %o : f32
    linalg.yield %s : f32
  } -> tensor<8x6xf32>
  return %c : tensor<8x6xf32>
}
