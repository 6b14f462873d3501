// Bug found by the fuzzer (tools/amp-fuzz, seed 919116 config 0, shrunk):
// a splat constant is both a matmul's f32 accumulator and an input of an
// allow-listed elementwise generic. The first run reads it wide (f32) in
// the generic: the f32 constant exists anyway, and a rounding read back
// wide is skipped (ReadRoundingsWide). After amp-pad-for-tensor-cores the
// constant reaches the matmul through a tensor.pad, the (large) matmul sat
// between the constant's last other reader and the generic, and the second
// run kept a rounding of the constant: not idempotent. Fixed: a constant,
// like a block argument, lives all along, so reading it wide never
// lengthens a live range.
//
// RUN: amp-opt %s '--amp-auto-mixed-precision=mode=f16 allow-add=linalg.generic:elementwise level=tensor-cores-only' --amp-pad-for-tensor-cores=multiple=2 -o %t.1.mlir 2> /dev/null
// RUN: amp-opt %t.1.mlir '--amp-auto-mixed-precision=mode=f16 allow-add=linalg.generic:elementwise level=tensor-cores-only' --amp-pad-for-tensor-cores=multiple=2 -o %t.2.mlir 2> /dev/null
// RUN: diff %t.1.mlir %t.2.mlir
// RUN: FileCheck %s < %t.2.mlir

// CHECK-LABEL: func.func @f(
// CHECK-NOT:     arith.truncf %cst :
// CHECK:         %[[CST:.*]] = arith.constant dense<0.000000e+00> : tensor<61x7xf32>
// CHECK:         linalg.matmul ins({{.*}} : tensor<62x24xf16>, tensor<24x8xf16>) outs({{.*}} : tensor<62x8xf32>)
// CHECK:         %[[G:.*]] = linalg.generic {{.*}} ins(%{{.*}}, %[[CST]] : tensor<61x7xf32>, tensor<61x7xf32>) outs(%{{.*}} : tensor<61x7xf32>)
// The generic's result is only extended back for the program's own
// rounding to bf16: it is yielded f32 (ReadRoundingsWide), no f16 step.
// CHECK:         arith.truncf %[[G]] : tensor<61x7xf32> to tensor<61x7xbf16>

func.func @f(%a: tensor<61x23xf32>, %b: tensor<23x7xf32>) -> tensor<61x7xbf16> {
  %c = arith.constant dense<0.0> : tensor<61x7xf32>
  %m = linalg.matmul ins(%a, %b : tensor<61x23xf32>, tensor<23x7xf32>) outs(%c : tensor<61x7xf32>) -> tensor<61x7xf32>
  %e = tensor.empty() : tensor<61x7xf32>
  %g = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%m, %c : tensor<61x7xf32>, tensor<61x7xf32>) outs(%e : tensor<61x7xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.subf %y, %x : f32
    linalg.yield %s : f32
  } -> tensor<61x7xf32>
  %t = arith.truncf %g : tensor<61x7xf32> to tensor<61x7xbf16>
  return %t : tensor<61x7xbf16>
}
