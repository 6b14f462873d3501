// RUN: amp-opt %s --amp-auto-mixed-precision='explain=true' --verify-diagnostics --split-input-file --allow-unregistered-dialect -o /dev/null
// RUN: amp-opt %s --amp-explain --verify-diagnostics --split-input-file --allow-unregistered-dialect -o /dev/null

// One remark per op: its class and why it ended up low or f32.
func.func @chain(%x: tensor<8x16xf32>, %w: tensor<16x8xf32>, %acc: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-remark @below {{amp: f32: deny (deny list (default))}}
  %e = math.exp %x : tensor<8x16xf32>
  // expected-remark @below {{amp: f32: infer: fed by math.exp at loc(}}
  %m = arith.mulf %e, %x : tensor<8x16xf32>
  // expected-remark @below {{amp: low: clear: next to low-precision linalg.matmul at loc(}}
  %b = arith.maximumf %m, %x : tensor<8x16xf32>
  // expected-remark @below {{amp: low: allow (allow list (default)): low-precision inputs, f32 accumulation}}
  %mm = linalg.matmul ins(%b, %w : tensor<8x16xf32>, tensor<16x8xf32>) outs(%acc : tensor<8x8xf32>) -> tensor<8x8xf32>
  // expected-remark @below {{amp: f32: infer: not between allow ops, kept f32}}
  %r = math.tanh %mm : tensor<8x8xf32>
  // expected-remark @below {{amp: f32: unlisted (not on any list): kept f32}}
  %o = "test.unknown"(%r) : (tensor<8x8xf32>) -> tensor<8x8xf32>
  return %o : tensor<8x8xf32>
}

// -----

// linalg.generic ops are classified by their body.
func.func @generics(%x: tensor<8xf32>, %out: tensor<8xf32>, %acc: tensor<f32>) -> (tensor<8xf32>, tensor<f32>) {
  // expected-remark @below {{amp: f32: deny (linalg.generic:elementwise, strictest body op math.exp is deny)}}
  %e = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
      ins(%x : tensor<8xf32>) outs(%out : tensor<8xf32>) {
  ^bb0(%a: f32, %b: f32):
    %v = math.exp %a : f32
    linalg.yield %v : f32
  } -> tensor<8xf32>
  // expected-remark @below {{amp: f32: deny (linalg.generic:sum-reduction (default))}}
  %s = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> ()>], iterator_types = ["reduction"]}
      ins(%e : tensor<8xf32>) outs(%acc : tensor<f32>) {
  ^bb0(%a: f32, %b: f32):
    %v = arith.addf %a, %b : f32
    linalg.yield %v : f32
  } -> tensor<f32>
  return %e, %s : tensor<8xf32>, tensor<f32>
}
