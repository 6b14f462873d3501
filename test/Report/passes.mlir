// The report passes on their own: without a snapshot right after the
// rewrite the IR amp-report-write sees is taken as the rewritten IR (no
// cast removed), without annotate=true the classes are not known.
// RUN: amp-opt %s --pass-pipeline='builtin.module(amp-report-snapshot{stage=input},amp-auto-mixed-precision{annotate=true},amp-report-write{report=%t.json})' -o /dev/null
// RUN: %PYTHON %S/report_query.py %t.json | FileCheck %s --match-full-lines
// RUN: amp-opt %s --pass-pipeline='builtin.module(amp-report-snapshot{stage=input},amp-auto-mixed-precision,amp-report-write{report=%t.plain.json})' -o /dev/null 2>&1 | FileCheck %s --check-prefix=WARN
// RUN: %PYTHON %S/report_query.py %t.plain.json | FileCheck %s --check-prefix=PLAIN --match-full-lines
// RUN: amp-opt %s --pass-pipeline='builtin.module(amp-report-snapshot,amp-auto-mixed-precision{annotate=true},amp-report-snapshot{stage=rewritten},amp-optimize-casts,amp-report-write)' 2>&1 | FileCheck %s --check-prefix=NOTHING

// CHECK-DAG: functions.bias.casts.inserted.count = 5
// CHECK-DAG: functions.bias.casts.removed.count = 0
// CHECK-DAG: functions.bias.ops.by_class.allow = 2
// WARN: warning: amp-report-write: no op carries an amp.decision: classes are not reported; run amp-auto-mixed-precision with annotate=true
// PLAIN-DAG: functions.bias.ops.by_class.allow = 0
// PLAIN-DAG: functions.bias.ops.by_class_and_precision.unclassified.low = 3
// PLAIN-DAG: functions.bias.casts.inserted.count = 5
// NOTHING: warning: amp-report-write: nothing to write; set report=<file>, summary=true or dot=<file>
// NOTHING-NOT: amp.decision
// NOTHING-NOT: amp.report

func.func @bias(%a: tensor<4x8xf32>, %w: tensor<8x4xf32>, %w2: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %bias = arith.constant dense<0.5> : tensor<4x4xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x4xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  %mm = linalg.matmul ins(%a, %w : tensor<4x8xf32>, tensor<8x4xf32>) outs(%acc : tensor<4x4xf32>) -> tensor<4x4xf32>
  %r = arith.addf %mm, %bias : tensor<4x4xf32>
  %m2 = linalg.matmul ins(%r, %w2 : tensor<4x4xf32>, tensor<4x4xf32>) outs(%acc : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %m2 : tensor<4x4xf32>
}
