// Training steps that amp-loss-scaling cannot rewrite: an error with a
// location, and a non-zero exit.
// RUN: amp-opt %s --allow-unregistered-dialect --split-input-file --verify-diagnostics --amp-loss-scaling
// RUN: not amp-opt %s --allow-unregistered-dialect --split-input-file --amp-loss-scaling > /dev/null 2>&1

func.func @no_seed(%d: tensor<4xf32>, %w: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{amp-loss-scaling: amp.param_grad in a function without amp.grad_seed: the scale of its gradients is unknown (mark the loss with amp.grad_seed)}}
  %g = amp.param_grad %d : tensor<4xf32>
  %nw = arith.subf %w, %g : tensor<4xf32>
  return %nw : tensor<4xf32>
}

// -----

func.func @nested_grad(%loss: tensor<f32>, %c: i1) -> tensor<4xf32> {
  %seed = amp.grad_seed %loss : tensor<f32>
  %d = "test.backward"(%seed) : (tensor<f32>) -> tensor<4xf32>
  %r = scf.if %c -> tensor<4xf32> {
    // expected-error@+1 {{amp-loss-scaling: amp.param_grad must be directly in the body of @nested_grad, not in a nested region: every gradient feeds the step's all-finite check}}
    %g = amp.param_grad %d : tensor<4xf32>
    scf.yield %g : tensor<4xf32>
  } else {
    scf.yield %d : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

func.func @update_used_early(%loss: tensor<f32>, %w1: tensor<4xf32>, %w2: tensor<4xf32>)
    -> (tensor<4xf32>, tensor<4xf32>) {
  %seed = amp.grad_seed %loss : tensor<f32>
  %d1, %d2 = "test.backward"(%seed) : (tensor<f32>) -> (tensor<4xf32>, tensor<4xf32>)
  %g1 = amp.param_grad %d1 : tensor<4xf32>
  %n1 = arith.subf %w1, %g1 : tensor<4xf32>
  // expected-error@+1 {{amp-loss-scaling: the result of this amp.state_update is used before the last amp.param_grad of the function; the update can only be skipped once every gradient is known}}
  %u1 = amp.state_update %w1, %n1 : tensor<4xf32>
  // expected-note@+1 {{used here}}
  %mixed = arith.addf %u1, %d2 : tensor<4xf32>
  // expected-note@+1 {{the last amp.param_grad}}
  %g2 = amp.param_grad %mixed : tensor<4xf32>
  %n2 = arith.subf %w2, %g2 : tensor<4xf32>
  %u2 = amp.state_update %w2, %n2 : tensor<4xf32>
  return %u1, %u2 : tensor<4xf32>, tensor<4xf32>
}

// -----

func.func @nested_update_early(%loss: tensor<f32>, %w: tensor<4xf32>, %c: i1)
    -> tensor<4xf32> {
  %seed = amp.grad_seed %loss : tensor<f32>
  %d = "test.backward"(%seed) : (tensor<f32>) -> tensor<4xf32>
  %r = scf.if %c -> tensor<4xf32> {
    // expected-error@+1 {{amp-loss-scaling: amp.state_update in a nested region must come after the last amp.param_grad of the function: the update is skipped on overflow of any gradient}}
    %u = amp.state_update %w, %d : tensor<4xf32>
    scf.yield %u : tensor<4xf32>
  } else {
    scf.yield %w : tensor<4xf32>
  }
  // expected-note@+1 {{the last amp.param_grad}}
  %g = amp.param_grad %d : tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// state=args appends arguments: callers in the module could not follow.
// expected-error@+1 {{amp-loss-scaling{state=args}: training step @called gets loss-scale arguments and results, but it is referenced in the module; call it from outside the module or use state=globals}}
func.func @called(%loss: tensor<f32>) -> tensor<f32> {
  %seed = amp.grad_seed %loss : tensor<f32>
  return %seed : tensor<f32>
}
func.func @caller(%loss: tensor<f32>) -> tensor<f32> {
  // expected-note@+1 {{referenced here}}
  %r = call @called(%loss) : (tensor<f32>) -> tensor<f32>
  return %r : tensor<f32>
}

// -----

// expected-error@+1 {{amp-loss-scaling: training step @branches has more than one block; only single-block bodies are supported (structured control flow: scf)}}
func.func @branches(%loss: tensor<f32>, %c: i1) -> tensor<f32> {
  %seed = amp.grad_seed %loss : tensor<f32>
  cf.cond_br %c, ^a, ^b
^a:
  return %seed : tensor<f32>
^b:
  return %loss : tensor<f32>
}

// -----

// expected-error@+1 {{amp-loss-scaling: a training step must be a func.func (got 'ml_program.subgraph')}}
ml_program.subgraph @graph(%loss: tensor<f32>) -> tensor<f32> {
  %seed = amp.grad_seed %loss : tensor<f32>
  ml_program.output %seed : tensor<f32>
}
