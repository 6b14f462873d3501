// RUN: amp-opt %s --amp-auto-mixed-precision --split-input-file | FileCheck %s

// A loop-carried value between two matmuls (through tanh) stays f16 across
// iterations: one truncf before the loop, one extf after it.
// CHECK-LABEL: func.func @loop_low
// CHECK-SAME:  (%[[X:.*]]: tensor<8x8xf32>, %[[W:.*]]: tensor<8x8xf32>, %{{.*}}: index) -> tensor<8x8xf32>
// CHECK-DAG:   %[[X16:.*]] = arith.truncf %[[X]] : tensor<8x8xf32> to tensor<8x8xf16>
// CHECK-DAG:   %[[W16:.*]] = arith.truncf %[[W]] : tensor<8x8xf32> to tensor<8x8xf16>
// CHECK:       %[[R:.*]] = scf.for {{.*}} iter_args(%[[H:.*]] = %[[X16]]) -> (tensor<8x8xf16>) {
// CHECK:         %[[MM:.*]] = linalg.matmul ins(%[[H]], %[[W16]] : tensor<8x8xf16>, tensor<8x8xf16>) outs(%{{.*}} : tensor<8x8xf32>) -> tensor<8x8xf32>
// CHECK:         %[[MM16:.*]] = arith.truncf %[[MM]] : tensor<8x8xf32> to tensor<8x8xf16>
// CHECK:         %[[T:.*]] = math.tanh %[[MM16]] : tensor<8x8xf16>
// CHECK:         scf.yield %[[T]] : tensor<8x8xf16>
// CHECK:       %[[R32:.*]] = arith.extf %[[R]] : tensor<8x8xf16> to tensor<8x8xf32>
// CHECK:       return %[[R32]] : tensor<8x8xf32>
func.func @loop_low(%x: tensor<8x8xf32>, %w: tensor<8x8xf32>, %n: index) -> tensor<8x8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cst = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<8x8xf32>
  %zero = linalg.fill ins(%cst : f32) outs(%empty : tensor<8x8xf32>) -> tensor<8x8xf32>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%h = %x) -> (tensor<8x8xf32>) {
    %mm = linalg.matmul ins(%h, %w : tensor<8x8xf32>, tensor<8x8xf32>) outs(%zero : tensor<8x8xf32>) -> tensor<8x8xf32>
    %t = math.tanh %mm : tensor<8x8xf32>
    scf.yield %t : tensor<8x8xf32>
  }
  return %r : tensor<8x8xf32>
}

// -----

// A deny value (exp) enters the loop-carried value, which feeds an infer op:
// the carried value and the addf stay f32; only the matmul input is cast,
// inside the loop, and the f32 accumulator is yielded without a cast.
// CHECK-LABEL: func.func @loop_deny
// CHECK:       %[[E:.*]] = math.exp %{{.*}} : tensor<8x8xf32>
// CHECK:       scf.for {{.*}} iter_args(%[[H:.*]] = %[[E]]) -> (tensor<8x8xf32>) {
// CHECK:         %[[S:.*]] = arith.addf %[[H]], %{{.*}} : tensor<8x8xf32>
// CHECK:         %[[S16:.*]] = arith.truncf %[[S]] : tensor<8x8xf32> to tensor<8x8xf16>
// CHECK:         %[[MM:.*]] = linalg.matmul ins(%[[S16]], %{{.*}} : tensor<8x8xf16>, tensor<8x8xf16>) outs(%{{.*}} : tensor<8x8xf32>)
// CHECK:         scf.yield %[[MM]] : tensor<8x8xf32>
// CHECK-NOT:   arith.extf
func.func @loop_deny(%x: tensor<8x8xf32>, %w: tensor<8x8xf32>, %n: index) -> tensor<8x8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cst = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<8x8xf32>
  %zero = linalg.fill ins(%cst : f32) outs(%empty : tensor<8x8xf32>) -> tensor<8x8xf32>
  %e = math.exp %x : tensor<8x8xf32>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%h = %e) -> (tensor<8x8xf32>) {
    %s = arith.addf %h, %x : tensor<8x8xf32>
    %mm = linalg.matmul ins(%s, %w : tensor<8x8xf32>, tensor<8x8xf32>) outs(%zero : tensor<8x8xf32>) -> tensor<8x8xf32>
    scf.yield %mm : tensor<8x8xf32>
  }
  return %r : tensor<8x8xf32>
}

// -----

// Both branches of an scf.if feed a matmul through clear ops: the result of
// the if and both yields agree on f16.
// CHECK-LABEL: func.func @branch
// CHECK:       %[[R:.*]] = scf.if %{{.*}} -> (tensor<8x8xf16>) {
// CHECK:         %[[T:.*]] = linalg.transpose ins(%{{.*}} : tensor<8x8xf16>) outs(%{{.*}} : tensor<8x8xf16>)
// CHECK:         scf.yield %[[T]] : tensor<8x8xf16>
// CHECK:       } else {
// CHECK:         %[[N:.*]] = arith.negf %{{.*}} : tensor<8x8xf16>
// CHECK:         scf.yield %[[N]] : tensor<8x8xf16>
// CHECK:       linalg.matmul ins(%[[R]], %{{.*}} : tensor<8x8xf16>, tensor<8x8xf16>)
func.func @branch(%c: i1, %x: tensor<8x8xf32>, %w: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %cst = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<8x8xf32>
  %zero = linalg.fill ins(%cst : f32) outs(%empty : tensor<8x8xf32>) -> tensor<8x8xf32>
  %r = scf.if %c -> tensor<8x8xf32> {
    %t = linalg.transpose ins(%x : tensor<8x8xf32>) outs(%empty : tensor<8x8xf32>) permutation = [1, 0]
    scf.yield %t : tensor<8x8xf32>
  } else {
    %n = arith.negf %x : tensor<8x8xf32>
    scf.yield %n : tensor<8x8xf32>
  }
  %mm = linalg.matmul ins(%r, %w : tensor<8x8xf32>, tensor<8x8xf32>) outs(%zero : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %mm : tensor<8x8xf32>
}

// -----

// One branch is deny-tainted (exp feeds an infer op yielded by the if): the
// if result stays f32 and is cast once before the matmul.
// CHECK-LABEL: func.func @branch_deny
// CHECK:       %[[R:.*]] = scf.if %{{.*}} -> (tensor<8x8xf32>) {
// CHECK:         math.exp
// CHECK:         arith.mulf {{.*}} : tensor<8x8xf32>
// CHECK:       } else {
// CHECK:         arith.negf {{.*}} : tensor<8x8xf32>
// CHECK:       %[[R16:.*]] = arith.truncf %[[R]] : tensor<8x8xf32> to tensor<8x8xf16>
// CHECK:       linalg.matmul ins(%[[R16]], %{{.*}} : tensor<8x8xf16>, tensor<8x8xf16>)
func.func @branch_deny(%c: i1, %x: tensor<8x8xf32>, %w: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %cst = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<8x8xf32>
  %zero = linalg.fill ins(%cst : f32) outs(%empty : tensor<8x8xf32>) -> tensor<8x8xf32>
  %r = scf.if %c -> tensor<8x8xf32> {
    %e = math.exp %x : tensor<8x8xf32>
    %m = arith.mulf %e, %x : tensor<8x8xf32>
    scf.yield %m : tensor<8x8xf32>
  } else {
    %n = arith.negf %x : tensor<8x8xf32>
    scf.yield %n : tensor<8x8xf32>
  }
  %s = arith.addf %r, %x : tensor<8x8xf32>
  %mm = linalg.matmul ins(%r, %w : tensor<8x8xf32>, tensor<8x8xf32>) outs(%zero : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %mm : tensor<8x8xf32>
}

// -----

// scf.while: the value carried through the before/after regions feeds a
// matmul and is fed by its f32 accumulator. TensorFlow's painting (TF) floods
// it low: a truncf before the loop, one per iteration and an extf after. The
// default cast economy keeps it f32 and casts once per iteration, inside.
// RUN: amp-opt %s --amp-auto-mixed-precision='cast-economy=false' --split-input-file | FileCheck %s --check-prefix=TF
// TF-LABEL:  func.func @while_loop
// TF:        %[[W:.*]]:2 = scf.while (%[[A:.*]] = %{{.*}}, %{{.*}} = %{{.*}}) : (tensor<8x8xf16>, i32) -> (tensor<8x8xf16>, i32) {
// TF:          scf.condition(%{{.*}}) %[[A]], %{{.*}} : tensor<8x8xf16>, i32
// TF:        } do {
// TF:        ^bb0(%[[B:.*]]: tensor<8x8xf16>, %{{.*}}: i32):
// TF:          %[[MM:.*]] = linalg.matmul ins(%[[B]], %{{.*}} : tensor<8x8xf16>, tensor<8x8xf16>) outs(%{{.*}} : tensor<8x8xf32>)
// TF:          %[[MM16:.*]] = arith.truncf %[[MM]]
// TF:          scf.yield %[[MM16]], %{{.*}} : tensor<8x8xf16>, i32
// TF:        arith.extf %[[W]]#0 : tensor<8x8xf16> to tensor<8x8xf32>
// CHECK-LABEL: func.func @while_loop
// CHECK:       %[[W:.*]]:2 = scf.while (%[[A:.*]] = %{{.*}}, %{{.*}} = %{{.*}}) : (tensor<8x8xf32>, i32) -> (tensor<8x8xf32>, i32) {
// CHECK:       ^bb0(%[[B:.*]]: tensor<8x8xf32>, %{{.*}}: i32):
// CHECK:         %[[B16:.*]] = arith.truncf %[[B]] : tensor<8x8xf32> to tensor<8x8xf16>
// CHECK:         %[[MM:.*]] = linalg.matmul ins(%[[B16]], %{{.*}} : tensor<8x8xf16>, tensor<8x8xf16>) outs(%{{.*}} : tensor<8x8xf32>)
// CHECK:         scf.yield %[[MM]], %{{.*}} : tensor<8x8xf32>, i32
// CHECK:       return %[[W]]#0 : tensor<8x8xf32>
func.func @while_loop(%x: tensor<8x8xf32>, %w: tensor<8x8xf32>, %n: i32) -> tensor<8x8xf32> {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %cst = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<8x8xf32>
  %zero = linalg.fill ins(%cst : f32) outs(%empty : tensor<8x8xf32>) -> tensor<8x8xf32>
  %r:2 = scf.while (%a = %x, %i = %c0) : (tensor<8x8xf32>, i32) -> (tensor<8x8xf32>, i32) {
    %cond = arith.cmpi slt, %i, %n : i32
    scf.condition(%cond) %a, %i : tensor<8x8xf32>, i32
  } do {
  ^bb0(%b: tensor<8x8xf32>, %j: i32):
    %mm = linalg.matmul ins(%b, %w : tensor<8x8xf32>, tensor<8x8xf32>) outs(%zero : tensor<8x8xf32>) -> tensor<8x8xf32>
    %next = arith.addi %j, %c1 : i32
    scf.yield %mm, %next : tensor<8x8xf32>, i32
  }
  return %r#0 : tensor<8x8xf32>
}

// -----

// scf.forall's results come from tensor.parallel_insert_slice, not from
// forwarded operands: it is left opaque (its shared_outs, block arguments and
// results stay f32); the matmul inside still runs low.
// CHECK-LABEL: func.func @forall
// CHECK:       scf.forall (%{{.*}}) in (2) shared_outs(%[[O:.*]] = %{{.*}}) -> (tensor<16x8xf32>) {
// CHECK:         %[[MM:.*]] = linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<8x8xf16>, tensor<8x8xf16>) outs(%{{.*}} : tensor<8x8xf32>)
// CHECK:         %[[T:.*]] = math.tanh %[[MM]] : tensor<8x8xf32>
// CHECK:         tensor.parallel_insert_slice %[[T]] into %[[O]]{{.*}} : tensor<8x8xf32> into tensor<16x8xf32>
func.func @forall(%x: tensor<8x8xf32>, %w: tensor<8x8xf32>, %out: tensor<16x8xf32>) -> tensor<16x8xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x8xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
  %r = scf.forall (%i) in (2) shared_outs(%o = %out) -> (tensor<16x8xf32>) {
    %mm = linalg.matmul ins(%x, %w : tensor<8x8xf32>, tensor<8x8xf32>) outs(%z : tensor<8x8xf32>) -> tensor<8x8xf32>
    %t = math.tanh %mm : tensor<8x8xf32>
    %off = arith.muli %i, %i : index
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %t into %o[%off, 0] [8, 8] [1, 1] : tensor<8x8xf32> into tensor<16x8xf32>
    }
  }
  return %r : tensor<16x8xf32>
}
