// Executes a training step after `amp-opt --amp` (f16 matmuls, dynamic loss
// scaling, state=args) on the CPU: a good step applies the unscaled SGD
// update and counts, an overflowing step (a scale of 1e6 makes the scaled
// gradient inf once it is truncated to f16 for the matmul; or a NaN input) leaves the weights bit-identical and backs the scale off
// (not below min-scale), and growth-interval good steps double the scale.
// The step is Inputs/linear-step.mlir; this file is the driver (@main),
// appended to the compiled step (a step called in its own module cannot get
// state arguments).
//
// RUN: amp-opt %S/Inputs/linear-step.mlir --amp -o %t.step.mlir
// RUN: sed -e '/^module {$/d' -e '/^}$/d' %t.step.mlir > %t.mlir
// RUN: cat %s >> %t.mlir
// RUN: %amp_src/scripts/lower-to-llvm.sh %t.mlir > %t.ll.mlir
// RUN: mlir-runner %t.ll.mlir -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils.so,%mlir_lib_dir/libmlir_c_runner_utils.so,%mlir_lib_dir/libmlir_float16_utils.so \
// RUN:   | FileCheck %s
// Negative control: without skip-on-overflow, step 2 changes the weights.
// RUN: amp-opt %S/Inputs/linear-step.mlir \
// RUN:   --pass-pipeline='builtin.module(amp-auto-mixed-precision,amp-optimize-casts,amp-loss-scaling{skip-on-overflow=false})' \
// RUN:   | sed -e '/^module {$/d' -e '/^}$/d' > %t.noskip.mlir
// RUN: cat %s >> %t.noskip.mlir
// RUN: %amp_src/scripts/lower-to-llvm.sh %t.noskip.mlir \
// RUN:   | mlir-runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils.so,%mlir_lib_dir/libmlir_c_runner_utils.so,%mlir_lib_dir/libmlir_float16_utils.so \
// RUN:   | not FileCheck %s
//
// x = 0.5, y = 1, w = b = 0: loss = 4, dw = -1, db = -2 (exact in f16 once
// scaled by 1024), so w' = 0.1 and b' = 0.2.
//
// Step 1: scale 1024, 0 good steps: applied, the counter grows.
// CHECK:      data =
// CHECK-NEXT: [4]
// CHECK:      data =
// CHECK-NEXT: {{\[}}[0.1,   0.1,   0.1,   0.1]]
// CHECK:      data =
// CHECK-NEXT: [0.2,  0.2,  0.2,  0.2]
// CHECK:      data =
// CHECK-NEXT: [1024]
// CHECK:      data =
// CHECK-NEXT: [1]
// CHECK:      data =
// CHECK-NEXT: [1]
//
// Step 2: scale 1e6: the scaled gradient (-5e5) is inf in f16 before the
// weight-gradient matmul: skipped, the scale halves, the counter restarts.
// CHECK:      data =
// CHECK-NEXT: [4]
// CHECK:      data =
// CHECK-NEXT: {{\[}}[0,   0,   0,   0]]
// CHECK:      data =
// CHECK-NEXT: [0,  0,  0,  0]
// CHECK:      data =
// CHECK-NEXT: [500000]
// CHECK:      data =
// CHECK-NEXT: [0]
// CHECK:      data =
// CHECK-NEXT: [0]
//
// Step 3: the 2000th good step: applied, the scale doubles, the counter
// restarts.
// CHECK:      data =
// CHECK-NEXT: [4]
// CHECK:      data =
// CHECK-NEXT: {{\[}}[0.1,   0.1,   0.1,   0.1]]
// CHECK:      data =
// CHECK-NEXT: [0.2,  0.2,  0.2,  0.2]
// CHECK:      data =
// CHECK-NEXT: [2048]
// CHECK:      data =
// CHECK-NEXT: [0]
// CHECK:      data =
// CHECK-NEXT: [1]
//
// Step 4: a NaN input: skipped, the scale backs off to min-scale (1.5 * 0.5
// < 1).
// CHECK:      data =
// CHECK-NEXT: [nan]
// CHECK:      data =
// CHECK-NEXT: {{\[}}[0,   0,   0,   0]]
// CHECK:      data =
// CHECK-NEXT: [0,  0,  0,  0]
// CHECK:      data =
// CHECK-NEXT: [1]
// CHECK:      data =
// CHECK-NEXT: [0]
// CHECK:      data =
// CHECK-NEXT: [0]

func.func @run(%x: tensor<8x16xf32>, %scale: f32, %count: i32) {
  %y = arith.constant dense<1.0> : tensor<8x4xf32>
  %w = arith.constant dense<0.0> : tensor<16x4xf32>
  %b = arith.constant dense<0.0> : tensor<4xf32>
  %s = tensor.from_elements %scale : tensor<f32>
  %n = tensor.from_elements %count : tensor<i32>
  %loss, %w2, %b2, %s2, %n2, %ok = func.call @linear_step(%x, %y, %w, %b, %s, %n)
      : (tensor<8x16xf32>, tensor<8x4xf32>, tensor<16x4xf32>, tensor<4xf32>,
         tensor<f32>, tensor<i32>)
        -> (tensor<f32>, tensor<16x4xf32>, tensor<4xf32>, tensor<f32>,
            tensor<i32>, tensor<i1>)
  %row = tensor.extract_slice %w2[0, 0] [1, 4] [1, 1] : tensor<16x4xf32> to tensor<1x4xf32>
  %ok32 = arith.extui %ok : tensor<i1> to tensor<i32>
  %u0 = tensor.cast %loss : tensor<f32> to tensor<*xf32>
  func.call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  %u1 = tensor.cast %row : tensor<1x4xf32> to tensor<*xf32>
  func.call @printMemrefF32(%u1) : (tensor<*xf32>) -> ()
  %u2 = tensor.cast %b2 : tensor<4xf32> to tensor<*xf32>
  func.call @printMemrefF32(%u2) : (tensor<*xf32>) -> ()
  %u3 = tensor.cast %s2 : tensor<f32> to tensor<*xf32>
  func.call @printMemrefF32(%u3) : (tensor<*xf32>) -> ()
  %u4 = tensor.cast %n2 : tensor<i32> to tensor<*xi32>
  func.call @printMemrefI32(%u4) : (tensor<*xi32>) -> ()
  %u5 = tensor.cast %ok32 : tensor<i32> to tensor<*xi32>
  func.call @printMemrefI32(%u5) : (tensor<*xi32>) -> ()
  return
}

func.func @main() {
  %x = arith.constant dense<0.5> : tensor<8x16xf32>
  %x_nan = arith.constant dense<0x7FC00000> : tensor<8x16xf32>
  %s1024 = arith.constant 1024.0 : f32
  %s1e6 = arith.constant 1.0e6 : f32
  %s1_5 = arith.constant 1.5 : f32
  %c0 = arith.constant 0 : i32
  %c7 = arith.constant 7 : i32
  %c1999 = arith.constant 1999 : i32
  %c3 = arith.constant 3 : i32
  func.call @run(%x, %s1024, %c0) : (tensor<8x16xf32>, f32, i32) -> ()
  func.call @run(%x, %s1e6, %c7) : (tensor<8x16xf32>, f32, i32) -> ()
  func.call @run(%x, %s1024, %c1999) : (tensor<8x16xf32>, f32, i32) -> ()
  func.call @run(%x_nan, %s1_5, %c3) : (tensor<8x16xf32>, f32, i32) -> ()
  return
}

func.func private @printMemrefF32(tensor<*xf32>)
func.func private @printMemrefI32(tensor<*xi32>)
