// A linalg.generic computing exactly 1 / (1 + exp(-x)) (torch-mlir's
// sigmoid) is `linalg.generic:sigmoid`, infer like tosa.sigmoid: its result
// is bounded and a low generic computes its body in f32, so it runs low
// between matmuls although its body has a math.exp. Near misses keep the
// class of their strictest body op (math.exp: deny), and a user entry for
// linalg.generic:elementwise still covers sigmoids. (It reads the matmul's
// f32 result, which it would only extend back, and writes the low result.)
//
// RUN: amp-opt %s --amp-auto-mixed-precision | FileCheck %s
// RUN: amp-opt %s --amp-auto-mixed-precision='mode=bf16' | FileCheck %s
// RUN: amp-opt %s --amp-auto-mixed-precision='explain=true' -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=REMARK
// RUN: amp-opt %s --amp-auto-mixed-precision='explain=true deny-add=linalg.generic:elementwise' \
// RUN:   -o /dev/null 2>&1 | FileCheck %s --check-prefix=USER

#id = affine_map<(d0, d1) -> (d0, d1)>

// REMARK: sigmoid.mlir:[[@LINE+9]]:{{.*}} remark: amp: low: infer: between allow ops, runs low
// USER:  sigmoid.mlir:[[@LINE+8]]:{{.*}} remark: amp: f32: deny (linalg.generic:elementwise (deny-add))
// CHECK-LABEL: func.func @sigmoid
// CHECK:       linalg.generic {{.*}} ins(%{{.*}} : tensor<8x8xf32>) outs(%{{.*}} : tensor<8x8x{{b?}}f16>)
// CHECK:         math.exp %{{.*}} : f32
// CHECK:       linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<8x8x{{b?}}f16>, tensor<8x8x{{b?}}f16>)
func.func @sigmoid(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>, %c: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<8x8xf32>, tensor<8x8xf32>) outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
  %e = tensor.empty() : tensor<8x8xf32>
  %1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
    ins(%0 : tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) {
  ^bb0(%x: f32, %o: f32):
    %one = arith.constant 1.0 : f32
    %n = arith.negf %x : f32
    %ex = math.exp %n : f32
    %d = arith.addf %ex, %one : f32
    %s = arith.divf %one, %d : f32
    linalg.yield %s : f32
  } -> tensor<8x8xf32>
  %2 = linalg.matmul ins(%1, %b : tensor<8x8xf32>, tensor<8x8xf32>) outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %2 : tensor<8x8xf32>
}

// -x written as 0 - x, and 1 + e instead of e + 1.
// REMARK: sigmoid.mlir:[[@LINE+3]]:{{.*}} remark: amp: low: infer: between allow ops, runs low
func.func @sigmoid_sub(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>, %c: tensor<8x8xf32>, %e: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<8x8xf32>, tensor<8x8xf32>) outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
  %1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
    ins(%0 : tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) {
  ^bb0(%x: f32, %o: f32):
    %zero = arith.constant 0.0 : f32
    %one = arith.constant 1.0 : f32
    %n = arith.subf %zero, %x : f32
    %ex = math.exp %n : f32
    %d = arith.addf %one, %ex : f32
    %s = arith.divf %one, %d : f32
    linalg.yield %s : f32
  } -> tensor<8x8xf32>
  %2 = linalg.matmul ins(%1, %b : tensor<8x8xf32>, tensor<8x8xf32>) outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %2 : tensor<8x8xf32>
}

// Near misses: 2 / (1 + exp(-x)) is unbounded by 1 only in name, but it is
// not the pattern; exp(-x) alone overflows f16 for x < -11. Both stay deny.
// REMARK: sigmoid.mlir:[[@LINE+4]]:{{.*}} remark: amp: f32: deny (linalg.generic:elementwise, strictest body op math.exp is deny)
// REMARK: sigmoid.mlir:[[@LINE+14]]:{{.*}} remark: amp: f32: deny (linalg.generic:elementwise, strictest body op math.exp is deny)
func.func @near_misses(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>, %c: tensor<8x8xf32>, %e: tensor<8x8xf32>) -> (tensor<8x8xf32>, tensor<8x8xf32>) {
  %0 = linalg.matmul ins(%a, %b : tensor<8x8xf32>, tensor<8x8xf32>) outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
  %1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
    ins(%0 : tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) {
  ^bb0(%x: f32, %o: f32):
    %one = arith.constant 1.0 : f32
    %two = arith.constant 2.0 : f32
    %n = arith.negf %x : f32
    %ex = math.exp %n : f32
    %d = arith.addf %ex, %one : f32
    %s = arith.divf %two, %d : f32
    linalg.yield %s : f32
  } -> tensor<8x8xf32>
  %2 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
    ins(%0 : tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) {
  ^bb0(%x: f32, %o: f32):
    %n = arith.negf %x : f32
    %ex = math.exp %n : f32
    linalg.yield %ex : f32
  } -> tensor<8x8xf32>
  %3 = linalg.matmul ins(%1, %b : tensor<8x8xf32>, tensor<8x8xf32>) outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
  %4 = linalg.matmul ins(%2, %b : tensor<8x8xf32>, tensor<8x8xf32>) outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %3, %4 : tensor<8x8xf32>, tensor<8x8xf32>
}
