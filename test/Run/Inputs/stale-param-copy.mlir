// A step that updates its weight %w but not the weight's bf16 copy %c
// (amp.copy_of = 2): the next step would multiply with the old rounding.
// amp-run rejects it (test/Run/carry-rounded-params.test).

func.func @train_step(
    %x: tensor<4x8xf32> {amp.role = "input"},
    %y: tensor<4x2xf32> {amp.role = "label"},
    %w: tensor<8x2xf32> {amp.role = "param"},
    %c: tensor<8x2xbf16> {amp.role = "param_copy", amp.copy_of = 2 : i64})
    -> (tensor<f32> {amp.role = "loss"},
        tensor<8x2xf32> {amp.role = "update", amp.updates = 2 : i64}) {
  %loss = arith.constant dense<0.0> : tensor<f32>
  %d = arith.constant dense<0.01> : tensor<8x2xf32>
  %wn = arith.subf %w, %d : tensor<8x2xf32>
  return %loss, %wn : tensor<f32>, tensor<8x2xf32>
}
