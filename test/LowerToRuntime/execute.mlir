// Execution: every kind of op amp-lower-to-runtime lowers (matmul plain /
// transposed A / transposed B, batch_matmul with B transposed, both
// convolution layouts with strides and dilations, a strided-subview
// operand, f32 / f16 / bf16 outputs) computed by the runtime's CPU backend
// and by plain loops on the same inputs, compared element by element.
// REQUIRES: amp-runtime
//
// RUN: %amp_src/scripts/lower-to-llvm.sh %s > %t.loops.ll.mlir
// RUN: env AMP_OPT=amp-opt %amp_src/scripts/lower-to-llvm.sh --lower-to-runtime %s \
// RUN:   > %t.rt.ll.mlir
// RUN: FileCheck %s --check-prefix=LOWERED < %t.rt.ll.mlir
// RUN: not grep -q amp_rt %t.loops.ll.mlir
//
// f32 outputs: the runtime multiplies exactly in f32 like the loops and only
// sums in another order.
// RUN: mlir-runner %t.loops.ll.mlir -e main_f32 -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils.so,%mlir_lib_dir/libmlir_c_runner_utils.so,%mlir_lib_dir/libmlir_float16_utils.so \
// RUN:   > %t.loops.f32.txt
// RUN: env AMP_RT_BACKEND=cpu mlir-runner %t.rt.ll.mlir -e main_f32 -entry-point-result=void \
// RUN:   -shared-libs=%amp_rt_lib,%mlir_lib_dir/libmlir_runner_utils.so,%mlir_lib_dir/libmlir_c_runner_utils.so,%mlir_lib_dir/libmlir_float16_utils.so \
// RUN:   > %t.rt.f32.txt
// RUN: %PYTHON %amp_src/test/Integration/compare_outputs.py %t.loops.f32.txt %t.rt.f32.txt \
// RUN:   --rtol 1e-5 --atol 1e-6 --atol-scale 1e-6 | FileCheck %s --check-prefix=OK
//
// f16 / bf16 outputs: linalg's loops accumulate in the output type (one
// rounding per multiply-add), the runtime in f32 with one final rounding,
// so they differ by f16 / bf16 accumulation error.
// RUN: mlir-runner %t.loops.ll.mlir -e main_low -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils.so,%mlir_lib_dir/libmlir_c_runner_utils.so,%mlir_lib_dir/libmlir_float16_utils.so \
// RUN:   > %t.loops.low.txt
// RUN: env AMP_RT_BACKEND=cpu mlir-runner %t.rt.ll.mlir -e main_low -entry-point-result=void \
// RUN:   -shared-libs=%amp_rt_lib,%mlir_lib_dir/libmlir_runner_utils.so,%mlir_lib_dir/libmlir_c_runner_utils.so,%mlir_lib_dir/libmlir_float16_utils.so \
// RUN:   > %t.rt.low.txt
// RUN: %PYTHON %amp_src/test/Integration/compare_outputs.py %t.loops.low.txt %t.rt.low.txt \
// RUN:   --rtol 2e-2 --atol 0 --atol-scale 5e-2 | FileCheck %s --check-prefix=OK
// Against loops that accumulate in f32 and round once (@main_low_ref), the
// runtime agrees to one rounding of the output type (bf16: 2^-8).
// RUN: mlir-runner %t.loops.ll.mlir -e main_low_ref -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils.so,%mlir_lib_dir/libmlir_c_runner_utils.so,%mlir_lib_dir/libmlir_float16_utils.so \
// RUN:   > %t.loops.low-ref.txt
// RUN: %PYTHON %amp_src/test/Integration/compare_outputs.py %t.loops.low-ref.txt %t.rt.low.txt \
// RUN:   --rtol 8e-3 --atol 0 --atol-scale 1e-3 | FileCheck %s --check-prefix=OK
//
// Negative control: the transposes matter. Lowering with transA and transB
// swapped in every call must not compare equal.
// RUN: sed -e 's/call @_mlir_ciface_amp_rt_matmul_f16_f32(\(%[0-9]*\), \(%[0-9]*\), \(%[0-9]*\), \(%[a-z0-9]*\), \(%[a-z0-9]*\))/call @_mlir_ciface_amp_rt_matmul_f16_f32(\1, \2, \3, \5, \4)/' \
// RUN:   %t.rt.ll.mlir > %t.swapped.ll.mlir
// RUN: not diff -q %t.rt.ll.mlir %t.swapped.ll.mlir
// RUN: env AMP_RT_BACKEND=cpu AMP_RT_ON_ERROR=record mlir-runner %t.swapped.ll.mlir -e main_f32 -entry-point-result=void \
// RUN:   -shared-libs=%amp_rt_lib,%mlir_lib_dir/libmlir_runner_utils.so,%mlir_lib_dir/libmlir_c_runner_utils.so,%mlir_lib_dir/libmlir_float16_utils.so \
// RUN:   > %t.swapped.txt
// RUN: not %PYTHON %amp_src/test/Integration/compare_outputs.py %t.loops.f32.txt %t.swapped.txt \
// RUN:   --rtol 1e-5 --atol 1e-6 --atol-scale 1e-6

// OK: overall
// LOWERED-DAG: llvm.call @amp_rt_matmul_f16_f32(
// LOWERED-DAG: llvm.call @amp_rt_matmul_f16_f16(
// LOWERED-DAG: llvm.call @amp_rt_matmul_bf16_bf16(
// LOWERED-DAG: llvm.call @amp_rt_batch_matmul_bf16_f32(
// LOWERED-DAG: llvm.call @amp_rt_conv2d_nhwc_hwcf_f16_f32(
// LOWERED-DAG: llvm.call @amp_rt_conv2d_nchw_fchw_bf16_f32(
// LOWERED-DAG: llvm.call @amp_rt_conv2d_nhwc_hwcf_bf16_bf16(

func.func private @printMemrefF32(tensor<*xf32>)

// scale * sin(a*i + b*j + c*k + d*l + 0.3), deterministic inputs.
func.func @gen(%d0: index, %d1: index, %d2: index, %d3: index, %a: f32, %b: f32, %c: f32, %d: f32) -> tensor<?x?x?x?xf32> {
  %t = tensor.generate %d0, %d1, %d2, %d3 {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    %ii = arith.index_cast %i : index to i64
    %jj = arith.index_cast %j : index to i64
    %kk = arith.index_cast %k : index to i64
    %ll = arith.index_cast %l : index to i64
    %fi = arith.sitofp %ii : i64 to f32
    %fj = arith.sitofp %jj : i64 to f32
    %fk = arith.sitofp %kk : i64 to f32
    %fl = arith.sitofp %ll : i64 to f32
    %x0 = arith.mulf %fi, %a : f32
    %x1 = arith.mulf %fj, %b : f32
    %x2 = arith.mulf %fk, %c : f32
    %x3 = arith.mulf %fl, %d : f32
    %s0 = arith.addf %x0, %x1 : f32
    %s1 = arith.addf %x2, %x3 : f32
    %s2 = arith.addf %s0, %s1 : f32
    %off = arith.constant 0.3 : f32
    %s3 = arith.addf %s2, %off : f32
    %v = math.sin %s3 : f32
    tensor.yield %v : f32
  } : tensor<?x?x?x?xf32>
  return %t : tensor<?x?x?x?xf32>
}

func.func @mat(%m: index, %n: index, %a: f32, %b: f32) -> tensor<?x?xf32> {
  %t = tensor.generate %m, %n {
  ^bb0(%i: index, %j: index):
    %ii = arith.index_cast %i : index to i64
    %jj = arith.index_cast %j : index to i64
    %fi = arith.sitofp %ii : i64 to f32
    %fj = arith.sitofp %jj : i64 to f32
    %x0 = arith.mulf %fi, %a : f32
    %x1 = arith.mulf %fj, %b : f32
    %s0 = arith.addf %x0, %x1 : f32
    %off = arith.constant 0.3 : f32
    %s1 = arith.addf %s0, %off : f32
    %v = math.sin %s1 : f32
    tensor.yield %v : f32
  } : tensor<?x?xf32>
  return %t : tensor<?x?xf32>
}

func.func @print2(%t: tensor<?x?xf32>) {
  %u = tensor.cast %t : tensor<?x?xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return
}

func.func @print4(%t: tensor<?x?x?x?xf32>) {
  %u = tensor.cast %t : tensor<?x?x?x?xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return
}

// Ops with f32 outputs (accumulating into a non-zero C).
func.func @main_f32() {
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  %c6 = arith.constant 6 : index
  %c9 = arith.constant 9 : index
  %c13 = arith.constant 13 : index
  %c30 = arith.constant 30 : index
  %c37 = arith.constant 37 : index
  %c70 = arith.constant 70 : index
  %c50 = arith.constant 50 : index
  %a1 = arith.constant 0.37 : f32
  %a2 = arith.constant 0.11 : f32
  %a3 = arith.constant -0.23 : f32
  %a4 = arith.constant 0.71 : f32

  // A 30x70 . B 70x50 + C, f16 -> f32.
  %ad = call @mat(%c30, %c70, %a1, %a2) : (index, index, f32, f32) -> tensor<?x?xf32>
  %bd = call @mat(%c70, %c50, %a3, %a1) : (index, index, f32, f32) -> tensor<?x?xf32>
  %cd = call @mat(%c30, %c50, %a4, %a3) : (index, index, f32, f32) -> tensor<?x?xf32>
  %a = tensor.cast %ad : tensor<?x?xf32> to tensor<30x70xf32>
  %b = tensor.cast %bd : tensor<?x?xf32> to tensor<70x50xf32>
  %c = tensor.cast %cd : tensor<?x?xf32> to tensor<30x50xf32>
  %a16 = arith.truncf %a : tensor<30x70xf32> to tensor<30x70xf16>
  %b16 = arith.truncf %b : tensor<70x50xf32> to tensor<70x50xf16>
  %r0 = linalg.matmul ins(%a16, %b16 : tensor<30x70xf16>, tensor<70x50xf16>)
                      outs(%c : tensor<30x50xf32>) -> tensor<30x50xf32>
  %p0 = tensor.cast %r0 : tensor<30x50xf32> to tensor<?x?xf32>
  call @print2(%p0) : (tensor<?x?xf32>) -> ()

  // Transposed A (70x30 read as K x M) and transposed B (50x70 as N x K).
  %atd = call @mat(%c70, %c30, %a2, %a4) : (index, index, f32, f32) -> tensor<?x?xf32>
  %btd = call @mat(%c50, %c70, %a1, %a1) : (index, index, f32, f32) -> tensor<?x?xf32>
  %at = tensor.cast %atd : tensor<?x?xf32> to tensor<70x30xf32>
  %bt = tensor.cast %btd : tensor<?x?xf32> to tensor<50x70xf32>
  %at16 = arith.truncf %at : tensor<70x30xf32> to tensor<70x30xf16>
  %bt16 = arith.truncf %bt : tensor<50x70xf32> to tensor<50x70xf16>
  %r1 = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>,
                                       affine_map<(m, n, k) -> (k, n)>,
                                       affine_map<(m, n, k) -> (m, n)>]
                      ins(%at16, %b16 : tensor<70x30xf16>, tensor<70x50xf16>)
                      outs(%c : tensor<30x50xf32>) -> tensor<30x50xf32>
  %p1 = tensor.cast %r1 : tensor<30x50xf32> to tensor<?x?xf32>
  call @print2(%p1) : (tensor<?x?xf32>) -> ()
  %r2 = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                       affine_map<(m, n, k) -> (n, k)>,
                                       affine_map<(m, n, k) -> (m, n)>]
                      ins(%a16, %bt16 : tensor<30x70xf16>, tensor<50x70xf16>)
                      outs(%c : tensor<30x50xf32>) -> tensor<30x50xf32>
  %p2 = tensor.cast %r2 : tensor<30x50xf32> to tensor<?x?xf32>
  call @print2(%p2) : (tensor<?x?xf32>) -> ()

  // A strided slice of A as the left operand (every other row, columns
  // 10..49): a subview with strides [140, 1] and an offset after
  // bufferization.
  %as = tensor.extract_slice %a16[1, 10] [13, 40] [2, 1] : tensor<30x70xf16> to tensor<13x40xf16>
  %bs = tensor.extract_slice %b16[5, 0] [40, 50] [1, 1] : tensor<70x50xf16> to tensor<40x50xf16>
  %cs = tensor.extract_slice %c[0, 0] [13, 50] [1, 1] : tensor<30x50xf32> to tensor<13x50xf32>
  %r3 = linalg.matmul ins(%as, %bs : tensor<13x40xf16>, tensor<40x50xf16>)
                      outs(%cs : tensor<13x50xf32>) -> tensor<13x50xf32>
  %p3 = tensor.cast %r3 : tensor<13x50xf32> to tensor<?x?xf32>
  call @print2(%p3) : (tensor<?x?xf32>) -> ()

  // batch_matmul, B transposed, bf16 -> f32: 3 x (9x37 . (13x37)^T).
  %z = arith.constant 0.0 : f32
  %bad = call @gen(%c3, %c9, %c37, %c3, %a1, %a3, %a2, %z) : (index, index, index, index, f32, f32, f32, f32) -> tensor<?x?x?x?xf32>
  %bbd = call @gen(%c3, %c13, %c37, %c3, %a4, %a1, %a3, %z) : (index, index, index, index, f32, f32, f32, f32) -> tensor<?x?x?x?xf32>
  %bcd = call @gen(%c3, %c9, %c13, %c3, %a2, %a2, %a1, %z) : (index, index, index, index, f32, f32, f32, f32) -> tensor<?x?x?x?xf32>
  %ba4 = tensor.cast %bad : tensor<?x?x?x?xf32> to tensor<3x9x37x3xf32>
  %bb4 = tensor.cast %bbd : tensor<?x?x?x?xf32> to tensor<3x13x37x3xf32>
  %bc4 = tensor.cast %bcd : tensor<?x?x?x?xf32> to tensor<3x9x13x3xf32>
  %ba = tensor.extract_slice %ba4[0, 0, 0, 0] [3, 9, 37, 1] [1, 1, 1, 1] : tensor<3x9x37x3xf32> to tensor<3x9x37xf32>
  %bb = tensor.extract_slice %bb4[0, 0, 0, 1] [3, 13, 37, 1] [1, 1, 1, 1] : tensor<3x13x37x3xf32> to tensor<3x13x37xf32>
  %bc = tensor.extract_slice %bc4[0, 0, 0, 2] [3, 9, 13, 1] [1, 1, 1, 1] : tensor<3x9x13x3xf32> to tensor<3x9x13xf32>
  %ba16 = arith.truncf %ba : tensor<3x9x37xf32> to tensor<3x9x37xbf16>
  %bb16 = arith.truncf %bb : tensor<3x13x37xf32> to tensor<3x13x37xbf16>
  %r4 = linalg.batch_matmul indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>,
                                             affine_map<(b, m, n, k) -> (b, n, k)>,
                                             affine_map<(b, m, n, k) -> (b, m, n)>]
                            ins(%ba16, %bb16 : tensor<3x9x37xbf16>, tensor<3x13x37xbf16>)
                            outs(%bc : tensor<3x9x13xf32>) -> tensor<3x9x13xf32>
  %r4e = tensor.expand_shape %r4 [[0], [1], [2, 3]] output_shape [3, 9, 13, 1] : tensor<3x9x13xf32> into tensor<3x9x13x1xf32>
  %p4 = tensor.cast %r4e : tensor<3x9x13x1xf32> to tensor<?x?x?x?xf32>
  call @print4(%p4) : (tensor<?x?x?x?xf32>) -> ()

  // conv NHWC / HWCF, f16 -> f32, strides (2, 1), dilations (1, 2):
  // input 2x13x9x5, filter 3x3x5x6, output 2x6x5x6.
  %c2 = arith.constant 2 : index
  %ind = call @gen(%c2, %c13, %c9, %c5, %a1, %a2, %a3, %a4) : (index, index, index, index, f32, f32, f32, f32) -> tensor<?x?x?x?xf32>
  %fid = call @gen(%c3, %c3, %c5, %c6, %a3, %a4, %a1, %a2) : (index, index, index, index, f32, f32, f32, f32) -> tensor<?x?x?x?xf32>
  %oud = call @gen(%c2, %c6, %c5, %c6, %a2, %a1, %a4, %a3) : (index, index, index, index, f32, f32, f32, f32) -> tensor<?x?x?x?xf32>
  %in = tensor.cast %ind : tensor<?x?x?x?xf32> to tensor<2x13x9x5xf32>
  %fi = tensor.cast %fid : tensor<?x?x?x?xf32> to tensor<3x3x5x6xf32>
  %ou = tensor.cast %oud : tensor<?x?x?x?xf32> to tensor<2x6x5x6xf32>
  %in16 = arith.truncf %in : tensor<2x13x9x5xf32> to tensor<2x13x9x5xf16>
  %fi16 = arith.truncf %fi : tensor<3x3x5x6xf32> to tensor<3x3x5x6xf16>
  %r5 = linalg.conv_2d_nhwc_hwcf {strides = dense<[2, 1]> : tensor<2xi64>, dilations = dense<[1, 2]> : tensor<2xi64>}
          ins(%in16, %fi16 : tensor<2x13x9x5xf16>, tensor<3x3x5x6xf16>)
          outs(%ou : tensor<2x6x5x6xf32>) -> tensor<2x6x5x6xf32>
  %p5 = tensor.cast %r5 : tensor<2x6x5x6xf32> to tensor<?x?x?x?xf32>
  call @print4(%p5) : (tensor<?x?x?x?xf32>) -> ()

  // conv NCHW / FCHW, bf16 -> f32, strides (1, 2), dilations (2, 1):
  // input 2x5x13x9, filter 6x5x3x3, output 2x6x9x4.
  %c9b = arith.constant 9 : index
  %incd = call @gen(%c2, %c5, %c13, %c9, %a4, %a3, %a2, %a1) : (index, index, index, index, f32, f32, f32, f32) -> tensor<?x?x?x?xf32>
  %ficd = call @gen(%c6, %c5, %c3, %c3, %a1, %a1, %a3, %a3) : (index, index, index, index, f32, f32, f32, f32) -> tensor<?x?x?x?xf32>
  %oucd = call @gen(%c2, %c6, %c9b, %c4, %a3, %a2, %a2, %a4) : (index, index, index, index, f32, f32, f32, f32) -> tensor<?x?x?x?xf32>
  %inc = tensor.cast %incd : tensor<?x?x?x?xf32> to tensor<2x5x13x9xf32>
  %fic = tensor.cast %ficd : tensor<?x?x?x?xf32> to tensor<6x5x3x3xf32>
  %ouc = tensor.cast %oucd : tensor<?x?x?x?xf32> to tensor<2x6x9x4xf32>
  %inc16 = arith.truncf %inc : tensor<2x5x13x9xf32> to tensor<2x5x13x9xbf16>
  %fic16 = arith.truncf %fic : tensor<6x5x3x3xf32> to tensor<6x5x3x3xbf16>
  %r6 = linalg.conv_2d_nchw_fchw {strides = dense<[1, 2]> : tensor<2xi64>, dilations = dense<[2, 1]> : tensor<2xi64>}
          ins(%inc16, %fic16 : tensor<2x5x13x9xbf16>, tensor<6x5x3x3xbf16>)
          outs(%ouc : tensor<2x6x9x4xf32>) -> tensor<2x6x9x4xf32>
  %p6 = tensor.cast %r6 : tensor<2x6x9x4xf32> to tensor<?x?x?x?xf32>
  call @print4(%p6) : (tensor<?x?x?x?xf32>) -> ()
  return
}

// Ops with f16 / bf16 outputs, printed after an extf.
func.func @main_low() {
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %c6 = arith.constant 6 : index
  %c9 = arith.constant 9 : index
  %c13 = arith.constant 13 : index
  %c30 = arith.constant 30 : index
  %c70 = arith.constant 70 : index
  %c50 = arith.constant 50 : index
  %a1 = arith.constant 0.37 : f32
  %a2 = arith.constant 0.11 : f32
  %a3 = arith.constant -0.23 : f32
  %a4 = arith.constant 0.71 : f32
  %ad = call @mat(%c30, %c70, %a1, %a2) : (index, index, f32, f32) -> tensor<?x?xf32>
  %bd = call @mat(%c70, %c50, %a3, %a1) : (index, index, f32, f32) -> tensor<?x?xf32>
  %cd = call @mat(%c30, %c50, %a4, %a3) : (index, index, f32, f32) -> tensor<?x?xf32>
  %a = tensor.cast %ad : tensor<?x?xf32> to tensor<30x70xf32>
  %b = tensor.cast %bd : tensor<?x?xf32> to tensor<70x50xf32>
  %c = tensor.cast %cd : tensor<?x?xf32> to tensor<30x50xf32>

  // f16 -> f16.
  %a16 = arith.truncf %a : tensor<30x70xf32> to tensor<30x70xf16>
  %b16 = arith.truncf %b : tensor<70x50xf32> to tensor<70x50xf16>
  %c16 = arith.truncf %c : tensor<30x50xf32> to tensor<30x50xf16>
  %r0 = linalg.matmul ins(%a16, %b16 : tensor<30x70xf16>, tensor<70x50xf16>)
                      outs(%c16 : tensor<30x50xf16>) -> tensor<30x50xf16>
  %e0 = arith.extf %r0 : tensor<30x50xf16> to tensor<30x50xf32>
  %p0 = tensor.cast %e0 : tensor<30x50xf32> to tensor<?x?xf32>
  call @print2(%p0) : (tensor<?x?xf32>) -> ()

  // bf16 -> bf16.
  %ab = arith.truncf %a : tensor<30x70xf32> to tensor<30x70xbf16>
  %bb = arith.truncf %b : tensor<70x50xf32> to tensor<70x50xbf16>
  %cb = arith.truncf %c : tensor<30x50xf32> to tensor<30x50xbf16>
  %r1 = linalg.matmul ins(%ab, %bb : tensor<30x70xbf16>, tensor<70x50xbf16>)
                      outs(%cb : tensor<30x50xbf16>) -> tensor<30x50xbf16>
  %e1 = arith.extf %r1 : tensor<30x50xbf16> to tensor<30x50xf32>
  %p1 = tensor.cast %e1 : tensor<30x50xf32> to tensor<?x?xf32>
  call @print2(%p1) : (tensor<?x?xf32>) -> ()

  // conv NHWC / HWCF, bf16 -> bf16, strides 1: input 2x9x9x5, filter
  // 3x3x5x6, output 2x7x7x6.
  %c7 = arith.constant 7 : index
  %ind = call @gen(%c2, %c9, %c9, %c5, %a1, %a2, %a3, %a4) : (index, index, index, index, f32, f32, f32, f32) -> tensor<?x?x?x?xf32>
  %fid = call @gen(%c3, %c3, %c5, %c6, %a3, %a4, %a1, %a2) : (index, index, index, index, f32, f32, f32, f32) -> tensor<?x?x?x?xf32>
  %oud = call @gen(%c2, %c7, %c7, %c6, %a2, %a1, %a4, %a3) : (index, index, index, index, f32, f32, f32, f32) -> tensor<?x?x?x?xf32>
  %in = tensor.cast %ind : tensor<?x?x?x?xf32> to tensor<2x9x9x5xf32>
  %fi = tensor.cast %fid : tensor<?x?x?x?xf32> to tensor<3x3x5x6xf32>
  %ou = tensor.cast %oud : tensor<?x?x?x?xf32> to tensor<2x7x7x6xf32>
  %inb = arith.truncf %in : tensor<2x9x9x5xf32> to tensor<2x9x9x5xbf16>
  %fib = arith.truncf %fi : tensor<3x3x5x6xf32> to tensor<3x3x5x6xbf16>
  %oub = arith.truncf %ou : tensor<2x7x7x6xf32> to tensor<2x7x7x6xbf16>
  %r2 = linalg.conv_2d_nhwc_hwcf {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
          ins(%inb, %fib : tensor<2x9x9x5xbf16>, tensor<3x3x5x6xbf16>)
          outs(%oub : tensor<2x7x7x6xbf16>) -> tensor<2x7x7x6xbf16>
  %e2 = arith.extf %r2 : tensor<2x7x7x6xbf16> to tensor<2x7x7x6xf32>
  %p2 = tensor.cast %e2 : tensor<2x7x7x6xf32> to tensor<?x?x?x?xf32>
  call @print4(%p2) : (tensor<?x?x?x?xf32>) -> ()
  return
}

// The same with f32 accumulation and one final rounding (what the runtime
// computes), for the loops.
func.func @main_low_ref() {
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %c6 = arith.constant 6 : index
  %c9 = arith.constant 9 : index
  %c13 = arith.constant 13 : index
  %c30 = arith.constant 30 : index
  %c70 = arith.constant 70 : index
  %c50 = arith.constant 50 : index
  %a1 = arith.constant 0.37 : f32
  %a2 = arith.constant 0.11 : f32
  %a3 = arith.constant -0.23 : f32
  %a4 = arith.constant 0.71 : f32
  %ad = call @mat(%c30, %c70, %a1, %a2) : (index, index, f32, f32) -> tensor<?x?xf32>
  %bd = call @mat(%c70, %c50, %a3, %a1) : (index, index, f32, f32) -> tensor<?x?xf32>
  %cd = call @mat(%c30, %c50, %a4, %a3) : (index, index, f32, f32) -> tensor<?x?xf32>
  %a = tensor.cast %ad : tensor<?x?xf32> to tensor<30x70xf32>
  %b = tensor.cast %bd : tensor<?x?xf32> to tensor<70x50xf32>
  %c = tensor.cast %cd : tensor<?x?xf32> to tensor<30x50xf32>

  // f16 -> f16.
  %a16 = arith.truncf %a : tensor<30x70xf32> to tensor<30x70xf16>
  %b16 = arith.truncf %b : tensor<70x50xf32> to tensor<70x50xf16>
  %c16 = arith.truncf %c : tensor<30x50xf32> to tensor<30x50xf16>
  %c16e = arith.extf %c16 : tensor<30x50xf16> to tensor<30x50xf32>
  %r0w = linalg.matmul ins(%a16, %b16 : tensor<30x70xf16>, tensor<70x50xf16>)
                       outs(%c16e : tensor<30x50xf32>) -> tensor<30x50xf32>
  %r0 = arith.truncf %r0w : tensor<30x50xf32> to tensor<30x50xf16>
  %e0 = arith.extf %r0 : tensor<30x50xf16> to tensor<30x50xf32>
  %p0 = tensor.cast %e0 : tensor<30x50xf32> to tensor<?x?xf32>
  call @print2(%p0) : (tensor<?x?xf32>) -> ()

  // bf16 -> bf16.
  %ab = arith.truncf %a : tensor<30x70xf32> to tensor<30x70xbf16>
  %bb = arith.truncf %b : tensor<70x50xf32> to tensor<70x50xbf16>
  %cb = arith.truncf %c : tensor<30x50xf32> to tensor<30x50xbf16>
  %cbe = arith.extf %cb : tensor<30x50xbf16> to tensor<30x50xf32>
  %r1w = linalg.matmul ins(%ab, %bb : tensor<30x70xbf16>, tensor<70x50xbf16>)
                       outs(%cbe : tensor<30x50xf32>) -> tensor<30x50xf32>
  %r1 = arith.truncf %r1w : tensor<30x50xf32> to tensor<30x50xbf16>
  %e1 = arith.extf %r1 : tensor<30x50xbf16> to tensor<30x50xf32>
  %p1 = tensor.cast %e1 : tensor<30x50xf32> to tensor<?x?xf32>
  call @print2(%p1) : (tensor<?x?xf32>) -> ()

  // conv NHWC / HWCF, bf16 -> bf16, strides 1: input 2x9x9x5, filter
  // 3x3x5x6, output 2x7x7x6.
  %c7 = arith.constant 7 : index
  %ind = call @gen(%c2, %c9, %c9, %c5, %a1, %a2, %a3, %a4) : (index, index, index, index, f32, f32, f32, f32) -> tensor<?x?x?x?xf32>
  %fid = call @gen(%c3, %c3, %c5, %c6, %a3, %a4, %a1, %a2) : (index, index, index, index, f32, f32, f32, f32) -> tensor<?x?x?x?xf32>
  %oud = call @gen(%c2, %c7, %c7, %c6, %a2, %a1, %a4, %a3) : (index, index, index, index, f32, f32, f32, f32) -> tensor<?x?x?x?xf32>
  %in = tensor.cast %ind : tensor<?x?x?x?xf32> to tensor<2x9x9x5xf32>
  %fi = tensor.cast %fid : tensor<?x?x?x?xf32> to tensor<3x3x5x6xf32>
  %ou = tensor.cast %oud : tensor<?x?x?x?xf32> to tensor<2x7x7x6xf32>
  %inb = arith.truncf %in : tensor<2x9x9x5xf32> to tensor<2x9x9x5xbf16>
  %fib = arith.truncf %fi : tensor<3x3x5x6xf32> to tensor<3x3x5x6xbf16>
  %oub = arith.truncf %ou : tensor<2x7x7x6xf32> to tensor<2x7x7x6xbf16>
  %oube = arith.extf %oub : tensor<2x7x7x6xbf16> to tensor<2x7x7x6xf32>
  %r2w = linalg.conv_2d_nhwc_hwcf {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
           ins(%inb, %fib : tensor<2x9x9x5xbf16>, tensor<3x3x5x6xbf16>)
           outs(%oube : tensor<2x7x7x6xf32>) -> tensor<2x7x7x6xf32>
  %r2 = arith.truncf %r2w : tensor<2x7x7x6xf32> to tensor<2x7x7x6xbf16>
  %e2 = arith.extf %r2 : tensor<2x7x7x6xbf16> to tensor<2x7x7x6xf32>
  %p2 = tensor.cast %e2 : tensor<2x7x7x6xf32> to tensor<?x?x?x?xf32>
  call @print4(%p2) : (tensor<?x?x?x?xf32>) -> ()
  return
}
