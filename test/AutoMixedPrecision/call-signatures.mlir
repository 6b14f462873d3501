// Calls keep the signature of their callee (issue 13): even with func.call
// on the allow list, a call of a declaration, of a public function or of a
// function whose address is taken keeps f32 operands and results (casts go
// around it); a private function called only directly is specialised together
// with all of its calls.
// RUN: amp-opt %s --amp-auto-mixed-precision='allow-add=func.call' | FileCheck %s
// RUN: amp-opt %s --amp-auto-mixed-precision='allow-add=func.call explain=true' -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: amp-opt %s --amp='mode=bf16' | FileCheck %s --check-prefix=PIPE

// CHECK: func.func private @ext(tensor<64x64xf32>) -> tensor<64x64xf32>
// CHECK: func.func @pub(%{{.*}}: tensor<64x64xf32>) -> tensor<64x64xf32>
// The specialised private callee takes and returns f16, like its call.
// CHECK: func.func private @priv(%{{.*}}: tensor<64x64xf16>) -> tensor<64x64xf16>
// CHECK:   arith.addf %{{.*}}, %{{.*}} : tensor<64x64xf16>
// CHECK-LABEL: func.func @caller
// CHECK:   %[[X:.*]] = linalg.matmul
// CHECK:   call @ext(%[[X]]) : (tensor<64x64xf32>) -> tensor<64x64xf32>
// CHECK:   call @pub(%{{.*}}) : (tensor<64x64xf32>) -> tensor<64x64xf32>
// CHECK:   call @priv(%{{.*}}) : (tensor<64x64xf16>) -> tensor<64x64xf16>
// EXPLAIN-DAG: remark: amp: f32: allow: call, keeps the callee's signature
// PIPE: func.func private @ext(tensor<64x64xf32>) -> tensor<64x64xf32>
// PIPE: call @ext(%{{.*}}) : (tensor<64x64xf32>) -> tensor<64x64xf32>
func.func private @ext(tensor<64x64xf32>) -> tensor<64x64xf32>
func.func @pub(%x: tensor<64x64xf32>) -> tensor<64x64xf32> {
  return %x : tensor<64x64xf32>
}
func.func private @priv(%x: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %y = arith.addf %x, %x : tensor<64x64xf32>
  return %y : tensor<64x64xf32>
}
func.func @caller(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>) -> (tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>) {
  %e = tensor.empty() : tensor<64x64xf32>
  %m = linalg.matmul ins(%a, %b : tensor<64x64xf32>, tensor<64x64xf32>) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  %c = func.call @ext(%m) : (tensor<64x64xf32>) -> tensor<64x64xf32>
  %d = func.call @pub(%m) : (tensor<64x64xf32>) -> tensor<64x64xf32>
  %g = func.call @priv(%m) : (tensor<64x64xf32>) -> tensor<64x64xf32>
  %m2 = linalg.matmul ins(%c, %d : tensor<64x64xf32>, tensor<64x64xf32>) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  %m3 = linalg.matmul ins(%g, %d : tensor<64x64xf32>, tensor<64x64xf32>) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %m2, %m3, %d : tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>
}
