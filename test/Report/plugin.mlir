// UNSUPPORTED: system-windows
// The report from upstream mlir-opt with the plugin: through the amp
// pipeline, and as single passes in a textual pipeline.
// RUN: mlir-opt %s --load-pass-plugin=%amp_libs/AMPPlugin%shlibext --pass-pipeline="builtin.module(amp{report=%t.json target=a100})" -o /dev/null
// RUN: %PYTHON %S/report_query.py %t.json | FileCheck %s --match-full-lines
// RUN: mlir-opt %s --load-pass-plugin=%amp_libs/AMPPlugin%shlibext --pass-pipeline="builtin.module(amp-report-snapshot{stage=input},amp-auto-mixed-precision{annotate=true},amp-report-snapshot{stage=rewritten},amp-optimize-casts,amp-report-write{report=%t.passes.json target=a100})" -o /dev/null
// RUN: %PYTHON %S/report_query.py %t.passes.json | FileCheck %s --match-full-lines

// CHECK-DAG: target.name = a100
// CHECK-DAG: functions.mm.contraction_flops.total = 256
// CHECK-DAG: functions.mm.casts.inserted.count = 2
// CHECK-DAG: functions.mm.ops.by_class.allow = 1

func.func @mm(%a: tensor<4x8xf32>, %b: tensor<8x4xf32>, %c: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x4xf32>) outs(%c : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}
