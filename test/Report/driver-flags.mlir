// amp-opt's shorthands --amp-report=, --amp-summary, --amp-dot=,
// --amp-dot-func= and --amp-target= are options of --amp / --amp-explain.
// RUN: amp-opt %s --amp --amp-report=%t.json --amp-summary --amp-target=v100 --amp-dot=%t.dot --amp-dot-func=mm -o /dev/null 2>&1 | FileCheck %s --check-prefix=SUMMARY
// RUN: %PYTHON %S/report_query.py %t.json | FileCheck %s --check-prefix=JSON --match-full-lines
// RUN: FileCheck %s --check-prefix=DOT < %t.dot
// RUN: amp-opt %s --amp='mode=bf16' --amp-report=%t.bf16.json -o /dev/null
// RUN: %PYTHON %S/report_query.py %t.bf16.json | FileCheck %s --check-prefix=BF16 --match-full-lines
// RUN: not amp-opt %s --amp-report=%t.json -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOAMP
// RUN: not amp-opt %s --amp --amp-report -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOVALUE
// RUN: not amp-opt %s --amp --amp-target=b200 -o /dev/null 2>&1 | FileCheck %s --check-prefix=TARGET

// SUMMARY: amp-report: target v100 (NVIDIA V100 SXM2, Volta)
// JSON-DAG: target.name = v100
// JSON-DAG: functions.mm.contraction_flops.low = 256
// DOT: label="@mm";
// BF16-DAG: functions.mm.contraction_flops.low = 256
// BF16-DAG: functions.mm.casts.inserted.bytes = 128
// NOAMP: --amp-report, --amp-summary, --amp-dot, --amp-dot-func and --amp-target are options of the amp pipeline: add --amp (or --amp-explain)
// NOVALUE: --amp-report needs a value: --amp-report=<file>
// TARGET: amp-opt: for the --target option: unknown target 'b200' (expected v100, a100, h100 or cpu)

func.func @mm(%a: tensor<4x8xf32>, %b: tensor<8x4xf32>, %c: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x4xf32>) outs(%c : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}
