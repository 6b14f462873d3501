// Every option of amp-loss-scaling on one training step.
//
// Scale-update constants: growth, backoff, interval, min and max clamps.
// RUN: amp-opt %s --allow-unregistered-dialect --amp-loss-scaling='growth-factor=4 backoff-factor=0.25 growth-interval=100 min-scale=8 max-scale=1024' | FileCheck %s --check-prefix=RULE
// No skipping: the updates are the new values, the flag still drives the scale.
// RUN: amp-opt %s --allow-unregistered-dialect --amp-loss-scaling='skip-on-overflow=false' | FileCheck %s --check-prefix=NOSKIP
// Static scale: a constant, no state, only step_ok appended.
// RUN: amp-opt %s --allow-unregistered-dialect --amp-loss-scaling='mode=static init-scale=1024' | FileCheck %s --check-prefix=STATIC
// RUN: amp-opt %s --allow-unregistered-dialect --amp-loss-scaling='mode=static state=globals' | FileCheck %s --check-prefix=STATIC-GLOBALS
// No scaling: the markers become identities.
// RUN: amp-opt %s --allow-unregistered-dialect --amp-loss-scaling='mode=none' | FileCheck %s --check-prefix=NONE
// The state in ml_program globals.
// RUN: amp-opt %s --allow-unregistered-dialect --amp-loss-scaling='state=globals init-scale=256' | FileCheck %s --check-prefix=GLOBALS
// The same through --pass-pipeline.
// RUN: amp-opt %s --allow-unregistered-dialect --pass-pipeline='builtin.module(amp-loss-scaling{mode=static init-scale=1024})' | FileCheck %s --check-prefix=STATIC

// RULE-LABEL: func.func @step(
// RULE-SAME:    %[[SCALE:[^:]*]]: tensor<f32> {amp.role = "loss_scale"}, %[[COUNT:[^:]*]]: tensor<i32> {amp.role = "good_steps"})
// RULE:         %[[S:.*]] = tensor.extract %[[SCALE]][]
// RULE:         %[[N:.*]] = tensor.extract %[[COUNT]][]
// RULE:         %[[OK:.*]] = arith.cmpf oeq
// RULE:         %[[C0:.*]] = arith.constant 0 : i32
// RULE:         %[[MIN:.*]] = arith.constant 8.000000e+00 : f32
// RULE:         %[[BACKOFF:.*]] = arith.constant 2.500000e-01 : f32
// RULE:         %[[LOW:.*]] = arith.mulf %[[S]], %[[BACKOFF]] : f32
// RULE:         %[[BACKED:.*]] = arith.maximumf %[[LOW]], %[[MIN]] : f32
// RULE:         %[[NEXT:.*]] = arith.addi %[[N]], %{{.*}} : i32
// RULE:         %[[INTERVAL:.*]] = arith.constant 100 : i32
// RULE:         %[[GROW:.*]] = arith.cmpi sge, %[[NEXT]], %[[INTERVAL]] : i32
// RULE:         %[[GROWTH:.*]] = arith.constant 4.000000e+00 : f32
// RULE:         %[[GROWN:.*]] = arith.mulf %[[S]], %[[GROWTH]] : f32
// RULE:         %[[FINITE:.*]] = arith.cmpf olt, %[[GROWN]], %{{.*}} : f32
// RULE:         %[[MAX:.*]] = arith.constant 1.024000e+03 : f32
// RULE:         %[[CLAMPED:.*]] = arith.minimumf %[[GROWN]], %[[MAX]] : f32
// RULE:         %[[GS:.*]] = arith.select %[[FINITE]], %[[CLAMPED]], %[[S]] : f32
// RULE:         %[[GOOD:.*]] = arith.select %[[GROW]], %[[GS]], %[[S]] : f32
// RULE:         %[[GOODN:.*]] = arith.select %[[GROW]], %[[C0]], %[[NEXT]] : i32
// RULE:         arith.select %[[OK]], %[[GOOD]], %[[BACKED]] : f32
// RULE:         arith.select %[[OK]], %[[GOODN]], %[[C0]] : i32

// NOSKIP-LABEL: func.func @step(
// NOSKIP-SAME:    %[[W:[^:]*]]: tensor<4xf32> {amp.role = "param"}
// NOSKIP:         %[[OK:.*]] = arith.cmpf oeq
// NOSKIP-NOT:     arith.select %[[OK]], {{.*}} : tensor<4xf32>
// NOSKIP:         %[[NW:.*]] = arith.subf %[[W]], %{{.*}} : tensor<4xf32>
// NOSKIP-NOT:     arith.select %[[OK]], {{.*}} : tensor<4xf32>
// NOSKIP:         %[[STEPOK:.*]] = tensor.from_elements %[[OK]] : tensor<i1>
// NOSKIP:         arith.select %[[OK]], %{{.*}}, %{{.*}} : f32
// NOSKIP:         return %{{.*}}, %[[NW]], %{{.*}}, %{{.*}}, %[[STEPOK]] :

// STATIC-LABEL: func.func @step(
// STATIC-SAME:    %[[LOSS:[^:]*]]: tensor<f32>, %[[W:[^:]*]]: tensor<4xf32> {amp.role = "param"})
// STATIC-SAME:    -> (tensor<f32> {amp.role = "loss"}, tensor<4xf32> {amp.role = "update", amp.updates = 1 : i64}, tensor<i1> {amp.role = "step_ok"})
// STATIC:         %[[S:.*]] = arith.constant 1.024000e+03 : f32
// STATIC:         %[[INV:.*]] = arith.divf %{{.*}}, %[[S]] : f32
// STATIC:         %[[SEED:.*]] = tensor.splat %[[S]] : tensor<f32>
// STATIC:         %[[D:.*]] = "test.backward"(%[[SEED]])
// STATIC:         %[[INVS:.*]] = tensor.splat %[[INV]] : tensor<4xf32>
// STATIC:         %[[G:.*]] = arith.mulf %[[D]], %[[INVS]] : tensor<4xf32>
// STATIC:         %[[OK:.*]] = arith.cmpf oeq
// STATIC:         %[[NW:.*]] = arith.subf %[[W]], %[[G]] : tensor<4xf32>
// STATIC:         %[[W2:.*]] = arith.select %[[OK]], %[[NW]], %[[W]] : tensor<4xf32>
// STATIC:         %[[STEPOK:.*]] = tensor.from_elements %[[OK]] : tensor<i1>
// STATIC-NOT:     arith.maximumf
// STATIC:         return %[[LOSS]], %[[W2]], %[[STEPOK]] : tensor<f32>, tensor<4xf32>, tensor<i1>

// STATIC-GLOBALS-NOT: ml_program.global
// STATIC-GLOBALS-LABEL: func.func @step(
// STATIC-GLOBALS-SAME:    %{{[^:]*}}: tensor<f32>, %{{[^:]*}}: tensor<4xf32> {amp.role = "param"})
// STATIC-GLOBALS-SAME:    -> (tensor<f32> {amp.role = "loss"}, tensor<4xf32> {amp.role = "update", amp.updates = 1 : i64}) {
// STATIC-GLOBALS:         arith.constant 6.553600e+04 : f32
// STATIC-GLOBALS:         arith.select
// STATIC-GLOBALS-NOT:     tensor.from_elements
// STATIC-GLOBALS:         return %{{.*}}, %{{.*}} : tensor<f32>, tensor<4xf32>

// NONE-LABEL: func.func @step(
// NONE-SAME:    %[[LOSS:[^:]*]]: tensor<f32>, %[[W:[^:]*]]: tensor<4xf32> {amp.role = "param"})
// NONE-SAME:    -> (tensor<f32> {amp.role = "loss"}, tensor<4xf32> {amp.role = "update", amp.updates = 1 : i64}) {
// NONE-NEXT:      %[[ONES:.*]] = arith.constant dense<1.000000e+00> : tensor<f32>
// NONE-NEXT:      %[[D:.*]] = "test.backward"(%[[ONES]])
// NONE-NEXT:      %[[NW:.*]] = arith.subf %[[W]], %[[D]] : tensor<4xf32>
// NONE-NEXT:      return %[[LOSS]], %[[NW]] : tensor<f32>, tensor<4xf32>

// GLOBALS:       ml_program.global private mutable @step_loss_scale(dense<2.560000e+02> : tensor<f32>) : tensor<f32>
// GLOBALS-NEXT:  ml_program.global private mutable @step_good_steps(dense<0> : tensor<i32>) : tensor<i32>
// GLOBALS-LABEL: func.func @step(
// GLOBALS-SAME:    %{{[^:]*}}: tensor<f32>, %[[W:[^:]*]]: tensor<4xf32> {amp.role = "param"})
// GLOBALS-SAME:    -> (tensor<f32> {amp.role = "loss"}, tensor<4xf32> {amp.role = "update", amp.updates = 1 : i64}) {
// GLOBALS-NEXT:    %[[SCALE:.*]] = ml_program.global_load @step_loss_scale : tensor<f32>
// GLOBALS-NEXT:    %[[COUNT:.*]] = ml_program.global_load @step_good_steps : tensor<i32>
// GLOBALS-NEXT:    %[[S:.*]] = tensor.extract %[[SCALE]][] : tensor<f32>
// GLOBALS-NEXT:    %[[N:.*]] = tensor.extract %[[COUNT]][] : tensor<i32>
// GLOBALS:         %[[OK:.*]] = arith.cmpf oeq
// GLOBALS:         %[[W2:.*]] = arith.select %[[OK]], %{{.*}}, %[[W]] : tensor<4xf32>
// GLOBALS:         %[[NEXT:.*]] = arith.addi %[[N]]
// GLOBALS:         %[[NEWS:.*]] = tensor.from_elements %{{.*}} : tensor<f32>
// GLOBALS-NEXT:    %[[NEWN:.*]] = tensor.from_elements %{{.*}} : tensor<i32>
// GLOBALS-NEXT:    ml_program.global_store @step_loss_scale = %[[NEWS]] : tensor<f32>
// GLOBALS-NEXT:    ml_program.global_store @step_good_steps = %[[NEWN]] : tensor<i32>
// GLOBALS-NEXT:    return %{{.*}}, %[[W2]] : tensor<f32>, tensor<4xf32>

func.func @step(%loss: tensor<f32>, %w: tensor<4xf32> {amp.role = "param"})
    -> (tensor<f32> {amp.role = "loss"},
        tensor<4xf32> {amp.role = "update", amp.updates = 1 : i64}) {
  %seed = amp.grad_seed %loss : tensor<f32>
  %d = "test.backward"(%seed) : (tensor<f32>) -> tensor<4xf32>
  %g = amp.param_grad %d : tensor<4xf32>
  %nw = arith.subf %w, %g : tensor<4xf32>
  %w2 = amp.state_update %w, %nw : tensor<4xf32>
  return %loss, %w2 : tensor<f32>, tensor<4xf32>
}
