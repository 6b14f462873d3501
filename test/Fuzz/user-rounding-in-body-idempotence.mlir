// Bug found by the fuzzer (tools/amp-fuzz, seed 70014309 config 0, shrunk):
// the program rounds a generic's f32 result to bf16 and back itself. The
// cast cleanup that runs before the painting moves that rounding into the
// generic's body (it yields bf16), the painting retypes the generic, and
// ReadRoundingsWide's yield rewrite, which drops the rounding a low
// elementwise op does on yield when its readers only extend it, dropped
// the program's own rounding: the output lost the bf16 round trip, and a
// second run (which no longer saw it) painted differently. Fixed: only the
// truncations the retyping added at a yield are candidates.
//
// RUN: amp-opt %s '--amp-auto-mixed-precision=mode=f16 allow-add=linalg.generic:elementwise optimize-casts=true' -o %t.1.mlir
// RUN: amp-opt %t.1.mlir '--amp-auto-mixed-precision=mode=f16 allow-add=linalg.generic:elementwise optimize-casts=true' -o %t.2.mlir
// RUN: diff %t.1.mlir %t.2.mlir
// RUN: FileCheck %s < %t.1.mlir

// CHECK-LABEL: func.func @f(
// CHECK:         %[[MV:.*]] = linalg.matvec ins(%{{.*}}, %{{.*}} : tensor<4x3xf16>, tensor<3xf16>) outs(%{{.*}} : tensor<4xf32>)
// CHECK:         %[[NEG:.*]] = linalg.generic {{.*}} ins(%[[MV]] : tensor<4xf32>) outs(%{{.*}} : tensor<4xbf16>)
// CHECK:           %[[R:.*]] = arith.truncf %{{.*}} : f32 to bf16
// CHECK-NEXT:      linalg.yield %[[R]] : bf16
// CHECK:         %[[W:.*]] = arith.extf %[[NEG]] : tensor<4xbf16> to tensor<4xf32>
// CHECK:         linalg.min ins(%[[W]], %[[W]] : tensor<4xf32>, tensor<4xf32>)
func.func @f(%a: tensor<4x3xf32>, %v: tensor<3xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %zero = arith.constant 0.0 : f32
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %mv = linalg.matvec ins(%a, %v : tensor<4x3xf32>, tensor<3xf32>) outs(%z : tensor<4xf32>) -> tensor<4xf32>
  %neg = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%mv : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %0 = arith.negf %x : f32
    linalg.yield %0 : f32
  } -> tensor<4xf32>
  %r = arith.truncf %neg : tensor<4xf32> to tensor<4xbf16>
  %w = arith.extf %r : tensor<4xbf16> to tensor<4xf32>
  %m = linalg.min ins(%w, %w : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  return %m : tensor<4xf32>
}
