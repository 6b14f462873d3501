// Malformed input: parser and verifier errors with a location and a non-zero
// exit, never a crash (each split is parsed on its own).
//
// RUN: not amp-opt %s --split-input-file --amp-auto-mixed-precision 2>&1 | FileCheck %s
// RUN: not amp-opt %s --split-input-file --amp-auto-mixed-precision=mode=bf16 2>&1 | FileCheck %s
// RUN: not amp-opt %s --split-input-file --amp-auto-mixed-precision 2>/dev/null | FileCheck %s --check-prefix=VALID
// The same errors, each at its line, through -verify-diagnostics.
// RUN: amp-opt %s --split-input-file -verify-diagnostics --amp-auto-mixed-precision -o /dev/null
// A bad option value is an error too.
// RUN: not amp-opt %s --split-input-file --amp-auto-mixed-precision=mode=fp8 2>&1 | FileCheck %s --check-prefix=MODE
// MODE: amp-opt: for the --mode option: unknown mode 'fp8' (expected f16, bf16 or auto)

// CHECK: malformed.mlir:[[@LINE+3]]:18: error: use of undeclared SSA value name
// expected-error@+2 {{use of undeclared SSA value name}}
func.func @undefined(%a: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %0 = math.tanh %b : tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

// CHECK: malformed.mlir:[[@LINE+3]]:17: error: operation being parsed with an unregistered dialect
// expected-error@+2 {{operation being parsed with an unregistered dialect}}
func.func @unknown_op(%a: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %0 = "foo.bar"(%a) : (tensor<8x8xf32>) -> tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

// CHECK: malformed.mlir:[[@LINE+3]]:8: error: 'linalg.matmul' op inferred input/output operand #1 has shape's dimension #0 to be 16, but found 8
// expected-error@+2 {{'linalg.matmul' op inferred input/output operand #1 has shape's dimension #0 to be 16, but found 8}}
func.func @bad_shapes(%a: tensor<8x16xf32>, %b: tensor<8x4xf32>, %c: tensor<8x4xf32>) -> tensor<8x4xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<8x16xf32>, tensor<8x4xf32>) outs(%c : tensor<8x4xf32>) -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

// CHECK: malformed.mlir:[[@LINE+3]]:8: error: 'tosa.clamp' op min/max attributes types are incompatible with input/output element types.
// expected-error@+2 {{'tosa.clamp' op min/max attributes types are incompatible with input/output element types.}}
func.func @bad_tosa(%a: tensor<1x8xf32>) -> tensor<1x8xf32> {
  %0 = tosa.clamp %a {min_val = 0.0 : f16, max_val = 6.0 : f16} : (tensor<1x8xf32>) -> tensor<1x8xf32>
  return %0 : tensor<1x8xf32>
}

// -----

// CHECK: malformed.mlir:[[@LINE+4]]:34: error: expected non-function type
// expected-error@+3 {{expected non-function type}}
// CHECK-NOT: PLEASE submit a bug report
func.func @truncated(%a: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %0 = math.tanh %a : tensor<8x8x

// -----

// A valid split after malformed ones is still processed.
// VALID: func.func @valid
// VALID: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x4xf16>, tensor<4x4xf16>) outs(%{{.*}} : tensor<4x4xf32>)
func.func @valid(%a: tensor<4x4xf32>, %c: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %0 = linalg.matmul ins(%a, %a : tensor<4x4xf32>, tensor<4x4xf32>) outs(%c : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}
