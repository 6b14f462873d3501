// Bug found by the fuzzer (tools/amp-fuzz, seed 30005677 with its batch's
// configuration; shrunk), present since the separate cleanup exists:
// amp-auto-mixed-precision without its own cleanup, then amp-optimize-casts,
// was not idempotent. The allow-listed fill is painted f16 for a dead cast
// chain; the cleanup folds extf(fill f16) into a new f32 fill, then erases
// the dead chain, and the new fill stayed, unused. The second run painted
// that unused fill f16. The cleanup now erases the fills, empty tensors and
// constants it created that end up unused.
//
// RUN: amp-opt %s --amp-auto-mixed-precision='mode=f16 allow-add=linalg.fill clear-remove=linalg.fill' --amp-optimize-casts -o %t.1.mlir
// RUN: amp-opt %t.1.mlir --amp-auto-mixed-precision='mode=f16 allow-add=linalg.fill clear-remove=linalg.fill' --amp-optimize-casts -o %t.2.mlir
// RUN: diff %t.1.mlir %t.2.mlir
// RUN: FileCheck %s --input-file %t.1.mlir
// CHECK-LABEL: func.func @f1
// CHECK-NOT:   linalg.fill
// CHECK:       return

func.func @f1() -> tensor<1x1xf32> {
  %v26 = tensor.empty() : tensor<1x1xf32>
  %s27 = arith.constant 0.0 : f32
  %v28 = linalg.fill ins(%s27 : f32) outs(%v26 : tensor<1x1xf32>) -> tensor<1x1xf32>
  %v36 = arith.truncf %v28 : tensor<1x1xf32> to tensor<1x1xbf16>
  %v37 = arith.extf %v36 : tensor<1x1xbf16> to tensor<1x1xf32>
  %v48 = arith.constant dense<0.5> : tensor<1x1xf32>
  return %v48 : tensor<1x1xf32>
}
