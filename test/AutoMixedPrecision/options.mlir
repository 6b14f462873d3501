// Every option of amp-auto-mixed-precision on one function:
//   x -> matmul -> addf -> matmul -> tanh -> reduce (sum) -> result
// RUN: amp-opt %s --amp-auto-mixed-precision | FileCheck %s --check-prefix=F16
// RUN: amp-opt %s --amp-auto-mixed-precision='mode=bf16' | FileCheck %s --check-prefix=BF16
// RUN: amp-opt %s --amp-auto-mixed-precision='mode=bf16' | not grep -E '[^b]f16'
// RUN: amp-opt %s --amp-auto-mixed-precision='level=tensor-cores-only' | FileCheck %s --check-prefix=TCO
// RUN: amp-opt %s --amp-auto-mixed-precision='level=treat-infer-as-deny' | FileCheck %s --check-prefix=TCO
// RUN: amp-opt %s --amp-auto-mixed-precision='infer-remove=arith.addf deny-add=arith.addf' | FileCheck %s --check-prefix=TCO
// RUN: amp-opt %s --amp-auto-mixed-precision='allow-remove=linalg.matmul' | FileCheck %s --check-prefix=NONE
// RUN: amp-opt %s --amp-auto-mixed-precision='infer-remove=math.tanh allow-add=math.tanh' | FileCheck %s --check-prefix=TANH
// RUN: amp-opt %s --amp-auto-mixed-precision='clear-add=math.tanh infer-remove=math.tanh' | FileCheck %s --check-prefix=F16

// F16-LABEL: func.func @mlp
// F16:       %[[A:.*]] = linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x8xf16>, tensor<8x8xf16>) outs(%{{.*}} : tensor<4x8xf32>)
// F16:       %[[A16:.*]] = arith.truncf %[[A]] : tensor<4x8xf32> to tensor<4x8xf16>
// F16:       %[[S:.*]] = arith.addf %[[A16]], %{{.*}} : tensor<4x8xf16>
// F16:       %[[B:.*]] = linalg.matmul ins(%[[S]], %{{.*}} : tensor<4x8xf16>, tensor<8x8xf16>) outs(%{{.*}} : tensor<4x8xf32>)
// F16:       %[[T:.*]] = math.tanh %[[B]] : tensor<4x8xf32>
// F16:       linalg.reduce ins(%[[T]] : tensor<4x8xf32>) outs(%{{.*}} : tensor<4xf32>)

// bf16: an infer op fed directly by an allow op may follow it (TF's rule),
// but tanh sits between the f32 accumulator of the matmul and the f32 sum:
// in bf16 it would cost a truncf and an extf and round its input, so the
// cast economy keeps it f32. The chain rule still holds: the sum stays f32.
// BF16-LABEL: func.func @mlp
// BF16:       linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x8xbf16>, tensor<8x8xbf16>) outs(%{{.*}} : tensor<4x8xf32>)
// BF16:       arith.addf %{{.*}}, %{{.*}} : tensor<4x8xbf16>
// BF16:       %[[B:.*]] = linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x8xbf16>, tensor<8x8xbf16>) outs(%{{.*}} : tensor<4x8xf32>)
// BF16-NEXT:  %[[T:.*]] = math.tanh %[[B]] : tensor<4x8xf32>
// BF16:       linalg.reduce ins(%[[T]] : tensor<4x8xf32>) outs(%{{.*}} : tensor<4xf32>)

// Only the matmuls run low (tensor-cores-only), or infer ops are denied:
// addf stays f32 between the matmuls and each matmul casts its own inputs.
// TCO-LABEL: func.func @mlp
// TCO:       %[[A:.*]] = linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x8xf16>, tensor<8x8xf16>) outs(%{{.*}} : tensor<4x8xf32>)
// TCO:       %[[S:.*]] = arith.addf %[[A]], %{{.*}} : tensor<4x8xf32>
// TCO:       %[[S16:.*]] = arith.truncf %[[S]] : tensor<4x8xf32> to tensor<4x8xf16>
// TCO:       linalg.matmul ins(%[[S16]], %{{.*}} : tensor<4x8xf16>, tensor<8x8xf16>) outs(%{{.*}} : tensor<4x8xf32>)

// Without matmul on the allow list nothing changes.
// NONE-LABEL: func.func @mlp
// NONE-NOT:   f16

// tanh on the allow list runs low even though it is not between matmuls.
// TANH-LABEL: func.func @mlp
// TANH:       linalg.matmul
// TANH:       %[[B:.*]] = linalg.matmul
// TANH:       %[[B16:.*]] = arith.truncf %[[B]] : tensor<4x8xf32> to tensor<4x8xf16>
// TANH:       %[[T:.*]] = math.tanh %[[B16]] : tensor<4x8xf16>
// TANH:       %[[T32:.*]] = arith.extf %[[T]] : tensor<4x8xf16> to tensor<4x8xf32>
// TANH:       linalg.reduce ins(%[[T32]] : tensor<4x8xf32>)
func.func @mlp(%x: tensor<4x8xf32>, %w1: tensor<8x8xf32>, %w2: tensor<8x8xf32>, %b: tensor<4x8xf32>) -> tensor<4xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %a = linalg.matmul ins(%x, %w1 : tensor<4x8xf32>, tensor<8x8xf32>) outs(%z : tensor<4x8xf32>) -> tensor<4x8xf32>
  %s = arith.addf %a, %b : tensor<4x8xf32>
  %m = linalg.matmul ins(%s, %w2 : tensor<4x8xf32>, tensor<8x8xf32>) outs(%z : tensor<4x8xf32>) -> tensor<4x8xf32>
  %t = math.tanh %m : tensor<4x8xf32>
  %e1 = tensor.empty() : tensor<4xf32>
  %z1 = linalg.fill ins(%cst : f32) outs(%e1 : tensor<4xf32>) -> tensor<4xf32>
  %r = linalg.reduce ins(%t : tensor<4x8xf32>) outs(%z1 : tensor<4xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %sum = arith.addf %in, %acc : f32
      linalg.yield %sum : f32
    }
  return %r : tensor<4xf32>
}

// bf16: a sum fed directly by a matmul is infer in bf16 and could follow
// it, but its input is the matmul's f32 accumulator: reading it as bf16
// would only add a truncf, so the sum reads the f32 result.
// BF16-LABEL: func.func @rowsum
// BF16:       %[[M:.*]] = linalg.matmul
// BF16-NOT:   arith.truncf
// BF16:       %[[R:.*]] = linalg.reduce ins(%[[M]] : tensor<4x8xf32>) outs(%{{.*}} : tensor<4xf32>)
// BF16:         arith.addf %{{.*}}, %{{.*}} : f32
// BF16:       return %[[R]] : tensor<4xf32>
// F16-LABEL:  func.func @rowsum
// F16:        %[[M:.*]] = linalg.matmul
// F16:        linalg.reduce ins(%[[M]] : tensor<4x8xf32>) outs(%{{.*}} : tensor<4xf32>)
func.func @rowsum(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>) -> tensor<4xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %m = linalg.matmul ins(%x, %w : tensor<4x8xf32>, tensor<8x8xf32>) outs(%z : tensor<4x8xf32>) -> tensor<4x8xf32>
  %e1 = tensor.empty() : tensor<4xf32>
  %z1 = linalg.fill ins(%cst : f32) outs(%e1 : tensor<4xf32>) -> tensor<4xf32>
  %r = linalg.reduce ins(%m : tensor<4x8xf32>) outs(%z1 : tensor<4xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %sum = arith.addf %in, %acc : f32
      linalg.yield %sum : f32
    }
  return %r : tensor<4xf32>
}
