// Named data-movement (clear) and elementwise (infer / deny) linalg ops next
// to matmuls: clear and infer ops between two matmuls run in f16, deny ops
// stay f32, the matmul accumulators stay f32.
//
// RUN: amp-opt %s --amp-auto-mixed-precision | FileCheck %s
// RUN: amp-opt %s --amp-auto-mixed-precision --mlir-print-op-generic \
// RUN:   | FileCheck %s --check-prefix=BODY
// RUN: amp-opt %s --amp-auto-mixed-precision --mlir-print-op-generic \
// RUN:   | mlir-opt --verify-each -o /dev/null

// matmul -> transpose, broadcast(bias) -> linalg.add -> linalg.elementwise
// mul -> copy -> matmul.
// CHECK-LABEL: func.func @movement_and_elementwise
// CHECK-SAME:    (%[[A:.*]]: tensor<8x8xf32>, %[[B:.*]]: tensor<8x8xf32>, %[[S:.*]]: tensor<8x8xf32>, %[[V:.*]]: tensor<8xf32>) -> tensor<8x8xf32>
// CHECK-DAG:     %[[S16:.*]] = arith.truncf %[[S]] : tensor<8x8xf32> to tensor<8x8xf16>
// CHECK-DAG:     %[[V16:.*]] = arith.truncf %[[V]] : tensor<8xf32> to tensor<8xf16>
// CHECK-DAG:     %[[B16:.*]] = arith.truncf %[[B]] : tensor<8x8xf32> to tensor<8x8xf16>
// CHECK-DAG:     %[[A16:.*]] = arith.truncf %[[A]] : tensor<8x8xf32> to tensor<8x8xf16>
// CHECK-DAG:     %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG:     %[[E:.*]] = tensor.empty() : tensor<8x8xf32>
// CHECK-DAG:     %[[E16:.*]] = arith.truncf %[[E]] : tensor<8x8xf32> to tensor<8x8xf16>
// CHECK:         %[[ACC:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[E]] : tensor<8x8xf32>) -> tensor<8x8xf32>
// CHECK:         %[[MM:.*]] = linalg.matmul ins(%[[A16]], %[[B16]] : tensor<8x8xf16>, tensor<8x8xf16>) outs(%[[ACC]] : tensor<8x8xf32>) -> tensor<8x8xf32>
// CHECK:         %[[MM16:.*]] = arith.truncf %[[MM]] : tensor<8x8xf32> to tensor<8x8xf16>
// CHECK:         %[[T:.*]] = linalg.transpose ins(%[[MM16]] : tensor<8x8xf16>) outs(%[[E16]] : tensor<8x8xf16>) permutation = [1, 0]
// CHECK:         %[[BC:.*]] = linalg.broadcast ins(%[[V16]] : tensor<8xf16>) outs(%[[E16]] : tensor<8x8xf16>) dimensions = [0]
// CHECK:         %[[ADD:.*]] = linalg.add ins(%[[T]], %[[BC]] : tensor<8x8xf16>, tensor<8x8xf16>) outs(%[[E16]] : tensor<8x8xf16>) -> tensor<8x8xf16>
// CHECK:         %[[MUL:.*]] = linalg.elementwise kind=#linalg.elementwise_kind<mul> ins(%[[ADD]], %[[S16]] : tensor<8x8xf16>, tensor<8x8xf16>) outs(%[[E16]] : tensor<8x8xf16>) -> tensor<8x8xf16>
// CHECK:         %[[CP:.*]] = linalg.copy ins(%[[MUL]] : tensor<8x8xf16>) outs(%[[E16]] : tensor<8x8xf16>) -> tensor<8x8xf16>
// CHECK:         %[[R:.*]] = linalg.matmul ins(%[[CP]], %[[B16]] : tensor<8x8xf16>, tensor<8x8xf16>) outs(%[[ACC]] : tensor<8x8xf32>) -> tensor<8x8xf32>
// CHECK-NEXT:    return %[[R]] : tensor<8x8xf32>
// The rebuilt bodies of the low named ops are all f16 (they compute in the
// op's own type, as the region builder makes them).
// BODY-LABEL: sym_name = "movement_and_elementwise"
// BODY:         "linalg.transpose"
// BODY-NEXT:    ^bb0(%[[X:.*]]: f16, %{{.*}}: f16):
// BODY-NEXT:      "linalg.yield"(%[[X]]) : (f16) -> ()
// BODY:         "linalg.broadcast"
// BODY-NEXT:    ^bb0(%[[X:.*]]: f16, %{{.*}}: f16):
// BODY-NEXT:      "linalg.yield"(%[[X]]) : (f16) -> ()
// BODY:         "linalg.add"
// BODY-NEXT:    ^bb0(%[[X:.*]]: f16, %[[Y:.*]]: f16, %{{.*}}: f16):
// BODY-NEXT:      %[[S:.*]] = "arith.addf"(%[[X]], %[[Y]]) <{{.*}}> : (f16, f16) -> f16
// BODY-NEXT:      "linalg.yield"(%[[S]]) : (f16) -> ()
// BODY:         "linalg.elementwise"
// BODY-NEXT:    ^bb0(%[[X:.*]]: f16, %[[Y:.*]]: f16, %{{.*}}: f16):
// BODY-NEXT:      %[[M:.*]] = "arith.mulf"(%[[X]], %[[Y]]) <{{.*}}> : (f16, f16) -> f16
// BODY-NEXT:      "linalg.yield"(%[[M]]) : (f16) -> ()
// BODY:         "linalg.copy"
// BODY-NEXT:    ^bb0(%[[X:.*]]: f16, %{{.*}}: f16):
// BODY-NEXT:      "linalg.yield"(%[[X]]) : (f16) -> ()
func.func @movement_and_elementwise(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>, %s: tensor<8x8xf32>, %v: tensor<8xf32>) -> tensor<8x8xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x8xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<8x8xf32>, tensor<8x8xf32>) outs(%z : tensor<8x8xf32>) -> tensor<8x8xf32>
  %t = linalg.transpose ins(%0 : tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) permutation = [1, 0]
  %bc = linalg.broadcast ins(%v : tensor<8xf32>) outs(%e : tensor<8x8xf32>) dimensions = [0]
  %1 = linalg.add ins(%t, %bc : tensor<8x8xf32>, tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
  %2 = linalg.elementwise kind=#linalg.elementwise_kind<mul> ins(%1, %s : tensor<8x8xf32>, tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
  %cp = linalg.copy ins(%2 : tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
  %3 = linalg.matmul ins(%cp, %b : tensor<8x8xf32>, tensor<8x8xf32>) outs(%z : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %3 : tensor<8x8xf32>
}

// A fill that feeds a low op (a bias between matmuls) becomes an f16 fill of
// the truncated scalar; the fill of the accumulator stays f32.
// CHECK-LABEL: func.func @fill_bias
// CHECK-DAG:     %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG:     %[[HALF:.*]] = arith.constant 5.000000e-01 : f32
// CHECK-DAG:     %[[HALF16:.*]] = arith.truncf %[[HALF]] : f32 to f16
// CHECK:         %[[ACC:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%{{.*}} : tensor<8x8xf32>) -> tensor<8x8xf32>
// CHECK:         %[[BIAS:.*]] = linalg.fill ins(%[[HALF16]] : f16) outs(%{{.*}} : tensor<8x8xf16>) -> tensor<8x8xf16>
// CHECK:         %[[MM:.*]] = linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<8x8xf16>, tensor<8x8xf16>) outs(%[[ACC]] : tensor<8x8xf32>)
// CHECK:         %[[MM16:.*]] = arith.truncf %[[MM]] : tensor<8x8xf32> to tensor<8x8xf16>
// CHECK:         %[[ADD:.*]] = linalg.add ins(%[[MM16]], %[[BIAS]] : tensor<8x8xf16>, tensor<8x8xf16>) outs(%{{.*}} : tensor<8x8xf16>) -> tensor<8x8xf16>
// CHECK:         linalg.matmul ins(%[[ADD]], %{{.*}} : tensor<8x8xf16>, tensor<8x8xf16>) outs(%[[ACC]] : tensor<8x8xf32>) -> tensor<8x8xf32>
// BODY-LABEL: sym_name = "fill_bias"
// BODY:         "linalg.fill"
// BODY-NEXT:    ^bb0(%{{.*}}: f32, %{{.*}}: f32):
// BODY:         "linalg.fill"
// BODY-NEXT:    ^bb0(%[[X:.*]]: f16, %{{.*}}: f16):
// BODY-NEXT:      "linalg.yield"(%[[X]]) : (f16) -> ()
func.func @fill_bias(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %zero = arith.constant 0.0 : f32
  %half = arith.constant 0.5 : f32
  %e = tensor.empty() : tensor<8x8xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
  %bias = linalg.fill ins(%half : f32) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<8x8xf32>, tensor<8x8xf32>) outs(%z : tensor<8x8xf32>) -> tensor<8x8xf32>
  %1 = linalg.add ins(%0, %bias : tensor<8x8xf32>, tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
  %2 = linalg.matmul ins(%1, %b : tensor<8x8xf32>, tensor<8x8xf32>) outs(%z : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %2 : tensor<8x8xf32>
}

// linalg.exp and linalg.elementwise exp are deny: they read the matmul's f32
// accumulator and stay f32; only their result is truncated for the next
// matmul.
// CHECK-LABEL: func.func @deny_exp
// CHECK:         %[[MM:.*]] = linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<8x8xf16>, tensor<8x8xf16>) outs(%{{.*}} : tensor<8x8xf32>) -> tensor<8x8xf32>
// CHECK-NOT:     arith.truncf %[[MM]]
// CHECK:         %[[E1:.*]] = linalg.exp ins(%[[MM]] : tensor<8x8xf32>) outs(%{{.*}} : tensor<8x8xf32>) -> tensor<8x8xf32>
// CHECK:         %[[E2:.*]] = linalg.elementwise kind=#linalg.elementwise_kind<exp> ins(%[[E1]] : tensor<8x8xf32>) outs(%{{.*}} : tensor<8x8xf32>) -> tensor<8x8xf32>
// CHECK:         %[[E216:.*]] = arith.truncf %[[E2]] : tensor<8x8xf32> to tensor<8x8xf16>
// CHECK:         linalg.matmul ins(%[[E216]], %{{.*}} : tensor<8x8xf16>, tensor<8x8xf16>) outs(%{{.*}} : tensor<8x8xf32>) -> tensor<8x8xf32>
// BODY-LABEL: sym_name = "deny_exp"
// BODY:         "linalg.exp"
// BODY-NEXT:    ^bb0(%{{.*}}: f32, %{{.*}}: f32):
// BODY-NEXT:      "math.exp"{{.*}} : (f32) -> f32
func.func @deny_exp(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>, %c: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %e = tensor.empty() : tensor<8x8xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<8x8xf32>, tensor<8x8xf32>) outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
  %1 = linalg.exp ins(%0 : tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
  %2 = linalg.elementwise kind=#linalg.elementwise_kind<exp> ins(%1 : tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
  %3 = linalg.matmul ins(%2, %b : tensor<8x8xf32>, tensor<8x8xf32>) outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %3 : tensor<8x8xf32>
}
