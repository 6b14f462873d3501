// Inputs the pass must take without harm: dynamic shapes, non-f32 element
// types, IR already in low precision, unregistered ops, external functions.
//
// RUN: amp-opt %s --allow-unregistered-dialect --amp-auto-mixed-precision | FileCheck %s
// The output verifies.
// RUN: amp-opt %s --allow-unregistered-dialect --amp-auto-mixed-precision \
// RUN:   | mlir-opt --allow-unregistered-dialect --verify-each -o /dev/null
// Idempotence: a second run changes nothing (same checks, and the exact text).
// RUN: amp-opt %s --allow-unregistered-dialect --amp-auto-mixed-precision --amp-auto-mixed-precision | FileCheck %s
// RUN: amp-opt %s --allow-unregistered-dialect --amp-auto-mixed-precision -o %t.once
// RUN: amp-opt %t.once --allow-unregistered-dialect --amp-auto-mixed-precision -o %t.twice
// RUN: diff %t.once %t.twice
// RUN: amp-opt %s --allow-unregistered-dialect --amp-auto-mixed-precision=mode=bf16 -o %t.bf16.once
// RUN: amp-opt %t.bf16.once --allow-unregistered-dialect --amp-auto-mixed-precision=mode=bf16 -o %t.bf16.twice
// RUN: diff %t.bf16.once %t.bf16.twice
// No op falls back with a warning, nothing is an error.
// RUN: amp-opt %s --allow-unregistered-dialect --amp-auto-mixed-precision 2>&1 >/dev/null \
// RUN:   | FileCheck %s --check-prefix=DIAG --allow-empty
// DIAG-NOT: {{warning|error}}

// CHECK-LABEL: func.func @dynamic_matmul
// CHECK-SAME:    (%[[A:.*]]: tensor<?x?xf32>, %[[B:.*]]: tensor<?x?xf32>, %[[C:.*]]: tensor<?x?xf32>) -> tensor<?x?xf32>
// CHECK-DAG:     %[[A16:.*]] = arith.truncf %[[A]] : tensor<?x?xf32> to tensor<?x?xf16>
// CHECK-DAG:     %[[B16:.*]] = arith.truncf %[[B]] : tensor<?x?xf32> to tensor<?x?xf16>
// CHECK:         %[[R:.*]] = linalg.matmul ins(%[[A16]], %[[B16]] : tensor<?x?xf16>, tensor<?x?xf16>) outs(%[[C]] : tensor<?x?xf32>) -> tensor<?x?xf32>
// CHECK-NEXT:    return %[[R]] : tensor<?x?xf32>
func.func @dynamic_matmul(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %c: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>) outs(%c : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// Dynamic shapes between matmuls: the dynamic tensor.empty and the generic
// become f16; shape queries (tensor.dim) read whatever precision their
// operand has, without a cast of their own: here the f16 copy that the
// generic reads anyway.
// CHECK-LABEL: func.func @dynamic_chain
// CHECK:         %[[MM:.*]] = linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<?x?xf16>, tensor<?x?xf16>) outs(%{{.*}} : tensor<?x?xf32>) -> tensor<?x?xf32>
// CHECK-NEXT:    %[[MM16:.*]] = arith.truncf %[[MM]] : tensor<?x?xf32> to tensor<?x?xf16>
// CHECK-NEXT:    %[[M:.*]] = tensor.dim %[[MM16]], %{{.*}} : tensor<?x?xf16>
// CHECK-NEXT:    %[[N:.*]] = tensor.dim %[[MM16]], %{{.*}} : tensor<?x?xf16>
// CHECK-NEXT:    %[[E:.*]] = tensor.empty(%[[M]], %[[N]]) : tensor<?x?xf32>
// CHECK-NEXT:    %[[E16:.*]] = arith.truncf %[[E]] : tensor<?x?xf32> to tensor<?x?xf16>
// CHECK-NEXT:    %[[T:.*]] = linalg.generic {{.*}} ins(%[[MM16]] : tensor<?x?xf16>) outs(%[[E16]] : tensor<?x?xf16>)
// CHECK-NEXT:    ^bb0(%[[X:.*]]: f16, %{{.*}}: f16):
// CHECK-NEXT:      %[[XE:.*]] = arith.extf %[[X]] : f16 to f32
// CHECK-NEXT:      %[[TH:.*]] = math.tanh %[[XE]] : f32
// CHECK-NEXT:      %[[TT:.*]] = arith.truncf %[[TH]] : f32 to f16
// CHECK-NEXT:      linalg.yield %[[TT]] : f16
// CHECK-NEXT:    } -> tensor<?x?xf16>
// CHECK-NEXT:    %[[D:.*]] = tensor.dim %[[T]], %{{.*}} : tensor<?x?xf16>
// CHECK-NEXT:    %[[R:.*]] = linalg.matmul ins(%[[T]], %{{.*}} : tensor<?x?xf16>, tensor<?x?xf16>) outs(%{{.*}} : tensor<?x?xf32>) -> tensor<?x?xf32>
// CHECK-NEXT:    return %[[R]], %[[D]] : tensor<?x?xf32>, index
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @dynamic_chain(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %c: tensor<?x?xf32>) -> (tensor<?x?xf32>, index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %0 = linalg.matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>) outs(%c : tensor<?x?xf32>) -> tensor<?x?xf32>
  %m = tensor.dim %0, %c0 : tensor<?x?xf32>
  %n = tensor.dim %0, %c1 : tensor<?x?xf32>
  %e = tensor.empty(%m, %n) : tensor<?x?xf32>
  %1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
    ins(%0 : tensor<?x?xf32>) outs(%e : tensor<?x?xf32>) {
  ^bb0(%x: f32, %o: f32):
    %t = math.tanh %x : f32
    linalg.yield %t : f32
  } -> tensor<?x?xf32>
  %d = tensor.dim %1, %c0 : tensor<?x?xf32>
  %2 = linalg.matmul ins(%1, %b : tensor<?x?xf32>, tensor<?x?xf32>) outs(%c : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %2, %d : tensor<?x?xf32>, index
}

// Integer, index, f64 and complex computations are untouched.
// CHECK-LABEL: func.func @non_f32
// CHECK-NOT:     f16
// CHECK:         linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<8x8xi32>, tensor<8x8xi32>) outs(%{{.*}} : tensor<8x8xi32>) -> tensor<8x8xi32>
// CHECK-NEXT:    linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<8x8xf64>, tensor<8x8xf64>) outs(%{{.*}} : tensor<8x8xf64>) -> tensor<8x8xf64>
// CHECK-NEXT:    arith.addi %{{.*}}, %{{.*}} : tensor<8xindex>
// CHECK-NEXT:    math.exp %{{.*}} : tensor<8xf64>
// CHECK:         linalg.map { complex.add } ins(%{{.*}}, %{{.*}} : tensor<8xcomplex<f32>>, tensor<8xcomplex<f32>>) outs(%{{.*}} : tensor<8xcomplex<f32>>)
// CHECK-NOT:     f16
// CHECK:         return
func.func @non_f32(%a: tensor<8x8xi32>, %c: tensor<8x8xi32>, %d: tensor<8x8xf64>, %f: tensor<8x8xf64>, %i: tensor<8xindex>, %v: tensor<8xf64>, %x: tensor<8xcomplex<f32>>) -> (tensor<8x8xi32>, tensor<8x8xf64>, tensor<8xindex>, tensor<8xf64>, tensor<8xcomplex<f32>>) {
  %0 = linalg.matmul ins(%a, %a : tensor<8x8xi32>, tensor<8x8xi32>) outs(%c : tensor<8x8xi32>) -> tensor<8x8xi32>
  %1 = linalg.matmul ins(%d, %d : tensor<8x8xf64>, tensor<8x8xf64>) outs(%f : tensor<8x8xf64>) -> tensor<8x8xf64>
  %2 = arith.addi %i, %i : tensor<8xindex>
  %3 = math.exp %v : tensor<8xf64>
  %e = tensor.empty() : tensor<8xcomplex<f32>>
  %4 = linalg.map { complex.add } ins(%x, %x : tensor<8xcomplex<f32>>, tensor<8xcomplex<f32>>) outs(%e : tensor<8xcomplex<f32>>)
  return %0, %1, %2, %3, %4 : tensor<8x8xi32>, tensor<8x8xf64>, tensor<8xindex>, tensor<8xf64>, tensor<8xcomplex<f32>>
}

// A mixed i8 x f32 matmul: only the f32 operand is truncated.
// CHECK-LABEL: func.func @mixed_int_float
// CHECK-SAME:    (%[[A:.*]]: tensor<8x8xi8>, %[[B:.*]]: tensor<8x8xf32>, %[[C:.*]]: tensor<8x8xf32>)
// CHECK-NOT:     arith.truncf %[[A]]
// CHECK:         %[[B16:.*]] = arith.truncf %[[B]] : tensor<8x8xf32> to tensor<8x8xf16>
// CHECK-NEXT:    linalg.matmul ins(%[[A]], %[[B16]] : tensor<8x8xi8>, tensor<8x8xf16>) outs(%[[C]] : tensor<8x8xf32>) -> tensor<8x8xf32>
func.func @mixed_int_float(%a: tensor<8x8xi8>, %b: tensor<8x8xf32>, %c: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<8x8xi8>, tensor<8x8xf32>) outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// IR already in f16 (and bf16 IR in f16 mode) is left alone.
// CHECK-LABEL: func.func @already_f16
// CHECK-SAME:    (%[[A:.*]]: tensor<8x8xf16>, %[[B:.*]]: tensor<8x8xf16>, %[[C:.*]]: tensor<8x8xf32>) -> tensor<8x8xf16>
// CHECK-NEXT:    %[[MM:.*]] = linalg.matmul ins(%[[A]], %[[B]] : tensor<8x8xf16>, tensor<8x8xf16>) outs(%[[C]] : tensor<8x8xf32>) -> tensor<8x8xf32>
// CHECK-NEXT:    %[[T:.*]] = arith.truncf %[[MM]] : tensor<8x8xf32> to tensor<8x8xf16>
// CHECK-NEXT:    %[[S:.*]] = arith.addf %[[T]], %[[A]] : tensor<8x8xf16>
// CHECK-NEXT:    %[[TH:.*]] = math.tanh %[[S]] : tensor<8x8xf16>
// CHECK-NEXT:    return %[[TH]] : tensor<8x8xf16>
func.func @already_f16(%a: tensor<8x8xf16>, %b: tensor<8x8xf16>, %c: tensor<8x8xf32>) -> tensor<8x8xf16> {
  %0 = linalg.matmul ins(%a, %b : tensor<8x8xf16>, tensor<8x8xf16>) outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
  %1 = arith.truncf %0 : tensor<8x8xf32> to tensor<8x8xf16>
  %2 = arith.addf %1, %a : tensor<8x8xf16>
  %3 = math.tanh %2 : tensor<8x8xf16>
  return %3 : tensor<8x8xf16>
}

// CHECK-LABEL: func.func @already_bf16
// CHECK-NEXT:    linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<8x8xbf16>, tensor<8x8xbf16>) outs(%{{.*}} : tensor<8x8xbf16>) -> tensor<8x8xbf16>
// CHECK-NEXT:    return
func.func @already_bf16(%a: tensor<8x8xbf16>, %b: tensor<8x8xbf16>, %c: tensor<8x8xbf16>) -> tensor<8x8xbf16> {
  %0 = linalg.matmul ins(%a, %b : tensor<8x8xbf16>, tensor<8x8xbf16>) outs(%c : tensor<8x8xbf16>) -> tensor<8x8xbf16>
  return %0 : tensor<8x8xbf16>
}

// An unregistered op between matmuls stays f32, with a truncf after it
// (and reads the first matmul's f32 result directly).
// CHECK-LABEL: func.func @unregistered
// CHECK:         %[[MM:.*]] = linalg.matmul {{.*}} -> tensor<8x8xf32>
// CHECK-NEXT:    %[[U:.*]] = "foo.bar"(%[[MM]]) : (tensor<8x8xf32>) -> tensor<8x8xf32>
// CHECK-NEXT:    %[[U16:.*]] = arith.truncf %[[U]] : tensor<8x8xf32> to tensor<8x8xf16>
// CHECK-NEXT:    linalg.matmul ins(%[[U16]], %{{.*}} : tensor<8x8xf16>, tensor<8x8xf16>) outs(%{{.*}} : tensor<8x8xf32>) -> tensor<8x8xf32>
func.func @unregistered(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>, %c: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<8x8xf32>, tensor<8x8xf32>) outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
  %1 = "foo.bar"(%0) : (tensor<8x8xf32>) -> tensor<8x8xf32>
  %2 = linalg.matmul ins(%1, %b : tensor<8x8xf32>, tensor<8x8xf32>) outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %2 : tensor<8x8xf32>
}

// An unregistered op fed by a low value gets an extf before it.
// CHECK-LABEL: func.func @unregistered_after_low
// CHECK:         %[[TH:.*]] = math.tanh %{{.*}} : tensor<8x8xf16>
// CHECK-NEXT:    %[[TH32:.*]] = arith.extf %[[TH]] : tensor<8x8xf16> to tensor<8x8xf32>
// CHECK:         "foo.sink"(%[[TH32]]) : (tensor<8x8xf32>) -> ()
func.func @unregistered_after_low(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>, %c: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<8x8xf32>, tensor<8x8xf32>) outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
  %1 = math.tanh %0 : tensor<8x8xf32>
  %2 = linalg.matmul ins(%1, %b : tensor<8x8xf32>, tensor<8x8xf32>) outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
  "foo.sink"(%1) : (tensor<8x8xf32>) -> ()
  return %2 : tensor<8x8xf32>
}

// External declarations keep their signatures; a call to one is a border.
// CHECK-LABEL: func.func private @external(tensor<8x8xf32>) -> tensor<8x8xf32>
// CHECK-LABEL: func.func @call_external
// CHECK:         %[[MM:.*]] = linalg.matmul {{.*}} -> tensor<8x8xf32>
// CHECK-NEXT:    %[[E:.*]] = call @external(%[[MM]]) : (tensor<8x8xf32>) -> tensor<8x8xf32>
// CHECK-NEXT:    %[[E16:.*]] = arith.truncf %[[E]] : tensor<8x8xf32> to tensor<8x8xf16>
// CHECK-NEXT:    linalg.matmul ins(%[[E16]], %{{.*}} : tensor<8x8xf16>, tensor<8x8xf16>)
func.func private @external(tensor<8x8xf32>) -> tensor<8x8xf32>
func.func @call_external(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>, %c: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<8x8xf32>, tensor<8x8xf32>) outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
  %1 = func.call @external(%0) : (tensor<8x8xf32>) -> tensor<8x8xf32>
  %2 = linalg.matmul ins(%1, %b : tensor<8x8xf32>, tensor<8x8xf32>) outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %2 : tensor<8x8xf32>
}

// Matmuls on 0-d / scalar-like and vector values are not contractions the
// pass knows; scalar f32 arithmetic with no allow op stays f32.
// CHECK-LABEL: func.func @scalars
// CHECK-NOT:     f16
// CHECK:         return
func.func @scalars(%x: f32, %y: tensor<f32>, %v: vector<4xf32>) -> (f32, tensor<f32>, vector<4xf32>) {
  %0 = arith.addf %x, %x : f32
  %1 = arith.mulf %y, %y : tensor<f32>
  %2 = math.tanh %v : vector<4xf32>
  return %0, %1, %2 : f32, tensor<f32>, vector<4xf32>
}
