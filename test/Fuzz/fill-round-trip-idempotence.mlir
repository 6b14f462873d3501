// Bug found by the fuzzer (tools/amp-fuzz run --batch, seeds 3040694,
// 4032543 and 4032662, this one shrunk): with linalg.fill on the allow list
// and keep-public-signatures=false, an allow-listed fill read through an
// f16 round trip (truncf, extf) by a tensor.pad was painted bf16 on the
// first run while the pad, reading the f32 extension, stayed f32; the cast
// cleanup then folded the round trip of the zero fill away, and the second
// run saw the fill feed the pad directly and painted the pad, and the
// function's result, bf16. Fixed: with the cast cleanup on,
// amp-auto-mixed-precision runs the cleanup on its input first, so both
// runs paint the same program.
//
// RUN: amp-opt %s '--amp-auto-mixed-precision=mode=bf16 allow-add=linalg.fill clear-remove=linalg.fill deny-add=linalg.generic:elementwise cast-economy=false optimize-casts=true keep-public-signatures=false' -o %t.1.mlir
// RUN: amp-opt %t.1.mlir '--amp-auto-mixed-precision=mode=bf16 allow-add=linalg.fill clear-remove=linalg.fill deny-add=linalg.generic:elementwise cast-economy=false optimize-casts=true keep-public-signatures=false' -o %t.2.mlir
// RUN: diff %t.1.mlir %t.2.mlir
// RUN: FileCheck %s < %t.1.mlir
// The round trip is gone and the fill, the pad and the result are painted
// once and for all (bf16: the allow-listed fill makes them low).
// CHECK-LABEL: func.func @f1() -> tensor<43x5xbf16>
// CHECK-NOT:     arith.truncf
// CHECK-NOT:     arith.extf
// CHECK:         linalg.fill ins(%{{.+}} : bf16) outs(%{{.+}} : tensor<41x3xbf16>)
// CHECK:         tensor.pad
// CHECK:         return %{{.+}} : tensor<43x5xbf16>

module {
func.func @f1() -> tensor<43x5xf32> {
  %v88 = tensor.empty() : tensor<41x3xf32>
  %s89 = arith.constant 0.0 : f32
  %v90 = linalg.fill ins(%s89 : f32) outs(%v88 : tensor<41x3xf32>) -> tensor<41x3xf32>
  %v102 = arith.truncf %v90 : tensor<41x3xf32> to tensor<41x3xf16>
  %v103 = arith.extf %v102 : tensor<41x3xf16> to tensor<41x3xf32>
  %s105 = arith.constant 0.0 : f32
  %v104 = tensor.pad %v103 low[2, 0] high[0, 2] {
  ^bb0(%i106: index, %i107: index):
    tensor.yield %s105 : f32
  } : tensor<41x3xf32> to tensor<43x5xf32>
  return %v104 : tensor<43x5xf32>
}
}
