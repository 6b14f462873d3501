// The amp.* attributes of function arguments and results are verified by
// the amp dialect, with the argument's location and no dump of the function.
// RUN: amp-opt %s --split-input-file --verify-diagnostics

// Valid: every role, a donated argument, an update index, a rounded weight.
func.func @step(%x: tensor<4x8xf32> {amp.role = "input"},
                %y: tensor<4xf32> {amp.role = "label"},
                %w: tensor<8x2xf32> {amp.role = "param", amp.donated},
                %m: tensor<8x2xf32> {amp.role = "opt_state"},
                %s: f32 {amp.role = "loss_scale"},
                %g: i32 {amp.role = "good_steps"},
                %r: tensor<8x2xbf16> {amp.rounded_from = tensor<8x2xf32>})
    -> (f32 {amp.role = "loss"}, tensor<8x2xf32> {amp.role = "update", amp.updates = 2 : i64},
        i1 {amp.role = "step_ok"}, tensor<8x2xf32> {amp.role = "grad"}, tensor<4x2xf32> {amp.role = "logits"}) {
  %c = arith.constant 0.0 : f32
  %t = arith.constant true
  %l = arith.constant dense<0.0> : tensor<4x2xf32>
  return %c, %w, %t, %m, %l : f32, tensor<8x2xf32>, i1, tensor<8x2xf32>, tensor<4x2xf32>
}

// -----

// expected-error @+1 {{'amp.role' must be one of input, label, param, opt_state, loss_scale, good_steps, loss, update, step_ok, grad, logits; got "weights"}}
func.func @bad_role(%x: tensor<4xf32> {amp.role = "weights"}) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}

// -----

// expected-error @+1 {{'amp.role' must be one of}}
func.func @bad_result_role(%x: tensor<4xf32>) -> (tensor<4xf32> {amp.role = 3 : i64}) {
  return %x : tensor<4xf32>
}

// -----

// expected-error @+1 {{'amp.updates' on result #0 must be the index of an argument; got 1 : i64}}
func.func @bad_update(%x: tensor<4xf32>) -> (tensor<4xf32> {amp.updates = 1 : i64}) {
  return %x : tensor<4xf32>
}

// -----

// expected-error @+1 {{'amp.donated' is a unit attribute}}
func.func @bad_donated(%x: tensor<4xf32> {amp.donated = true}) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}

// -----

// The rounded argument must be the f16/bf16 tensor of the named f32 shape.
// expected-error @+1 {{'amp.rounded_from' on argument #0 must name the f32 tensor type of which the argument, an f16 or bf16 tensor of the same shape, is the rounding; got tensor<4x8xf32> on 'tensor<8x4xbf16>'}}
func.func @bad_shape(%x: tensor<8x4xbf16> {amp.rounded_from = tensor<4x8xf32>}) -> tensor<8x4xbf16> {
  return %x : tensor<8x4xbf16>
}

// -----

// expected-error @+1 {{'amp.rounded_from' on argument #0 must name}}
func.func @not_low(%x: tensor<4xf32> {amp.rounded_from = tensor<4xf32>}) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
