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

// expected-error @+1 {{'amp.role' must be one of input, label, param, param_copy, opt_state, loss_scale, good_steps, loss, update, step_ok, grad, logits; got "weights"}}
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

// -----

// amp.copy_of names the f32 argument that a 16-bit argument is the rounding
// of (amp-carry-rounded-params).
func.func @copy_ok(%w: tensor<4x8xf32> {amp.role = "param"},
                   %c: tensor<4x8xbf16> {amp.role = "param_copy", amp.copy_of = 0 : i64}) -> tensor<4x8xbf16> {
  return %c : tensor<4x8xbf16>
}

// -----

// expected-error @+2 {{'amp.copy_of' on argument #1 must be the index of an f32 tensor argument of which this argument, an f16 or bf16 tensor of the same shape, is the rounding; got 2 : i64}}
func.func @copy_out_of_range(%w: tensor<4x8xf32>,
                             %c: tensor<4x8xbf16> {amp.copy_of = 2 : i64}) -> tensor<4x8xbf16> {
  return %c : tensor<4x8xbf16>
}

// -----

// expected-error @+2 {{'amp.copy_of' on argument #1 must be the index of an f32 tensor argument}}
func.func @copy_other_shape(%w: tensor<4x8xf32>,
                            %c: tensor<8x4xbf16> {amp.copy_of = 0 : i64}) -> tensor<8x4xbf16> {
  return %c : tensor<8x4xbf16>
}

// -----

// expected-error @+2 {{'amp.copy_of' on argument #1 must be the index of an f32 tensor argument}}
func.func @copy_not_low(%w: tensor<4x8xf32>,
                        %c: tensor<4x8xf32> {amp.copy_of = 0 : i64}) -> tensor<4x8xf32> {
  return %c : tensor<4x8xf32>
}

// -----

// A misspelt amp.* name is an error, not silently ignored.
// expected-error @+1 {{unknown attribute 'amp.roll' (the amp dialect defines amp.role, amp.rounded_from, amp.copy_of and amp.donated on function arguments)}}
func.func @misspelt_arg(%x: tensor<4xf32> {amp.roll = "param"}) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}

// -----

// expected-error @+1 {{unknown attribute 'amp.update' (the amp dialect defines amp.role and amp.updates on function results)}}
func.func @misspelt_result(%x: tensor<4xf32>) -> (tensor<4xf32> {amp.update = 0 : i64}) {
  return %x : tensor<4xf32>
}

// -----

// The decision amp-auto-mixed-precision{annotate=true} leaves on an op.
func.func @decision(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = arith.addf %x, %x {amp.decision = {class = "infer", precision = "low", reason = "follows its inputs"}} : tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

func.func @bad_decision(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'amp.decision' must be {class = <allow, infer, clear, deny or unlisted>, precision = <low or f32>, reason = <string>}; got {class = "maybe", precision = "low", reason = ""}}}
  %y = arith.addf %x, %x {amp.decision = {class = "maybe", precision = "low", reason = ""}} : tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

func.func @bad_blocked_conv(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'amp.blocked_conv' is array<i64: stride_h, stride_w, dilation_h, dilation_w> (each >= 1) on a linalg.generic; got array<i64: 1, 0, 1, 1>}}
  %y = arith.addf %x, %x {amp.blocked_conv = array<i64: 1, 0, 1, 1>} : tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

func.func @unknown_op_attr(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{unknown attribute 'amp.precision' (the amp dialect defines amp.decision on ops, amp.blocked_conv on a linalg.generic and amp.report.<stage> on a module; }}
  %y = arith.addf %x, %x {amp.precision = "low"} : tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// expected-error @+1 {{'amp.report.input' is the JSON text of a report snapshot on a module}}
module attributes {amp.report.input = 3 : i64} {
}
