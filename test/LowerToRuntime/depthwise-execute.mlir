// Execution: depthwise convolutions (NCHW / CHW and NHWC / HWC filters,
// strides, dilation, f32 and 16-bit outputs) computed by libamp_rt's CPU
// backend (oneDNN's depthwise kernels) and by plain loops on the same
// inputs, compared element by element.
// REQUIRES: amp-runtime
//
// RUN: %amp_src/scripts/lower-to-llvm.sh %s > %t.loops.ll.mlir
// RUN: env AMP_OPT=amp-opt %amp_src/scripts/lower-to-llvm.sh --lower-to-runtime %s \
// RUN:   > %t.rt.ll.mlir
// RUN: FileCheck %s --check-prefix=LOWERED < %t.rt.ll.mlir
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
// The same on the cpu backend's path without oneDNN (direct loops).
// RUN: env AMP_RT_BACKEND=cpu AMP_RT_CPU_F32=openblas AMP_RT_CPU_BF16=0 mlir-runner %t.rt.ll.mlir -e main -entry-point-result=void \
// RUN:   -shared-libs=%amp_rt_lib,%mlir_lib_dir/libmlir_runner_utils.so,%mlir_lib_dir/libmlir_c_runner_utils.so,%mlir_lib_dir/libmlir_float16_utils.so \
// RUN:   > %t.direct.txt
// RUN: %PYTHON %amp_src/test/Integration/compare_outputs.py %t.loops.txt %t.direct.txt \
// RUN:   --rtol 1e-2 --atol 0 --atol-scale 1e-2 | FileCheck %s --check-prefix=OK

// OK: overall
// LOWERED-DAG: llvm.call @amp_rt_depthwise_conv2d_nchw_chw_bf16_f32_overwrite(
// LOWERED-DAG: llvm.call @amp_rt_depthwise_conv2d_nhwc_hwc_f16_f32(
// LOWERED-DAG: llvm.call @amp_rt_depthwise_conv2d_nchw_chw_bf16_bf16_overwrite(

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
  %c5 = arith.constant 5 : index
  %c11 = arith.constant 11 : index
  %c12 = arith.constant 12 : index
  %c24 = arith.constant 24 : index
  %a1 = arith.constant 0.37 : f32
  %a2 = arith.constant 0.11 : f32
  %a3 = arith.constant -0.23 : f32
  %a4 = arith.constant 0.71 : f32
  %zero = arith.constant 0.0 : f32

  // NCHW, 24 channels, 3x3 filter (3-D: C x KH x KW), stride 2, bf16 -> f32
  // into a zero-filled output (the overwrite entry point).
  %xd = call @gen(%c2, %c24, %c11, %c12, %a1, %a2, %a3, %a4) : (index, index, index, index, f32, f32, f32, f32) -> tensor<?x?x?x?xf32>
  %fd = call @gen(%c1, %c24, %c3, %c3, %a4, %a3, %a1, %a2) : (index, index, index, index, f32, f32, f32, f32) -> tensor<?x?x?x?xf32>
  %x = tensor.cast %xd : tensor<?x?x?x?xf32> to tensor<2x24x11x12xf32>
  %f4 = tensor.cast %fd : tensor<?x?x?x?xf32> to tensor<1x24x3x3xf32>
  %f = tensor.collapse_shape %f4 [[0, 1], [2], [3]] : tensor<1x24x3x3xf32> into tensor<24x3x3xf32>
  %x16 = arith.truncf %x : tensor<2x24x11x12xf32> to tensor<2x24x11x12xbf16>
  %f16 = arith.truncf %f : tensor<24x3x3xf32> to tensor<24x3x3xbf16>
  %e0 = tensor.empty() : tensor<2x24x5x5xf32>
  %o0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<2x24x5x5xf32>) -> tensor<2x24x5x5xf32>
  %r0 = linalg.depthwise_conv_2d_nchw_chw {strides = dense<2> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
    ins(%x16, %f16 : tensor<2x24x11x12xbf16>, tensor<24x3x3xbf16>) outs(%o0 : tensor<2x24x5x5xf32>) -> tensor<2x24x5x5xf32>
  %p0 = tensor.cast %r0 : tensor<2x24x5x5xf32> to tensor<?x?x?x?xf32>
  call @print4(%p0) : (tensor<?x?x?x?xf32>) -> ()

  // The same in bf16 out (the runtime accumulates in f32 and rounds once;
  // the loops round per step: compared at bf16's tolerance).
  %e1 = tensor.empty() : tensor<2x24x5x5xbf16>
  %zb = arith.constant 0.0 : bf16
  %o1 = linalg.fill ins(%zb : bf16) outs(%e1 : tensor<2x24x5x5xbf16>) -> tensor<2x24x5x5xbf16>
  %r1 = linalg.depthwise_conv_2d_nchw_chw {strides = dense<2> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
    ins(%x16, %f16 : tensor<2x24x11x12xbf16>, tensor<24x3x3xbf16>) outs(%o1 : tensor<2x24x5x5xbf16>) -> tensor<2x24x5x5xbf16>
  %r1w = arith.extf %r1 : tensor<2x24x5x5xbf16> to tensor<2x24x5x5xf32>
  %p1 = tensor.cast %r1w : tensor<2x24x5x5xf32> to tensor<?x?x?x?xf32>
  call @print4(%p1) : (tensor<?x?x?x?xf32>) -> ()

  // NHWC, 5 channels, 2x3 filter (KH x KW x C), dilation (2, 1),
  // accumulating into a non-zero output, f16 -> f32.
  %yd = call @gen(%c2, %c11, %c12, %c5, %a2, %a4, %a1, %a3) : (index, index, index, index, f32, f32, f32, f32) -> tensor<?x?x?x?xf32>
  %gd = call @gen(%c1, %c2, %c3, %c5, %a3, %a1, %a4, %a2) : (index, index, index, index, f32, f32, f32, f32) -> tensor<?x?x?x?xf32>
  %od = call @gen(%c2, %c3, %c2, %c5, %a1, %a1, %a2, %a2) : (index, index, index, index, f32, f32, f32, f32) -> tensor<?x?x?x?xf32>
  %y = tensor.cast %yd : tensor<?x?x?x?xf32> to tensor<2x11x12x5xf32>
  %g4 = tensor.cast %gd : tensor<?x?x?x?xf32> to tensor<1x2x3x5xf32>
  %g = tensor.collapse_shape %g4 [[0, 1], [2], [3]] : tensor<1x2x3x5xf32> into tensor<2x3x5xf32>
  %o2full = tensor.cast %od : tensor<?x?x?x?xf32> to tensor<2x3x2x5xf32>
  %y16 = arith.truncf %y : tensor<2x11x12x5xf32> to tensor<2x11x12x5xf16>
  %g16 = arith.truncf %g : tensor<2x3x5xf32> to tensor<2x3x5xf16>
  %r2 = linalg.depthwise_conv_2d_nhwc_hwc {strides = dense<[4, 5]> : tensor<2xi64>, dilations = dense<[2, 1]> : tensor<2xi64>}
    ins(%y16, %g16 : tensor<2x11x12x5xf16>, tensor<2x3x5xf16>) outs(%o2full : tensor<2x3x2x5xf32>) -> tensor<2x3x2x5xf32>
  %p2 = tensor.cast %r2 : tensor<2x3x2x5xf32> to tensor<?x?x?x?xf32>
  call @print4(%p2) : (tensor<?x?x?x?xf32>) -> ()
  return
}
