// The --amp pipeline on a training step with markers: f16 contractions with
// f32 accumulation, then dynamic loss scaling (the default for f16), and no
// marker left.
// RUN: amp-opt %S/Inputs/linear-step.mlir --amp | FileCheck %s
// bf16 has f32's range: no loss scaling by default, the markers become
// identities and the signature does not change.
// RUN: amp-opt %S/Inputs/linear-step.mlir --amp='mode=bf16' | FileCheck %s --check-prefix=BF16
// The pipeline's loss-scaling options.
// RUN: amp-opt %S/Inputs/linear-step.mlir --amp='loss-scaling=static init-scale=1024' | FileCheck %s --check-prefix=STATIC
// RUN: amp-opt %S/Inputs/linear-step.mlir --amp='mode=bf16 loss-scaling=dynamic state=globals' | FileCheck %s --check-prefix=GLOBALS
// RUN: amp-opt %S/Inputs/linear-step.mlir --amp='loss-scaling=none' | FileCheck %s --check-prefix=NONE
// The seed is a deny op for the painting: the scaled values stay f32 up to
// the first contraction, so even a scale above f16's range is not reported.
// RUN: amp-opt %S/Inputs/linear-step.mlir --amp='loss-scaling=static' -o /dev/null 2>&1 | FileCheck %s --allow-empty --check-prefix=NOWARN
// NOWARN-NOT: warning
// The output is upstream-only IR.
// RUN: amp-opt %S/Inputs/linear-step.mlir --amp | mlir-opt > /dev/null

// CHECK-LABEL: func.func @linear_step(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<8x16xf32> {amp.role = "input"}, %[[Y:[^:]*]]: tensor<8x4xf32> {amp.role = "label"},
// CHECK-SAME:    %[[W:[^:]*]]: tensor<16x4xf32> {amp.role = "param"}, %[[B:[^:]*]]: tensor<4xf32> {amp.role = "param"},
// CHECK-SAME:    %[[SCALE:[^:]*]]: tensor<f32> {amp.role = "loss_scale"}, %[[COUNT:[^:]*]]: tensor<i32> {amp.role = "good_steps"})
// CHECK-SAME:    -> (tensor<f32> {amp.role = "loss"}, tensor<16x4xf32> {amp.role = "update", amp.updates = 2 : i64}, tensor<4xf32> {amp.role = "update", amp.updates = 3 : i64},
// CHECK-SAME:        tensor<f32> {amp.role = "loss_scale"}, tensor<i32> {amp.role = "good_steps"}, tensor<i1> {amp.role = "step_ok"})
// CHECK:         %[[S:.*]] = tensor.extract %[[SCALE]][] : tensor<f32>
// CHECK:         %[[N:.*]] = tensor.extract %[[COUNT]][] : tensor<i32>
// CHECK:         %[[INV:.*]] = arith.divf %{{.*}}, %[[S]] : f32
// Forward: f16 matmul, f32 accumulator; the loss sum stays f32.
// CHECK:         linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<8x16xf16>, tensor<16x4xf16>) outs(%{{.*}} : tensor<8x4xf32>)
// CHECK:         %[[SUM:.*]] = linalg.reduce ins(%{{.*}} : tensor<8x4xf32>) outs(%{{.*}} : tensor<f32>)
// CHECK:         %[[LOSS:.*]] = arith.mulf %[[SUM]], %{{.*}} : tensor<f32>
// Backward from the scaled seed.
// The seed stays f32 (deny): the scaled loss gradient is computed in f32 and
// truncated once, for the weight-gradient matmul.
// CHECK:         %[[SEED:.*]] = tensor.splat %[[S]] : tensor<f32>
// CHECK:         %[[SEEDB:.*]] = linalg.broadcast ins(%[[SEED]] : tensor<f32>)
// CHECK:         %[[DL:.*]] = arith.mulf %{{.*}}, %[[SEEDB]] : tensor<8x4xf32>
// CHECK:         %[[DL16:.*]] = arith.truncf %[[DL]] : tensor<8x4xf32> to tensor<8x4xf16>
// CHECK:         %[[DW:.*]] = linalg.matmul ins(%{{.*}}, %[[DL16]] : tensor<16x8xf16>, tensor<8x4xf16>) outs(%{{.*}} : tensor<16x4xf32>)
// CHECK:         %[[DB:.*]] = linalg.reduce ins(%{{.*}} : tensor<8x4xf32>) outs(%{{.*}} : tensor<4xf32>)
// Unscaled in f32, checked, one flag.
// CHECK:         %[[INVW:.*]] = tensor.splat %[[INV]] : tensor<16x4xf32>
// CHECK:         %[[GW:.*]] = arith.mulf %[[DW]], %[[INVW]] : tensor<16x4xf32>
// CHECK:         %[[RW:.*]] = linalg.generic {{.*}} ins(%[[GW]] : tensor<16x4xf32>) outs(%{{.*}} : tensor<f32>)
// CHECK:         %[[PW:.*]] = tensor.extract %[[RW]][]
// CHECK:         %[[INVB:.*]] = tensor.splat %[[INV]] : tensor<4xf32>
// CHECK:         %[[GB:.*]] = arith.mulf %[[DB]], %[[INVB]] : tensor<4xf32>
// CHECK:         %[[RB:.*]] = linalg.generic {{.*}} ins(%[[GB]] : tensor<4xf32>) outs(%{{.*}} : tensor<f32>)
// CHECK:         %[[PB:.*]] = tensor.extract %[[RB]][]
// CHECK:         %[[PSUM:.*]] = arith.addf %[[PW]], %[[PB]] : f32
// CHECK:         %[[OK:.*]] = arith.cmpf oeq, %[[PSUM]], %{{.*}} : f32
// SGD on the f32 master weights, skipped on overflow.
// CHECK:         %[[SW:.*]] = arith.mulf %{{.*}}, %[[GW]] : tensor<16x4xf32>
// CHECK:         %[[NW:.*]] = arith.subf %[[W]], %[[SW]] : tensor<16x4xf32>
// CHECK:         %[[W2:.*]] = arith.select %[[OK]], %[[NW]], %[[W]] : tensor<16x4xf32>
// CHECK:         %[[SB:.*]] = arith.mulf %{{.*}}, %[[GB]] : tensor<4xf32>
// CHECK:         %[[NB:.*]] = arith.subf %[[B]], %[[SB]] : tensor<4xf32>
// CHECK:         %[[B2:.*]] = arith.select %[[OK]], %[[NB]], %[[B]] : tensor<4xf32>
// CHECK:         %[[STEPOK:.*]] = tensor.from_elements %[[OK]] : tensor<i1>
// The scale update.
// CHECK:         arith.maximumf
// CHECK:         arith.addi %[[N]]
// CHECK:         arith.minimumf
// CHECK:         %[[NEWS:.*]] = arith.select %[[OK]], %{{.*}}, %{{.*}} : f32
// CHECK:         %[[NEWN:.*]] = arith.select %[[OK]], %{{.*}}, %{{.*}} : i32
// CHECK:         %[[NEWST:.*]] = tensor.from_elements %[[NEWS]] : tensor<f32>
// CHECK:         %[[NEWNT:.*]] = tensor.from_elements %[[NEWN]] : tensor<i32>
// CHECK:         return %[[LOSS]], %[[W2]], %[[B2]], %[[NEWST]], %[[NEWNT]], %[[STEPOK]] : tensor<f32>, tensor<16x4xf32>, tensor<4xf32>, tensor<f32>, tensor<i32>, tensor<i1>
// CHECK-NOT:     amp.grad_seed
// CHECK-NOT:     amp.param_grad
// CHECK-NOT:     amp.state_update

// BF16-LABEL: func.func @linear_step(
// BF16-SAME:    %{{[^:]*}}: tensor<4xf32> {amp.role = "param"})
// BF16-SAME:    -> (tensor<f32> {amp.role = "loss"}, tensor<16x4xf32> {amp.role = "update", amp.updates = 2 : i64}, tensor<4xf32> {amp.role = "update", amp.updates = 3 : i64}) {
// BF16:         linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<8x16xbf16>, tensor<16x4xbf16>) outs(%{{.*}} : tensor<8x4xf32>)
// BF16:         %[[ONES:.*]] = arith.constant dense<1.000000e+00> : tensor<f32>
// BF16:         linalg.broadcast ins(%[[ONES]] : tensor<f32>)
// BF16-NOT:     arith.select
// BF16-NOT:     amp.
// BF16:         return

// STATIC-LABEL: func.func @linear_step(
// STATIC-SAME:    %{{[^:]*}}: tensor<4xf32> {amp.role = "param"})
// STATIC-SAME:    tensor<4xf32> {amp.role = "update", amp.updates = 3 : i64}, tensor<i1> {amp.role = "step_ok"}) {
// STATIC:         %[[S:.*]] = arith.constant 1.024000e+03 : f32
// STATIC:         tensor.splat %[[S]] : tensor<f32>
// STATIC-COUNT-2: arith.select
// STATIC-NOT:     arith.select
// STATIC:         return

// GLOBALS:       ml_program.global private mutable @linear_step_loss_scale(dense<6.553600e+04> : tensor<f32>) : tensor<f32>
// GLOBALS:       ml_program.global private mutable @linear_step_good_steps(dense<0> : tensor<i32>) : tensor<i32>
// GLOBALS-LABEL: func.func @linear_step(
// GLOBALS:         linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<8x16xbf16>, tensor<16x4xbf16>)
// GLOBALS:         ml_program.global_store @linear_step_loss_scale
// GLOBALS:         ml_program.global_store @linear_step_good_steps

// NONE-LABEL: func.func @linear_step(
// NONE-SAME:    -> (tensor<f32> {amp.role = "loss"}, tensor<16x4xf32> {amp.role = "update", amp.updates = 2 : i64}, tensor<4xf32> {amp.role = "update", amp.updates = 3 : i64}) {
// NONE:         linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<8x16xf16>, tensor<16x4xf16>)
// NONE-NOT:     amp.
// NONE-NOT:     arith.select

