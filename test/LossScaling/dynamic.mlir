// amp-loss-scaling with its defaults (mode=dynamic state=args): the seed is
// the scale, every gradient is unscaled in f32 and feeds one all-finite
// flag, every state update is skipped on overflow, the scale follows
// GradScaler's rule and its state is appended to the signature.
// RUN: amp-opt %s --allow-unregistered-dialect --split-input-file --amp-loss-scaling | FileCheck %s
// The statistics.
// RUN: amp-opt %s --allow-unregistered-dialect --split-input-file --amp-loss-scaling=stats=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=STATS
// STATS:      amp-loss-scaling statistics:
// STATS-NEXT:   1 functions-scaled
// STATS-NEXT:   2 gradients-unscaled
// STATS-NEXT:   3 updates-guarded

// Two gradients, three state updates (SGD with momentum on %w): one flag
// guards them all.
// CHECK-LABEL: func.func @step(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<4x8xf32> {amp.role = "input"}, %[[W:[^:]*]]: tensor<8x2xf32> {amp.role = "param"}, %[[B:[^:]*]]: tensor<2xf32> {amp.role = "param"}, %[[V:[^:]*]]: tensor<8x2xf32> {amp.role = "opt_state"},
// CHECK-SAME:    %[[SCALE:[^:]*]]: tensor<f32> {amp.role = "loss_scale"}, %[[COUNT:[^:]*]]: tensor<i32> {amp.role = "good_steps"})
// CHECK-SAME:    -> (tensor<f32> {amp.role = "loss"}, tensor<8x2xf32> {amp.role = "update", amp.updates = 1 : i64}, tensor<2xf32> {amp.role = "update", amp.updates = 2 : i64}, tensor<8x2xf32> {amp.role = "update", amp.updates = 3 : i64},
// CHECK-SAME:        tensor<f32> {amp.role = "loss_scale"}, tensor<i32> {amp.role = "good_steps"}, tensor<i1> {amp.role = "step_ok"})
// CHECK:         %[[S:.*]] = tensor.extract %[[SCALE]][] : tensor<f32>
// CHECK:         %[[N:.*]] = tensor.extract %[[COUNT]][] : tensor<i32>
// CHECK:         %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK:         %[[INV:.*]] = arith.divf %[[ONE]], %[[S]] : f32
// CHECK:         %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:         %[[LOSS:.*]] = "test.loss"
// CHECK:         %[[SEED:.*]] = tensor.splat %[[S]] : tensor<f32>
// CHECK:         %[[GRADS:.*]]:2 = "test.backward"(%[[SEED]], %[[X]], %[[W]])
// CHECK:         %[[INVW:.*]] = tensor.splat %[[INV]] : tensor<8x2xf32>
// CHECK:         %[[GW:.*]] = arith.mulf %[[GRADS]]#0, %[[INVW]] : tensor<8x2xf32>
// CHECK:         %[[EW:.*]] = tensor.empty() : tensor<f32>
// CHECK:         %[[AW:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[EW]] : tensor<f32>)
// CHECK:         %[[RW:.*]] = linalg.generic {indexing_maps = [#[[ID2:.*]], #[[TO0:.*]]], iterator_types = ["reduction", "reduction"]} ins(%[[GW]] : tensor<8x2xf32>) outs(%[[AW]] : tensor<f32>)
// CHECK:         ^bb0(%[[IN:.*]]: f32, %[[ACC:.*]]: f32):
// CHECK:           %[[T0:.*]] = arith.mulf %[[IN]], %[[ZERO]] : f32
// CHECK:           %[[T1:.*]] = arith.addf %[[ACC]], %[[T0]] : f32
// CHECK:           linalg.yield %[[T1]] : f32
// CHECK:         %[[PW:.*]] = tensor.extract %[[RW]][] : tensor<f32>
// CHECK:         %[[INVB:.*]] = tensor.splat %[[INV]] : tensor<2xf32>
// CHECK:         %[[GB:.*]] = arith.mulf %[[GRADS]]#1, %[[INVB]] : tensor<2xf32>
// CHECK:         %[[RB:.*]] = linalg.generic {{.*}} ins(%[[GB]] : tensor<2xf32>)
// CHECK:         %[[PB:.*]] = tensor.extract %[[RB]][] : tensor<f32>
// CHECK:         %[[SUM:.*]] = arith.addf %[[PW]], %[[PB]] : f32
// CHECK:         %[[OK:.*]] = arith.cmpf oeq, %[[SUM]], %[[ZERO]] : f32
// CHECK:         %[[NV:.*]] = arith.addf %{{.*}}, %[[GW]] : tensor<8x2xf32>
// CHECK:         %[[V2:.*]] = arith.select %[[OK]], %[[NV]], %[[V]] : tensor<8x2xf32>
// CHECK:         %[[NW:.*]] = arith.subf %[[W]], %[[NV]] : tensor<8x2xf32>
// CHECK:         %[[W2:.*]] = arith.select %[[OK]], %[[NW]], %[[W]] : tensor<8x2xf32>
// CHECK:         %[[NB:.*]] = arith.subf %[[B]], %[[GB]] : tensor<2xf32>
// CHECK:         %[[B2:.*]] = arith.select %[[OK]], %[[NB]], %[[B]] : tensor<2xf32>
// CHECK:         %[[STEPOK:.*]] = tensor.from_elements %[[OK]] : tensor<i1>
// Overflow: S * 0.5, at least 1.0.
// CHECK:         %[[C0:.*]] = arith.constant 0 : i32
// CHECK:         %[[MIN:.*]] = arith.constant 1.000000e+00 : f32
// CHECK:         %[[BACKOFF:.*]] = arith.constant 5.000000e-01 : f32
// CHECK:         %[[HALF:.*]] = arith.mulf %[[S]], %[[BACKOFF]] : f32
// CHECK:         %[[BACKED:.*]] = arith.maximumf %[[HALF]], %[[MIN]] : f32
// Good step: count; at 2000 good steps S * 2 if finite, at most 2^24.
// CHECK:         %[[C1:.*]] = arith.constant 1 : i32
// CHECK:         %[[NEXT:.*]] = arith.addi %[[N]], %[[C1]] : i32
// CHECK:         %[[INTERVAL:.*]] = arith.constant 2000 : i32
// CHECK:         %[[GROW:.*]] = arith.cmpi sge, %[[NEXT]], %[[INTERVAL]] : i32
// CHECK:         %[[GROWTH:.*]] = arith.constant 2.000000e+00 : f32
// CHECK:         %[[GROWN:.*]] = arith.mulf %[[S]], %[[GROWTH]] : f32
// CHECK:         %[[INF:.*]] = arith.constant 0x7F800000 : f32
// CHECK:         %[[FINITE:.*]] = arith.cmpf olt, %[[GROWN]], %[[INF]] : f32
// CHECK:         %[[MAX:.*]] = arith.constant 0x4B800000 : f32
// CHECK:         %[[CLAMPED:.*]] = arith.minimumf %[[GROWN]], %[[MAX]] : f32
// CHECK:         %[[GROWNS:.*]] = arith.select %[[FINITE]], %[[CLAMPED]], %[[S]] : f32
// CHECK:         %[[GOODS:.*]] = arith.select %[[GROW]], %[[GROWNS]], %[[S]] : f32
// CHECK:         %[[GOODN:.*]] = arith.select %[[GROW]], %[[C0]], %[[NEXT]] : i32
// CHECK:         %[[NEWS:.*]] = arith.select %[[OK]], %[[GOODS]], %[[BACKED]] : f32
// CHECK:         %[[NEWN:.*]] = arith.select %[[OK]], %[[GOODN]], %[[C0]] : i32
// CHECK:         %[[NEWST:.*]] = tensor.from_elements %[[NEWS]] : tensor<f32>
// CHECK:         %[[NEWNT:.*]] = tensor.from_elements %[[NEWN]] : tensor<i32>
// CHECK:         return %[[LOSS]], %[[W2]], %[[B2]], %[[V2]], %[[NEWST]], %[[NEWNT]], %[[STEPOK]] : tensor<f32>, tensor<8x2xf32>, tensor<2xf32>, tensor<8x2xf32>, tensor<f32>, tensor<i32>, tensor<i1>
// CHECK-NOT:     amp.
func.func @step(%x: tensor<4x8xf32> {amp.role = "input"},
                %w: tensor<8x2xf32> {amp.role = "param"},
                %b: tensor<2xf32> {amp.role = "param"},
                %v: tensor<8x2xf32> {amp.role = "opt_state"})
    -> (tensor<f32> {amp.role = "loss"},
        tensor<8x2xf32> {amp.role = "update", amp.updates = 1 : i64},
        tensor<2xf32> {amp.role = "update", amp.updates = 2 : i64},
        tensor<8x2xf32> {amp.role = "update", amp.updates = 3 : i64}) {
  %loss = "test.loss"(%x, %w, %b) : (tensor<4x8xf32>, tensor<8x2xf32>, tensor<2xf32>) -> tensor<f32>
  %seed = amp.grad_seed %loss : tensor<f32>
  %dw, %db = "test.backward"(%seed, %x, %w) : (tensor<f32>, tensor<4x8xf32>, tensor<8x2xf32>) -> (tensor<8x2xf32>, tensor<2xf32>)
  %gw = amp.param_grad %dw : tensor<8x2xf32>
  %gb = amp.param_grad %db : tensor<2xf32>
  %mu = arith.constant dense<0.9> : tensor<8x2xf32>
  %mv = arith.mulf %mu, %v : tensor<8x2xf32>
  %nv = arith.addf %mv, %gw : tensor<8x2xf32>
  %v2 = amp.state_update %v, %nv : tensor<8x2xf32>
  %nw = arith.subf %w, %nv : tensor<8x2xf32>
  %w2 = amp.state_update %w, %nw : tensor<8x2xf32>
  %nb = arith.subf %b, %gb : tensor<2xf32>
  %b2 = amp.state_update %b, %nb : tensor<2xf32>
  return %loss, %w2, %b2, %v2 : tensor<f32>, tensor<8x2xf32>, tensor<2xf32>, tensor<8x2xf32>
}

// -----

// An update written before the last gradient is guarded after it (its
// result is only returned).
// CHECK-LABEL: func.func @interleaved(
// CHECK-SAME:    %[[W1:[^:]*]]: tensor<4xf32>, %[[W2:[^:]*]]: tensor<4xf32>,
// CHECK:         %[[G1:.*]] = arith.mulf %{{.*}}, %{{.*}} : tensor<4xf32>
// CHECK:         %[[NW1:.*]] = arith.subf %[[W1]], %[[G1]] : tensor<4xf32>
// CHECK:         %[[G2:.*]] = arith.mulf %{{.*}}, %{{.*}} : tensor<4xf32>
// CHECK:         %[[OK:.*]] = arith.cmpf oeq
// CHECK-NEXT:    %[[U1:.*]] = arith.select %[[OK]], %[[NW1]], %[[W1]] : tensor<4xf32>
// CHECK:         %[[NW2:.*]] = arith.subf %[[W2]], %[[G2]] : tensor<4xf32>
// CHECK:         %[[U2:.*]] = arith.select %[[OK]], %[[NW2]], %[[W2]] : tensor<4xf32>
// CHECK:         return %[[U1]], %[[U2]], %{{.*}}, %{{.*}}, %{{.*}} :
func.func @interleaved(%w1: tensor<4xf32>, %w2: tensor<4xf32>, %loss: tensor<f32>)
    -> (tensor<4xf32>, tensor<4xf32>) {
  %seed = amp.grad_seed %loss : tensor<f32>
  %d1, %d2 = "test.backward"(%seed) : (tensor<f32>) -> (tensor<4xf32>, tensor<4xf32>)
  %g1 = amp.param_grad %d1 : tensor<4xf32>
  %nw1 = arith.subf %w1, %g1 : tensor<4xf32>
  %u1 = amp.state_update %w1, %nw1 : tensor<4xf32>
  %g2 = amp.param_grad %d2 : tensor<4xf32>
  %nw2 = arith.subf %w2, %g2 : tensor<4xf32>
  %u2 = amp.state_update %w2, %nw2 : tensor<4xf32>
  return %u1, %u2 : tensor<4xf32>, tensor<4xf32>
}

// -----

// A scalar loss and a scalar gradient; a dynamically shaped gradient.
// CHECK-LABEL: func.func @shapes(
// CHECK-SAME:    %[[LOSS:[^:]*]]: f32, %[[W:[^:]*]]: f32, %[[D:[^:]*]]: tensor<?x4xf32>
// CHECK:         %[[S:.*]] = tensor.extract
// CHECK:         %[[INV:.*]] = arith.divf %{{.*}}, %[[S]] : f32
// CHECK:         %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:         %[[DW:.*]]:2 = "test.backward"(%[[S]], %[[D]])
// CHECK:         %[[GW:.*]] = arith.mulf %[[DW]]#0, %[[INV]] : f32
// CHECK:         %[[PW:.*]] = arith.mulf %[[GW]], %[[ZERO]] : f32
// CHECK:         %[[C0:.*]] = arith.constant 0 : index
// CHECK:         %[[DIM:.*]] = tensor.dim %[[DW]]#1, %[[C0]] : tensor<?x4xf32>
// CHECK:         %[[INVD:.*]] = tensor.splat %[[INV]][%[[DIM]]] : tensor<?x4xf32>
// CHECK:         %[[GD:.*]] = arith.mulf %[[DW]]#1, %[[INVD]] : tensor<?x4xf32>
// CHECK:         %[[RD:.*]] = linalg.generic {{.*}} ins(%[[GD]] : tensor<?x4xf32>)
// CHECK:         %[[PD:.*]] = tensor.extract %[[RD]][] : tensor<f32>
// CHECK:         %[[SUM:.*]] = arith.addf %[[PW]], %[[PD]] : f32
// CHECK:         arith.cmpf oeq, %[[SUM]], %[[ZERO]] : f32
func.func @shapes(%loss: f32, %w: f32, %d: tensor<?x4xf32>) -> (f32, tensor<?x4xf32>) {
  %seed = amp.grad_seed %loss : f32
  %dw, %dd = "test.backward"(%seed, %d) : (f32, tensor<?x4xf32>) -> (f32, tensor<?x4xf32>)
  %gw = amp.param_grad %dw : f32
  %gd = amp.param_grad %dd : tensor<?x4xf32>
  %nw = arith.subf %w, %gw : f32
  %w2 = amp.state_update %w, %nw : f32
  return %w2, %gd : f32, tensor<?x4xf32>
}

// -----

// A seed without gradients: the flag is true, the scale still counts steps.
// CHECK-LABEL: func.func @no_gradients(
// CHECK:         %[[OK:.*]] = arith.constant true
// CHECK:         tensor.from_elements %[[OK]] : tensor<i1>
func.func @no_gradients(%loss: tensor<f32>) -> tensor<f32> {
  %seed = amp.grad_seed %loss : tensor<f32>
  return %seed : tensor<f32>
}

// -----

// Functions without a seed are not training steps: unchanged, state
// updates included (amp-strip-markers removes those).
// CHECK-LABEL: func.func @eval(
// CHECK-SAME:    -> tensor<4xf32> {
// CHECK:         amp.state_update
// CHECK-NOT:     tensor.extract
func.func @eval(%w: tensor<4xf32>, %x: tensor<4xf32>) -> tensor<4xf32> {
  %y = arith.mulf %w, %x : tensor<4xf32>
  %w2 = amp.state_update %w, %y : tensor<4xf32>
  return %w2 : tensor<4xf32>
}
