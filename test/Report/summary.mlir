// --amp='summary=true' prints the report as a table on stderr; the IR on
// stdout is unchanged.
// RUN: amp-opt %s --amp='summary=true target=a100' -o /dev/null 2>&1 | FileCheck %s
// RUN: amp-opt %s --amp-explain='summary=true' -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN

// CHECK:      amp-report: target a100 (NVIDIA A100 SXM4 80GB, Ampere); step times are roofline estimates, not measurements
// CHECK-NEXT: function mm{{ +}}total
// CHECK-NEXT: ops allow/infer/clear/deny/unlisted 1/0/0/1/0 1/0/0/1/0
// CHECK-NEXT: ops low/f32/other 1/1/0 1/1/0
// CHECK-NEXT: casts inserted 2 (1.2 KiB) 2 (1.2 KiB)
// CHECK-NEXT: casts removed 0 (0 B) 0 (0 B)
// CHECK-NEXT: casts in output 2 (1.2 KiB) 2 (1.2 KiB)
// CHECK-NEXT: contraction FLOPs low 100.0% of 8.2 kFLOP 100.0% of 8.2 kFLOP
// CHECK-NEXT: saved for backward f32 -> amp 2.0 KiB -> 3.2 KiB 2.0 KiB -> 3.2 KiB
// CHECK-NEXT: of which copies of arguments 1.2 KiB 1.2 KiB
// 6656 / 2.039e12 s and 9216 / 2.039e12 s.
// CHECK-NEXT: est. step time f32 -> amp 3.26 ns -> 4.52 ns 3.26 ns -> 4.52 ns
// CHECK-NEXT: est. speedup 0.72x 0.72x

// The remarks of amp-explain and the table both appear.
// EXPLAIN-DAG: remark: amp: low: allow
// EXPLAIN-DAG: amp-report: target h100 (NVIDIA H100 SXM5, Hopper)

func.func @mm(%a: tensor<8x16xf32>, %b: tensor<16x32xf32>, %c: tensor<8x32xf32>) -> tensor<8x32xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x32xf32>) outs(%c : tensor<8x32xf32>) -> tensor<8x32xf32>
  %1 = math.exp %0 : tensor<8x32xf32>
  return %1 : tensor<8x32xf32>
}
