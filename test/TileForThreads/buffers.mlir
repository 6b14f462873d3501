// amp-tile-for-threads{buffers=true}, after bufferization: linalg ops on
// memrefs and the big static memref.copy ops (as linalg.copy) are split
// into num-threads chunks; small copies, dynamic ones, ops already in a
// forall and library convolutions stay.
// RUN: amp-opt %s --split-input-file --amp-tile-for-threads='buffers=true num-threads=2 min-iterations=64' | FileCheck %s
// Without buffers=true the pass leaves ops on memrefs alone.
// RUN: amp-opt %s --split-input-file --amp-tile-for-threads='num-threads=2 min-iterations=64' | FileCheck %s --check-prefix=TENSORS
// TENSORS-NOT: scf.forall

// A strided copy (a stride-2 slice, as torch-mlir's max-pooling backward
// writes): two chunks of linalg.copy on subviews.
// CHECK-LABEL: func.func @strided_copy
// CHECK-SAME:    (%[[SRC:.+]]: memref<8x4x6x6xf32>, %[[BIG:.+]]: memref<8x4x6x12xf32>)
// CHECK:         %[[DST:.+]] = memref.subview %[[BIG]][0, 0, 0, 1] [8, 4, 6, 6] [1, 1, 1, 2]
// CHECK:         scf.forall (%[[I:.+]]) in (2) {
// CHECK:           %[[S:.+]] = memref.subview %[[SRC]][%{{.+}}, 0, 0, 0] [4, 4, 6, 6] [1, 1, 1, 1]
// CHECK:           %[[D:.+]] = memref.subview %[[DST]][%{{.+}}, 0, 0, 0] [4, 4, 6, 6] [1, 1, 1, 1]
// CHECK:           linalg.copy ins(%[[S]] : {{.+}}) outs(%[[D]] : {{.+}})
// CHECK:         }
// CHECK-NOT:     memref.copy
func.func @strided_copy(%src: memref<8x4x6x6xf32>, %big: memref<8x4x6x12xf32>) {
  %dst = memref.subview %big[0, 0, 0, 1] [8, 4, 6, 6] [1, 1, 1, 2]
    : memref<8x4x6x12xf32> to memref<8x4x6x6xf32, strided<[288, 72, 12, 2], offset: 1>>
  memref.copy %src, %dst : memref<8x4x6x6xf32> to memref<8x4x6x6xf32, strided<[288, 72, 12, 2], offset: 1>>
  return
}

// -----

// Below min-iterations, or dynamic: memref.copy stays.
// CHECK-LABEL: func.func @small_and_dynamic
// CHECK-NOT:     scf.forall
// CHECK:         memref.copy %{{.+}}, %{{.+}} : memref<4x8xf32> to memref<4x8xf32>
// CHECK:         memref.copy %{{.+}}, %{{.+}} : memref<?x64xf32> to memref<?x64xf32>
func.func @small_and_dynamic(%a: memref<4x8xf32>, %b: memref<4x8xf32>, %c: memref<?x64xf32>, %d: memref<?x64xf32>) {
  memref.copy %a, %b : memref<4x8xf32> to memref<4x8xf32>
  memref.copy %c, %d : memref<?x64xf32> to memref<?x64xf32>
  return
}

// -----

// A fill left whole (its library call could not overwrite) and a max
// pooling (a window reduction without a product: no library call) are
// split; the convolution is libamp_rt's and stays whole.
// CHECK-LABEL: func.func @fill_pool_conv
// CHECK:         scf.forall (%{{.+}}) in (2) {
// CHECK:           linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : memref<4x4x5x5xf32, strided<[100, 25, 5, 1], offset: ?>>)
// CHECK:         }
// CHECK:         scf.forall (%{{.+}}) in (2) {
// CHECK:           linalg.pooling_nchw_max {{.+}} outs(%{{.+}} : memref<4x4x5x5xf32, strided<[100, 25, 5, 1], offset: ?>>)
// CHECK:         }
// CHECK:         linalg.conv_2d_nchw_fchw {{.+}} outs(%{{.+}} : memref<8x4x5x5xf32>)
// CHECK-NOT:     scf.forall
func.func @fill_pool_conv(%x: memref<8x4x11x11xf32>, %w: memref<3x3xf32>, %o: memref<8x4x5x5xf32>,
                          %f: memref<4x4x3x3xf32>, %y: memref<8x4x5x5xf32>) {
  %ninf = arith.constant 0xFF800000 : f32
  linalg.fill ins(%ninf : f32) outs(%o : memref<8x4x5x5xf32>)
  linalg.pooling_nchw_max {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>}
    ins(%x, %w : memref<8x4x11x11xf32>, memref<3x3xf32>) outs(%o : memref<8x4x5x5xf32>)
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>}
    ins(%x, %f : memref<8x4x11x11xf32>, memref<4x4x3x3xf32>) outs(%y : memref<8x4x5x5xf32>)
  return
}
