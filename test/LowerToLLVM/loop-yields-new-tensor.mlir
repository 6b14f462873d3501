// An scf.for whose body computes a new tensor from its iter_arg (not an
// update in place) is valid tensor IR; both lowering pipelines accept it
// (one-shot-bufferize's allow-return-allocs-from-loops: each iteration's
// result gets a buffer of its own and the previous one is freed) and run it
// correctly. Before, both stopped with "Yield operand #0 is not equivalent
// to the corresponding iter bbArg" (found by amp-fuzz --lowering=fast-library,
// seed 14). The loop below is x -> sqrt(|x|) + 1 three times, with the
// matmul of the fast pipeline's libamp_rt inside the loop.
// REQUIRES: amp-runtime
// RUN: amp-opt %s --amp-lower-to-llvm -o %t.ref.ll
// RUN: amp-opt %s --amp-lower-to-llvm='fast=true threads=2' -o %t.fast.ll
// RUN: mlir-runner %t.ref.ll -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils.so,%mlir_lib_dir/libmlir_c_runner_utils.so \
// RUN:   | FileCheck %s
// RUN: mlir-runner %t.fast.ll -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils.so,%mlir_lib_dir/libmlir_c_runner_utils.so,%amp_rt_lib,%mlir_lib_dir/libomp.so \
// RUN:   | FileCheck %s

// 16 -> 5 -> 3.23607 -> 2.79891; -9 -> 4 -> 3 -> 2.73205.
// The matmul by [[1, 1], [0, 1]]: [a, a] -> [a, 2a].
// CHECK:      {{\[\[}}2.79891, 5.59781],
// CHECK-NEXT: [2.73205, 5.4641]]
func.func @iterate(%x: tensor<2x2xf32>, %w: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %one = arith.constant dense<1.0> : tensor<2x2xf32>
  %zero = arith.constant 0.0 : f32
  %r = scf.for %i = %c0 to %c3 step %c1 iter_args(%t = %x) -> (tensor<2x2xf32>) {
    %a = math.absf %t : tensor<2x2xf32>
    %s = math.sqrt %a : tensor<2x2xf32>
    %n = arith.addf %s, %one : tensor<2x2xf32>
    scf.yield %n : tensor<2x2xf32>
  }
  %e = tensor.empty() : tensor<2x2xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<2x2xf32>) -> tensor<2x2xf32>
  %m = linalg.matmul ins(%r, %w : tensor<2x2xf32>, tensor<2x2xf32>) outs(%z : tensor<2x2xf32>) -> tensor<2x2xf32>
  return %m : tensor<2x2xf32>
}

func.func private @printMemrefF32(tensor<*xf32>)

func.func @main() {
  %x = arith.constant dense<[[16.0, 16.0], [-9.0, -9.0]]> : tensor<2x2xf32>
  %w = arith.constant dense<[[1.0, 1.0], [0.0, 1.0]]> : tensor<2x2xf32>
  %m = call @iterate(%x, %w) : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %p = tensor.cast %m : tensor<2x2xf32> to tensor<*xf32>
  call @printMemrefF32(%p) : (tensor<*xf32>) -> ()
  return
}
