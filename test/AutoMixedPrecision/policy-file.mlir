// A policy file (YAML or JSON) moves ops between classes without
// recompiling; CLI edits apply on top of it.
// RUN: amp-opt %s --amp-auto-mixed-precision='policy=%S/Inputs/policy.yaml' | FileCheck %s
// RUN: amp-opt %s --amp-auto-mixed-precision='policy=%S/Inputs/policy.json' | FileCheck %s
// RUN: amp-opt %s --amp-auto-mixed-precision | FileCheck %s --check-prefix=DEFAULT

// Errors in the file carry its file:line:col; the pass fails.
// RUN: not amp-opt %s --amp-auto-mixed-precision='policy=%S/Inputs/conflict.yaml' 2>&1 | FileCheck %s --check-prefix=CONFLICT
// CONFLICT: conflict.yaml:4:5: error: op 'math.exp' is listed as both allow and deny
// RUN: not amp-opt %s --amp-auto-mixed-precision='policy=%S/Inputs/bad-class.yaml' 2>&1 | FileCheck %s --check-prefix=BADCLASS
// BADCLASS: bad-class.yaml:1:1: error: unknown class 'sometimes' (expected allow, infer, clear, deny, unlisted or contraction)
// RUN: not amp-opt %s --amp-auto-mixed-precision='policy=%S/Inputs/missing.yaml' 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: error: amp-auto-mixed-precision: cannot read policy file '{{.*}}missing.yaml': No such file or directory

// CHECK-LABEL: func.func @f
// CHECK:       %[[A:.*]] = linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x4xf16>, tensor<4x4xf16>) outs(%{{.*}} : tensor<4x4xf32>)
// CHECK:       %[[S:.*]] = arith.addf %[[A]], %{{.*}} : tensor<4x4xf32>
// CHECK:       %[[S16:.*]] = arith.truncf %[[S]]
// CHECK:       %[[O:.*]] = amp_test.opaque %[[S16]] : tensor<4x4xf16> -> tensor<4x4xf16>
// CHECK:       linalg.matmul ins(%[[O]], %{{.*}} : tensor<4x4xf16>, tensor<4x4xf16>)
// DEFAULT-LABEL: func.func @f
// DEFAULT:       arith.addf %{{.*}}, %{{.*}} : tensor<4x4xf32>
// DEFAULT:       amp_test.opaque %{{.*}} : tensor<4x4xf32> -> tensor<4x4xf32>
func.func @f(%x: tensor<4x4xf32>, %w: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x4xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  %a = linalg.matmul ins(%x, %w : tensor<4x4xf32>, tensor<4x4xf32>) outs(%z : tensor<4x4xf32>) -> tensor<4x4xf32>
  %s = arith.addf %a, %x : tensor<4x4xf32>
  %o = amp_test.opaque %s : tensor<4x4xf32> -> tensor<4x4xf32>
  %m = linalg.matmul ins(%o, %w : tensor<4x4xf32>, tensor<4x4xf32>) outs(%z : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %m : tensor<4x4xf32>
}
