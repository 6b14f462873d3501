// amp-lower-to-runtime calls amp_rt_conv2d_nchw16c_fchw_* for the generic
// that amp-block-convs makes of an NCHW convolution (activations blocked by
// 16 channels), after checking that the generic is one: the attribute, the
// maps for its strides and dilations, the iterators and a multiply-add
// body. A generic that carries the attribute but computes something else
// stays a loop nest.
// RUN: amp-opt %s --split-input-file --verify-diagnostics \
// RUN:   --amp-lower-to-runtime='explain=true' | FileCheck %s

#in = affine_map<(n, kb, p, q, ki, cb, ci, r, s) -> (n, cb, p * 2 + r, q * 2 + s * 2, ci)>
#filter = affine_map<(n, kb, p, q, ki, cb, ci, r, s) -> (kb * 16 + ki, cb * 16 + ci, r, s)>
#out = affine_map<(n, kb, p, q, ki, cb, ci, r, s) -> (n, kb, p, q, ki)>

// CHECK-DAG:   func.func private @amp_rt_conv2d_nchw16c_fchw_bf16_f32(memref<?x?x?x?x?xbf16, strided<[?, ?, ?, ?, ?], offset: ?>>, memref<?x?x?x?xbf16, strided<[?, ?, ?, ?], offset: ?>>, memref<?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?], offset: ?>>, i64, i64, i64, i64) attributes {llvm.emit_c_interface}
// CHECK-LABEL: func.func @blocked
// CHECK:         %[[SH:.+]] = arith.constant 2 : i64
// CHECK:         %[[SW:.+]] = arith.constant 2 : i64
// CHECK:         %[[DH:.+]] = arith.constant 1 : i64
// CHECK:         %[[DW:.+]] = arith.constant 2 : i64
// CHECK:         call @amp_rt_conv2d_nchw16c_fchw_bf16_f32(%{{.+}}, %{{.+}}, %{{.+}}, %[[SH]], %[[SW]], %[[DH]], %[[DW]])
// CHECK-NOT:     linalg.generic
func.func @blocked(%x: memref<1x2x9x11x16xbf16>, %w: memref<16x32x3x3xbf16>, %y: memref<1x1x4x4x16xf32>) {
  // expected-remark @+1 {{amp-lower-to-runtime: lowered to @amp_rt_conv2d_nchw16c_fchw_bf16_f32}}
  linalg.generic {indexing_maps = [#in, #filter, #out],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction", "reduction"]}
      ins(%x, %w : memref<1x2x9x11x16xbf16>, memref<16x32x3x3xbf16>) outs(%y : memref<1x1x4x4x16xf32>)
      attrs = {amp.blocked_conv = array<i64: 2, 2, 1, 2>} {
  ^bb0(%a: bf16, %b: bf16, %acc: f32):
    %ae = arith.extf %a : bf16 to f32
    %be = arith.extf %b : bf16 to f32
    %m = arith.mulf %ae, %be : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  }
  return
}

// -----

#in = affine_map<(n, kb, p, q, ki, cb, ci, r, s) -> (n, cb, p * 2 + r, q * 2 + s * 2, ci)>
#filter = affine_map<(n, kb, p, q, ki, cb, ci, r, s) -> (kb * 16 + ki, cb * 16 + ci, r, s)>
#out = affine_map<(n, kb, p, q, ki, cb, ci, r, s) -> (n, kb, p, q, ki)>

// The attribute says stride 1, the maps stride 2; and a body that takes the
// maximum: neither is the convolution, both stay generics.
// CHECK-LABEL: func.func @not_blocked
// CHECK-NOT:     call
// CHECK-COUNT-2: linalg.generic
func.func @not_blocked(%x: memref<1x2x9x11x16xbf16>, %w: memref<16x32x3x3xbf16>, %y: memref<1x1x4x4x16xf32>) {
  // expected-remark @+1 {{amp-lower-to-runtime: left for the upstream lowering: not a runtime op}}
  linalg.generic {indexing_maps = [#in, #filter, #out],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction", "reduction"]}
      ins(%x, %w : memref<1x2x9x11x16xbf16>, memref<16x32x3x3xbf16>) outs(%y : memref<1x1x4x4x16xf32>)
      attrs = {amp.blocked_conv = array<i64: 1, 1, 1, 2>} {
  ^bb0(%a: bf16, %b: bf16, %acc: f32):
    %ae = arith.extf %a : bf16 to f32
    %be = arith.extf %b : bf16 to f32
    %m = arith.mulf %ae, %be : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  }
  // expected-remark @+1 {{amp-lower-to-runtime: left for the upstream lowering: not a runtime op}}
  linalg.generic {indexing_maps = [#in, #filter, #out],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction", "reduction"]}
      ins(%x, %w : memref<1x2x9x11x16xbf16>, memref<16x32x3x3xbf16>) outs(%y : memref<1x1x4x4x16xf32>)
      attrs = {amp.blocked_conv = array<i64: 2, 2, 1, 2>} {
  ^bb0(%a: bf16, %b: bf16, %acc: f32):
    %ae = arith.extf %a : bf16 to f32
    %be = arith.extf %b : bf16 to f32
    %m = arith.mulf %ae, %be : f32
    %s = arith.maximumf %acc, %m : f32
    linalg.yield %s : f32
  }
  return
}
