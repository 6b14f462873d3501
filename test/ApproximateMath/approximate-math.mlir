// amp-approximate-math: tanh / exp / log / erf / expm1 / log1p / log2 become
// polynomial approximations in plain arith ops (which the loop vectorizer
// handles; libm calls are never vectorized); bf16 ones are computed in f32.
// Other math ops (sqrt has an instruction) are left alone.
// RUN: amp-opt %s --amp-approximate-math | FileCheck %s
// After the full fast lowering, no libm call and no math intrinsic that
// the x86 backend would expand to one is left.
// RUN: amp-opt %s --amp-lower-to-llvm='fast=true' | FileCheck %s --check-prefix=LLVM
// The reference pipeline keeps the libm functions.
// RUN: amp-opt %s --amp-lower-to-llvm | FileCheck %s --check-prefix=REF

// CHECK-LABEL: func.func @f32_ops
// CHECK-NOT:     math.tanh
// CHECK-NOT:     math.exp
// CHECK-NOT:     math.log
// CHECK-NOT:     math.erf
// CHECK:         arith.mulf
// CHECK:         %[[S:.+]] = math.sqrt %{{.+}} : f32
// CHECK-NOT:     math.tanh
// CHECK-NOT:     math.exp
// CHECK-NOT:     math.log
// CHECK-NOT:     math.erf
// CHECK:         return
// LLVM-LABEL: llvm.func @f32_ops
// LLVM-NOT:     llvm.call
// LLVM-NOT:     llvm.intr.exp
// LLVM-NOT:     llvm.intr.log
// LLVM-NOT:     llvm.intr.tanh
// LLVM:         llvm.intr.sqrt
// LLVM-NOT:     llvm.call
// LLVM:         llvm.return
// REF-LABEL: llvm.func @f32_ops
// REF-DAG:     llvm.intr.tanh
// REF-DAG:     llvm.intr.exp(
// REF-DAG:     llvm.intr.log(
// REF-DAG:     llvm.call @erff(
func.func @f32_ops(%x: f32) -> f32 {
  %t = math.tanh %x : f32
  %e = math.exp %t : f32
  %l = math.log %e : f32
  %r = math.erf %l : f32
  %m = math.expm1 %r : f32
  %p = math.log1p %m : f32
  %q = math.log2 %p : f32
  %s = math.sqrt %q : f32
  return %s : f32
}

// bf16: extended to f32, approximated, truncated back.
// CHECK-LABEL: func.func @bf16_tanh
// CHECK:         %[[X:.+]] = arith.extf %{{.+}} : bf16 to f32
// CHECK-NOT:     math.tanh
// CHECK:         arith.truncf %{{.+}} : f32 to bf16
// LLVM-LABEL: llvm.func @bf16_tanh
// LLVM-NOT:     llvm.call
// LLVM:         llvm.return
func.func @bf16_tanh(%x: bf16) -> bf16 {
  %t = math.tanh %x : bf16
  return %t : bf16
}
