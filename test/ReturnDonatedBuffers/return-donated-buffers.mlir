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

// -----

// The deallocation pipeline retains every returned value in the dealloc of
// the buffers the function owns; retaining the argument instead of its
// clone keeps the same buffers alive, so the clone goes (the result train
// steps return their updated params with).
// CHECK-LABEL: func.func @retained
// CHECK-SAME: (%[[W:.+]]: memref<16xf32> {amp.donated}, %[[B:.+]]: memref<16xf32>, %[[C:.+]]: i1)
// CHECK-NOT: bufferization.clone
// CHECK: bufferization.dealloc (%[[B]] : memref<16xf32>) if (%[[C]]) retain (%[[W]] : memref<16xf32>)
// CHECK: return %[[W]] :
func.func @retained(%w: memref<16xf32> {amp.donated}, %b: memref<16xf32>,
                    %c: i1) -> memref<16xf32> {
  %cst = arith.constant 1.0 : f32
  linalg.fill ins(%cst : f32) outs(%w : memref<16xf32>)
  %0 = bufferization.clone %w : memref<16xf32> to memref<16xf32>
  %1 = bufferization.dealloc (%b : memref<16xf32>) if (%c) retain (%0 : memref<16xf32>)
  return %0 : memref<16xf32>
}

// -----

// A dealloc that may free the clone, or whose ownership of it is read,
// needs the separate buffer: the clone stays.
// CHECK-LABEL: func.func @ownership_read
// CHECK: %[[C0:.+]] = bufferization.clone %arg0
// CHECK: %[[O:.+]] = bufferization.dealloc ({{.*}}) if ({{.*}}) retain (%[[C0]] : memref<16xf32>)
// CHECK: return %[[C0]], %[[O]] :
func.func @ownership_read(%w: memref<16xf32> {amp.donated}, %b: memref<16xf32>,
                          %c: i1) -> (memref<16xf32>, i1) {
  %0 = bufferization.clone %w : memref<16xf32> to memref<16xf32>
  %1 = bufferization.dealloc (%b : memref<16xf32>) if (%c) retain (%0 : memref<16xf32>)
  return %0, %1 : memref<16xf32>, i1
}

// CHECK-LABEL: func.func @freed
// CHECK: %[[C1:.+]] = bufferization.clone %arg0
// CHECK: bufferization.dealloc (%[[C1]] : memref<16xf32>)
// CHECK: return %[[C1]] :
func.func @freed(%w: memref<16xf32> {amp.donated}, %c: i1) -> memref<16xf32> {
  %0 = bufferization.clone %w : memref<16xf32> to memref<16xf32>
  bufferization.dealloc (%0 : memref<16xf32>) if (%c)
  return %0 : memref<16xf32>
}
