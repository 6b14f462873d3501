// Wrong options and conflicting list edits fail with a clear message.
// RUN: not amp-opt %s --amp-auto-mixed-precision='mode=fp8' 2>&1 | FileCheck %s --check-prefix=MODE
// MODE: amp-opt: for the --mode option: unknown mode 'fp8' (expected f16, bf16 or auto)
// RUN: not amp-opt %s --amp-auto-mixed-precision='level=everything' 2>&1 | FileCheck %s --check-prefix=LEVEL
// LEVEL: amp-opt: for the --level option: unknown level 'everything' (expected default, tensor-cores-only or treat-infer-as-deny)
// An op added to a list while it is still on another one (TensorFlow's rule).
// RUN: not amp-opt %s --amp-auto-mixed-precision='allow-add=math.exp' 2>&1 | FileCheck %s --check-prefix=CONFLICT
// CONFLICT: error: amp-auto-mixed-precision: op 'math.exp' is on more than one list: deny (default) allow (allow-add); remove it from all but one (e.g. deny-remove=math.exp)
// RUN: not amp-opt %s --amp-auto-mixed-precision='clear-add=my.op deny-add=my.op' 2>&1 | FileCheck %s --check-prefix=TWO
// TWO: error: amp-auto-mixed-precision: op 'my.op' is on more than one list: clear (clear-add) deny (deny-add)
// Unknown option names are rejected by the pass-option parser.
// RUN: not amp-opt %s --amp-auto-mixed-precision='precision=f16' 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// UNKNOWN: no such option precision
// Malformed IR: parser diagnostic with a location, non-zero exit.
// RUN: not amp-opt %S/Inputs/malformed.mlir --amp 2>&1 | FileCheck %s --check-prefix=PARSE
// PARSE: malformed.mlir:3:{{[0-9]+}}: error:

func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
