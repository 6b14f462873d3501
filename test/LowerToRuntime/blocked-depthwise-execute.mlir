// Execution of amp-block-convs' output on depthwise convolutions: a
// MobileNetV2 inverted-residual block in torch's export form (1x1 expand
// convolution, batch-norm / ReLU6 generics, an explicitly padded 3x3
// depthwise convolution, a 1x1 projection and the residual add), then a
// strided, dilated depthwise convolution, through the fast pipeline, whose
// convolutions then run on blocked activations in libamp_rt, against the
// reference pipeline's plain loops on the same inputs.
// REQUIRES: amp-runtime
//
// RUN: amp-opt %s --amp-lower-to-llvm > %t.ref.ll.mlir
// RUN: mlir-runner %t.ref.ll.mlir -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils.so,%mlir_lib_dir/libmlir_c_runner_utils.so,%mlir_lib_dir/libmlir_float16_utils.so \
// RUN:   > %t.ref.txt
//
// The rewrite itself: amp-block-convs' generics, run as plain loops.
// RUN: amp-opt %s --amp-block-convs | amp-opt --amp-lower-to-llvm > %t.blocked-loops.ll.mlir
// RUN: mlir-runner %t.blocked-loops.ll.mlir -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils.so,%mlir_lib_dir/libmlir_c_runner_utils.so,%mlir_lib_dir/libmlir_float16_utils.so \
// RUN:   > %t.blocked-loops.txt
// RUN: %PYTHON %amp_src/test/Integration/compare_outputs.py %t.ref.txt %t.blocked-loops.txt \
// RUN:   --rtol 1e-5 --atol 1e-6 --atol-scale 1e-6 | FileCheck %s --check-prefix=CHECK
//
// f32: the two depthwise and the two 1x1 convolutions all blocked.
// RUN: amp-opt %s --amp-lower-to-llvm='fast=true threads=2' > %t.fast.ll.mlir
// RUN: FileCheck %s --check-prefix=F32 < %t.fast.ll.mlir
// RUN: env AMP_RT_BACKEND=cpu mlir-runner %t.fast.ll.mlir -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libomp.so,%amp_rt_lib,%mlir_lib_dir/libmlir_runner_utils.so,%mlir_lib_dir/libmlir_c_runner_utils.so,%mlir_lib_dir/libmlir_float16_utils.so \
// RUN:   > %t.fast.txt
// RUN: %PYTHON %amp_src/test/Integration/compare_outputs.py %t.ref.txt %t.fast.txt \
// RUN:   --rtol 1e-4 --atol 1e-5 --atol-scale 1e-5 | FileCheck %s --check-prefix=CHECK
// On oneDNN's AVX2 kernels (nChw8c), never its reference convolution.
// RUN: env AMP_RT_BACKEND=cpu DNNL_MAX_CPU_ISA=AVX2 AMP_RT_VERBOSE=1 mlir-runner %t.fast.ll.mlir -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libomp.so,%amp_rt_lib,%mlir_lib_dir/libmlir_runner_utils.so,%mlir_lib_dir/libmlir_c_runner_utils.so,%mlir_lib_dir/libmlir_float16_utils.so \
// RUN:   > %t.avx2.txt 2> %t.avx2.err
// RUN: FileCheck %s --check-prefix=AVX2 < %t.avx2.err
// RUN: %PYTHON %amp_src/test/Integration/compare_outputs.py %t.ref.txt %t.avx2.txt \
// RUN:   --rtol 1e-4 --atol 1e-5 --atol-scale 1e-5 | FileCheck %s --check-prefix=CHECK
// Without oneDNN (AMP_RT_CPU_F32=openblas): libamp_rt unblocks into NCHW
// copies and runs its direct grouped loops.
// RUN: env AMP_RT_BACKEND=cpu AMP_RT_CPU_F32=openblas mlir-runner %t.fast.ll.mlir -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libomp.so,%amp_rt_lib,%mlir_lib_dir/libmlir_runner_utils.so,%mlir_lib_dir/libmlir_c_runner_utils.so,%mlir_lib_dir/libmlir_float16_utils.so \
// RUN:   > %t.direct.txt
// RUN: %PYTHON %amp_src/test/Integration/compare_outputs.py %t.ref.txt %t.direct.txt \
// RUN:   --rtol 1e-4 --atol 1e-5 --atol-scale 1e-5 | FileCheck %s --check-prefix=CHECK
//
// bf16: blocked against the plain-layout program (block-convs=false),
// through the widened path, and against the f32 reference to bf16 accuracy.
// RUN: amp-opt %s --amp='mode=bf16' -o %t.bf16.mlir
// RUN: amp-opt %t.bf16.mlir --amp-lower-to-llvm='fast=true threads=2 low-contractions=library' > %t.bf16.ll.mlir
// RUN: FileCheck %s --check-prefix=BF16 < %t.bf16.ll.mlir
// RUN: amp-opt %t.bf16.mlir --amp-lower-to-llvm='fast=true threads=2 block-convs=false low-contractions=library' > %t.bf16.plain.ll.mlir
// RUN: FileCheck %s --check-prefix=PLAIN < %t.bf16.plain.ll.mlir
// RUN: env AMP_RT_BACKEND=cpu mlir-runner %t.bf16.ll.mlir -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libomp.so,%amp_rt_lib,%mlir_lib_dir/libmlir_runner_utils.so,%mlir_lib_dir/libmlir_c_runner_utils.so,%mlir_lib_dir/libmlir_float16_utils.so \
// RUN:   > %t.bf16.txt
// RUN: env AMP_RT_BACKEND=cpu mlir-runner %t.bf16.plain.ll.mlir -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libomp.so,%amp_rt_lib,%mlir_lib_dir/libmlir_runner_utils.so,%mlir_lib_dir/libmlir_c_runner_utils.so,%mlir_lib_dir/libmlir_float16_utils.so \
// RUN:   > %t.bf16.plain.txt
// RUN: env AMP_RT_BACKEND=cpu AMP_RT_CPU_BF16=0 mlir-runner %t.bf16.ll.mlir -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libomp.so,%amp_rt_lib,%mlir_lib_dir/libmlir_runner_utils.so,%mlir_lib_dir/libmlir_c_runner_utils.so,%mlir_lib_dir/libmlir_float16_utils.so \
// RUN:   > %t.bf16.widened.txt
// The 16-bit inputs widened in the generated code instead
// (low-contractions=widen: the f32 entry points) compute what libamp_rt's
// widened path does.
// RUN: amp-opt %t.bf16.mlir --amp-lower-to-llvm='fast=true threads=2 low-contractions=widen' > %t.bf16.wide.ll.mlir
// RUN: FileCheck %s --check-prefix=WIDE < %t.bf16.wide.ll.mlir
// RUN: env AMP_RT_BACKEND=cpu mlir-runner %t.bf16.wide.ll.mlir -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libomp.so,%amp_rt_lib,%mlir_lib_dir/libmlir_runner_utils.so,%mlir_lib_dir/libmlir_c_runner_utils.so,%mlir_lib_dir/libmlir_float16_utils.so \
// RUN:   > %t.bf16.wide.txt
// RUN: %PYTHON %amp_src/test/Integration/compare_outputs.py %t.bf16.widened.txt %t.bf16.wide.txt \
// RUN:   --rtol 1e-4 --atol 0 --atol-scale 1e-5 | FileCheck %s --check-prefix=CHECK
// RUN: %PYTHON %amp_src/test/Integration/compare_outputs.py %t.bf16.plain.txt %t.bf16.txt \
// RUN:   --rtol 1e-5 --atol 0 --atol-scale 1e-6 | FileCheck %s --check-prefix=CHECK
// RUN: %PYTHON %amp_src/test/Integration/compare_outputs.py %t.bf16.plain.txt %t.bf16.widened.txt \
// RUN:   --rtol 1e-4 --atol 0 --atol-scale 1e-5 | FileCheck %s --check-prefix=CHECK
// RUN: %PYTHON %amp_src/test/Integration/compare_outputs.py %t.ref.txt %t.bf16.txt \
// RUN:   --rtol 3e-2 --atol 0 --atol-scale 2e-2 | FileCheck %s --check-prefix=CHECK

// CHECK: PASS
// WIDE-DAG:    llvm.call @amp_rt_depthwise_conv2d_nchw16c_chw_f32_f32_overwrite(
// F32-DAG:     llvm.call @amp_rt_depthwise_conv2d_nchw16c_chw_f32_f32_overwrite(
// F32-DAG:     llvm.call @amp_rt_conv2d_nchw16c_fchw_f32_f32_overwrite(
// F32-NOT:     llvm.call @amp_rt_{{.*}}conv2d_nchw_
// BF16-DAG:    llvm.call @amp_rt_depthwise_conv2d_nchw16c_chw_bf16_
// BF16-DAG:    llvm.call @amp_rt_conv2d_nchw16c_fchw_bf16_
// PLAIN-NOT:   nchw16c
// PLAIN:       llvm.call @amp_rt_depthwise_conv2d_nchw_chw_bf16_
// AVX2:        new oneDNN convolution primitive: jit
// AVX2-NOT:    primitive: ref

#id = affine_map<(n, c, h, w) -> (n, c, h, w)>
#ch = affine_map<(n, c, h, w) -> (c)>

func.func @net(%x: tensor<2x16x10x10xf32>, %w0: tensor<32x16x1x1xf32>,
               %s0: tensor<32xf32>, %b0: tensor<32xf32>,
               %wd1: tensor<32x3x3xf32>, %s1: tensor<32xf32>,
               %b1: tensor<32xf32>, %w2: tensor<16x32x1x1xf32>,
               %wd3: tensor<16x3x3xf32>) -> tensor<2x16x5x5xf32> {
  %zero = arith.constant 0.0 : f32
  %six = arith.constant 6.0 : f32
  %e32 = tensor.empty() : tensor<2x32x10x10xf32>
  %f32 = linalg.fill ins(%zero : f32) outs(%e32 : tensor<2x32x10x10xf32>) -> tensor<2x32x10x10xf32>
  %c0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
      ins(%x, %w0 : tensor<2x16x10x10xf32>, tensor<32x16x1x1xf32>) outs(%f32 : tensor<2x32x10x10xf32>) -> tensor<2x32x10x10xf32>
  %y0 = linalg.generic {indexing_maps = [#id, #ch, #ch, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c0, %s0, %b0 : tensor<2x32x10x10xf32>, tensor<32xf32>, tensor<32xf32>) outs(%e32 : tensor<2x32x10x10xf32>) {
  ^bb0(%v: f32, %sv: f32, %bv: f32, %o: f32):
    %m = arith.mulf %v, %sv : f32
    %a = arith.addf %m, %bv : f32
    %lo = arith.maximumf %a, %zero : f32
    %r = arith.minimumf %lo, %six : f32
    linalg.yield %r : f32
  } -> tensor<2x32x10x10xf32>
  %p1 = tensor.pad %y0 low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<2x32x10x10xf32> to tensor<2x32x12x12xf32>
  %d1 = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%p1, %wd1 : tensor<2x32x12x12xf32>, tensor<32x3x3xf32>) outs(%f32 : tensor<2x32x10x10xf32>) -> tensor<2x32x10x10xf32>
  %y1 = linalg.generic {indexing_maps = [#id, #ch, #ch, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%d1, %s1, %b1 : tensor<2x32x10x10xf32>, tensor<32xf32>, tensor<32xf32>) outs(%e32 : tensor<2x32x10x10xf32>) {
  ^bb0(%v: f32, %sv: f32, %bv: f32, %o: f32):
    %m = arith.mulf %v, %sv : f32
    %a = arith.addf %m, %bv : f32
    %lo = arith.maximumf %a, %zero : f32
    %r = arith.minimumf %lo, %six : f32
    linalg.yield %r : f32
  } -> tensor<2x32x10x10xf32>
  %e16 = tensor.empty() : tensor<2x16x10x10xf32>
  %f16 = linalg.fill ins(%zero : f32) outs(%e16 : tensor<2x16x10x10xf32>) -> tensor<2x16x10x10xf32>
  %c2 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
      ins(%y1, %w2 : tensor<2x32x10x10xf32>, tensor<16x32x1x1xf32>) outs(%f16 : tensor<2x16x10x10xf32>) -> tensor<2x16x10x10xf32>
  %res = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c2, %x : tensor<2x16x10x10xf32>, tensor<2x16x10x10xf32>) outs(%e16 : tensor<2x16x10x10xf32>) {
  ^bb0(%v: f32, %w: f32, %o: f32):
    %a = arith.addf %v, %w : f32
    linalg.yield %a : f32
  } -> tensor<2x16x10x10xf32>
  %p3 = tensor.pad %res low[0, 0, 2, 2] high[0, 0, 2, 2] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<2x16x10x10xf32> to tensor<2x16x14x14xf32>
  %e5 = tensor.empty() : tensor<2x16x5x5xf32>
  %f5 = linalg.fill ins(%zero : f32) outs(%e5 : tensor<2x16x5x5xf32>) -> tensor<2x16x5x5xf32>
  %d3 = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<2> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%p3, %wd3 : tensor<2x16x14x14xf32>, tensor<16x3x3xf32>) outs(%f5 : tensor<2x16x5x5xf32>) -> tensor<2x16x5x5xf32>
  return %d3 : tensor<2x16x5x5xf32>
}

func.func private @printMemrefF32(tensor<*xf32>)

func.func @main() {
  %x = call @gen_x() : () -> tensor<2x16x10x10xf32>
  %w0 = call @gen_w0() : () -> tensor<32x16x1x1xf32>
  %s0 = call @gen_s0() : () -> tensor<32xf32>
  %b0 = call @gen_b0() : () -> tensor<32xf32>
  %wd1 = call @gen_wd1() : () -> tensor<32x3x3xf32>
  %s1 = call @gen_s1() : () -> tensor<32xf32>
  %b1 = call @gen_b1() : () -> tensor<32xf32>
  %w2 = call @gen_w2() : () -> tensor<16x32x1x1xf32>
  %wd3 = call @gen_wd3() : () -> tensor<16x3x3xf32>
  %y = call @net(%x, %w0, %s0, %b0, %wd1, %s1, %b1, %w2, %wd3)
      : (tensor<2x16x10x10xf32>, tensor<32x16x1x1xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32x3x3xf32>, tensor<32xf32>, tensor<32xf32>, tensor<16x32x1x1xf32>, tensor<16x3x3xf32>) -> tensor<2x16x5x5xf32>
  %u = tensor.cast %y : tensor<2x16x5x5xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return
}

func.func @gen_x() -> tensor<2x16x10x10xf32> {
  %k0 = arith.constant 0.37 : f32
  %k1 = arith.constant 0.11 : f32
  %k2 = arith.constant -0.23 : f32
  %k3 = arith.constant 0.71 : f32
  %off = arith.constant 0.3 : f32
  %e = tensor.empty() : tensor<2x16x10x10xf32>
  %g = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%e : tensor<2x16x10x10xf32>) {
  ^bb0(%o: f32):
    %i0 = linalg.index 0 : index
    %j0 = arith.index_cast %i0 : index to i64
    %f0 = arith.sitofp %j0 : i64 to f32
    %m0 = arith.mulf %f0, %k0 : f32
    %i1 = linalg.index 1 : index
    %j1 = arith.index_cast %i1 : index to i64
    %f1 = arith.sitofp %j1 : i64 to f32
    %m1 = arith.mulf %f1, %k1 : f32
    %i2 = linalg.index 2 : index
    %j2 = arith.index_cast %i2 : index to i64
    %f2 = arith.sitofp %j2 : i64 to f32
    %m2 = arith.mulf %f2, %k2 : f32
    %i3 = linalg.index 3 : index
    %j3 = arith.index_cast %i3 : index to i64
    %f3 = arith.sitofp %j3 : i64 to f32
    %m3 = arith.mulf %f3, %k3 : f32
    %s1 = arith.addf %m0, %m1 : f32
    %s2 = arith.addf %s1, %m2 : f32
    %s3 = arith.addf %s2, %m3 : f32
    %v0 = arith.addf %s3, %off : f32
    %v = math.sin %v0 : f32
    linalg.yield %v : f32
  } -> tensor<2x16x10x10xf32>
  return %g : tensor<2x16x10x10xf32>
}

func.func @gen_w0() -> tensor<32x16x1x1xf32> {
  %k0 = arith.constant 0.13 : f32
  %k1 = arith.constant -0.29 : f32
  %k2 = arith.constant 0.5 : f32
  %k3 = arith.constant 0.7 : f32
  %off = arith.constant 0.3 : f32
  %e = tensor.empty() : tensor<32x16x1x1xf32>
  %g = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%e : tensor<32x16x1x1xf32>) {
  ^bb0(%o: f32):
    %i0 = linalg.index 0 : index
    %j0 = arith.index_cast %i0 : index to i64
    %f0 = arith.sitofp %j0 : i64 to f32
    %m0 = arith.mulf %f0, %k0 : f32
    %i1 = linalg.index 1 : index
    %j1 = arith.index_cast %i1 : index to i64
    %f1 = arith.sitofp %j1 : i64 to f32
    %m1 = arith.mulf %f1, %k1 : f32
    %i2 = linalg.index 2 : index
    %j2 = arith.index_cast %i2 : index to i64
    %f2 = arith.sitofp %j2 : i64 to f32
    %m2 = arith.mulf %f2, %k2 : f32
    %i3 = linalg.index 3 : index
    %j3 = arith.index_cast %i3 : index to i64
    %f3 = arith.sitofp %j3 : i64 to f32
    %m3 = arith.mulf %f3, %k3 : f32
    %s1 = arith.addf %m0, %m1 : f32
    %s2 = arith.addf %s1, %m2 : f32
    %s3 = arith.addf %s2, %m3 : f32
    %v0 = arith.addf %s3, %off : f32
    %v = math.sin %v0 : f32
    linalg.yield %v : f32
  } -> tensor<32x16x1x1xf32>
  return %g : tensor<32x16x1x1xf32>
}

func.func @gen_s0() -> tensor<32xf32> {
  %k0 = arith.constant 0.05 : f32
  %off = arith.constant 0.3 : f32
  %e = tensor.empty() : tensor<32xf32>
  %g = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} outs(%e : tensor<32xf32>) {
  ^bb0(%o: f32):
    %i0 = linalg.index 0 : index
    %j0 = arith.index_cast %i0 : index to i64
    %f0 = arith.sitofp %j0 : i64 to f32
    %m0 = arith.mulf %f0, %k0 : f32
    %v0 = arith.addf %m0, %off : f32
    %v = math.sin %v0 : f32
    linalg.yield %v : f32
  } -> tensor<32xf32>
  return %g : tensor<32xf32>
}

func.func @gen_b0() -> tensor<32xf32> {
  %k0 = arith.constant -0.07 : f32
  %off = arith.constant 0.3 : f32
  %e = tensor.empty() : tensor<32xf32>
  %g = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} outs(%e : tensor<32xf32>) {
  ^bb0(%o: f32):
    %i0 = linalg.index 0 : index
    %j0 = arith.index_cast %i0 : index to i64
    %f0 = arith.sitofp %j0 : i64 to f32
    %m0 = arith.mulf %f0, %k0 : f32
    %v0 = arith.addf %m0, %off : f32
    %v = math.sin %v0 : f32
    linalg.yield %v : f32
  } -> tensor<32xf32>
  return %g : tensor<32xf32>
}

func.func @gen_wd1() -> tensor<32x3x3xf32> {
  %k0 = arith.constant 0.19 : f32
  %k1 = arith.constant 0.83 : f32
  %k2 = arith.constant -0.41 : f32
  %off = arith.constant 0.3 : f32
  %e = tensor.empty() : tensor<32x3x3xf32>
  %g = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} outs(%e : tensor<32x3x3xf32>) {
  ^bb0(%o: f32):
    %i0 = linalg.index 0 : index
    %j0 = arith.index_cast %i0 : index to i64
    %f0 = arith.sitofp %j0 : i64 to f32
    %m0 = arith.mulf %f0, %k0 : f32
    %i1 = linalg.index 1 : index
    %j1 = arith.index_cast %i1 : index to i64
    %f1 = arith.sitofp %j1 : i64 to f32
    %m1 = arith.mulf %f1, %k1 : f32
    %i2 = linalg.index 2 : index
    %j2 = arith.index_cast %i2 : index to i64
    %f2 = arith.sitofp %j2 : i64 to f32
    %m2 = arith.mulf %f2, %k2 : f32
    %s1 = arith.addf %m0, %m1 : f32
    %s2 = arith.addf %s1, %m2 : f32
    %v0 = arith.addf %s2, %off : f32
    %v = math.sin %v0 : f32
    linalg.yield %v : f32
  } -> tensor<32x3x3xf32>
  return %g : tensor<32x3x3xf32>
}

func.func @gen_s1() -> tensor<32xf32> {
  %k0 = arith.constant 0.09 : f32
  %off = arith.constant 0.3 : f32
  %e = tensor.empty() : tensor<32xf32>
  %g = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} outs(%e : tensor<32xf32>) {
  ^bb0(%o: f32):
    %i0 = linalg.index 0 : index
    %j0 = arith.index_cast %i0 : index to i64
    %f0 = arith.sitofp %j0 : i64 to f32
    %m0 = arith.mulf %f0, %k0 : f32
    %v0 = arith.addf %m0, %off : f32
    %v = math.sin %v0 : f32
    linalg.yield %v : f32
  } -> tensor<32xf32>
  return %g : tensor<32xf32>
}

func.func @gen_b1() -> tensor<32xf32> {
  %k0 = arith.constant 0.03 : f32
  %off = arith.constant 0.3 : f32
  %e = tensor.empty() : tensor<32xf32>
  %g = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} outs(%e : tensor<32xf32>) {
  ^bb0(%o: f32):
    %i0 = linalg.index 0 : index
    %j0 = arith.index_cast %i0 : index to i64
    %f0 = arith.sitofp %j0 : i64 to f32
    %m0 = arith.mulf %f0, %k0 : f32
    %v0 = arith.addf %m0, %off : f32
    %v = math.sin %v0 : f32
    linalg.yield %v : f32
  } -> tensor<32xf32>
  return %g : tensor<32xf32>
}

func.func @gen_w2() -> tensor<16x32x1x1xf32> {
  %k0 = arith.constant -0.17 : f32
  %k1 = arith.constant 0.23 : f32
  %k2 = arith.constant 0.3 : f32
  %k3 = arith.constant 0.4 : f32
  %off = arith.constant 0.3 : f32
  %e = tensor.empty() : tensor<16x32x1x1xf32>
  %g = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%e : tensor<16x32x1x1xf32>) {
  ^bb0(%o: f32):
    %i0 = linalg.index 0 : index
    %j0 = arith.index_cast %i0 : index to i64
    %f0 = arith.sitofp %j0 : i64 to f32
    %m0 = arith.mulf %f0, %k0 : f32
    %i1 = linalg.index 1 : index
    %j1 = arith.index_cast %i1 : index to i64
    %f1 = arith.sitofp %j1 : i64 to f32
    %m1 = arith.mulf %f1, %k1 : f32
    %i2 = linalg.index 2 : index
    %j2 = arith.index_cast %i2 : index to i64
    %f2 = arith.sitofp %j2 : i64 to f32
    %m2 = arith.mulf %f2, %k2 : f32
    %i3 = linalg.index 3 : index
    %j3 = arith.index_cast %i3 : index to i64
    %f3 = arith.sitofp %j3 : i64 to f32
    %m3 = arith.mulf %f3, %k3 : f32
    %s1 = arith.addf %m0, %m1 : f32
    %s2 = arith.addf %s1, %m2 : f32
    %s3 = arith.addf %s2, %m3 : f32
    %v0 = arith.addf %s3, %off : f32
    %v = math.sin %v0 : f32
    linalg.yield %v : f32
  } -> tensor<16x32x1x1xf32>
  return %g : tensor<16x32x1x1xf32>
}

func.func @gen_wd3() -> tensor<16x3x3xf32> {
  %k0 = arith.constant 0.31 : f32
  %k1 = arith.constant -0.67 : f32
  %k2 = arith.constant 0.59 : f32
  %off = arith.constant 0.3 : f32
  %e = tensor.empty() : tensor<16x3x3xf32>
  %g = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} outs(%e : tensor<16x3x3xf32>) {
  ^bb0(%o: f32):
    %i0 = linalg.index 0 : index
    %j0 = arith.index_cast %i0 : index to i64
    %f0 = arith.sitofp %j0 : i64 to f32
    %m0 = arith.mulf %f0, %k0 : f32
    %i1 = linalg.index 1 : index
    %j1 = arith.index_cast %i1 : index to i64
    %f1 = arith.sitofp %j1 : i64 to f32
    %m1 = arith.mulf %f1, %k1 : f32
    %i2 = linalg.index 2 : index
    %j2 = arith.index_cast %i2 : index to i64
    %f2 = arith.sitofp %j2 : i64 to f32
    %m2 = arith.mulf %f2, %k2 : f32
    %s1 = arith.addf %m0, %m1 : f32
    %s2 = arith.addf %s1, %m2 : f32
    %v0 = arith.addf %s2, %off : f32
    %v = math.sin %v0 : f32
    linalg.yield %v : f32
  } -> tensor<16x3x3xf32>
  return %g : tensor<16x3x3xf32>
}
