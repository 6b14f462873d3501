// Meaning is preserved: matmul -> bias -> tanh -> matmul -> bias -> softmax,
// executed in f32 and after `amp-opt --amp` on the same inputs, compared
// within f16 tolerance.
//
// RUN: amp-opt %s --amp -o %t.amp.mlir
// RUN: FileCheck %s --check-prefix=AMP < %t.amp.mlir
// RUN: %amp_src/scripts/lower-to-llvm.sh %s > %t.f32.ll.mlir
// RUN: mlir-runner %t.f32.ll.mlir -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils.so,%mlir_lib_dir/libmlir_c_runner_utils.so,%mlir_lib_dir/libmlir_float16_utils.so \
// RUN:   > %t.f32.txt
// RUN: %amp_src/scripts/lower-to-llvm.sh %t.amp.mlir > %t.amp.ll.mlir
// RUN: mlir-runner %t.amp.ll.mlir -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils.so,%mlir_lib_dir/libmlir_c_runner_utils.so,%mlir_lib_dir/libmlir_float16_utils.so \
// RUN:   > %t.amp.txt
// RUN: %PYTHON %S/compare_outputs.py %t.f32.txt %t.amp.txt \
// RUN:   --rtol 5e-3 --atol 0 --atol-scale 2e-3 --require-different
//
// bf16 (8-bit mantissa: looser tolerance):
// RUN: amp-opt %s --amp=mode=bf16 -o %t.bf16.mlir
// RUN: FileCheck %s --check-prefix=BF16 < %t.bf16.mlir
// RUN: %amp_src/scripts/lower-to-llvm.sh %t.bf16.mlir > %t.bf16.ll.mlir
// RUN: mlir-runner %t.bf16.ll.mlir -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils.so,%mlir_lib_dir/libmlir_c_runner_utils.so,%mlir_lib_dir/libmlir_float16_utils.so \
// RUN:   > %t.bf16.txt
// RUN: %PYTHON %S/compare_outputs.py %t.f32.txt %t.bf16.txt \
// RUN:   --rtol 5e-2 --atol 0 --atol-scale 4e-2 --require-different
//
// A wrong program must not pass: the f32 output against the output of the
// same graph with the second bias dropped.
// RUN: sed -e 's/%%s = arith.addf %%v, %%bb : f32/%%s = arith.addf %%v, %%v : f32/' %s \
// RUN:   | %amp_src/scripts/lower-to-llvm.sh \
// RUN:   | mlir-runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils.so,%mlir_lib_dir/libmlir_c_runner_utils.so,%mlir_lib_dir/libmlir_float16_utils.so \
// RUN:   > %t.wrong.txt
// RUN: not %PYTHON %S/compare_outputs.py %t.f32.txt %t.wrong.txt \
// RUN:   --rtol 5e-3 --atol 0 --atol-scale 2e-3

// The AMP program really runs its contractions in f16 with f32 accumulators,
// and exp / the softmax sum stay f32; the driver is untouched.
// AMP-LABEL: func.func @model
// AMP-SAME:    -> (tensor<16x10xf32>, tensor<16x10xf32>)
// AMP:         linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<16x32xf16>, tensor<32x64xf16>) outs(%{{.*}} : tensor<16x64xf32>)
// AMP:         math.tanh %{{.*}} : tensor<16x64xf16>
// AMP:         linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<16x64xf16>, tensor<64x10xf16>) outs(%{{.*}} : tensor<16x10xf32>)
// AMP:         math.exp %{{.*}} : tensor<16x10xf32>
// AMP:         arith.addf %{{.*}}, %{{.*}} : f32
// AMP-LABEL: func.func @main
// AMP-NOT:     f16

// BF16-LABEL: func.func @model
// BF16:         linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<16x32xbf16>, tensor<32x64xbf16>) outs(%{{.*}} : tensor<16x64xf32>)
// BF16:         linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<16x64xbf16>, tensor<64x10xbf16>) outs(%{{.*}} : tensor<16x10xf32>)
// BF16:         math.exp %{{.*}} : tensor<16x10xf32>

#id2 = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (j)>
#col = affine_map<(i, j) -> (i)>

// Returns (logits, softmax(logits)).
func.func @model(%x: tensor<16x32xf32>, %w1: tensor<32x64xf32>,
                 %b1: tensor<64xf32>, %w2: tensor<64x10xf32>,
                 %b2: tensor<10xf32>)
    -> (tensor<16x10xf32>, tensor<16x10xf32>) {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %e_h = tensor.empty() : tensor<16x64xf32>
  %acc_h = linalg.fill ins(%zero : f32) outs(%e_h : tensor<16x64xf32>) -> tensor<16x64xf32>
  %z1 = linalg.matmul ins(%x, %w1 : tensor<16x32xf32>, tensor<32x64xf32>)
                      outs(%acc_h : tensor<16x64xf32>) -> tensor<16x64xf32>
  %a1 = linalg.generic {indexing_maps = [#id2, #row, #id2],
                        iterator_types = ["parallel", "parallel"]}
      ins(%z1, %b1 : tensor<16x64xf32>, tensor<64xf32>)
      outs(%e_h : tensor<16x64xf32>) {
  ^bb0(%v: f32, %b: f32, %o: f32):
    %s = arith.addf %v, %b : f32
    linalg.yield %s : f32
  } -> tensor<16x64xf32>
  %h = math.tanh %a1 : tensor<16x64xf32>
  %e_l = tensor.empty() : tensor<16x10xf32>
  %acc_l = linalg.fill ins(%zero : f32) outs(%e_l : tensor<16x10xf32>) -> tensor<16x10xf32>
  %z2 = linalg.matmul ins(%h, %w2 : tensor<16x64xf32>, tensor<64x10xf32>)
                      outs(%acc_l : tensor<16x10xf32>) -> tensor<16x10xf32>
  %logits = linalg.generic {indexing_maps = [#id2, #row, #id2],
                            iterator_types = ["parallel", "parallel"]}
      ins(%z2, %b2 : tensor<16x10xf32>, tensor<10xf32>)
      outs(%e_l : tensor<16x10xf32>) {
  ^bb0(%v: f32, %bb: f32, %o: f32):
    %s = arith.addf %v, %bb : f32
    linalg.yield %s : f32
  } -> tensor<16x10xf32>
  %e_r = tensor.empty() : tensor<16xf32>
  %minit = linalg.fill ins(%ninf : f32) outs(%e_r : tensor<16xf32>) -> tensor<16xf32>
  %m = linalg.generic {indexing_maps = [#id2, #col],
                       iterator_types = ["parallel", "reduction"]}
      ins(%logits : tensor<16x10xf32>) outs(%minit : tensor<16xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %mx = arith.maximumf %v, %acc : f32
    linalg.yield %mx : f32
  } -> tensor<16xf32>
  %shifted = linalg.generic {indexing_maps = [#id2, #col, #id2],
                             iterator_types = ["parallel", "parallel"]}
      ins(%logits, %m : tensor<16x10xf32>, tensor<16xf32>)
      outs(%e_l : tensor<16x10xf32>) {
  ^bb0(%v: f32, %mx: f32, %o: f32):
    %d = arith.subf %v, %mx : f32
    linalg.yield %d : f32
  } -> tensor<16x10xf32>
  %ex = math.exp %shifted : tensor<16x10xf32>
  %sinit = linalg.fill ins(%zero : f32) outs(%e_r : tensor<16xf32>) -> tensor<16xf32>
  %sum = linalg.generic {indexing_maps = [#id2, #col],
                         iterator_types = ["parallel", "reduction"]}
      ins(%ex : tensor<16x10xf32>) outs(%sinit : tensor<16xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %a = arith.addf %v, %acc : f32
    linalg.yield %a : f32
  } -> tensor<16xf32>
  %p = linalg.generic {indexing_maps = [#id2, #col, #id2],
                       iterator_types = ["parallel", "parallel"]}
      ins(%ex, %sum : tensor<16x10xf32>, tensor<16xf32>)
      outs(%e_l : tensor<16x10xf32>) {
  ^bb0(%v: f32, %s: f32, %o: f32):
    %q = arith.divf %v, %s : f32
    linalg.yield %q : f32
  } -> tensor<16x10xf32>
  return %logits, %p : tensor<16x10xf32>, tensor<16x10xf32>
}

// Deterministic inputs: t[i, j] = scale * sin(a * i + b * j + c).
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
  %sw1 = arith.constant 0.25 : f32
  %sw2 = arith.constant 0.3 : f32
  %sb = arith.constant 0.5 : f32
  %c0i = arith.constant 0 : index

  %e_x = tensor.empty() : tensor<16x32xf32>
  %x = linalg.generic {indexing_maps = [#id2], iterator_types = ["parallel", "parallel"]}
      outs(%e_x : tensor<16x32xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %v = func.call @wave(%i, %j, %a, %b, %c1, %one) : (index, index, f32, f32, f32, f32) -> f32
    linalg.yield %v : f32
  } -> tensor<16x32xf32>
  %e_w1 = tensor.empty() : tensor<32x64xf32>
  %w1 = linalg.generic {indexing_maps = [#id2], iterator_types = ["parallel", "parallel"]}
      outs(%e_w1 : tensor<32x64xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %v = func.call @wave(%i, %j, %b, %a, %c2, %sw1) : (index, index, f32, f32, f32, f32) -> f32
    linalg.yield %v : f32
  } -> tensor<32x64xf32>
  %e_b1 = tensor.empty() : tensor<64xf32>
  %b1 = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
      outs(%e_b1 : tensor<64xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %v = func.call @wave(%i, %c0i, %a, %b, %c3, %sb) : (index, index, f32, f32, f32, f32) -> f32
    linalg.yield %v : f32
  } -> tensor<64xf32>
  %e_w2 = tensor.empty() : tensor<64x10xf32>
  %w2 = linalg.generic {indexing_maps = [#id2], iterator_types = ["parallel", "parallel"]}
      outs(%e_w2 : tensor<64x10xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %v = func.call @wave(%i, %j, %a, %b, %c4, %sw2) : (index, index, f32, f32, f32, f32) -> f32
    linalg.yield %v : f32
  } -> tensor<64x10xf32>
  %e_b2 = tensor.empty() : tensor<10xf32>
  %b2 = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
      outs(%e_b2 : tensor<10xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %v = func.call @wave(%i, %c0i, %b, %a, %c5, %sb) : (index, index, f32, f32, f32, f32) -> f32
    linalg.yield %v : f32
  } -> tensor<10xf32>

  %logits, %p = func.call @model(%x, %w1, %b1, %w2, %b2)
      : (tensor<16x32xf32>, tensor<32x64xf32>, tensor<64xf32>, tensor<64x10xf32>, tensor<10xf32>)
        -> (tensor<16x10xf32>, tensor<16x10xf32>)
  %ul = tensor.cast %logits : tensor<16x10xf32> to tensor<*xf32>
  func.call @printMemrefF32(%ul) : (tensor<*xf32>) -> ()
  %up = tensor.cast %p : tensor<16x10xf32> to tensor<*xf32>
  func.call @printMemrefF32(%up) : (tensor<*xf32>) -> ()
  return
}

func.func private @printMemrefF32(tensor<*xf32>)
