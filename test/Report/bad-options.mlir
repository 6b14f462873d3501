// Bad report options fail with a message and a non-zero exit.
// RUN: not amp-opt %s --amp='report=%t.json target=b200' -o /dev/null 2>&1 | FileCheck %s --check-prefix=TARGET
// RUN: not amp-opt %s --amp='target=tpu' -o /dev/null 2>&1 | FileCheck %s --check-prefix=TARGET2
// RUN: not amp-opt %s --amp='report=%t.missing/dir/report.json' -o /dev/null 2>&1 | FileCheck %s --check-prefix=UNWRITABLE
// RUN: not amp-opt %s --amp='dot=%t.missing/dir/graph.dot' -o /dev/null 2>&1 | FileCheck %s --check-prefix=DOT
// RUN: not amp-opt %s --amp='dot=%t.dot dot-func=nope' -o /dev/null 2>&1 | FileCheck %s --check-prefix=FUNC
// RUN: not amp-opt %s --amp-report-snapshot='stage=middle' -o /dev/null 2>&1 | FileCheck %s --check-prefix=STAGE
// RUN: not amp-opt %s --amp-report-write='summary=true' -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOSNAP
// RUN: not amp-opt %s --amp='report=%t.json bogus=1' -o /dev/null 2>&1 | FileCheck %s --check-prefix=UNKNOWN

// TARGET: amp-opt: for the --target option: unknown target 'b200' (expected v100, a100, h100 or cpu)
// TARGET2: amp-opt: for the --target option: unknown target 'tpu' (expected v100, a100, h100 or cpu)
// UNWRITABLE: error: amp-report-write: cannot write the report to '{{.*}}missing/dir/report.json': {{.*}}
// DOT: error: amp-report-write: cannot write the DOT graph to '{{.*}}missing/dir/graph.dot': {{.*}}
// FUNC: error: amp-report-write: dot-func: no function named 'nope'
// STAGE: amp-opt: for the --stage option: unknown stage 'middle' (expected input or rewritten)
// NOSNAP: error: amp-report-write: no snapshot of the input; run amp-report-snapshot{stage=input} before amp-auto-mixed-precision
// UNKNOWN: no such option bogus

func.func @mm(%a: tensor<4x8xf32>, %b: tensor<8x4xf32>, %c: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x4xf32>) outs(%c : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}
