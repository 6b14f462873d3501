// Bug found by the fuzzer (tools/amp-fuzz, seed 361 config 0 and seed 35
// config 0, shrunk): amp-auto-mixed-precision run again over the output of
// `amp-auto-mixed-precision, amp-pad-for-tensor-cores` is not idempotent.
// After padding, the contraction's f32 result reaches its users through a
// `tensor.extract_slice` (clear); the second run paints that slice (and the
// clear ops after it) low and inserts an `arith.truncf` of the *padded*
// f32 accumulator, where the first run kept them f32. Seen so far only when
// the clear ops' results are dead (unused); returned results are stable.
// docs/passes.md promises idempotence "with amp-pad-for-tensor-cores after it".
// Fixed: a slice of an f32 accumulator is transparent to the painting (it
// stays f32, its users see the contraction), and ops whose results are
// unused follow their operands instead of being painted (PrecisionPainting).
//
// RUN: amp-opt %s --amp --amp-pad-for-tensor-cores=multiple=2 -o %t.1.mlir
// RUN: amp-opt %t.1.mlir --amp --amp-pad-for-tensor-cores=multiple=2 -o %t.2.mlir
// RUN: diff %t.1.mlir %t.2.mlir
//
// Same with cast-economy=false, and a contraction result nobody uses:
// RUN: amp-opt %S/Inputs/pad-idempotence-dead.mlir --amp=cast-economy=false --amp-pad-for-tensor-cores=multiple=4 -o %t.3.mlir
// RUN: amp-opt %t.3.mlir --amp=cast-economy=false --amp-pad-for-tensor-cores=multiple=4 -o %t.4.mlir
// RUN: diff %t.3.mlir %t.4.mlir

func.func @f(%x: tensor<5x2xf32>, %w: tensor<2x2xf32>, %acc: tensor<5x2xf32>) {
  %m = linalg.matmul ins(%x, %w : tensor<5x2xf32>, tensor<2x2xf32>) outs(%acc : tensor<5x2xf32>) -> tensor<5x2xf32>
  %a = math.absf %m : tensor<5x2xf32>
  return
}
