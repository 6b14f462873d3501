// A policy file declares custom ops contractions: low inputs, and their
// results (plus the listed operands, or a destination-style op's inits) stay
// f32, as for linalg.matmul. On the plain allow list the same ops come back
// with f16 results and an f16 accumulator.
// RUN: amp-opt %s --allow-unregistered-dialect --amp-auto-mixed-precision='policy=%S/Inputs/contraction.yaml' | FileCheck %s
// RUN: amp-opt %s --allow-unregistered-dialect --amp-auto-mixed-precision='policy=%S/Inputs/contraction.json' | FileCheck %s
// RUN: amp-opt %s --allow-unregistered-dialect --amp-auto-mixed-precision='allow-add=vendor.gemm,vendor.gemm_acc' | FileCheck %s --check-prefix=ALLOW

// CHECK-LABEL: func.func @f(
// CHECK-SAME:    %[[A:[^:]*]]: tensor<64x32xf32>, %[[B:[^:]*]]: tensor<32x16xf32>, %[[ACC:[^:]*]]: tensor<64x16xf32>)
// CHECK-DAG:   %[[B16:.*]] = arith.truncf %[[B]] : tensor<32x16xf32> to tensor<32x16xf16>
// CHECK-DAG:   %[[A16:.*]] = arith.truncf %[[A]] : tensor<64x32xf32> to tensor<64x32xf16>
// CHECK:       %[[G:.*]] = "vendor.gemm"(%[[A16]], %[[B16]]) : (tensor<64x32xf16>, tensor<32x16xf16>) -> tensor<64x16xf32>
// CHECK:       %[[H:.*]] = "vendor.gemm_acc"(%[[A16]], %[[B16]], %[[ACC]]) : (tensor<64x32xf16>, tensor<32x16xf16>, tensor<64x16xf32>) -> tensor<64x16xf32>
// CHECK:       %[[S:.*]] = arith.addf %[[G]], %[[H]] : tensor<64x16xf32>
// CHECK:       return %[[S]]

// ALLOW-LABEL: func.func @f(
// ALLOW:       "vendor.gemm"({{.*}}) : (tensor<64x32xf16>, tensor<32x16xf16>) -> tensor<64x16xf16>
// ALLOW:       "vendor.gemm_acc"({{.*}}) : (tensor<64x32xf16>, tensor<32x16xf16>, tensor<64x16xf16>) -> tensor<64x16xf16>
func.func @f(%a: tensor<64x32xf32>, %b: tensor<32x16xf32>, %acc: tensor<64x16xf32>) -> tensor<64x16xf32> {
  %g = "vendor.gemm"(%a, %b) : (tensor<64x32xf32>, tensor<32x16xf32>) -> tensor<64x16xf32>
  %h = "vendor.gemm_acc"(%a, %b, %acc) : (tensor<64x32xf32>, tensor<32x16xf32>, tensor<64x16xf32>) -> tensor<64x16xf32>
  %s = arith.addf %g, %h : tensor<64x16xf32>
  return %s : tensor<64x16xf32>
}

// print-policy writes them back as contractions (and allow entries).
// RUN: amp-opt %s --allow-unregistered-dialect --amp-auto-mixed-precision='policy=%S/Inputs/contraction.yaml print-policy=1' -o /dev/null | FileCheck %s --check-prefix=PRINT
// PRINT:      allow:
// PRINT:        - "vendor.gemm"
// PRINT:        - "vendor.gemm_acc"
// PRINT:      contraction:
// PRINT-NEXT:   - "vendor.gemm"
// PRINT-NEXT:   - "vendor.gemm_acc": [2]

// --amp-explain says why.
// RUN: amp-opt %s --allow-unregistered-dialect --amp-auto-mixed-precision='policy=%S/Inputs/contraction.yaml explain=true' -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// EXPLAIN: remark: amp: low: allow (contraction, policy file): low-precision inputs, f32 accumulation

// Bad entries: errors at the file's line and column, or at the op.
// RUN: not amp-opt %s --allow-unregistered-dialect --amp-auto-mixed-precision='policy=%S/Inputs/contraction-bad-index.yaml' 2>&1 | FileCheck %s --check-prefix=INDEX
// INDEX: policy-contraction.mlir:23:8: error: amp-auto-mixed-precision: the policy declares 'vendor.gemm_acc' a contraction with accumulator operand 7, but this op has 3 operands
// RUN: not amp-opt %s --allow-unregistered-dialect --amp-auto-mixed-precision='policy=%S/Inputs/contraction-not-index.yaml' 2>&1 | FileCheck %s --check-prefix=NOTINDEX
// NOTINDEX: contraction-not-index.yaml:2:23: error: expected an operand index (an integer >= 0)
// RUN: not amp-opt %s --allow-unregistered-dialect --amp-auto-mixed-precision='policy=%S/Inputs/contraction-two-ops.yaml' 2>&1 | FileCheck %s --check-prefix=TWO
// TWO: contraction-two-ops.yaml:2:28: error: one op per contraction item
// RUN: not amp-opt %s --allow-unregistered-dialect --amp-auto-mixed-precision='policy=%S/Inputs/contraction-pattern.yaml' 2>&1 | FileCheck %s --check-prefix=PATTERN
// PATTERN: contraction-pattern.yaml:2:5: error: a contraction is an op name, not a pattern
// RUN: not amp-opt %s --allow-unregistered-dialect --amp-auto-mixed-precision='policy=%S/Inputs/contraction-conflict.yaml' 2>&1 | FileCheck %s --check-prefix=CONFLICT
// CONFLICT: contraction-conflict.yaml:3:8: error: op 'vendor.gemm' is listed as both allow and deny
