// The markers' verifiers.
// RUN: amp-opt %s --split-input-file --verify-diagnostics

func.func @grad_of_integers(%dw: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error@+1 {{'amp.param_grad' op operand #0 must be a float or a ranked tensor of floats, but got 'tensor<4xi32>'}}
  %g = amp.param_grad %dw : tensor<4xi32>
  return %g : tensor<4xi32>
}

// -----

func.func @seed_of_index(%loss: tensor<index>) -> tensor<index> {
  // expected-error@+1 {{'amp.grad_seed' op operand #0 must be a float or a ranked tensor of floats, but got 'tensor<index>'}}
  %s = amp.grad_seed %loss : tensor<index>
  return %s : tensor<index>
}

// -----

func.func @grad_of_unranked(%dw: tensor<*xf32>) -> tensor<*xf32> {
  // expected-error@+1 {{'amp.param_grad' op operand #0 must be a float or a ranked tensor of floats, but got 'tensor<*xf32>'}}
  %g = amp.param_grad %dw : tensor<*xf32>
  return %g : tensor<*xf32>
}

// -----

func.func @grad_changes_type(%dw: tensor<4xf32>) -> tensor<4xf16> {
  // expected-error@+1 {{'amp.param_grad' op failed to verify that the result has the type of the gradient}}
  %g = "amp.param_grad"(%dw) : (tensor<4xf32>) -> tensor<4xf16>
  return %g : tensor<4xf16>
}

// -----

func.func @update_changes_type(%w: tensor<4xf32>, %new: tensor<8xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'amp.state_update' op new value has type 'tensor<8xf32>', but the state it replaces has type 'tensor<4xf32>' (they must be the same)}}
  %w2 = "amp.state_update"(%w, %new) : (tensor<4xf32>, tensor<8xf32>) -> tensor<4xf32>
  return %w2 : tensor<4xf32>
}

// -----

func.func @update_result_type(%w: tensor<4xf32>, %new: tensor<4xf32>) -> tensor<4xf16> {
  // expected-error@+1 {{'amp.state_update' op result has type 'tensor<4xf16>', but the state it replaces has type 'tensor<4xf32>' (they must be the same)}}
  %w2 = "amp.state_update"(%w, %new) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf16>
  return %w2 : tensor<4xf16>
}

// -----

func.func @two_seeds(%loss: tensor<f32>, %aux: tensor<f32>) -> (tensor<f32>, tensor<f32>) {
  // expected-note@+1 {{the first amp.grad_seed is here}}
  %s1 = amp.grad_seed %loss : tensor<f32>
  // expected-error@+1 {{'amp.grad_seed' op is a second amp.grad_seed in one function: a training step has one loss and one seed}}
  %s2 = amp.grad_seed %aux : tensor<f32>
  return %s1, %s2 : tensor<f32>, tensor<f32>
}

// -----

// The second seed hides in a region.
func.func @two_seeds_nested(%c: i1, %loss: tensor<f32>) -> tensor<f32> {
  // expected-note@+1 {{the first amp.grad_seed is here}}
  %s1 = amp.grad_seed %loss : tensor<f32>
  %r = scf.if %c -> tensor<f32> {
    // expected-error@+1 {{is a second amp.grad_seed in one function}}
    %s2 = amp.grad_seed %loss : tensor<f32>
    scf.yield %s2 : tensor<f32>
  } else {
    scf.yield %s1 : tensor<f32>
  }
  return %r : tensor<f32>
}

// -----

// One seed per function: two functions may have one each.
func.func @step_a(%loss: tensor<f32>) -> tensor<f32> {
  %s = amp.grad_seed %loss : tensor<f32>
  return %s : tensor<f32>
}
func.func @step_b(%loss: tensor<f32>) -> tensor<f32> {
  %s = amp.grad_seed %loss : tensor<f32>
  return %s : tensor<f32>
}

// -----

// Markers describe a training step: at module level they are rejected.
%loss = arith.constant dense<1.0> : tensor<f32>
// expected-error@+1 {{'amp.grad_seed' op must be nested in a function (an op with FunctionOpInterface, e.g. func.func): it marks part of a training step}}
%seed = amp.grad_seed %loss : tensor<f32>

// -----

%w = arith.constant dense<1.0> : tensor<4xf32>
// expected-error@+1 {{'amp.state_update' op must be nested in a function}}
%w2 = amp.state_update %w, %w : tensor<4xf32>

// -----

// ... and in a region of an op at module level that is not a function.
%r = scf.execute_region -> tensor<4xf32> {
  %dw = arith.constant dense<1.0> : tensor<4xf32>
  // expected-error@+1 {{'amp.param_grad' op must be nested in a function}}
  %g = amp.param_grad %dw : tensor<4xf32>
  scf.yield %g : tensor<4xf32>
}

// -----

// Markers mark values of the step: in the body of an op that computes (here
// a linalg.generic's scalar body) they are rejected. Structured control flow
// is allowed (ops.mlir).
#id = affine_map<(d0) -> (d0)>
func.func @marker_in_linalg_body(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<4xf32>) outs(%x : tensor<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    // expected-error@+1 {{'amp.param_grad' op must be in a function body or in structured control flow (ops with RegionBranchOpInterface) in it, not in a region of 'linalg.generic'}}
    %g = amp.param_grad %a : f32
    linalg.yield %g : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}
