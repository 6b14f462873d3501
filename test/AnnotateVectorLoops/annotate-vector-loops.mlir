// amp-annotate-vector-loops asks LLVM for `width` lanes on every innermost
// scf.for with a static trip count of at least `width`, through the
// loop_annotation that convert-scf-to-cf and convert-cf-to-llvm carry to the
// back edge and the translation turns into !llvm.loop metadata.
// RUN: amp-opt %s --amp-annotate-vector-loops=width=16 | FileCheck %s
// RUN: amp-opt %s --amp-annotate-vector-loops=width=16 --convert-scf-to-cf \
// RUN:   --finalize-memref-to-llvm --convert-arith-to-llvm --convert-cf-to-llvm \
// RUN:   --convert-func-to-llvm --reconcile-unrealized-casts \
// RUN:   | mlir-translate --mlir-to-llvmir | FileCheck %s --check-prefix=LLVMIR
// LLVMIR-COUNT-2: br label %{{.*}}, !llvm.loop
// LLVMIR-NOT:     !llvm.loop
// LLVMIR-DAG:     !{!"llvm.loop.vectorize.enable", i1 true}
// LLVMIR-DAG:     !{!"llvm.loop.vectorize.width", i32 16}

// CHECK-DAG: #[[VEC:.+]] = #llvm.loop_vectorize<disable = false, width = 16 : i32>
// CHECK-DAG: #[[ANN:.+]] = #llvm.loop_annotation<vectorize = #[[VEC]]>

// CHECK-LABEL: func.func @nest
// The outer loop has a loop inside: no hint.
// CHECK:         scf.for
// CHECK:           scf.for
// CHECK:           } {loop_annotation = #[[ANN]]}
// CHECK-NEXT:    }
// CHECK-NEXT:    return
func.func @nest(%m: memref<64x256xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c256 = arith.constant 256 : index
  scf.for %i = %c0 to %c64 step %c1 {
    scf.for %j = %c0 to %c256 step %c1 {
      %v = memref.load %m[%i, %j] : memref<64x256xf32>
      %w = arith.addf %v, %v : f32
      memref.store %w, %m[%i, %j] : memref<64x256xf32>
    }
  }
  return
}

// An innermost row sum: hinted too (the hint lets LLVM reassociate it).
// CHECK-LABEL: func.func @row_sum
// CHECK:         scf.for
// CHECK:         } {loop_annotation = #[[ANN]]}
func.func @row_sum(%m: memref<128xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  %zero = arith.constant 0.0 : f32
  %s = scf.for %i = %c0 to %c128 step %c1 iter_args(%acc = %zero) -> f32 {
    %v = memref.load %m[%i] : memref<128xf32>
    %t = arith.addf %acc, %v : f32
    scf.yield %t : f32
  }
  return %s : f32
}

// Fewer iterations than lanes, or an unknown trip count: no hint.
// CHECK-LABEL: func.func @short_and_dynamic
// CHECK-NOT:     loop_annotation
// CHECK:         return
func.func @short_and_dynamic(%m: memref<?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  scf.for %i = %c0 to %c8 step %c1 {
    %v = memref.load %m[%i] : memref<?xf32>
    memref.store %v, %m[%i] : memref<?xf32>
  }
  scf.for %i = %c0 to %n step %c1 {
    %v = memref.load %m[%i] : memref<?xf32>
    memref.store %v, %m[%i] : memref<?xf32>
  }
  return
}
