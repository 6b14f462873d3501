// Execution of amp-block-convs' weight gradients: autodiff's convolutions
// of a transposed activation by a transposed output gradient (stride 1 and,
// in amp-ungroup-summed-convs' form, stride 2; and a stem's, on its
// 3-channel image) become generics on the
// blocked activation of a convolution / ReLU chain and the blocked output
// gradients, which libamp_rt runs as oneDNN's backward-weights in place.
// Checked against the reference pipeline's plain loops, through the
// rewrite's own loops, the fast pipeline (f32, bf16, oneDNN's AVX2 kernels,
// the widened path) and the plain-layout program.
// REQUIRES: amp-runtime
//
// RUN: amp-opt %s --amp-lower-to-llvm > %t.ref.ll.mlir
// RUN: mlir-runner %t.ref.ll.mlir -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils.so,%mlir_lib_dir/libmlir_c_runner_utils.so,%mlir_lib_dir/libmlir_float16_utils.so \
// RUN:   > %t.ref.txt
//
// RUN: amp-opt %s --amp-block-convs | amp-opt --amp-lower-to-llvm > %t.blocked-loops.ll.mlir
// RUN: mlir-runner %t.blocked-loops.ll.mlir -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils.so,%mlir_lib_dir/libmlir_c_runner_utils.so,%mlir_lib_dir/libmlir_float16_utils.so \
// RUN:   > %t.blocked-loops.txt
// RUN: %PYTHON %amp_src/test/Integration/compare_outputs.py %t.ref.txt %t.blocked-loops.txt \
// RUN:   --rtol 1e-5 --atol 1e-6 --atol-scale 1e-6 | FileCheck %s --check-prefix=CHECK
//
// f32: the forward convolution and both weight gradients on blocked
// tensors; nothing unblocks the activation or the output gradients.
// RUN: amp-opt %s --amp-lower-to-llvm='fast=true threads=2' > %t.fast.ll.mlir
// RUN: FileCheck %s --check-prefix=F32 < %t.fast.ll.mlir
// RUN: env AMP_RT_BACKEND=cpu mlir-runner %t.fast.ll.mlir -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libomp.so,%amp_rt_lib,%mlir_lib_dir/libmlir_runner_utils.so,%mlir_lib_dir/libmlir_c_runner_utils.so,%mlir_lib_dir/libmlir_float16_utils.so \
// RUN:   > %t.fast.txt
// RUN: %PYTHON %amp_src/test/Integration/compare_outputs.py %t.ref.txt %t.fast.txt \
// RUN:   --rtol 1e-4 --atol 1e-5 --atol-scale 1e-5 | FileCheck %s --check-prefix=CHECK
// RUN: env AMP_RT_BACKEND=cpu DNNL_MAX_CPU_ISA=AVX2 AMP_RT_VERBOSE=1 mlir-runner %t.fast.ll.mlir -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libomp.so,%amp_rt_lib,%mlir_lib_dir/libmlir_runner_utils.so,%mlir_lib_dir/libmlir_c_runner_utils.so,%mlir_lib_dir/libmlir_float16_utils.so \
// RUN:   > %t.avx2.txt 2> %t.avx2.err
// RUN: FileCheck %s --check-prefix=AVX2 < %t.avx2.err
// RUN: %PYTHON %amp_src/test/Integration/compare_outputs.py %t.ref.txt %t.avx2.txt \
// RUN:   --rtol 1e-4 --atol 1e-5 --atol-scale 1e-5 | FileCheck %s --check-prefix=CHECK
//
// bf16: the blocked program computes what the plain-layout one does
// (block-convs=false: oneDNN's backward-weights on reordered copies; the
// stem's first-layer kernel sums in another order: 1.8e-6 at most), the
// widened path (AMP_RT_CPU_BF16=0: NCHW copies, f32 kernels) to f32
// rounding, and the f32 reference to bf16 accuracy.
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
// RUN: %PYTHON %amp_src/test/Integration/compare_outputs.py %t.bf16.plain.txt %t.bf16.txt \
// RUN:   --rtol 1e-5 --atol 0 --atol-scale 1e-6 | FileCheck %s --check-prefix=CHECK
// RUN: %PYTHON %amp_src/test/Integration/compare_outputs.py %t.bf16.plain.txt %t.bf16.widened.txt \
// RUN:   --rtol 1e-4 --atol 0 --atol-scale 1e-5 | FileCheck %s --check-prefix=CHECK
// RUN: %PYTHON %amp_src/test/Integration/compare_outputs.py %t.ref.txt %t.bf16.txt \
// RUN:   --rtol 2e-2 --atol 0 --atol-scale 1e-2 | FileCheck %s --check-prefix=CHECK

// CHECK: PASS
// F32:         llvm.call @amp_rt_conv2d_nchw16c_fchw_f32_f32_overwrite(
// F32-COUNT-2: llvm.call @amp_rt_conv2d_backward_filter_nchw16c_f32_f32_overwrite(
// F32:         llvm.call @amp_rt_conv2d_backward_filter_nchw_nchw16c_f32_f32_overwrite(
// F32-NOT:     llvm.call @amp_rt_conv2d_
// BF16-COUNT-2: llvm.call @amp_rt_conv2d_backward_filter_nchw16c_bf16_f32_overwrite(
// BF16:        llvm.call @amp_rt_conv2d_backward_filter_nchw_nchw16c_bf16_f32_overwrite(
// PLAIN-NOT:   nchw16c
// AVX2:        new oneDNN convolution primitive: jit
// AVX2-NOT:    primitive: ref

#id = affine_map<(n, c, h, w) -> (n, c, h, w)>

// A convolution, its ReLU, and the weight gradients of the next
// convolutions on that activation, as torch-mlir writes them: the
// stride-1 one as conv(pad(transpose(a)), transpose(dy1)), read through a
// transpose; the stride-2 one in amp-ungroup-summed-convs' form (the padded
// input trimmed by a slice, the output gradient transposed between unit
// reshapes, the forward stride as the dilation), returned C x K x R x S;
// and the stride-2 weight gradient of a stem on a 3-channel image.
func.func @grads(%x: tensor<2x16x12x12xf32>, %w: tensor<32x16x3x3xf32>,
                 %dy1: tensor<2x32x12x12xf32>, %dy2: tensor<2x32x6x6xf32>,
                 %img: tensor<2x3x12x12xf32>)
    -> (tensor<32x32x3x3xf32>, tensor<32x32x3x3xf32>, tensor<3x32x3x3xf32>) {
  %zero = arith.constant 0.0 : f32
  %px = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<2x16x12x12xf32> to tensor<2x16x14x14xf32>
  %e = tensor.empty() : tensor<2x32x12x12xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x32x12x12xf32>) -> tensor<2x32x12x12xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
      ins(%px, %w : tensor<2x16x14x14xf32>, tensor<32x16x3x3xf32>) outs(%f : tensor<2x32x12x12xf32>) -> tensor<2x32x12x12xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c : tensor<2x32x12x12xf32>) outs(%e : tensor<2x32x12x12xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = arith.maximumf %v, %zero : f32
    linalg.yield %r : f32
  } -> tensor<2x32x12x12xf32>
  %et = tensor.empty() : tensor<32x2x12x12xf32>
  %at = linalg.transpose ins(%a : tensor<2x32x12x12xf32>) outs(%et : tensor<32x2x12x12xf32>) permutation = [1, 0, 2, 3]
  %pa = tensor.pad %at low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<32x2x12x12xf32> to tensor<32x2x14x14xf32>
  %dt = linalg.transpose ins(%dy1 : tensor<2x32x12x12xf32>) outs(%et : tensor<32x2x12x12xf32>) permutation = [1, 0, 2, 3]
  %eg = tensor.empty() : tensor<32x32x3x3xf32>
  %fg = linalg.fill ins(%zero : f32) outs(%eg : tensor<32x32x3x3xf32>) -> tensor<32x32x3x3xf32>
  %g1 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
      ins(%pa, %dt : tensor<32x2x14x14xf32>, tensor<32x2x12x12xf32>) outs(%fg : tensor<32x32x3x3xf32>) -> tensor<32x32x3x3xf32>
  %g1t = linalg.transpose ins(%g1 : tensor<32x32x3x3xf32>) outs(%eg : tensor<32x32x3x3xf32>) permutation = [1, 0, 2, 3]
  %sa = tensor.extract_slice %pa[0, 0, 0, 0] [32, 2, 13, 13] [1, 1, 1, 1] : tensor<32x2x14x14xf32> to tensor<32x2x13x13xf32>
  %d5 = tensor.expand_shape %dy2 [[0], [1], [2, 3], [4]] output_shape [2, 32, 1, 6, 6] : tensor<2x32x6x6xf32> into tensor<2x32x1x6x6xf32>
  %e5 = tensor.empty() : tensor<32x2x1x6x6xf32>
  %d5t = linalg.transpose ins(%d5 : tensor<2x32x1x6x6xf32>) outs(%e5 : tensor<32x2x1x6x6xf32>) permutation = [1, 0, 2, 3, 4]
  %d4 = tensor.collapse_shape %d5t [[0], [1, 2], [3], [4]] : tensor<32x2x1x6x6xf32> into tensor<32x2x6x6xf32>
  %g2 = linalg.conv_2d_nchw_fchw {dilations = dense<2> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
      ins(%sa, %d4 : tensor<32x2x13x13xf32>, tensor<32x2x6x6xf32>) outs(%fg : tensor<32x32x3x3xf32>) -> tensor<32x32x3x3xf32>
  // A stem's: the 3-channel image stays NCHW.
  %ei = tensor.empty() : tensor<3x2x12x12xf32>
  %it = linalg.transpose ins(%img : tensor<2x3x12x12xf32>) outs(%ei : tensor<3x2x12x12xf32>) permutation = [1, 0, 2, 3]
  %pi = tensor.pad %it low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<3x2x12x12xf32> to tensor<3x2x14x14xf32>
  %si = tensor.extract_slice %pi[0, 0, 0, 0] [3, 2, 13, 13] [1, 1, 1, 1] : tensor<3x2x14x14xf32> to tensor<3x2x13x13xf32>
  %e3 = tensor.empty() : tensor<3x32x3x3xf32>
  %f3 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<3x32x3x3xf32>) -> tensor<3x32x3x3xf32>
  %g3 = linalg.conv_2d_nchw_fchw {dilations = dense<2> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
      ins(%si, %d4 : tensor<3x2x13x13xf32>, tensor<32x2x6x6xf32>) outs(%f3 : tensor<3x32x3x3xf32>) -> tensor<3x32x3x3xf32>
  return %g1t, %g2, %g3 : tensor<32x32x3x3xf32>, tensor<32x32x3x3xf32>, tensor<3x32x3x3xf32>
}

func.func private @printMemrefF32(tensor<*xf32>)

func.func @main() {
  %x = call @gen_x() : () -> tensor<2x16x12x12xf32>
  %w = call @gen_w() : () -> tensor<32x16x3x3xf32>
  %dy1 = call @gen_dy1() : () -> tensor<2x32x12x12xf32>
  %dy2 = call @gen_dy2() : () -> tensor<2x32x6x6xf32>
  %img = call @gen_img() : () -> tensor<2x3x12x12xf32>
  %g1, %g2, %g3 = call @grads(%x, %w, %dy1, %dy2, %img)
      : (tensor<2x16x12x12xf32>, tensor<32x16x3x3xf32>, tensor<2x32x12x12xf32>,
         tensor<2x32x6x6xf32>, tensor<2x3x12x12xf32>)
      -> (tensor<32x32x3x3xf32>, tensor<32x32x3x3xf32>, tensor<3x32x3x3xf32>)
  %u1 = tensor.cast %g1 : tensor<32x32x3x3xf32> to tensor<*xf32>
  call @printMemrefF32(%u1) : (tensor<*xf32>) -> ()
  %u2 = tensor.cast %g2 : tensor<32x32x3x3xf32> to tensor<*xf32>
  call @printMemrefF32(%u2) : (tensor<*xf32>) -> ()
  %u3 = tensor.cast %g3 : tensor<3x32x3x3xf32> to tensor<*xf32>
  call @printMemrefF32(%u3) : (tensor<*xf32>) -> ()
  return
}
func.func @gen_x() -> tensor<2x16x12x12xf32> {
  %k0 = arith.constant 0.37 : f32
  %k1 = arith.constant 0.11 : f32
  %k2 = arith.constant -0.23 : f32
  %k3 = arith.constant 0.71 : f32
  %e = tensor.empty() : tensor<2x16x12x12xf32>
  %g = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%e : tensor<2x16x12x12xf32>) {
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
    %off = arith.constant 0.3 : f32
    %v0 = arith.addf %s3, %off : f32
    %v = math.sin %v0 : f32
    linalg.yield %v : f32
  } -> tensor<2x16x12x12xf32>
  return %g : tensor<2x16x12x12xf32>
}
func.func @gen_w() -> tensor<32x16x3x3xf32> {
  %k0 = arith.constant 0.13 : f32
  %k1 = arith.constant -0.29 : f32
  %k2 = arith.constant 0.41 : f32
  %k3 = arith.constant 0.07 : f32
  %e = tensor.empty() : tensor<32x16x3x3xf32>
  %g = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%e : tensor<32x16x3x3xf32>) {
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
    %off = arith.constant 0.2 : f32
    %v0 = arith.addf %s3, %off : f32
    %v = math.sin %v0 : f32
    linalg.yield %v : f32
  } -> tensor<32x16x3x3xf32>
  return %g : tensor<32x16x3x3xf32>
}
func.func @gen_dy1() -> tensor<2x32x12x12xf32> {
  %k0 = arith.constant -0.19 : f32
  %k1 = arith.constant 0.53 : f32
  %k2 = arith.constant 0.17 : f32
  %k3 = arith.constant -0.31 : f32
  %e = tensor.empty() : tensor<2x32x12x12xf32>
  %g = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%e : tensor<2x32x12x12xf32>) {
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
    %off = arith.constant 0.1 : f32
    %v0 = arith.addf %s3, %off : f32
    %v = math.sin %v0 : f32
    linalg.yield %v : f32
  } -> tensor<2x32x12x12xf32>
  return %g : tensor<2x32x12x12xf32>
}
func.func @gen_dy2() -> tensor<2x32x6x6xf32> {
  %k0 = arith.constant 0.23 : f32
  %k1 = arith.constant -0.47 : f32
  %k2 = arith.constant 0.61 : f32
  %k3 = arith.constant 0.29 : f32
  %e = tensor.empty() : tensor<2x32x6x6xf32>
  %g = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%e : tensor<2x32x6x6xf32>) {
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
    %off = arith.constant -0.4 : f32
    %v0 = arith.addf %s3, %off : f32
    %v = math.sin %v0 : f32
    linalg.yield %v : f32
  } -> tensor<2x32x6x6xf32>
  return %g : tensor<2x32x6x6xf32>
}
func.func @gen_img() -> tensor<2x3x12x12xf32> {
  %k0 = arith.constant 0.43 : f32
  %k1 = arith.constant -0.17 : f32
  %k2 = arith.constant 0.29 : f32
  %k3 = arith.constant -0.61 : f32
  %e = tensor.empty() : tensor<2x3x12x12xf32>
  %g = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%e : tensor<2x3x12x12xf32>) {
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
    %off = arith.constant 0.15 : f32
    %v0 = arith.addf %s3, %off : f32
    %v = math.sin %v0 : f32
    linalg.yield %v : f32
  } -> tensor<2x3x12x12xf32>
  return %g : tensor<2x3x12x12xf32>
}
