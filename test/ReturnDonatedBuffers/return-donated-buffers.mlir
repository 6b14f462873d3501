// RUN: amp-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(amp-return-donated-buffers))' | FileCheck %s

// amp-return-donated-buffers: the buffer deallocation pipeline returns a
// clone of an argument the function updated in place (it does not own its
// arguments); a donated argument is returned as it is instead.

// CHECK-LABEL: func.func @donated
// CHECK-SAME: (%[[W:.+]]: memref<16xf32> {amp.donated}, %[[V:.+]]: memref<16xf32>)
// CHECK-NOT: bufferization.clone %[[W]]
// CHECK: %[[C:.+]] = bufferization.clone %[[V]]
// CHECK: return %[[W]], %[[C]] :
func.func @donated(%w: memref<16xf32> {amp.donated}, %v: memref<16xf32>)
    -> (memref<16xf32>, memref<16xf32>) {
  %cst = arith.constant 1.0 : f32
  linalg.fill ins(%cst : f32) outs(%w : memref<16xf32>)
  %0 = bufferization.clone %w : memref<16xf32> to memref<16xf32>
  %1 = bufferization.clone %v : memref<16xf32> to memref<16xf32>
  return %0, %1 : memref<16xf32>, memref<16xf32>
}

// -----

// A clone that is also written (or read) before it is returned stays: the
// function relies on it being a separate buffer.
// CHECK-LABEL: func.func @other_use
// CHECK: %[[C:.+]] = bufferization.clone %arg0
// CHECK: linalg.fill {{.*}} outs(%[[C]]
// CHECK: return %[[C]] :
func.func @other_use(%w: memref<16xf32> {amp.donated}) -> memref<16xf32> {
  %cst = arith.constant 1.0 : f32
  %0 = bufferization.clone %w : memref<16xf32> to memref<16xf32>
  linalg.fill ins(%cst : f32) outs(%0 : memref<16xf32>)
  return %0 : memref<16xf32>
}
