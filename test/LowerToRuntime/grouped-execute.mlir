// Execution: linalg.conv_2d_ngchw_gfchw (grouped convolutions on 5-D
// tensors, the form torch-mlir gives the weight gradient of a strided
// convolution) computed by libamp_rt's CPU backend as grouped NCHW
// convolutions and by plain loops on the same inputs, compared element by
// element: f32 (the fast pipeline), bf16 and f16, strides, dilations, an
// accumulating and a zero-filled output, and one channel per group (run as
// per-group backward-filter convolutions) and several.
// REQUIRES: amp-runtime
//
// RUN: %amp_src/scripts/lower-to-llvm.sh %s > %t.loops.ll.mlir
// RUN: env AMP_OPT=amp-opt %amp_src/scripts/lower-to-llvm.sh --lower-to-runtime %s \
// RUN:   > %t.rt.ll.mlir
// RUN: FileCheck %s --check-prefix=LOWERED < %t.rt.ll.mlir
// RUN: env AMP_OPT=amp-opt %amp_src/scripts/lower-to-llvm.sh --fast --low-contractions=library %s \
// RUN:   > %t.fast.ll.mlir
// RUN: FileCheck %s --check-prefixes=LOWERED,FAST < %t.fast.ll.mlir
// RUN: not grep -q amp_rt %t.loops.ll.mlir
//
// RUN: mlir-runner %t.loops.ll.mlir -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils.so,%mlir_lib_dir/libmlir_c_runner_utils.so,%mlir_lib_dir/libmlir_float16_utils.so \
// RUN:   > %t.loops.txt
// RUN: env AMP_RT_BACKEND=cpu mlir-runner %t.rt.ll.mlir -e main -entry-point-result=void \
// RUN:   -shared-libs=%amp_rt_lib,%mlir_lib_dir/libmlir_runner_utils.so,%mlir_lib_dir/libmlir_c_runner_utils.so,%mlir_lib_dir/libmlir_float16_utils.so \
// RUN:   > %t.rt.txt
// RUN: %PYTHON %amp_src/test/Integration/compare_outputs.py %t.loops.txt %t.rt.txt \
// RUN:   --rtol 1e-2 --atol 0 --atol-scale 1e-2 | FileCheck %s --check-prefix=OK
// RUN: env AMP_RT_BACKEND=cpu mlir-runner %t.fast.ll.mlir -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libomp.so,%amp_rt_lib,%mlir_lib_dir/libmlir_runner_utils.so,%mlir_lib_dir/libmlir_c_runner_utils.so,%mlir_lib_dir/libmlir_float16_utils.so \
// RUN:   > %t.fast.txt
// RUN: %PYTHON %amp_src/test/Integration/compare_outputs.py %t.loops.txt %t.fast.txt \
// RUN:   --rtol 1e-2 --atol 0 --atol-scale 1e-2 | FileCheck %s --check-prefix=OK
// The same on the cpu backend's path without oneDNN (direct loops).
// RUN: env AMP_RT_BACKEND=cpu AMP_RT_CPU_F32=openblas AMP_RT_CPU_BF16=0 mlir-runner %t.rt.ll.mlir -e main -entry-point-result=void \
// RUN:   -shared-libs=%amp_rt_lib,%mlir_lib_dir/libmlir_runner_utils.so,%mlir_lib_dir/libmlir_c_runner_utils.so,%mlir_lib_dir/libmlir_float16_utils.so \
// RUN:   > %t.direct.txt
// RUN: %PYTHON %amp_src/test/Integration/compare_outputs.py %t.loops.txt %t.direct.txt \
// RUN:   --rtol 1e-2 --atol 0 --atol-scale 1e-2 | FileCheck %s --check-prefix=OK

// OK: overall
// FAST-DAG: llvm.call @amp_rt_conv2d_ngchw_gfchw_f32_f32_overwrite(
// FAST-DAG: llvm.call @amp_rt_conv2d_nchw_fchw_bf16_f32_overwrite(
// LOWERED-DAG: llvm.call @amp_rt_conv2d_ngchw_gfchw_bf16_f32(
// LOWERED-DAG: llvm.call @amp_rt_conv2d_ngchw_gfchw_f16_f16_overwrite(

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

func.func @print4(%t: tensor<?x?x?x?xf32>) {
  %u = tensor.cast %t : tensor<?x?x?x?xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return
}

func.func @main() {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  %c6 = arith.constant 6 : index
  %c7 = arith.constant 7 : index
  %c8 = arith.constant 8 : index
  %c9 = arith.constant 9 : index
  %c10 = arith.constant 10 : index
  %c12 = arith.constant 12 : index
  %a1 = arith.constant 0.37 : f32
  %a2 = arith.constant 0.11 : f32
  %a3 = arith.constant -0.23 : f32
  %a4 = arith.constant 0.71 : f32
  %zero = arith.constant 0.0 : f32

  // torch-mlir's weight gradient of a stride-2 convolution: the input
  // channels as the batch (5), the batch as the groups (3), one channel per
  // group, the output gradient as a filter dilated by the stride; f32 into
  // a zero-filled output.
  %xa = call @gen(%c5, %c3, %c9, %c10, %a1, %a2, %a3, %a4) : (index, index, index, index, f32, f32, f32, f32) -> tensor<?x?x?x?xf32>
  %fa = call @gen(%c3, %c4, %c3, %c2, %a4, %a3, %a1, %a2) : (index, index, index, index, f32, f32, f32, f32) -> tensor<?x?x?x?xf32>
  %xa4 = tensor.cast %xa : tensor<?x?x?x?xf32> to tensor<5x3x9x10xf32>
  %fa4 = tensor.cast %fa : tensor<?x?x?x?xf32> to tensor<3x4x3x2xf32>
  %xa5 = tensor.expand_shape %xa4 [[0], [1, 2], [3], [4]] output_shape [5, 3, 1, 9, 10] : tensor<5x3x9x10xf32> into tensor<5x3x1x9x10xf32>
  %fa5 = tensor.expand_shape %fa4 [[0], [1, 2], [3], [4]] output_shape [3, 4, 1, 3, 2] : tensor<3x4x3x2xf32> into tensor<3x4x1x3x2xf32>
  %ea = tensor.empty() : tensor<5x3x4x5x8xf32>
  %oa = linalg.fill ins(%zero : f32) outs(%ea : tensor<5x3x4x5x8xf32>) -> tensor<5x3x4x5x8xf32>
  %ra = linalg.conv_2d_ngchw_gfchw {dilations = dense<2> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
    ins(%xa5, %fa5 : tensor<5x3x1x9x10xf32>, tensor<3x4x1x3x2xf32>) outs(%oa : tensor<5x3x4x5x8xf32>) -> tensor<5x3x4x5x8xf32>
  %ra4 = tensor.collapse_shape %ra [[0], [1, 2], [3], [4]] : tensor<5x3x4x5x8xf32> into tensor<5x12x5x8xf32>
  %pa = tensor.cast %ra4 : tensor<5x12x5x8xf32> to tensor<?x?x?x?xf32>
  call @print4(%pa) : (tensor<?x?x?x?xf32>) -> ()

  // 2 groups of 3 input and 4 output channels, 3x3 filter, stride 2,
  // bf16 -> f32 accumulating into a non-zero output.
  %xb = call @gen(%c2, %c6, %c9, %c9, %a2, %a4, %a1, %a3) : (index, index, index, index, f32, f32, f32, f32) -> tensor<?x?x?x?xf32>
  %fb = call @gen(%c8, %c3, %c3, %c3, %a3, %a1, %a4, %a2) : (index, index, index, index, f32, f32, f32, f32) -> tensor<?x?x?x?xf32>
  %ob = call @gen(%c2, %c8, %c4, %c4, %a1, %a1, %a2, %a2) : (index, index, index, index, f32, f32, f32, f32) -> tensor<?x?x?x?xf32>
  %xb4 = tensor.cast %xb : tensor<?x?x?x?xf32> to tensor<2x6x9x9xf32>
  %fb4 = tensor.cast %fb : tensor<?x?x?x?xf32> to tensor<8x3x3x3xf32>
  %ob4 = tensor.cast %ob : tensor<?x?x?x?xf32> to tensor<2x8x4x4xf32>
  %xb5 = tensor.expand_shape %xb4 [[0], [1, 2], [3], [4]] output_shape [2, 2, 3, 9, 9] : tensor<2x6x9x9xf32> into tensor<2x2x3x9x9xf32>
  %fb5 = tensor.expand_shape %fb4 [[0, 1], [2], [3], [4]] output_shape [2, 4, 3, 3, 3] : tensor<8x3x3x3xf32> into tensor<2x4x3x3x3xf32>
  %ob5 = tensor.expand_shape %ob4 [[0], [1, 2], [3], [4]] output_shape [2, 2, 4, 4, 4] : tensor<2x8x4x4xf32> into tensor<2x2x4x4x4xf32>
  %xb16 = arith.truncf %xb5 : tensor<2x2x3x9x9xf32> to tensor<2x2x3x9x9xbf16>
  %fb16 = arith.truncf %fb5 : tensor<2x4x3x3x3xf32> to tensor<2x4x3x3x3xbf16>
  %rb = linalg.conv_2d_ngchw_gfchw {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>}
    ins(%xb16, %fb16 : tensor<2x2x3x9x9xbf16>, tensor<2x4x3x3x3xbf16>) outs(%ob5 : tensor<2x2x4x4x4xf32>) -> tensor<2x2x4x4x4xf32>
  %rb4 = tensor.collapse_shape %rb [[0], [1, 2], [3], [4]] : tensor<2x2x4x4x4xf32> into tensor<2x8x4x4xf32>
  %pb = tensor.cast %rb4 : tensor<2x8x4x4xf32> to tensor<?x?x?x?xf32>
  call @print4(%pb) : (tensor<?x?x?x?xf32>) -> ()

  // 4 groups of 2 input and 3 output channels, 2x2 filter, strides (2, 1),
  // dilations (1, 2), f16 -> f16 into a zero-filled output (the runtime
  // accumulates in f32 and rounds once; the loops round per step).
  %xc = call @gen(%c1, %c8, %c6, %c7, %a4, %a2, %a3, %a1) : (index, index, index, index, f32, f32, f32, f32) -> tensor<?x?x?x?xf32>
  %fc = call @gen(%c12, %c2, %c2, %c2, %a1, %a3, %a2, %a4) : (index, index, index, index, f32, f32, f32, f32) -> tensor<?x?x?x?xf32>
  %xc4 = tensor.cast %xc : tensor<?x?x?x?xf32> to tensor<1x8x6x7xf32>
  %fc4 = tensor.cast %fc : tensor<?x?x?x?xf32> to tensor<12x2x2x2xf32>
  %xc5 = tensor.expand_shape %xc4 [[0], [1, 2], [3], [4]] output_shape [1, 4, 2, 6, 7] : tensor<1x8x6x7xf32> into tensor<1x4x2x6x7xf32>
  %fc5 = tensor.expand_shape %fc4 [[0, 1], [2], [3], [4]] output_shape [4, 3, 2, 2, 2] : tensor<12x2x2x2xf32> into tensor<4x3x2x2x2xf32>
  %xc16 = arith.truncf %xc5 : tensor<1x4x2x6x7xf32> to tensor<1x4x2x6x7xf16>
  %fc16 = arith.truncf %fc5 : tensor<4x3x2x2x2xf32> to tensor<4x3x2x2x2xf16>
  %zh = arith.constant 0.0 : f16
  %ec = tensor.empty() : tensor<1x4x3x3x5xf16>
  %oc = linalg.fill ins(%zh : f16) outs(%ec : tensor<1x4x3x3x5xf16>) -> tensor<1x4x3x3x5xf16>
  %rc = linalg.conv_2d_ngchw_gfchw {dilations = dense<[1, 2]> : vector<2xi64>, strides = dense<[2, 1]> : vector<2xi64>}
    ins(%xc16, %fc16 : tensor<1x4x2x6x7xf16>, tensor<4x3x2x2x2xf16>) outs(%oc : tensor<1x4x3x3x5xf16>) -> tensor<1x4x3x3x5xf16>
  %rcw = arith.extf %rc : tensor<1x4x3x3x5xf16> to tensor<1x4x3x3x5xf32>
  %rc4 = tensor.collapse_shape %rcw [[0], [1, 2], [3], [4]] : tensor<1x4x3x3x5xf32> into tensor<1x12x3x5xf32>
  %pc = tensor.cast %rc4 : tensor<1x12x3x5xf32> to tensor<?x?x?x?xf32>
  call @print4(%pc) : (tensor<?x?x?x?xf32>) -> ()

  // One channel per group (the weight-gradient form, run per group as a
  // backward-filter convolution) with strides (2, 1) and dilations (1, 3),
  // bf16 -> f32 accumulating into a non-zero output.
  %c11 = arith.constant 11 : index
  %xd = call @gen(%c4, %c2, %c11, %c12, %a3, %a4, %a2, %a1) : (index, index, index, index, f32, f32, f32, f32) -> tensor<?x?x?x?xf32>
  %fd = call @gen(%c2, %c3, %c3, %c2, %a2, %a1, %a4, %a3) : (index, index, index, index, f32, f32, f32, f32) -> tensor<?x?x?x?xf32>
  %od = call @gen(%c4, %c6, %c5, %c9, %a4, %a4, %a1, %a2) : (index, index, index, index, f32, f32, f32, f32) -> tensor<?x?x?x?xf32>
  %xd4 = tensor.cast %xd : tensor<?x?x?x?xf32> to tensor<4x2x11x12xf32>
  %fd4 = tensor.cast %fd : tensor<?x?x?x?xf32> to tensor<2x3x3x2xf32>
  %od4 = tensor.cast %od : tensor<?x?x?x?xf32> to tensor<4x6x5x9xf32>
  %xd5 = tensor.expand_shape %xd4 [[0], [1, 2], [3], [4]] output_shape [4, 2, 1, 11, 12] : tensor<4x2x11x12xf32> into tensor<4x2x1x11x12xf32>
  %fd5 = tensor.expand_shape %fd4 [[0], [1, 2], [3], [4]] output_shape [2, 3, 1, 3, 2] : tensor<2x3x3x2xf32> into tensor<2x3x1x3x2xf32>
  %od5 = tensor.expand_shape %od4 [[0], [1, 2], [3], [4]] output_shape [4, 2, 3, 5, 9] : tensor<4x6x5x9xf32> into tensor<4x2x3x5x9xf32>
  %xd16 = arith.truncf %xd5 : tensor<4x2x1x11x12xf32> to tensor<4x2x1x11x12xbf16>
  %fd16 = arith.truncf %fd5 : tensor<2x3x1x3x2xf32> to tensor<2x3x1x3x2xbf16>
  %rd = linalg.conv_2d_ngchw_gfchw {dilations = dense<[1, 3]> : vector<2xi64>, strides = dense<[2, 1]> : vector<2xi64>}
    ins(%xd16, %fd16 : tensor<4x2x1x11x12xbf16>, tensor<2x3x1x3x2xbf16>) outs(%od5 : tensor<4x2x3x5x9xf32>) -> tensor<4x2x3x5x9xf32>
  %rd4 = tensor.collapse_shape %rd [[0], [1, 2], [3], [4]] : tensor<4x2x3x5x9xf32> into tensor<4x6x5x9xf32>
  %pd = tensor.cast %rd4 : tensor<4x6x5x9xf32> to tensor<?x?x?x?xf32>
  call @print4(%pd) : (tensor<?x?x?x?xf32>) -> ()

  // torch-mlir's bf16 weight gradient after --amp: one channel per group,
  // the result rounded to bf16, transposed to G x F x N x KH x KW and summed
  // over the groups (the batch, 3) in f32. The fast pipeline makes it one
  // convolution (amp-ungroup-summed-convs), which libamp_rt runs as one
  // backward-weights primitive with stride 2 (the dilation here); the loops
  // round each group's result before the sum, the fast path does not.
  %xe = call @gen(%c5, %c3, %c9, %c9, %a2, %a3, %a4, %a1) : (index, index, index, index, f32, f32, f32, f32) -> tensor<?x?x?x?xf32>
  %fe = call @gen(%c3, %c4, %c4, %c4, %a1, %a4, %a3, %a2) : (index, index, index, index, f32, f32, f32, f32) -> tensor<?x?x?x?xf32>
  %xe4 = tensor.cast %xe : tensor<?x?x?x?xf32> to tensor<5x3x9x9xf32>
  %fe4 = tensor.cast %fe : tensor<?x?x?x?xf32> to tensor<3x4x4x4xf32>
  %xe5 = tensor.expand_shape %xe4 [[0], [1, 2], [3], [4]] output_shape [5, 3, 1, 9, 9] : tensor<5x3x9x9xf32> into tensor<5x3x1x9x9xf32>
  %fe5 = tensor.expand_shape %fe4 [[0], [1, 2], [3], [4]] output_shape [3, 4, 1, 4, 4] : tensor<3x4x4x4xf32> into tensor<3x4x1x4x4xf32>
  %xe16 = arith.truncf %xe5 : tensor<5x3x1x9x9xf32> to tensor<5x3x1x9x9xbf16>
  %fe16 = arith.truncf %fe5 : tensor<3x4x1x4x4xf32> to tensor<3x4x1x4x4xbf16>
  %ee = tensor.empty() : tensor<5x3x4x3x3xf32>
  %oe = linalg.fill ins(%zero : f32) outs(%ee : tensor<5x3x4x3x3xf32>) -> tensor<5x3x4x3x3xf32>
  %re = linalg.conv_2d_ngchw_gfchw {dilations = dense<2> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
    ins(%xe16, %fe16 : tensor<5x3x1x9x9xbf16>, tensor<3x4x1x4x4xbf16>) outs(%oe : tensor<5x3x4x3x3xf32>) -> tensor<5x3x4x3x3xf32>
  %re16 = arith.truncf %re : tensor<5x3x4x3x3xf32> to tensor<5x3x4x3x3xbf16>
  %te = tensor.empty() : tensor<3x4x5x3x3xbf16>
  %rte = linalg.transpose ins(%re16 : tensor<5x3x4x3x3xbf16>) outs(%te : tensor<3x4x5x3x3xbf16>) permutation = [1, 2, 0, 3, 4]
  %se0 = tensor.empty() : tensor<4x5x3x3xf32>
  %se1 = linalg.fill ins(%zero : f32) outs(%se0 : tensor<4x5x3x3xf32>) -> tensor<4x5x3x3xf32>
  %se = linalg.generic {indexing_maps = [affine_map<(g, f, n, h, w) -> (g, f, n, h, w)>, affine_map<(g, f, n, h, w) -> (f, n, h, w)>],
                        iterator_types = ["reduction", "parallel", "parallel", "parallel", "parallel"]}
    ins(%rte : tensor<3x4x5x3x3xbf16>) outs(%se1 : tensor<4x5x3x3xf32>) {
  ^bb0(%in: bf16, %acc: f32):
    %w = arith.extf %in : bf16 to f32
    %sum = arith.addf %w, %acc : f32
    linalg.yield %sum : f32
  } -> tensor<4x5x3x3xf32>
  %pe = tensor.cast %se : tensor<4x5x3x3xf32> to tensor<?x?x?x?xf32>
  call @print4(%pe) : (tensor<?x?x?x?xf32>) -> ()
  return
}
