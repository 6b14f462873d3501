// RUN: amp-opt %s --amp-auto-mixed-precision='mode=bf16' | FileCheck %s
// RUN: amp-opt %s --amp-auto-mixed-precision='mode=bf16 explain=true' -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: amp-opt %s --amp-auto-mixed-precision | FileCheck %s --check-prefix=F16

// A batch norm's backward between two matmuls: the weight gradient
// sum(dy * x_hat) sums products of signed values that cancel. bf16 runs
// the infer ops between allow ops low, which rounded each product to bf16
// before its f32 sum (torch-fuzz seed 1799: the batch norm's weight
// gradient 2x further from PyTorch's than autocast's). The product and
// its sum stay f32. A square's sum (a variance: no cancellation) and the
// rest of the chain still run low.
// CHECK-LABEL: func.func @bn_weight_grad(
// CHECK-SAME:    %[[A:[a-z0-9]+]]: tensor<8x16xf32>, %[[W:[a-z0-9]+]]: tensor<16x16xf32>, %[[X:[a-z0-9]+]]: tensor<8x16xf32>
// CHECK:         %[[DY:.+]] = linalg.matmul ins(%{{.+}}, %{{.+}} : tensor<8x16xbf16>, tensor<16x16xbf16>) outs(%{{.+}} : tensor<8x16xf32>)
// CHECK:         %[[P:.+]] = linalg.generic {{.*}} ins(%[[DY]], %[[X]] : tensor<8x16xf32>, tensor<8x16xf32>) outs(%{{.+}} : tensor<8x16xf32>)
// CHECK-NOT:       truncf
// CHECK:         } -> tensor<8x16xf32>
// CHECK:         %[[S:.+]] = linalg.generic {{.*}} ins(%[[P]] : tensor<8x16xf32>) outs(%{{.+}} : tensor<16xf32>)
// CHECK:         %[[Q:.+]] = linalg.generic {{.*}} ins(%[[DY]], %[[DY]] : tensor<8x16xf32>, tensor<8x16xf32>) outs(%{{.+}} : tensor<8x16xbf16>)
// CHECK:           arith.truncf
// CHECK:         linalg.generic {{.*}} ins(%[[Q]] : tensor<8x16xbf16>) outs(%{{.+}} : tensor<16xf32>)
// CHECK:         linalg.matmul ins(%{{.+}}, %{{.+}} : tensor<8x16xbf16>, tensor<16x4xbf16>)
// F16-LABEL:   func.func @bn_weight_grad(
// F16-NOT:       tensor<8x16xf16>) outs
#id = affine_map<(i, j) -> (i, j)>
#col = affine_map<(i, j) -> (j)>
func.func @bn_weight_grad(%a: tensor<8x16xf32>, %w: tensor<16x16xf32>, %x: tensor<8x16xf32>,
                          %w2: tensor<16x4xf32>) -> (tensor<16xf32>, tensor<8x4xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x16xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
  %dy = linalg.matmul ins(%a, %w : tensor<8x16xf32>, tensor<16x16xf32>) outs(%f : tensor<8x16xf32>) -> tensor<8x16xf32>
  // EXPLAIN: summed-products.mlir:[[@LINE+1]]:{{[0-9]+}}: remark: amp: f32: infer: a product that only f32 sums such as linalg.generic at {{.*}} read (rounding its terms defeats their f32 accumulation), kept f32
  %p = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%dy, %x : tensor<8x16xf32>, tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%g: f32, %v: f32, %o: f32):
    %m = arith.mulf %g, %v : f32
    linalg.yield %m : f32
  } -> tensor<8x16xf32>
  %ev = tensor.empty() : tensor<16xf32>
  %fv = linalg.fill ins(%zero : f32) outs(%ev : tensor<16xf32>) -> tensor<16xf32>
  // EXPLAIN: summed-products.mlir:[[@LINE+1]]:{{[0-9]+}}: remark: amp: f32: infer: sums the product linalg.generic at {{.*}} unrounded, kept f32
  %s = linalg.generic {indexing_maps = [#id, #col], iterator_types = ["reduction", "parallel"]}
      ins(%p : tensor<8x16xf32>) outs(%fv : tensor<16xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %r = arith.addf %v, %acc : f32
    linalg.yield %r : f32
  } -> tensor<16xf32>
  // EXPLAIN: summed-products.mlir:[[@LINE+1]]:{{[0-9]+}}: remark: amp: low: infer: between allow ops, runs low
  %q = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%dy, %dy : tensor<8x16xf32>, tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%g: f32, %h: f32, %o: f32):
    %m = arith.mulf %g, %h : f32
    linalg.yield %m : f32
  } -> tensor<8x16xf32>
  %s2 = linalg.generic {indexing_maps = [#id, #col], iterator_types = ["reduction", "parallel"]}
      ins(%q : tensor<8x16xf32>) outs(%fv : tensor<16xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %r = arith.addf %v, %acc : f32
    linalg.yield %r : f32
  } -> tensor<16xf32>
  %t = linalg.generic {indexing_maps = [#id, #col, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%dy, %s, %s2 : tensor<8x16xf32>, tensor<16xf32>, tensor<16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%g: f32, %u: f32, %u2: f32, %o: f32):
    %c = arith.subf %g, %u : f32
    %d = arith.mulf %c, %u2 : f32
    linalg.yield %d : f32
  } -> tensor<8x16xf32>
  %e2 = tensor.empty() : tensor<8x4xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<8x4xf32>) -> tensor<8x4xf32>
  %out = linalg.matmul ins(%t, %w2 : tensor<8x16xf32>, tensor<16x4xf32>) outs(%f2 : tensor<8x4xf32>) -> tensor<8x4xf32>
  return %s, %out : tensor<16xf32>, tensor<8x4xf32>
}
