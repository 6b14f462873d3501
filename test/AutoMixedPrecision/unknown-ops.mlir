// Op names in list edits and policy files must name something (issue 13): an
// op registered in the context, a `prefix*` pattern that matches one, or a
// `linalg.generic:<pattern>` body pattern. A typo is an error with the
// nearest name; a name of a dialect this tool does not have is a warning.
// Option errors are one line, before any IR is touched (no module dump).
// RUN: not amp-opt %s --amp-auto-mixed-precision='allow-add=linalg.matmull' 2>&1 | FileCheck %s --check-prefix=TYPO
// TYPO: error: amp-auto-mixed-precision: allow-add: unknown op 'linalg.matmull'; did you mean 'linalg.matmul'?
// TYPO-NOT: see current operation
// RUN: not amp-opt %s --amp-auto-mixed-precision='deny-add=math.expp infer-remove=arith.adf' 2>&1 | FileCheck %s --check-prefix=TWO
// TWO-DAG: error: amp-auto-mixed-precision: deny-add: unknown op 'math.expp'; did you mean 'math.exp'?
// TWO-DAG: error: amp-auto-mixed-precision: infer-remove: unknown op 'arith.adf'; did you mean 'arith.addf'?
// RUN: not amp-opt %s --amp-auto-mixed-precision='clear-add=linalg.generic:elementwize' 2>&1 | FileCheck %s --check-prefix=PATTERN
// PATTERN: error: amp-auto-mixed-precision: clear-add: unknown body pattern 'linalg.generic:elementwize' (expected contraction, sum-reduction, normalization, batch-normalization, reduction, copy, elementwise or sigmoid); did you mean 'linalg.generic:elementwise'?
// RUN: not amp-opt %s --amp-auto-mixed-precision='allow-add=linalg.matmul_*_nothing' 2>&1 | FileCheck %s --check-prefix=GLOB
// GLOB: error: amp-auto-mixed-precision: allow-add: pattern 'linalg.matmul_*_nothing' matches no registered op
// RUN: not amp-opt %s --amp-auto-mixed-precision='deny-add=exp' 2>&1 | FileCheck %s --check-prefix=NODOT
// NODOT: error: amp-auto-mixed-precision: deny-add: 'exp' is not an op name (expected dialect.op)
// RUN: amp-opt %s --amp-auto-mixed-precision='allow-add=mydialect.gemm,linalgg.matmul' -o /dev/null 2>&1 | FileCheck %s --check-prefix=DIALECT
// DIALECT: warning: amp-auto-mixed-precision: allow-add: dialect 'mydialect' is not registered: 'mydialect.gemm' matches no op
// DIALECT: warning: amp-auto-mixed-precision: allow-add: dialect 'linalgg' is not registered: 'linalgg.matmul' matches no op; did you mean 'linalg'?
// The casts belong to the pass: listing one is an error (the fuzzer found a
// policy with arith.truncf on the allow list whose second run undid the
// first).
// RUN: not amp-opt %s --amp-auto-mixed-precision='allow-add=arith.truncf' 2>&1 | FileCheck %s --check-prefix=CAST
// RUN: not amp-opt %s --amp-auto-mixed-precision='clear-remove=arith.extf' 2>&1 | FileCheck %s --check-prefix=CAST2
// CAST: error: amp-auto-mixed-precision: allow-add: 'arith.truncf' is a precision cast: amp-auto-mixed-precision inserts and removes casts itself, they cannot be put on a list
// CAST2: error: amp-auto-mixed-precision: clear-remove: 'arith.extf' is a precision cast
// Known names, patterns and body patterns are accepted.
// RUN: amp-opt %s --amp-auto-mixed-precision='allow-add=amp_test.opaque,linalg.generic:elementwise infer-remove=math.tanh,linalg.pooling_*_sum' -o /dev/null
// A policy file: the error carries the entry's file:line:col.
// RUN: not amp-opt %s --amp-auto-mixed-precision=policy=%S/Inputs/typo.yaml 2>&1 | FileCheck %s --check-prefix=FILE
// FILE: error: amp-auto-mixed-precision: {{.*}}typo.yaml:3:5: error: unknown op 'linalg.matmull'; did you mean 'linalg.matmul'?
// FILE-NOT: see current operation
// A policy file that names a dialect this tool does not have: a warning at
// the entry's file:line:col, and the pass runs.
// RUN: amp-opt %s --amp-auto-mixed-precision=policy=%S/Inputs/other-dialect.yaml -o /dev/null 2>&1 | FileCheck %s --check-prefix=FILEDIALECT
// FILEDIALECT: other-dialect.yaml:2:5: warning: amp-auto-mixed-precision: policy file '{{.*}}other-dialect.yaml': dialect 'mydialect' is not registered: 'mydialect.gemm' matches no op
// Bad option values: one line each, in the pass and in the pipeline.
// RUN: not amp-opt %s --amp-auto-mixed-precision='mode=xx' 2>&1 | FileCheck %s --check-prefix=MODE
// RUN: not amp-opt %s --amp='mode=auto target=tpu' 2>&1 | FileCheck %s --check-prefix=AUTO
// MODE: amp-opt: for the --mode option: unknown mode 'xx' (expected f16, bf16 or auto)
// MODE-NOT: see current operation
// MODE-NOT: func.func
// AUTO: amp-opt: for the --target option: unknown target 'tpu' (expected v100, a100, h100 or cpu)
// AUTO-NOT: see current operation
// AUTO-NOT: func.func
// RUN: not amp-opt %s --amp-loss-scaling='mode=xx' 2>&1 | FileCheck %s --check-prefix=LS
// LS: amp-opt: for the --mode option: unknown mode 'xx' (expected dynamic, static or none)
// LS-NOT: see current operation
// RUN: not amp-opt %s --amp-pad-for-tensor-cores='multiple=0' 2>&1 | FileCheck %s --check-prefix=PAD
// PAD: error: amp-pad-for-tensor-cores: multiple and int8-multiple must be >= 1 (got multiple=0, int8-multiple=16)
// PAD-NOT: see current operation

func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
