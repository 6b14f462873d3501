// RUN: amp-opt %s --amp-annotate-vector-loops=width=16 | FileCheck %s

// A loop that is already vector code (amp-vectorize-elementwise's chunks)
// gets no hint: LLVM cannot vectorize it again and warns when asked to.
// CHECK-LABEL: func.func @already_vector_code
// CHECK:         scf.for
// CHECK-NOT:     loop_annotation
// CHECK:         return
func.func @already_vector_code(%a: memref<512xf32>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c512 = arith.constant 512 : index
  scf.for %i = %c0 to %c512 step %c16 {
    %v = vector.load %a[%i] : memref<512xf32>, vector<16xf32>
    %n = arith.negf %v : vector<16xf32>
    vector.store %n, %a[%i] : memref<512xf32>, vector<16xf32>
  }
  return
}
