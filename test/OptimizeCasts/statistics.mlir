// Statistics are printed by the pass (stats=true): Debian's Release MLIR
// compiles Pass::Statistic to a no-op, so --mlir-pass-statistics shows none.
// RUN: amp-opt %s --amp-optimize-casts='stats=true' -o /dev/null 2>&1 | FileCheck %s

// CHECK:      amp-optimize-casts statistics:
// CHECK-NEXT:   8 casts-removed
// CHECK-NEXT:   3 constants-folded
// CHECK-NEXT:   2 casts-hoisted

func.func @counts(%x: tensor<4xf32>, %y: tensor<4xf16>, %d: index, %c: i1) -> (tensor<4xf16>, tensor<4xf16>, tensor<4xf16>, tensor<?xf16>, f16, f16, tensor<4xf32>) {
  // casts-removed: truncf(extf(y)) is y (1); the extf is used below.
  %e = arith.extf %y : tensor<4xf16> to tensor<4xf32>
  %t = arith.truncf %e : tensor<4xf32> to tensor<4xf16>
  // casts-hoisted: the cast of %x out of both branches (1), the other one is
  // merged into it (casts-removed: 1).
  %r = scf.if %c -> tensor<4xf16> {
    %x1 = arith.truncf %x : tensor<4xf32> to tensor<4xf16>
    scf.yield %x1 : tensor<4xf16>
  } else {
    %x2 = arith.truncf %x : tensor<4xf32> to tensor<4xf16>
    %n = arith.negf %x2 : tensor<4xf16>
    scf.yield %n : tensor<4xf16>
  }
  // constants-folded: 3 casts of one constant (one new constant).
  %k = arith.constant dense<3.0> : tensor<4xf32>
  %k1 = arith.truncf %k : tensor<4xf32> to tensor<4xf16>
  %k2 = arith.truncf %k : tensor<4xf32> to tensor<4xf16>
  %s = arith.constant 1.0 : f32
  %s1 = arith.truncf %s : f32 to f16
  %k3 = arith.addf %k1, %k2 : tensor<4xf16>
  // casts-removed: the cast of a tensor.empty (1).
  %empty = tensor.empty(%d) : tensor<?xf32>
  %et = arith.truncf %empty : tensor<?xf32> to tensor<?xf16>
  // Out of range: kept, hoisted out of the scf.if (casts-hoisted: 1).
  %big = arith.constant 7.0e4 : f32
  %b = scf.if %c -> f16 {
    %b1 = arith.truncf %big : f32 to f16
    scf.yield %b1 : f16
  } else {
    %z = arith.constant 0.0 : f16
    scf.yield %z : f16
  }
  // casts-removed: %ya is %e (1); truncf(extf(%ya)) to f32 is an extf of %y
  // to f32, which is %e again (1), and the extf to f64 is then dead (1).
  %ya = arith.extf %y : tensor<4xf16> to tensor<4xf32>
  %yb = arith.extf %ya : tensor<4xf32> to tensor<4xf64>
  %yc = arith.truncf %yb : tensor<4xf64> to tensor<4xf32>
  return %t, %r, %k3, %et, %s1, %b, %yc : tensor<4xf16>, tensor<4xf16>, tensor<4xf16>, tensor<?xf16>, f16, f16, tensor<4xf32>
}

// casts-removed: truncf(extf(%v)) is %v (1), and the extf, hoisted out of the
// loop first, is then dead (1): it does not count as hoisted.
func.func @hoisted_then_removed(%v: f16, %n: index) -> f16 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%a = %v) -> f16 {
    %e = arith.extf %v : f16 to f32
    %t = arith.truncf %e : f32 to f16
    %s = arith.addf %a, %t : f16
    scf.yield %s : f16
  }
  return %r : f16
}
