// UNSUPPORTED: system-windows
// Upstream mlir-opt parses the amp markers once the dialect plugin is
// loaded, and runs the loss-scaling passes and the amp pipeline (plugin
// passes are not command-line flags of mlir-opt: use --pass-pipeline).
// RUN: mlir-opt %s --load-dialect-plugin=%amp_libs/AMPPlugin%shlibext | FileCheck %s --check-prefix=PARSE
// RUN: mlir-opt %s --load-dialect-plugin=%amp_libs/AMPPlugin%shlibext --pass-pipeline="builtin.module(amp-loss-scaling{mode=static init-scale=1024})" | FileCheck %s --check-prefix=STATIC
// RUN: mlir-opt %s --load-dialect-plugin=%amp_libs/AMPPlugin%shlibext --pass-pipeline="builtin.module(amp-strip-markers)" | FileCheck %s --check-prefix=STRIP
// RUN: mlir-opt %s --load-dialect-plugin=%amp_libs/AMPPlugin%shlibext --pass-pipeline="builtin.module(amp)" | FileCheck %s --check-prefix=AMP
// Without the plugin the markers are unknown.
// RUN: not mlir-opt %s 2>&1 | FileCheck %s --check-prefix=NOPLUGIN
// NOPLUGIN: Dialect `amp' not found for custom op 'amp.grad_seed'

// PARSE-LABEL: func.func @step
// PARSE:         amp.grad_seed %{{.*}} : tensor<f32>
// PARSE:         amp.param_grad %{{.*}} : tensor<4xf32>
// PARSE:         amp.state_update %{{.*}}, %{{.*}} : tensor<4xf32>

// STATIC-LABEL: func.func @step
// STATIC-SAME:    tensor<i1> {amp.role = "step_ok"}
// STATIC:         %[[S:.*]] = arith.constant 1.024000e+03 : f32
// STATIC:         tensor.splat %[[S]] : tensor<f32>
// STATIC:         arith.select
// STATIC-NOT:     amp.

// STRIP-LABEL: func.func @step
// STRIP:         arith.constant dense<1.000000e+00> : tensor<f32>
// STRIP-NOT:     amp.

// AMP-LABEL: func.func @step
// AMP-SAME:    tensor<f32> {amp.role = "loss_scale"}, %{{[^:]*}}: tensor<i32> {amp.role = "good_steps"}
// AMP:         linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x8xf16>, tensor<8x4xf16>) outs(%{{.*}} : tensor<4x4xf32>)
// AMP-NOT:     amp.grad_seed
func.func @step(%loss: tensor<f32>, %a: tensor<4x8xf32>, %b: tensor<8x4xf32>,
                %c: tensor<4x4xf32>, %w: tensor<4xf32> {amp.role = "param"})
    -> (tensor<4x4xf32>, tensor<4xf32>) {
  %seed = amp.grad_seed %loss : tensor<f32>
  %mm = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x4xf32>) outs(%c : tensor<4x4xf32>) -> tensor<4x4xf32>
  %e = tensor.empty() : tensor<4xf32>
  %d = linalg.broadcast ins(%seed : tensor<f32>) outs(%e : tensor<4xf32>) dimensions = [0]
  %g = amp.param_grad %d : tensor<4xf32>
  %nw = arith.subf %w, %g : tensor<4xf32>
  %w2 = amp.state_update %w, %nw : tensor<4xf32>
  return %mm, %w2 : tensor<4x4xf32>, tensor<4xf32>
}
