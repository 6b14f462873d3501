// The rounding of a contraction's f32 result into a buffer of the input type
// is folded into the runtime call: the `_bf16_bf16_overwrite` entry point
// accumulates in f32 and rounds once as it stores, so the f32 buffer and the
// pass over it go. A rounded buffer used between the call and the rounding,
// or that is (a view of) an input of the call, is replaced by a fresh one
// from the rounding on. Kept apart: an f32 result read by anything else, a
// rounded buffer read after the rounding through a view made before it, a
// rounding with another rounding mode, and an accumulating call (no zero
// fill).
// RUN: amp-opt %s --amp-lower-to-runtime | FileCheck %s

#id = affine_map<(d0, d1) -> (d0, d1)>

// CHECK-LABEL: func.func @folded
// CHECK-SAME:    (%[[A:.*]]: memref<8x16xbf16>, %[[B:.*]]: memref<16x4xbf16>)
// CHECK-NOT:     memref.alloc() {{.*}}: memref<8x4xf32>
// CHECK:         %[[D:.+]] = memref.alloc() : memref<8x4xbf16>
// CHECK:         %[[DC:.+]] = memref.cast %[[D]] : memref<8x4xbf16> to memref<?x?xbf16, strided<[?, ?], offset: ?>>
// CHECK:         call @amp_rt_matmul_bf16_bf16_overwrite(%{{.*}}, %{{.*}}, %[[DC]], %{{.*}}, %{{.*}})
// CHECK-NOT:     linalg.generic
// CHECK-NOT:     xf32>
// CHECK:         return %[[D]] : memref<8x4xbf16>
func.func @folded(%a: memref<8x16xbf16>, %b: memref<16x4xbf16>) -> memref<8x4xbf16> {
  %zero = arith.constant 0.0 : f32
  %c = memref.alloc() : memref<8x4xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<8x4xf32>)
  linalg.matmul ins(%a, %b : memref<8x16xbf16>, memref<16x4xbf16>)
                outs(%c : memref<8x4xf32>)
  %d = memref.alloc() : memref<8x4xbf16>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
    ins(%c : memref<8x4xf32>) outs(%d : memref<8x4xbf16>) {
  ^bb0(%x: f32, %o: bf16):
    %t = arith.truncf %x : f32 to bf16
    linalg.yield %t : bf16
  }
  return %d : memref<8x4xbf16>
}

// The f32 result is also returned: the rounding stays.
// CHECK-LABEL: func.func @f32_result_read_elsewhere
// CHECK:         call @amp_rt_matmul_bf16_f32_overwrite(
// CHECK:         linalg.generic
// CHECK:           arith.truncf
func.func @f32_result_read_elsewhere(%a: memref<8x16xbf16>, %b: memref<16x4xbf16>) -> (memref<8x4xbf16>, memref<8x4xf32>) {
  %zero = arith.constant 0.0 : f32
  %c = memref.alloc() : memref<8x4xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<8x4xf32>)
  linalg.matmul ins(%a, %b : memref<8x16xbf16>, memref<16x4xbf16>)
                outs(%c : memref<8x4xf32>)
  %d = memref.alloc() : memref<8x4xbf16>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
    ins(%c : memref<8x4xf32>) outs(%d : memref<8x4xbf16>) {
  ^bb0(%x: f32, %o: bf16):
    %t = arith.truncf %x : f32 to bf16
    linalg.yield %t : bf16
  }
  return %d, %c : memref<8x4xbf16>, memref<8x4xf32>
}

// The rounded buffer is written between the call and the rounding, so the
// call cannot store into it: it stores into a fresh buffer, which the
// function returns; the fill writes the old one.
// CHECK-LABEL: func.func @rounded_buffer_used_between
// CHECK:         %[[OLD:.*]] = memref.alloc() : memref<2x8x4xbf16>
// CHECK:         %[[FRESH:.*]] = memref.alloc() : memref<2x8x4xbf16>
// CHECK:         %[[CAST:.*]] = memref.cast %[[FRESH]]
// CHECK:         call @amp_rt_batch_matmul_bf16_bf16_overwrite(%{{.*}}, %{{.*}}, %[[CAST]],
// CHECK:         linalg.fill ins(%{{.*}} : bf16) outs(%[[OLD]] : memref<2x8x4xbf16>)
// CHECK-NOT:     linalg.generic
// CHECK:         return %[[FRESH]] : memref<2x8x4xbf16>
func.func @rounded_buffer_used_between(%a: memref<2x8x16xbf16>, %b: memref<2x16x4xbf16>) -> memref<2x8x4xbf16> {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : bf16
  %d = memref.alloc() : memref<2x8x4xbf16>
  %c = memref.alloc() : memref<2x8x4xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<2x8x4xf32>)
  linalg.batch_matmul ins(%a, %b : memref<2x8x16xbf16>, memref<2x16x4xbf16>)
                      outs(%c : memref<2x8x4xf32>)
  linalg.fill ins(%one : bf16) outs(%d : memref<2x8x4xbf16>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
    ins(%c : memref<2x8x4xf32>) outs(%d : memref<2x8x4xbf16>) {
  ^bb0(%x: f32, %o: bf16):
    %t = arith.truncf %x : f32 to bf16
    linalg.yield %t : bf16
  }
  return %d : memref<2x8x4xbf16>
}

// Rounding toward zero is not what the library does; an accumulating call
// (no zero fill) reads its f32 output. Both keep the rounding.
// CHECK-LABEL: func.func @other_rounding_and_accumulation
// CHECK:         call @amp_rt_matmul_bf16_f32_overwrite(
// CHECK:         arith.truncf %{{.*}} toward_zero
// CHECK:         call @amp_rt_matmul_bf16_f32(
// CHECK:         linalg.generic
func.func @other_rounding_and_accumulation(%a: memref<8x16xbf16>, %b: memref<16x4xbf16>, %acc: memref<8x4xf32>) -> (memref<8x4xbf16>, memref<8x4xbf16>) {
  %zero = arith.constant 0.0 : f32
  %c = memref.alloc() : memref<8x4xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<8x4xf32>)
  linalg.matmul ins(%a, %b : memref<8x16xbf16>, memref<16x4xbf16>)
                outs(%c : memref<8x4xf32>)
  %d = memref.alloc() : memref<8x4xbf16>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
    ins(%c : memref<8x4xf32>) outs(%d : memref<8x4xbf16>) {
  ^bb0(%x: f32, %o: bf16):
    %t = arith.truncf %x toward_zero : f32 to bf16
    linalg.yield %t : bf16
  }
  %c2 = memref.alloc() : memref<8x4xf32>
  memref.copy %acc, %c2 : memref<8x4xf32> to memref<8x4xf32>
  linalg.matmul ins(%a, %b : memref<8x16xbf16>, memref<16x4xbf16>)
                outs(%c2 : memref<8x4xf32>)
  %d2 = memref.alloc() : memref<8x4xbf16>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
    ins(%c2 : memref<8x4xf32>) outs(%d2 : memref<8x4xbf16>) {
  ^bb0(%x: f32, %o: bf16):
    %t = arith.truncf %x : f32 to bf16
    linalg.yield %t : bf16
  }
  return %d, %d2 : memref<8x4xbf16>, memref<8x4xbf16>
}

// Bufferization gave the rounding the buffer of the contraction's own input
// (dead after it): the library must not overwrite A while it reads it, so
// it stores into a fresh buffer, directly and where the call reads a view of
// A (the view has no use past the rounding).
// CHECK-LABEL: func.func @rounded_buffer_is_an_input
// CHECK:         %[[A:.*]] = memref.alloc() : memref<8x16xbf16>
// CHECK:         %[[ACAST:.*]] = memref.cast %[[A]]
// CHECK:         %[[D:.*]] = memref.alloc() : memref<8x16xbf16>
// CHECK:         %[[DCAST:.*]] = memref.cast %[[D]]
// CHECK:         call @amp_rt_matmul_bf16_bf16_overwrite(%[[ACAST]], %{{.*}}, %[[DCAST]],
// CHECK:         %[[A2:.*]] = memref.alloc() : memref<8x16xbf16>
// CHECK:         %[[VIEW:.*]] = memref.subview %[[A2]]
// CHECK:         %[[VCAST:.*]] = memref.cast %[[VIEW]]
// CHECK:         %[[D2:.*]] = memref.alloc() : memref<8x16xbf16>
// CHECK:         %[[D2CAST:.*]] = memref.cast %[[D2]]
// CHECK:         call @amp_rt_matmul_bf16_bf16_overwrite(%[[VCAST]], %{{.*}}, %[[D2CAST]],
// CHECK-NOT:     linalg.generic
// CHECK:         return %[[D]], %[[D2]] : memref<8x16xbf16>, memref<8x16xbf16>
func.func @rounded_buffer_is_an_input(%b: memref<16x16xbf16>) -> (memref<8x16xbf16>, memref<8x16xbf16>) {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : bf16
  %a = memref.alloc() : memref<8x16xbf16>
  linalg.fill ins(%one : bf16) outs(%a : memref<8x16xbf16>)
  %c = memref.alloc() : memref<8x16xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<8x16xf32>)
  linalg.matmul ins(%a, %b : memref<8x16xbf16>, memref<16x16xbf16>)
                outs(%c : memref<8x16xf32>)
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
    ins(%c : memref<8x16xf32>) outs(%a : memref<8x16xbf16>) {
  ^bb0(%x: f32, %o: bf16):
    %t = arith.truncf %x : f32 to bf16
    linalg.yield %t : bf16
  }
  %a2 = memref.alloc() : memref<8x16xbf16>
  linalg.fill ins(%one : bf16) outs(%a2 : memref<8x16xbf16>)
  %view = memref.subview %a2[0, 0] [8, 16] [1, 1] : memref<8x16xbf16> to memref<8x16xbf16, strided<[16, 1]>>
  %c2 = memref.alloc() : memref<8x16xf32>
  linalg.fill ins(%zero : f32) outs(%c2 : memref<8x16xf32>)
  linalg.matmul ins(%view, %b : memref<8x16xbf16, strided<[16, 1]>>, memref<16x16xbf16>)
                outs(%c2 : memref<8x16xf32>)
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
    ins(%c2 : memref<8x16xf32>) outs(%a2 : memref<8x16xbf16>) {
  ^bb0(%x: f32, %o: bf16):
    %t = arith.truncf %x : f32 to bf16
    linalg.yield %t : bf16
  }
  return %a, %a2 : memref<8x16xbf16>, memref<8x16xbf16>
}

// The rounding writes the buffer of A, and the function returns it through
// a view made before the call: a fresh buffer would leave that view on the
// old contents, so the rounding stays.
// CHECK-LABEL: func.func @early_view_read_after_rounding
// CHECK:         call @amp_rt_matmul_bf16_f32_overwrite(
// CHECK:         linalg.generic
// CHECK:           arith.truncf
// CHECK-NOT:     _bf16_bf16_overwrite
func.func @early_view_read_after_rounding(%b: memref<16x16xbf16>) -> memref<128xbf16> {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : bf16
  %a = memref.alloc() : memref<8x16xbf16>
  %flat = memref.collapse_shape %a [[0, 1]] : memref<8x16xbf16> into memref<128xbf16>
  linalg.fill ins(%one : bf16) outs(%a : memref<8x16xbf16>)
  %c = memref.alloc() : memref<8x16xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<8x16xf32>)
  linalg.matmul ins(%a, %b : memref<8x16xbf16>, memref<16x16xbf16>)
                outs(%c : memref<8x16xf32>)
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
    ins(%c : memref<8x16xf32>) outs(%a : memref<8x16xbf16>) {
  ^bb0(%x: f32, %o: bf16):
    %t = arith.truncf %x : f32 to bf16
    linalg.yield %t : bf16
  }
  return %flat : memref<128xbf16>
}
