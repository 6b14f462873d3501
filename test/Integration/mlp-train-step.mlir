// Meaning is preserved on a whole training step: examples/mlp_train_step.mlir
// (forward, softmax cross-entropy, backward, SGD) runs in f32 and after
// `amp-opt --amp` on the same inputs; the loss and every parameter update
// (w - w', i.e. lr * gradient) must agree within f16 tolerance. This file is
// the driver (@main); the example is prepended to it.
//
// RUN: cat %amp_src/examples/mlp_train_step.mlir %s > %t.mlir
// RUN: amp-opt %t.mlir --amp -o %t.amp.mlir
// RUN: FileCheck %s --check-prefix=AMP < %t.amp.mlir
// RUN: %amp_src/scripts/lower-to-llvm.sh %t.mlir > %t.f32.ll.mlir
// RUN: mlir-runner %t.f32.ll.mlir -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils.so,%mlir_lib_dir/libmlir_c_runner_utils.so,%mlir_lib_dir/libmlir_float16_utils.so \
// RUN:   > %t.f32.txt
// RUN: %amp_src/scripts/lower-to-llvm.sh %t.amp.mlir > %t.amp.ll.mlir
// RUN: mlir-runner %t.amp.ll.mlir -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils.so,%mlir_lib_dir/libmlir_c_runner_utils.so,%mlir_lib_dir/libmlir_float16_utils.so \
// RUN:   > %t.amp.txt
// RUN: %PYTHON %S/compare_outputs.py %t.f32.txt %t.amp.txt \
// RUN:   --rtol 1e-2 --atol 0 --atol-scale 5e-3 --require-different
//
// Negative control: a step whose relu mask is wrong (a1 >= 0 -> a1 < 0)
// must be rejected by the same comparison.
// RUN: sed -e 's/arith.cmpf ogt, %%a, %%zero/arith.cmpf olt, %%a, %%zero/' %t.mlir \
// RUN:   | %amp_src/scripts/lower-to-llvm.sh \
// RUN:   | mlir-runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils.so,%mlir_lib_dir/libmlir_c_runner_utils.so,%mlir_lib_dir/libmlir_float16_utils.so \
// RUN:   > %t.wrong.txt
// RUN: not %PYTHON %S/compare_outputs.py %t.f32.txt %t.wrong.txt \
// RUN:   --rtol 1e-2 --atol 0 --atol-scale 5e-3

// All six matmuls (2 forward, 4 backward) take f16 operands and accumulate
// in f32; the softmax exp and the loss sum stay f32; the SGD update reads
// the f32 master weights (the arguments) and runs in f32; the driver is
// untouched. (bf16: mlp-train-step-bf16.mlir.)
// AMP-LABEL: func.func @mlp_train_step
// AMP-SAME:    -> (tensor<f32>, tensor<64x128xf32>, tensor<128xf32>, tensor<128x10xf32>, tensor<10xf32>)
// AMP:         linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<32x64xf16>, tensor<64x128xf16>) outs(%{{.*}} : tensor<32x128xf32>)
// AMP:         linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<32x128xf16>, tensor<128x10xf16>) outs(%{{.*}} : tensor<32x10xf32>)
// AMP:         math.exp %{{.*}} : tensor<32x10xf32>
// AMP:         math.log %{{.*}} : tensor<32xf32>
// AMP:         linalg.reduce ins(%{{.*}} : tensor<32x10xf32>) outs(%{{.*}} : tensor<f32>)
// AMP:         linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<128x32xf16>, tensor<32x10xf16>) outs(%{{.*}} : tensor<128x10xf32>)
// AMP:         linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<32x10xf16>, tensor<10x128xf16>) outs(%{{.*}} : tensor<32x128xf32>)
// AMP:         linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<64x32xf16>, tensor<32x128xf16>) outs(%{{.*}} : tensor<64x128xf32>)
// AMP:         arith.subf %arg2, %{{.*}} : tensor<64x128xf32>
// AMP:         arith.subf %arg3, %{{.*}} : tensor<128xf32>
// AMP:         arith.subf %arg4, %{{.*}} : tensor<128x10xf32>
// AMP:         arith.subf %arg5, %{{.*}} : tensor<10xf32>
// AMP:         return
// AMP-LABEL: func.func @wave
// AMP-NOT:     f16

// t[i, j] = scale * sin(a * i + b * j + c)
func.func @wave(%i: index, %j: index, %a: f32, %b: f32, %c: f32,
                %scale: f32) -> f32 {
  %ii = arith.index_cast %i : index to i32
  %jj = arith.index_cast %j : index to i32
  %fi = arith.sitofp %ii : i32 to f32
  %fj = arith.sitofp %jj : i32 to f32
  %ai = arith.mulf %a, %fi : f32
  %bj = arith.mulf %b, %fj : f32
  %s0 = arith.addf %ai, %bj : f32
  %s1 = arith.addf %s0, %c : f32
  %sn = math.sin %s1 : f32
  %r = arith.mulf %scale, %sn : f32
  return %r : f32
}

func.func @main() {
  %a = arith.constant 0.37 : f32
  %b = arith.constant 0.71 : f32
  %c1 = arith.constant 0.5 : f32
  %c2 = arith.constant 1.3 : f32
  %c3 = arith.constant 2.1 : f32
  %c4 = arith.constant -0.7 : f32
  %c5 = arith.constant 0.2 : f32
  %one = arith.constant 1.0 : f32
  %fzero = arith.constant 0.0 : f32
  %sw1 = arith.constant 0.05 : f32
  %sw2 = arith.constant 0.05 : f32
  %sb = arith.constant 0.1 : f32
  %c0i = arith.constant 0 : index
  %c3i = arith.constant 3 : index
  %c7i = arith.constant 7 : index
  %c10i = arith.constant 10 : index

  %e_x = tensor.empty() : tensor<32x64xf32>
  %x = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      outs(%e_x : tensor<32x64xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %v = func.call @wave(%i, %j, %a, %b, %c1, %one) : (index, index, f32, f32, f32, f32) -> f32
    linalg.yield %v : f32
  } -> tensor<32x64xf32>
  // One-hot labels: class (7 i + 3) mod 10.
  %e_y = tensor.empty() : tensor<32x10xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      outs(%e_y : tensor<32x10xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %i7 = arith.muli %i, %c7i : index
    %i73 = arith.addi %i7, %c3i : index
    %cls = arith.remui %i73, %c10i : index
    %hit = arith.cmpi eq, %cls, %j : index
    %v = arith.select %hit, %one, %fzero : f32
    linalg.yield %v : f32
  } -> tensor<32x10xf32>
  %e_w1 = tensor.empty() : tensor<64x128xf32>
  %w1 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>],
                        iterator_types = ["parallel", "parallel"]}
      outs(%e_w1 : tensor<64x128xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %v = func.call @wave(%i, %j, %b, %a, %c2, %sw1) : (index, index, f32, f32, f32, f32) -> f32
    linalg.yield %v : f32
  } -> tensor<64x128xf32>
  %e_b1 = tensor.empty() : tensor<128xf32>
  %b1 = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>],
                        iterator_types = ["parallel"]}
      outs(%e_b1 : tensor<128xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %v = func.call @wave(%i, %c0i, %a, %b, %c3, %sb) : (index, index, f32, f32, f32, f32) -> f32
    linalg.yield %v : f32
  } -> tensor<128xf32>
  %e_w2 = tensor.empty() : tensor<128x10xf32>
  %w2 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>],
                        iterator_types = ["parallel", "parallel"]}
      outs(%e_w2 : tensor<128x10xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %v = func.call @wave(%i, %j, %a, %b, %c4, %sw2) : (index, index, f32, f32, f32, f32) -> f32
    linalg.yield %v : f32
  } -> tensor<128x10xf32>
  %e_b2 = tensor.empty() : tensor<10xf32>
  %b2 = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>],
                        iterator_types = ["parallel"]}
      outs(%e_b2 : tensor<10xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %v = func.call @wave(%i, %c0i, %b, %a, %c5, %sb) : (index, index, f32, f32, f32, f32) -> f32
    linalg.yield %v : f32
  } -> tensor<10xf32>

  %loss, %nw1, %nb1, %nw2, %nb2 = func.call @mlp_train_step(%x, %y, %w1, %b1, %w2, %b2)
      : (tensor<32x64xf32>, tensor<32x10xf32>, tensor<64x128xf32>, tensor<128xf32>,
         tensor<128x10xf32>, tensor<10xf32>)
        -> (tensor<f32>, tensor<64x128xf32>, tensor<128xf32>, tensor<128x10xf32>, tensor<10xf32>)

  // The updates w - w' = lr * dL/dw (exact in f32 up to one rounding).
  %d_w1 = arith.subf %w1, %nw1 : tensor<64x128xf32>
  %d_b1 = arith.subf %b1, %nb1 : tensor<128xf32>
  %d_w2 = arith.subf %w2, %nw2 : tensor<128x10xf32>
  %d_b2 = arith.subf %b2, %nb2 : tensor<10xf32>

  %u0 = tensor.cast %loss : tensor<f32> to tensor<*xf32>
  func.call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  %u1 = tensor.cast %d_w1 : tensor<64x128xf32> to tensor<*xf32>
  func.call @printMemrefF32(%u1) : (tensor<*xf32>) -> ()
  %u2 = tensor.cast %d_b1 : tensor<128xf32> to tensor<*xf32>
  func.call @printMemrefF32(%u2) : (tensor<*xf32>) -> ()
  %u3 = tensor.cast %d_w2 : tensor<128x10xf32> to tensor<*xf32>
  func.call @printMemrefF32(%u3) : (tensor<*xf32>) -> ()
  %u4 = tensor.cast %d_b2 : tensor<10xf32> to tensor<*xf32>
  func.call @printMemrefF32(%u4) : (tensor<*xf32>) -> ()
  return
}

func.func private @printMemrefF32(tensor<*xf32>)
