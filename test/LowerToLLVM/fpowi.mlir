// math.fpowi (torch-mlir's `x ** n` for an integer n: layer norms' and
// squared errors' gradients) through both lowering pipelines. The fast one
// vectorizes loop bodies, and the LLVM dialect's powi takes a scalar
// exponent: a vectorized fpowi had no lowering ("'llvm.intr.powi' op
// operand #1 must be signless integer, but got 'vector<16xi64>'", a
// transformer's training step, tools/amp-fuzz/torch-fuzz.py seed 98).
// Constant exponents now become multiplications before that, others powf.
// RUN: amp-opt %s --amp-lower-to-llvm=fast=true | FileCheck %s --check-prefixes=CHECK,FAST
// RUN: amp-opt %s --amp-lower-to-llvm | FileCheck %s

// CHECK-LABEL: llvm.func @square
// CHECK-NOT:     llvm.intr.powi
// FAST:          llvm.fmul %{{.+}}, %{{.+}} : vector<{{[0-9]+}}xf32>
// CHECK-NOT:     llvm.intr.powi
// CHECK:         llvm.return
#id = affine_map<(i, j) -> (i, j)>
func.func @square(%x: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %c2 = arith.constant 2 : i64
  %e = tensor.empty() : tensor<64x64xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<64x64xf32>) outs(%e : tensor<64x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %p = math.fpowi %in, %c2 : f32, i64
    linalg.yield %p : f32
  } -> tensor<64x64xf32>
  return %r : tensor<64x64xf32>
}

// A negative constant: the reciprocal of the cube.
// CHECK-LABEL: llvm.func @inverse_cube
// CHECK-NOT:     llvm.intr.powi
// CHECK:         llvm.fdiv
// CHECK:         llvm.return
func.func @inverse_cube(%x: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %c = arith.constant -3 : i32
  %e = tensor.empty() : tensor<64x64xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<64x64xf32>) outs(%e : tensor<64x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %p = math.fpowi %in, %c : f32, i32
    linalg.yield %p : f32
  } -> tensor<64x64xf32>
  return %r : tensor<64x64xf32>
}

// An exponent known only at run time: powf of its conversion.
// CHECK-LABEL: llvm.func @runtime_exponent
// CHECK:         llvm.sitofp
// CHECK:         llvm.intr.pow
// CHECK-NOT:     llvm.intr.powi
func.func @runtime_exponent(%x: tensor<64x64xf32>, %n: i64) -> tensor<64x64xf32> {
  %e = tensor.empty() : tensor<64x64xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<64x64xf32>) outs(%e : tensor<64x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %p = math.fpowi %in, %n : f32, i64
    linalg.yield %p : f32
  } -> tensor<64x64xf32>
  return %r : tensor<64x64xf32>
}
