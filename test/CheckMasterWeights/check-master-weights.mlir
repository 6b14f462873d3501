// amp-check-master-weights: training state must be stored, and updated, in
// f32.
// RUN: amp-opt %s --split-input-file --verify-diagnostics --amp-check-master-weights
// RUN: not amp-opt %s --split-input-file --amp-check-master-weights > /dev/null 2>&1

// An f32 master weight updated in f32: nothing to say.
func.func @f32_update(%w: tensor<4xf32>, %g: tensor<4xf32>) -> tensor<4xf32> {
  %nw = arith.subf %w, %g : tensor<4xf32>
  %w2 = amp.state_update %w, %nw : tensor<4xf32>
  return %w2 : tensor<4xf32>
}

// -----

func.func @f16_weight(%w: tensor<4xf16>, %g: tensor<4xf16>) -> tensor<4xf16> {
  %nw = arith.subf %w, %g : tensor<4xf16>
  // expected-error@+1 {{weight %arg0 would be stored in f16; keep the master copy in f32 (update it in f32 and cast it where it is used)}}
  %w2 = amp.state_update %w, %nw : tensor<4xf16>
  return %w2 : tensor<4xf16>
}

// -----

func.func @bf16_state(%w: tensor<4xf32>, %m: bf16, %g: bf16) -> bf16 {
  %nm = arith.addf %m, %g : bf16
  // expected-error@+1 {{weight %arg1 would be stored in bf16; keep the master copy in f32}}
  %m2 = amp.state_update %m, %nm : bf16
  return %m2 : bf16
}

// -----

// The update ran in f16 and was extended back: its small steps are lost.
func.func @f16_update(%w: tensor<4xf32>, %g: tensor<4xf16>) -> tensor<4xf32> {
  %w16 = arith.truncf %w : tensor<4xf32> to tensor<4xf16>
  %nw16 = arith.subf %w16, %g : tensor<4xf16>
  %nw = arith.extf %nw16 : tensor<4xf16> to tensor<4xf32>
  // expected-warning@+1 {{the update of %arg0 ran in f16: its new value is an arith.extf of a f16 value; compute it in f32 from the f32 master copy}}
  %w2 = amp.state_update %w, %nw : tensor<4xf32>
  return %w2 : tensor<4xf32>
}

// -----

// Integer state (a step counter) is not a weight.
func.func @counter(%t: tensor<i32>, %t2: tensor<i32>) -> tensor<i32> {
  %u = amp.state_update %t, %t2 : tensor<i32>
  return %u : tensor<i32>
}
