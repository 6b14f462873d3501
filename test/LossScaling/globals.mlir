// state=globals: one pair of ml_program globals per training step, named
// after it (renamed on a clash); the signature does not change, so the step
// may be called in the module.
// RUN: amp-opt %s --allow-unregistered-dialect --amp-loss-scaling=state=globals | FileCheck %s

// CHECK:       ml_program.global private @train_loss_scale(dense<1.000000e+00> : tensor<f32>) : tensor<f32>
// CHECK:       ml_program.global private mutable @[[SCALE:train_loss_scale_[0-9]+]](dense<6.553600e+04> : tensor<f32>) : tensor<f32>
// CHECK-NEXT:  ml_program.global private mutable @[[COUNT:train_good_steps]](dense<0> : tensor<i32>) : tensor<i32>
// CHECK-LABEL: func.func @train(
// CHECK-SAME:    -> tensor<4xf32> {
// CHECK:         ml_program.global_load @[[SCALE]] : tensor<f32>
// CHECK:         ml_program.global_load @[[COUNT]] : tensor<i32>
// CHECK:         ml_program.global_store @[[SCALE]] =
// CHECK:         ml_program.global_store @[[COUNT]] =
// CHECK:       ml_program.global private mutable @[[SCALE2:other_loss_scale]](
// CHECK-NEXT:  ml_program.global private mutable @[[COUNT2:other_good_steps]](
// CHECK-LABEL: func.func @other(
// CHECK:         ml_program.global_load @[[SCALE2]] : tensor<f32>
// CHECK-LABEL: func.func @driver(
// CHECK:         call @train(%{{.*}}, %{{.*}}) : (tensor<f32>, tensor<4xf32>) -> tensor<4xf32>

ml_program.global private @train_loss_scale(dense<1.0> : tensor<f32>) : tensor<f32>

func.func @train(%loss: tensor<f32>, %w: tensor<4xf32>) -> tensor<4xf32> {
  %seed = amp.grad_seed %loss : tensor<f32>
  %d = "test.backward"(%seed) : (tensor<f32>) -> tensor<4xf32>
  %g = amp.param_grad %d : tensor<4xf32>
  %nw = arith.subf %w, %g : tensor<4xf32>
  %w2 = amp.state_update %w, %nw : tensor<4xf32>
  return %w2 : tensor<4xf32>
}

func.func @other(%loss: tensor<f32>, %w: tensor<4xf32>) -> tensor<4xf32> {
  %seed = amp.grad_seed %loss : tensor<f32>
  %d = "test.backward"(%seed) : (tensor<f32>) -> tensor<4xf32>
  %g = amp.param_grad %d : tensor<4xf32>
  %nw = arith.subf %w, %g : tensor<4xf32>
  %w2 = amp.state_update %w, %nw : tensor<4xf32>
  return %w2 : tensor<4xf32>
}

func.func @driver(%loss: tensor<f32>, %w: tensor<4xf32>) -> tensor<4xf32> {
  %w2 = call @train(%loss, %w) : (tensor<f32>, tensor<4xf32>) -> tensor<4xf32>
  return %w2 : tensor<4xf32>
}
