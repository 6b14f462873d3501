// f32 -> bf16 roundings through the lowering pipelines, executed: with
// bf16-conversions=expand they are upstream's integer round-to-nearest-even
// (vector code in the fast pipeline), with native LLVM's fptrunc (one
// vcvtneps2bf16 with AVX512_BF16, a __truncsfbf2 call per element without).
// Both give the same bits for normal values, ties, overflow, infinities,
// zeros and a quiet NaN; denormal inputs are rounded by the expansion
// (vcvtneps2bf16 flushes them to zero, so only the expansion's are checked).

// RUN: amp-opt %s --amp-lower-to-llvm='bf16-conversions=expand' -o %t.ref.ll
// RUN: amp-opt %s --amp-lower-to-llvm='fast=true threads=1 bf16-conversions=expand' -o %t.fast.ll
// RUN: amp-opt %s --amp-lower-to-llvm='fast=true threads=1 bf16-conversions=native' -o %t.native.ll
// RUN: FileCheck %s --check-prefix=EXPANDED < %t.ref.ll
// RUN: FileCheck %s --check-prefix=EXPANDED < %t.fast.ll
// RUN: FileCheck %s --check-prefix=NATIVE < %t.native.ll
// RUN: FileCheck %s --check-prefix=FAST-MAX < %t.fast.ll
// RUN: FileCheck %s --check-prefix=FAST-STORE < %t.fast.ll
// RUN: mlir-runner %t.ref.ll -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils.so,%mlir_lib_dir/libmlir_c_runner_utils.so \
// RUN:   | FileCheck %s --check-prefixes=CHECK,DENORMAL
// RUN: mlir-runner %t.fast.ll -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils.so,%mlir_lib_dir/libmlir_c_runner_utils.so \
// RUN:   | FileCheck %s --check-prefixes=CHECK,DENORMAL
// RUN: mlir-runner %t.native.ll -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils.so,%mlir_lib_dir/libmlir_c_runner_utils.so,%mlir_lib_dir/libmlir_float16_utils.so \
// RUN:   | FileCheck %s

// The expansion leaves no bf16 conversion for LLVM; native leaves them all.
// EXPANDED-NOT: llvm.fptrunc {{.*}} to {{.*}}bf16
// NATIVE:       llvm.fptrunc {{.*}} to {{.*}}bf16

// 1, 1 + 2^-8 (tie: even 1), 1 + 3 * 2^-8 (tie: even 1 + 2^-6), -2.5,
// 3.3961e38 (largest finite bf16), f32's largest (rounds to inf), inf,
// -inf, -0, 65504, 0.1, -1.7, NaN, f32's smallest normal, 0, 3.
// CHECK: [16256,  16256,  16258,  49184,  32639,  32640,  32640,  65408,  32768,  18304,  15821,  49114,  32704,  128,  0,  16448]
// 1e-40, 9.2e-41, -1e-40, half of the smallest normal.
// DENORMAL: [1,  1,  32769,  64]

func.func @round(%x: tensor<16xf32>) -> tensor<16xi32> {
  %b = arith.truncf %x : tensor<16xf32> to tensor<16xbf16>
  %i = arith.bitcast %b : tensor<16xbf16> to tensor<16xi16>
  %w = arith.extui %i : tensor<16xi16> to tensor<16xi32>
  return %w : tensor<16xi32>
}

func.func @round4(%x: tensor<4xf32>) -> tensor<4xi32> {
  %b = arith.truncf %x : tensor<4xf32> to tensor<4xbf16>
  %i = arith.bitcast %b : tensor<4xbf16> to tensor<4xi16>
  %w = arith.extui %i : tensor<4xi16> to tensor<4xi32>
  return %w : tensor<4xi32>
}

// The max of two bf16 tensors is computed in f32 and its rounding back is
// a shift (amp-expand-arith's exact truncation in the fast pipeline, the
// full expansion in the reference one, vcvtneps2bf16 natively): the same
// bits. max(1, 2), max(-1, -2), max(-0, 0), max(0.5, -0.5), max(inf, 1),
// max(-inf, -1), max(NaN, 1), max(1, NaN), max(0.1, -0.1),
// max(-largest, -inf), max(largest, 1), max(1 + 2^-7, 1), max(5, 3),
// max(-5, -3), max(0.5, 0.25), max(2, 2). (Not max(0, -0): upstream's
// expansion of a bf16 or reference-pipeline maximumf gives -0 there.)
// CHECK: [16384,  49024,  0,  16128,  32640,  49024,  32704,  32704,  15821,  65407,  32639,  16257,  16544,  49216,  16128,  16384]
// The fast pipeline's rounding of that max is the shift alone.
// FAST-MAX-LABEL: llvm.func @max_bits
// FAST-MAX-NOT:     llvm.select
// FAST-MAX:         llvm.lshr
// FAST-MAX-NOT:     llvm.select
// FAST-MAX:         llvm.return
func.func @max_bits(%a: tensor<16xi16>, %b: tensor<16xi16>) -> tensor<16xi32> {
  %x = arith.bitcast %a : tensor<16xi16> to tensor<16xbf16>
  %y = arith.bitcast %b : tensor<16xi16> to tensor<16xbf16>
  %m = arith.maximumf %x, %y : tensor<16xbf16>
  %i = arith.bitcast %m : tensor<16xbf16> to tensor<16xi16>
  %w = arith.extui %i : tensor<16xi16> to tensor<16xi32>
  return %w : tensor<16xi32>
}

// The rounding stored as bf16 in memory (the result buffer of @round_store,
// written with vector stores in the fast pipeline) and read back as bits in
// the caller: the same bits as @round. Without AVX512_BF16 LLVM scalarizes a
// stored bf16 vector, so the pipelines store its i16 bits instead
// (amp-store-bf16-bits).
// CHECK: [16256,  16256,  16258,  49184,  32639,  32640,  32640,  65408,  32768,  18304,  15821,  49114,  32704,  128,  0,  16448]
// FAST-STORE-LABEL: llvm.func @round_store
// FAST-STORE-NOT:     xbf16>, !llvm.ptr
// FAST-STORE:         llvm.store {{.*}} : vector<16xi16>, !llvm.ptr
// FAST-STORE-NOT:     xbf16>, !llvm.ptr
// FAST-STORE:         llvm.return
func.func @round_store(%x: tensor<16xf32>) -> tensor<16xbf16> {
  %b = arith.truncf %x : tensor<16xf32> to tensor<16xbf16>
  return %b : tensor<16xbf16>
}

func.func private @printMemrefI32(tensor<*xi32>)

func.func @main() {
  %v = arith.constant dense<[1.0, 1.00390625, 1.01171875, -2.5, 3.3961e38,
      0x7F7FFFFF, 0x7F800000, 0xFF800000, -0.0, 65504.0, 0.1, -1.7,
      0x7FC00000, 1.1754944e-38, 0.0, 3.0]> : tensor<16xf32>
  %r = call @round(%v) : (tensor<16xf32>) -> tensor<16xi32>
  %p = tensor.cast %r : tensor<16xi32> to tensor<*xi32>
  call @printMemrefI32(%p) : (tensor<*xi32>) -> ()
  %d = arith.constant dense<[1.0e-40, 9.2e-41, -1.0e-40, 5.877472e-39]>
      : tensor<4xf32>
  %s = call @round4(%d) : (tensor<4xf32>) -> tensor<4xi32>
  %q = tensor.cast %s : tensor<4xi32> to tensor<*xi32>
  call @printMemrefI32(%q) : (tensor<*xi32>) -> ()
  %ma = arith.constant dense<[16256, -16512, -32768, 16128, 32640, -128, 32704,
      16256, 15821, -129, 32639, 16257, 16544, -16224, 16128, 16384]>
      : tensor<16xi16>
  %mb = arith.constant dense<[16384, -16384, 0, -16640, 16256, -16512, 16256,
      32704, -16947, -128, 16256, 16256, 16448, -16320, 16000, 16384]>
      : tensor<16xi16>
  %mx = call @max_bits(%ma, %mb) : (tensor<16xi16>, tensor<16xi16>) -> tensor<16xi32>
  %mp = tensor.cast %mx : tensor<16xi32> to tensor<*xi32>
  call @printMemrefI32(%mp) : (tensor<*xi32>) -> ()
  %rs = call @round_store(%v) : (tensor<16xf32>) -> tensor<16xbf16>
  %ri = arith.bitcast %rs : tensor<16xbf16> to tensor<16xi16>
  %rw = arith.extui %ri : tensor<16xi16> to tensor<16xi32>
  %rp = tensor.cast %rw : tensor<16xi32> to tensor<*xi32>
  call @printMemrefI32(%rp) : (tensor<*xi32>) -> ()
  return
}
