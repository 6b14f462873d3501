// linalg.generic / map / reduce, classified by their bodies. A low op keeps
// its body computing in f32: low block arguments are extended on entry and
// the yielded values truncated (a value only moved is yielded as it came in).
//
// RUN: amp-opt %s --amp-auto-mixed-precision | FileCheck %s
// RUN: amp-opt %s --amp-auto-mixed-precision=mode=bf16 | FileCheck %s --check-prefix=BF16
// RUN: amp-opt %s --amp-auto-mixed-precision | mlir-opt --verify-each -o /dev/null
// RUN: amp-opt %s --amp-auto-mixed-precision=mode=bf16 | mlir-opt --verify-each -o /dev/null

#id = affine_map<(d0, d1) -> (d0, d1)>
#tr = affine_map<(d0, d1) -> (d1, d0)>
#row = affine_map<(d0, d1) -> (d0)>
#col = affine_map<(d0, d1) -> (d1)>
#sc = affine_map<(d0, d1) -> ()>
#mA = affine_map<(m, n, k) -> (m, k)>
#mB = affine_map<(m, n, k) -> (k, n)>
#mC = affine_map<(m, n, k) -> (m, n)>

// A matmul written as a generic is a contraction (allow): f16 inputs, f32
// init and result, the body extends its inputs and accumulates in f32.
// CHECK-LABEL: func.func @generic_matmul
// CHECK-SAME:    (%[[A:.*]]: tensor<8x16xf32>, %[[B:.*]]: tensor<16x4xf32>, %[[C:.*]]: tensor<8x4xf32>)
// CHECK-DAG:     %[[A16:.*]] = arith.truncf %[[A]] : tensor<8x16xf32> to tensor<8x16xf16>
// CHECK-DAG:     %[[B16:.*]] = arith.truncf %[[B]] : tensor<16x4xf32> to tensor<16x4xf16>
// CHECK:         %[[R:.*]] = linalg.generic
// CHECK-SAME:      ins(%[[A16]], %[[B16]] : tensor<8x16xf16>, tensor<16x4xf16>) outs(%[[C]] : tensor<8x4xf32>)
// CHECK-NEXT:    ^bb0(%[[X:.*]]: f16, %[[Y:.*]]: f16, %[[ACC:.*]]: f32):
// CHECK-NEXT:      %[[XE:.*]] = arith.extf %[[X]] : f16 to f32
// CHECK-NEXT:      %[[YE:.*]] = arith.extf %[[Y]] : f16 to f32
// CHECK-NEXT:      %[[M:.*]] = arith.mulf %[[XE]], %[[YE]] : f32
// CHECK-NEXT:      %[[S:.*]] = arith.addf %[[ACC]], %[[M]] : f32
// CHECK-NEXT:      linalg.yield %[[S]] : f32
// CHECK-NEXT:    } -> tensor<8x4xf32>
// CHECK-NEXT:    return %[[R]] : tensor<8x4xf32>
// BF16-LABEL: func.func @generic_matmul
// BF16:         linalg.generic
// BF16-SAME:      ins(%{{.*}}, %{{.*}} : tensor<8x16xbf16>, tensor<16x4xbf16>) outs(%{{.*}} : tensor<8x4xf32>)
// BF16-NEXT:    ^bb0(%{{.*}}: bf16, %{{.*}}: bf16, %{{.*}}: f32):
// BF16-NEXT:      arith.extf %{{.*}} : bf16 to f32
// BF16-NEXT:      arith.extf %{{.*}} : bf16 to f32
// BF16-NEXT:      arith.mulf %{{.*}}, %{{.*}} : f32
func.func @generic_matmul(%a: tensor<8x16xf32>, %b: tensor<16x4xf32>, %c: tensor<8x4xf32>) -> tensor<8x4xf32> {
  %0 = linalg.generic {indexing_maps = [#mA, #mB, #mC], iterator_types = ["parallel", "parallel", "reduction"]}
    ins(%a, %b : tensor<8x16xf32>, tensor<16x4xf32>) outs(%c : tensor<8x4xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// matmul -> add (infer) -> relu via maximumf (clear) -> transpose (clear)
// -> broadcast-add (infer) -> matmul: everything between the matmuls is f16.
// Unused `outs` arguments get no extension, copies yield their input. The
// add reads the matmul's f32 result and the f32 bias as they are: it would
// only extend f16 copies of them back (the cast economy's
// ReadRoundingsWide); and as the relu only extends the add's result, the
// add yields it f32: the pair rounds once, at the relu.
// CHECK-LABEL: func.func @elementwise_chain
// CHECK-SAME:    (%[[A:.*]]: tensor<8x8xf32>, %[[B:.*]]: tensor<8x8xf32>, %[[BIAS:.*]]: tensor<8x8xf32>, %[[C:.*]]: tensor<8x8xf32>, %[[V:.*]]: tensor<8xf32>)
// CHECK-DAG:     %[[V16:.*]] = arith.truncf %[[V]] : tensor<8xf32> to tensor<8xf16>
// CHECK-DAG:     %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:         %[[MM:.*]] = linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<8x8xf16>, tensor<8x8xf16>) outs(%[[C]] : tensor<8x8xf32>) -> tensor<8x8xf32>
// CHECK:         %[[E:.*]] = tensor.empty() : tensor<8x8xf32>
// CHECK:         %[[E16:.*]] = arith.truncf %[[E]] : tensor<8x8xf32> to tensor<8x8xf16>
// CHECK:         %[[ADD:.*]] = linalg.generic
// CHECK-SAME:      ins(%[[MM]], %[[BIAS]] : tensor<8x8xf32>, tensor<8x8xf32>) outs(%[[E]] : tensor<8x8xf32>)
// CHECK-NEXT:    ^bb0(%[[X:.*]]: f32, %[[Y:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[S:.*]] = arith.addf %[[X]], %[[Y]] : f32
// CHECK-NEXT:      linalg.yield %[[S]] : f32
// CHECK-NEXT:    } -> tensor<8x8xf32>
// CHECK:         %[[RELU:.*]] = linalg.generic
// CHECK-SAME:      ins(%[[ADD]] : tensor<8x8xf32>) outs(%[[E16]] : tensor<8x8xf16>)
// CHECK-NEXT:    ^bb0(%[[X:.*]]: f32, %{{.*}}: f16):
// CHECK-NEXT:      %[[M:.*]] = arith.maximumf %[[X]], %[[ZERO]] : f32
// CHECK-NEXT:      %[[MT:.*]] = arith.truncf %[[M]] : f32 to f16
// CHECK-NEXT:      linalg.yield %[[MT]] : f16
// CHECK-NEXT:    } -> tensor<8x8xf16>
// CHECK:         %[[T:.*]] = linalg.generic
// CHECK-SAME:      ins(%[[RELU]] : tensor<8x8xf16>) outs(%[[E16]] : tensor<8x8xf16>)
// CHECK-NEXT:    ^bb0(%[[X:.*]]: f16, %{{.*}}: f16):
// CHECK-NEXT:      linalg.yield %[[X]] : f16
// CHECK-NEXT:    } -> tensor<8x8xf16>
// CHECK:         %[[BC:.*]] = linalg.generic
// CHECK-SAME:      ins(%[[V16]] : tensor<8xf16>) outs(%[[E16]] : tensor<8x8xf16>)
// CHECK-NEXT:    ^bb0(%[[X:.*]]: f16, %{{.*}}: f16):
// CHECK-NEXT:      linalg.yield %[[X]] : f16
// CHECK-NEXT:    } -> tensor<8x8xf16>
// CHECK:         %[[ADD2:.*]] = linalg.generic
// CHECK-SAME:      ins(%[[T]], %[[BC]] : tensor<8x8xf16>, tensor<8x8xf16>) outs(%[[E16]] : tensor<8x8xf16>)
// CHECK:         %[[R:.*]] = linalg.matmul ins(%[[ADD2]], %{{.*}} : tensor<8x8xf16>, tensor<8x8xf16>) outs(%[[C]] : tensor<8x8xf32>) -> tensor<8x8xf32>
// CHECK-NEXT:    return %[[R]] : tensor<8x8xf32>
// BF16-LABEL: func.func @elementwise_chain
// BF16:         linalg.generic
// BF16-SAME:      outs(%{{.*}} : tensor<8x8xf32>)
// BF16-NEXT:    ^bb0(%{{.*}}: f32, %{{.*}}: f32, %{{.*}}: f32):
// BF16-NEXT:      %[[S:.*]] = arith.addf %{{.*}}, %{{.*}} : f32
// BF16-NEXT:      linalg.yield %[[S]] : f32
// BF16:         linalg.generic
// BF16-SAME:      outs(%{{.*}} : tensor<8x8xbf16>)
// BF16-NEXT:    ^bb0(%{{.*}}: f32, %{{.*}}: bf16):
// BF16-NEXT:      arith.maximumf %{{.*}}, %{{.*}} : f32
// BF16-NEXT:      arith.truncf %{{.*}} : f32 to bf16
func.func @elementwise_chain(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>, %bias: tensor<8x8xf32>, %c: tensor<8x8xf32>, %v: tensor<8xf32>) -> tensor<8x8xf32> {
  %cst = arith.constant 0.0 : f32
  %0 = linalg.matmul ins(%a, %b : tensor<8x8xf32>, tensor<8x8xf32>) outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
  %e = tensor.empty() : tensor<8x8xf32>
  %1 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
    ins(%0, %bias : tensor<8x8xf32>, tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<8x8xf32>
  %2 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
    ins(%1 : tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) {
  ^bb0(%x: f32, %o: f32):
    %r = arith.maximumf %x, %cst : f32
    linalg.yield %r : f32
  } -> tensor<8x8xf32>
  %3 = linalg.generic {indexing_maps = [#tr, #id], iterator_types = ["parallel", "parallel"]}
    ins(%2 : tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) {
  ^bb0(%x: f32, %o: f32):
    linalg.yield %x : f32
  } -> tensor<8x8xf32>
  %4 = linalg.generic {indexing_maps = [#col, #id], iterator_types = ["parallel", "parallel"]}
    ins(%v : tensor<8xf32>) outs(%e : tensor<8x8xf32>) {
  ^bb0(%x: f32, %o: f32):
    linalg.yield %x : f32
  } -> tensor<8x8xf32>
  %5 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
    ins(%3, %4 : tensor<8x8xf32>, tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<8x8xf32>
  %6 = linalg.matmul ins(%5, %b : tensor<8x8xf32>, tensor<8x8xf32>) outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %6 : tensor<8x8xf32>
}

// A sum reduction after a matmul: deny in f16 (it reads the f32 accumulator,
// no cast at all), infer in bf16, where it follows the bf16 matmul: bf16
// storage, f32 body arithmetic. It reads bf16 because the second matmul
// needs the bf16 copy anyway; alone it would read the f32 accumulator
// (options.mlir, @rowsum).
// CHECK-LABEL: func.func @sum_reduction
// CHECK-SAME:    (%{{.*}}: tensor<8x8xf32>, %{{.*}}: tensor<8x8xf32>, %{{.*}}: tensor<8x8xf32>, %[[R:.*]]: tensor<8xf32>)
// CHECK:         %[[MM:.*]] = linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<8x8xf16>, tensor<8x8xf16>) outs(%{{.*}} : tensor<8x8xf32>) -> tensor<8x8xf32>
// CHECK-NEXT:    %[[MM16:.*]] = arith.truncf %[[MM]] : tensor<8x8xf32> to tensor<8x8xf16>
// CHECK-NEXT:    %[[SUM:.*]] = linalg.generic
// CHECK-SAME:      iterator_types = ["parallel", "reduction"]
// CHECK-SAME:      ins(%[[MM]] : tensor<8x8xf32>) outs(%[[R]] : tensor<8xf32>)
// CHECK-NEXT:    ^bb0(%[[X:.*]]: f32, %[[ACC:.*]]: f32):
// CHECK-NEXT:      %[[S:.*]] = arith.addf %[[ACC]], %[[X]] : f32
// CHECK-NEXT:      linalg.yield %[[S]] : f32
// CHECK-NEXT:    } -> tensor<8xf32>
// CHECK-NEXT:    %[[MM2:.*]] = linalg.matmul ins(%[[MM16]], %{{.*}} : tensor<8x8xf16>, tensor<8x8xf16>)
// CHECK-NEXT:    return %[[SUM]], %[[MM2]]
// BF16-LABEL: func.func @sum_reduction
// BF16-SAME:    (%{{.*}}: tensor<8x8xf32>, %{{.*}}: tensor<8x8xf32>, %{{.*}}: tensor<8x8xf32>, %[[R:.*]]: tensor<8xf32>)
// The sum reads bf16 but accumulates into its f32 init.
// BF16:         %[[MM:.*]] = linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<8x8xbf16>, tensor<8x8xbf16>) outs(%{{.*}} : tensor<8x8xf32>) -> tensor<8x8xf32>
// BF16-NEXT:    %[[MM16:.*]] = arith.truncf %[[MM]] : tensor<8x8xf32> to tensor<8x8xbf16>
// BF16-NEXT:    %[[SUM:.*]] = linalg.generic
// BF16-SAME:      ins(%[[MM16]] : tensor<8x8xbf16>) outs(%[[R]] : tensor<8xf32>)
// BF16-NEXT:    ^bb0(%[[X:.*]]: bf16, %[[ACC:.*]]: f32):
// BF16-NEXT:      %[[XE:.*]] = arith.extf %[[X]] : bf16 to f32
// BF16-NEXT:      %[[S:.*]] = arith.addf %[[ACC]], %[[XE]] : f32
// BF16-NEXT:      linalg.yield %[[S]] : f32
// BF16-NEXT:    } -> tensor<8xf32>
// BF16-NEXT:    %[[MM2:.*]] = linalg.matmul ins(%[[MM16]], %{{.*}} : tensor<8x8xbf16>, tensor<8x8xbf16>)
// BF16-NEXT:    return %[[SUM]], %[[MM2]]
func.func @sum_reduction(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>, %c: tensor<8x8xf32>, %r: tensor<8xf32>) -> (tensor<8xf32>, tensor<8x8xf32>) {
  %0 = linalg.matmul ins(%a, %b : tensor<8x8xf32>, tensor<8x8xf32>) outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
  %1 = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
    ins(%0 : tensor<8x8xf32>) outs(%r : tensor<8xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %acc, %x : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  %2 = linalg.matmul ins(%0, %b : tensor<8x8xf32>, tensor<8x8xf32>) outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %1, %2 : tensor<8xf32>, tensor<8x8xf32>
}

// A max reduction is clear: between two matmuls it runs on f16 storage
// (init included), comparing in f32.
// CHECK-LABEL: func.func @max_reduction
// CHECK-SAME:    (%{{.*}}: tensor<8x8xf32>, %{{.*}}: tensor<8x8xf32>, %{{.*}}: tensor<8x8xf32>, %[[R:.*]]: tensor<8xf32>, %{{.*}}: tensor<8x8xf32>)
// CHECK-DAG:     %[[R16:.*]] = arith.truncf %[[R]] : tensor<8xf32> to tensor<8xf16>
// CHECK:         %[[MM:.*]] = linalg.matmul
// CHECK-NEXT:    %[[MM16:.*]] = arith.truncf %[[MM]] : tensor<8x8xf32> to tensor<8x8xf16>
// CHECK-NEXT:    %[[MAX:.*]] = linalg.generic
// CHECK-SAME:      ins(%[[MM16]] : tensor<8x8xf16>) outs(%[[R16]] : tensor<8xf16>)
// CHECK-NEXT:    ^bb0(%[[X:.*]]: f16, %[[ACC:.*]]: f16):
// CHECK-NEXT:      %[[XE:.*]] = arith.extf %[[X]] : f16 to f32
// CHECK-NEXT:      %[[ACCE:.*]] = arith.extf %[[ACC]] : f16 to f32
// CHECK-NEXT:      %[[M:.*]] = arith.maximumf %[[ACCE]], %[[XE]] : f32
// CHECK-NEXT:      %[[MT:.*]] = arith.truncf %[[M]] : f32 to f16
// CHECK-NEXT:      linalg.yield %[[MT]] : f16
// CHECK-NEXT:    } -> tensor<8xf16>
// CHECK:         %[[BC:.*]] = linalg.broadcast ins(%[[MAX]] : tensor<8xf16>) outs(%{{.*}} : tensor<8x8xf16>) dimensions = [1]
// CHECK-NEXT:    linalg.matmul ins(%[[BC]], %{{.*}} : tensor<8x8xf16>, tensor<8x8xf16>)
func.func @max_reduction(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>, %c: tensor<8x8xf32>, %r: tensor<8xf32>, %w: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<8x8xf32>, tensor<8x8xf32>) outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
  %1 = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
    ins(%0 : tensor<8x8xf32>) outs(%r : tensor<8xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %m = arith.maximumf %acc, %x : f32
    linalg.yield %m : f32
  } -> tensor<8xf32>
  %e = tensor.empty() : tensor<8x8xf32>
  %2 = linalg.broadcast ins(%1 : tensor<8xf32>) outs(%e : tensor<8x8xf32>) dimensions = [1]
  %3 = linalg.matmul ins(%2, %w : tensor<8x8xf32>, tensor<8x8xf32>) outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %3 : tensor<8x8xf32>
}

// A body with math.exp is deny, in both modes: f32 in, f32 out, truncated
// only for the next matmul.
// CHECK-LABEL: func.func @exp_body
// CHECK:         %[[MM:.*]] = linalg.matmul {{.*}} -> tensor<8x8xf32>
// CHECK:         %[[EXP:.*]] = linalg.generic
// CHECK-SAME:      ins(%[[MM]] : tensor<8x8xf32>) outs(%{{.*}} : tensor<8x8xf32>)
// CHECK-NEXT:    ^bb0(%[[X:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      math.exp %[[X]] : f32
// CHECK:         } -> tensor<8x8xf32>
// CHECK-NEXT:    %[[EXP16:.*]] = arith.truncf %[[EXP]] : tensor<8x8xf32> to tensor<8x8xf16>
// CHECK-NEXT:    linalg.matmul ins(%[[EXP16]], %{{.*}} : tensor<8x8xf16>, tensor<8x8xf16>)
// BF16-LABEL: func.func @exp_body
// BF16:         %[[MM:.*]] = linalg.matmul {{.*}} -> tensor<8x8xf32>
// BF16:         linalg.generic
// BF16-SAME:      ins(%[[MM]] : tensor<8x8xf32>) outs(%{{.*}} : tensor<8x8xf32>)
func.func @exp_body(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>, %c: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<8x8xf32>, tensor<8x8xf32>) outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
  %e = tensor.empty() : tensor<8x8xf32>
  %1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
    ins(%0 : tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) {
  ^bb0(%x: f32, %o: f32):
    %s = math.exp %x : f32
    linalg.yield %s : f32
  } -> tensor<8x8xf32>
  %2 = linalg.matmul ins(%1, %b : tensor<8x8xf32>, tensor<8x8xf32>) outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %2 : tensor<8x8xf32>
}

// linalg.map (mulf: infer) and linalg.reduce (maximumf: clear) between
// matmuls run in f16 with f32 bodies; a linalg.reduce that adds is a sum
// (deny in f16).
// CHECK-LABEL: func.func @map_reduce
// CHECK-SAME:    (%[[A:.*]]: tensor<8x8xf32>, %{{.*}}: tensor<8x8xf32>, %{{.*}}: tensor<8x8xf32>, %[[R:.*]]: tensor<8xf32>)
// CHECK-DAG:     %[[A16:.*]] = arith.truncf %[[A]] : tensor<8x8xf32> to tensor<8x8xf16>
// CHECK-DAG:     %[[R16:.*]] = arith.truncf %[[R]] : tensor<8xf32> to tensor<8xf16>
// CHECK:         %[[MM:.*]] = linalg.matmul
// CHECK-NOT:     arith.truncf %[[MM]]
// CHECK:         %[[MAP:.*]] = linalg.map ins(%[[MM]], %[[A16]] : tensor<8x8xf32>, tensor<8x8xf16>) outs(%{{.*}} : tensor<8x8xf16>)
// CHECK-NEXT:      (%[[X:.*]]: f32, %[[Y:.*]]: f16, %{{.*}}: f16) {
// CHECK-NEXT:        %[[YE:.*]] = arith.extf %[[Y]] : f16 to f32
// CHECK-NEXT:        %[[M:.*]] = arith.mulf %[[X]], %[[YE]] : f32
// CHECK-NEXT:        %[[MT:.*]] = arith.truncf %[[M]] : f32 to f16
// CHECK-NEXT:        linalg.yield %[[MT]] : f16
// CHECK:         %[[RED:.*]] = linalg.reduce ins(%[[MAP]] : tensor<8x8xf16>) outs(%[[R16]] : tensor<8xf16>) dimensions = [1]
// CHECK-NEXT:      (%[[X:.*]]: f16, %[[ACC:.*]]: f16) {
// CHECK-NEXT:        %[[XE:.*]] = arith.extf %[[X]] : f16 to f32
// CHECK-NEXT:        %[[ACCE:.*]] = arith.extf %[[ACC]] : f16 to f32
// CHECK-NEXT:        %[[MX:.*]] = arith.maximumf %[[ACCE]], %[[XE]] : f32
// CHECK-NEXT:        %[[MXT:.*]] = arith.truncf %[[MX]] : f32 to f16
// CHECK-NEXT:        linalg.yield %[[MXT]] : f16
// CHECK:         %[[BC:.*]] = linalg.broadcast ins(%[[RED]] : tensor<8xf16>)
// CHECK:         %[[MM2:.*]] = linalg.matmul ins(%[[BC]], %[[MAP]] : tensor<8x8xf16>, tensor<8x8xf16>) outs(%{{.*}} : tensor<8x8xf32>) -> tensor<8x8xf32>
// CHECK-NEXT:    %[[SUM:.*]] = linalg.reduce { arith.addf } ins(%[[MM2]] : tensor<8x8xf32>) outs(%[[R]] : tensor<8xf32>) dimensions = [1]
// CHECK-NEXT:    return %[[SUM]] : tensor<8xf32>
func.func @map_reduce(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>, %c: tensor<8x8xf32>, %r: tensor<8xf32>) -> tensor<8xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<8x8xf32>, tensor<8x8xf32>) outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
  %e = tensor.empty() : tensor<8x8xf32>
  %1 = linalg.map { arith.mulf } ins(%0, %a : tensor<8x8xf32>, tensor<8x8xf32>) outs(%e : tensor<8x8xf32>)
  %2 = linalg.reduce { arith.maximumf } ins(%1 : tensor<8x8xf32>) outs(%r : tensor<8xf32>) dimensions = [1]
  %3 = linalg.broadcast ins(%2 : tensor<8xf32>) outs(%e : tensor<8x8xf32>) dimensions = [1]
  %4 = linalg.matmul ins(%3, %1 : tensor<8x8xf32>, tensor<8x8xf32>) outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
  %5 = linalg.reduce { arith.addf } ins(%4 : tensor<8x8xf32>) outs(%r : tensor<8xf32>) dimensions = [1]
  return %5 : tensor<8xf32>
}

// An argmax (max value and its i32 index) between matmuls: the value part
// runs in f16, the index part is untouched.
// CHECK-LABEL: func.func @argmax
// CHECK-SAME:    (%{{.*}}: tensor<8x8xf32>, %{{.*}}: tensor<8x8xf32>, %{{.*}}: tensor<8x8xf32>, %[[IV:.*]]: tensor<8x8xi32>, %[[R:.*]]: tensor<8xf32>, %[[RI:.*]]: tensor<8xi32>, %{{.*}}: tensor<8x8xf32>)
// CHECK-DAG:     %[[R16:.*]] = arith.truncf %[[R]] : tensor<8xf32> to tensor<8xf16>
// CHECK:         %[[MM:.*]] = linalg.matmul
// CHECK-NEXT:    %[[MM16:.*]] = arith.truncf %[[MM]] : tensor<8x8xf32> to tensor<8x8xf16>
// CHECK-NEXT:    %[[RED:.*]]:2 = linalg.reduce ins(%[[MM16]], %[[IV]] : tensor<8x8xf16>, tensor<8x8xi32>) outs(%[[R16]], %[[RI]] : tensor<8xf16>, tensor<8xi32>) dimensions = [1]
// CHECK-NEXT:      (%[[X:.*]]: f16, %[[I:.*]]: i32, %[[M:.*]]: f16, %[[MI:.*]]: i32) {
// CHECK-NEXT:        %[[XE:.*]] = arith.extf %[[X]] : f16 to f32
// CHECK-NEXT:        %[[ME:.*]] = arith.extf %[[M]] : f16 to f32
// CHECK-NEXT:        %[[GT:.*]] = arith.cmpf ogt, %[[XE]], %[[ME]] : f32
// CHECK-NEXT:        %[[NM:.*]] = arith.select %[[GT]], %[[XE]], %[[ME]] : f32
// CHECK-NEXT:        %[[NI:.*]] = arith.select %[[GT]], %[[I]], %[[MI]] : i32
// CHECK-NEXT:        %[[NMT:.*]] = arith.truncf %[[NM]] : f32 to f16
// CHECK-NEXT:        linalg.yield %[[NMT]], %[[NI]] : f16, i32
// CHECK:         linalg.broadcast ins(%[[RED]]#0 : tensor<8xf16>)
// CHECK:         return %{{.*}}, %[[RED]]#1 : tensor<8x8xf32>, tensor<8xi32>
func.func @argmax(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>, %c: tensor<8x8xf32>, %iv: tensor<8x8xi32>, %r: tensor<8xf32>, %ri: tensor<8xi32>, %w: tensor<8x8xf32>) -> (tensor<8x8xf32>, tensor<8xi32>) {
  %0 = linalg.matmul ins(%a, %b : tensor<8x8xf32>, tensor<8x8xf32>) outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
  %1:2 = linalg.reduce ins(%0, %iv : tensor<8x8xf32>, tensor<8x8xi32>) outs(%r, %ri : tensor<8xf32>, tensor<8xi32>) dimensions = [1]
    (%x: f32, %i: i32, %m: f32, %mi: i32) {
      %gt = arith.cmpf ogt, %x, %m : f32
      %nm = arith.select %gt, %x, %m : f32
      %ni = arith.select %gt, %i, %mi : i32
      linalg.yield %nm, %ni : f32, i32
    }
  %e = tensor.empty() : tensor<8x8xf32>
  %2 = linalg.broadcast ins(%1#0 : tensor<8xf32>) outs(%e : tensor<8x8xf32>) dimensions = [1]
  %3 = linalg.matmul ins(%2, %w : tensor<8x8xf32>, tensor<8x8xf32>) outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %3, %1#1 : tensor<8x8xf32>, tensor<8xi32>
}

// A scalar f32 operand of a low generic is truncated like a tensor.
// CHECK-LABEL: func.func @scalar_operand
// CHECK-SAME:    (%{{.*}}: tensor<8x8xf32>, %{{.*}}: tensor<8x8xf32>, %{{.*}}: tensor<8x8xf32>, %[[S:.*]]: f32)
// CHECK-DAG:     %[[S16:.*]] = arith.truncf %[[S]] : f32 to f16
// CHECK:         linalg.generic
// CHECK-SAME:      ins(%{{.*}}, %[[S16]] : tensor<8x8xf32>, f16) outs(%{{.*}} : tensor<8x8xf16>)
// CHECK-NEXT:    ^bb0(%[[X:.*]]: f32, %[[Y:.*]]: f16, %{{.*}}: f16):
// CHECK-NEXT:      %[[YE:.*]] = arith.extf %[[Y]] : f16 to f32
// CHECK-NEXT:      arith.mulf %[[X]], %[[YE]] : f32
func.func @scalar_operand(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>, %c: tensor<8x8xf32>, %s: f32) -> tensor<8x8xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<8x8xf32>, tensor<8x8xf32>) outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
  %e = tensor.empty() : tensor<8x8xf32>
  %1 = linalg.generic {indexing_maps = [#id, #sc, #id], iterator_types = ["parallel", "parallel"]}
    ins(%0, %s : tensor<8x8xf32>, f32) outs(%e : tensor<8x8xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %m = arith.mulf %x, %y : f32
    linalg.yield %m : f32
  } -> tensor<8x8xf32>
  %2 = linalg.matmul ins(%1, %b : tensor<8x8xf32>, tensor<8x8xf32>) outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %2 : tensor<8x8xf32>
}

// Two results: one computed (negf), one moved; both f16, the moved one is
// yielded without an ext/trunc pair.
// CHECK-LABEL: func.func @two_results
// CHECK:         %[[G:.*]]:2 = linalg.generic
// CHECK-SAME:      outs(%{{.*}}, %{{.*}} : tensor<8x8xf16>, tensor<8x8xf16>)
// CHECK-NEXT:    ^bb0(%[[X:.*]]: f16, %{{.*}}: f16, %{{.*}}: f16):
// CHECK-NEXT:      %[[XE:.*]] = arith.extf %[[X]] : f16 to f32
// CHECK-NEXT:      %[[N:.*]] = arith.negf %[[XE]] : f32
// CHECK-NEXT:      %[[NT:.*]] = arith.truncf %[[N]] : f32 to f16
// CHECK-NEXT:      linalg.yield %[[NT]], %[[X]] : f16, f16
// CHECK-NEXT:    } -> (tensor<8x8xf16>, tensor<8x8xf16>)
// CHECK-NEXT:    linalg.matmul ins(%[[G]]#0, %[[G]]#1 : tensor<8x8xf16>, tensor<8x8xf16>)
func.func @two_results(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>, %c: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<8x8xf32>, tensor<8x8xf32>) outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
  %e = tensor.empty() : tensor<8x8xf32>
  %1:2 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
    ins(%0 : tensor<8x8xf32>) outs(%e, %e : tensor<8x8xf32>, tensor<8x8xf32>) {
  ^bb0(%x: f32, %o1: f32, %o2: f32):
    %n = arith.negf %x : f32
    linalg.yield %n, %x : f32, f32
  } -> (tensor<8x8xf32>, tensor<8x8xf32>)
  %2 = linalg.matmul ins(%1#0, %1#1 : tensor<8x8xf32>, tensor<8x8xf32>) outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %2 : tensor<8x8xf32>
}

// A body that reads a scalar captured from outside which an earlier rewrite
// made f16 (a tensor.extract of a low tensor) still runs low: the body keeps
// computing in f32 and reads an extf of the scalar.
// CHECK-LABEL: func.func @captured_low_scalar
// CHECK:         %[[T:.*]] = math.tanh %{{.*}} : tensor<8x8xf16>
// CHECK-NEXT:    %[[V:.*]] = tensor.extract %[[T]][%{{.*}}, %{{.*}}] : tensor<8x8xf16>
// CHECK-NEXT:    %[[V32:.*]] = arith.extf %[[V]] : f16 to f32
// CHECK-NEXT:    %[[G:.*]] = linalg.generic
// CHECK-SAME:      ins(%[[T]] : tensor<8x8xf16>) outs(%{{.*}} : tensor<8x8xf16>)
// CHECK-NEXT:    ^bb0(%[[X:.*]]: f16, %{{.*}}: f16):
// CHECK-NEXT:      %[[XE:.*]] = arith.extf %[[X]] : f16 to f32
// CHECK-NEXT:      %[[M:.*]] = arith.maximumf %[[XE]], %[[V32]] : f32
// CHECK-NEXT:      %[[MT:.*]] = arith.truncf %[[M]] : f32 to f16
// CHECK-NEXT:      linalg.yield %[[MT]] : f16
// CHECK-NEXT:    } -> tensor<8x8xf16>
// CHECK-NEXT:    linalg.matmul ins(%[[G]], %{{.*}} : tensor<8x8xf16>, tensor<8x8xf16>)
func.func @captured_low_scalar(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>, %c: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %i = arith.constant 0 : index
  %0 = linalg.matmul ins(%a, %b : tensor<8x8xf32>, tensor<8x8xf32>) outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
  %t = math.tanh %0 : tensor<8x8xf32>
  %v = tensor.extract %t[%i, %i] : tensor<8x8xf32>
  %1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
    ins(%t : tensor<8x8xf32>) outs(%c : tensor<8x8xf32>) {
  ^bb0(%x: f32, %o: f32):
    %m = arith.maximumf %x, %v : f32
    linalg.yield %m : f32
  } -> tensor<8x8xf32>
  %2 = linalg.matmul ins(%1, %b : tensor<8x8xf32>, tensor<8x8xf32>) outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %2 : tensor<8x8xf32>
}
