// Meaning is preserved on a CNN forward pass: examples/cnn_forward.mlir
// (conv 2-D NHWC, bias, relu, max-pool, flatten, dense, softmax) runs in f32
// and after `amp-opt --amp` (f16 and bf16) on the same inputs; the class
// probabilities must agree within f16 / bf16 tolerance. This file is the
// driver (@main); the example is prepended to it.
//
// RUN: cat %amp_src/examples/cnn_forward.mlir %s > %t.mlir
// RUN: %amp_src/scripts/lower-to-llvm.sh %t.mlir > %t.f32.ll.mlir
// RUN: mlir-runner %t.f32.ll.mlir -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils.so,%mlir_lib_dir/libmlir_c_runner_utils.so,%mlir_lib_dir/libmlir_float16_utils.so \
// RUN:   > %t.f32.txt
//
// f16:
// RUN: amp-opt %t.mlir --amp -o %t.amp.mlir
// RUN: FileCheck %s --check-prefix=AMP < %t.amp.mlir
// RUN: %amp_src/scripts/lower-to-llvm.sh %t.amp.mlir > %t.amp.ll.mlir
// RUN: mlir-runner %t.amp.ll.mlir -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils.so,%mlir_lib_dir/libmlir_c_runner_utils.so,%mlir_lib_dir/libmlir_float16_utils.so \
// RUN:   > %t.amp.txt
// RUN: %PYTHON %S/compare_outputs.py %t.f32.txt %t.amp.txt \
// RUN:   --rtol 2e-2 --atol 0 --atol-scale 1e-2 --require-different
//
// bf16:
// RUN: amp-opt %t.mlir --amp=mode=bf16 -o %t.bf16.mlir
// RUN: FileCheck %s --check-prefix=BF16 < %t.bf16.mlir
// RUN: %amp_src/scripts/lower-to-llvm.sh %t.bf16.mlir > %t.bf16.ll.mlir
// RUN: mlir-runner %t.bf16.ll.mlir -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils.so,%mlir_lib_dir/libmlir_c_runner_utils.so,%mlir_lib_dir/libmlir_float16_utils.so \
// RUN:   > %t.bf16.txt
// RUN: %PYTHON %S/compare_outputs.py %t.f32.txt %t.bf16.txt \
// RUN:   --rtol 5e-2 --atol 0 --atol-scale 4e-2 --require-different
//
// Negative control: the same network with a 2x2 window that pools with
// stride 1 instead of 2 (reads the wrong pixels) must be rejected.
// RUN: sed -e 's/strides = dense<2>/strides = dense<1>/' %t.mlir \
// RUN:   | %amp_src/scripts/lower-to-llvm.sh \
// RUN:   | mlir-runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils.so,%mlir_lib_dir/libmlir_c_runner_utils.so,%mlir_lib_dir/libmlir_float16_utils.so \
// RUN:   > %t.wrong.txt
// RUN: not %PYTHON %S/compare_outputs.py %t.f32.txt %t.wrong.txt \
// RUN:   --rtol 2e-2 --atol 0 --atol-scale 1e-2

// AMP-LABEL: func.func @cnn_forward
// AMP-SAME:    -> tensor<4x10xf32>
// AMP:         linalg.conv_2d_nhwc_hwcf {{.*}} ins(%{{.*}}, %{{.*}} : tensor<4x16x16x3xf16>, tensor<3x3x3x8xf16>) outs(%{{.*}} : tensor<4x14x14x8xf32>)
// AMP:         linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x392xf16>, tensor<392x10xf16>) outs(%{{.*}} : tensor<4x10xf32>)
// AMP:         math.exp %{{.*}} : tensor<4x10xf32>
// AMP-LABEL: func.func @wave
// AMP-NOT:     f16

// BF16-LABEL: func.func @cnn_forward
// BF16:         linalg.conv_2d_nhwc_hwcf {{.*}} ins(%{{.*}}, %{{.*}} : tensor<4x16x16x3xbf16>, tensor<3x3x3x8xbf16>) outs(%{{.*}} : tensor<4x14x14x8xf32>)
// BF16:         linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x392xbf16>, tensor<392x10xbf16>) outs(%{{.*}} : tensor<4x10xf32>)
// BF16:         math.exp %{{.*}} : tensor<4x10xf32>

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
  %sk = arith.constant 0.3 : f32
  %sw = arith.constant 2.0 : f32
  %sb = arith.constant 0.1 : f32
  %c0i = arith.constant 0 : index
  %c3i = arith.constant 3 : index
  %c8i = arith.constant 8 : index
  %c16i = arith.constant 16 : index

  // x[n, h, w, c] = wave(16 n + h, 3 w + c)
  %e_x = tensor.empty() : tensor<4x16x16x3xf32>
  %x = linalg.generic {indexing_maps = [affine_map<(n, h, w, c) -> (n, h, w, c)>],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      outs(%e_x : tensor<4x16x16x3xf32>) {
  ^bb0(%o: f32):
    %n = linalg.index 0 : index
    %h = linalg.index 1 : index
    %w = linalg.index 2 : index
    %c = linalg.index 3 : index
    %n16 = arith.muli %n, %c16i : index
    %i = arith.addi %n16, %h : index
    %w3 = arith.muli %w, %c3i : index
    %j = arith.addi %w3, %c : index
    %v = func.call @wave(%i, %j, %a, %b, %c1, %one) : (index, index, f32, f32, f32, f32) -> f32
    linalg.yield %v : f32
  } -> tensor<4x16x16x3xf32>
  // k[kh, kw, c, f] = wave(3 kh + kw, 8 c + f)
  %e_k = tensor.empty() : tensor<3x3x3x8xf32>
  %k = linalg.generic {indexing_maps = [affine_map<(p, q, c, f) -> (p, q, c, f)>],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      outs(%e_k : tensor<3x3x3x8xf32>) {
  ^bb0(%o: f32):
    %p = linalg.index 0 : index
    %q = linalg.index 1 : index
    %c = linalg.index 2 : index
    %f = linalg.index 3 : index
    %p3 = arith.muli %p, %c3i : index
    %i = arith.addi %p3, %q : index
    %c8 = arith.muli %c, %c8i : index
    %j = arith.addi %c8, %f : index
    %v = func.call @wave(%i, %j, %b, %a, %c2, %sk) : (index, index, f32, f32, f32, f32) -> f32
    linalg.yield %v : f32
  } -> tensor<3x3x3x8xf32>
  %e_kb = tensor.empty() : tensor<8xf32>
  %kb = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>],
                        iterator_types = ["parallel"]}
      outs(%e_kb : tensor<8xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %v = func.call @wave(%i, %c0i, %a, %b, %c3, %sb) : (index, index, f32, f32, f32, f32) -> f32
    linalg.yield %v : f32
  } -> tensor<8xf32>
  %e_w = tensor.empty() : tensor<392x10xf32>
  %w = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      outs(%e_w : tensor<392x10xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %v = func.call @wave(%i, %j, %a, %b, %c4, %sw) : (index, index, f32, f32, f32, f32) -> f32
    linalg.yield %v : f32
  } -> tensor<392x10xf32>
  %e_b = tensor.empty() : tensor<10xf32>
  %bias = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>],
                          iterator_types = ["parallel"]}
      outs(%e_b : tensor<10xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %v = func.call @wave(%i, %c0i, %b, %a, %c5, %sb) : (index, index, f32, f32, f32, f32) -> f32
    linalg.yield %v : f32
  } -> tensor<10xf32>

  %probs = func.call @cnn_forward(%x, %k, %kb, %w, %bias)
      : (tensor<4x16x16x3xf32>, tensor<3x3x3x8xf32>, tensor<8xf32>,
         tensor<392x10xf32>, tensor<10xf32>) -> tensor<4x10xf32>
  %u = tensor.cast %probs : tensor<4x10xf32> to tensor<*xf32>
  func.call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return
}

func.func private @printMemrefF32(tensor<*xf32>)
