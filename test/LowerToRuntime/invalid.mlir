// A symbol that has the name of an entry point but another type is an
// error (a call to it would not verify).
// RUN: amp-opt %s --split-input-file --verify-diagnostics --amp-lower-to-runtime

// expected-error @below {{amp-lower-to-runtime: @amp_rt_matmul_f16_f32 is already defined, but not as the runtime entry point of type '(memref<?x?xf16, strided<[?, ?], offset: ?>>, memref<?x?xf16, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, i32, i32) -> ()'}}
func.func private @amp_rt_matmul_f16_f32(memref<8x16xf16>, memref<16x4xf16>, memref<8x4xf32>)

func.func @f(%a: memref<8x16xf16>, %b: memref<16x4xf16>, %c: memref<8x4xf32>) {
  linalg.matmul ins(%a, %b : memref<8x16xf16>, memref<16x4xf16>) outs(%c : memref<8x4xf32>)
  return
}

// -----

// A declaration of the right type is reused (here written by hand).
func.func private @amp_rt_matmul_f16_f32(memref<?x?xf16, strided<[?, ?], offset: ?>>, memref<?x?xf16, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, i32, i32) attributes {llvm.emit_c_interface}

func.func @g(%a: memref<8x16xf16>, %b: memref<16x4xf16>, %c: memref<8x4xf32>) {
  linalg.matmul ins(%a, %b : memref<8x16xf16>, memref<16x4xf16>) outs(%c : memref<8x4xf32>)
  return
}
