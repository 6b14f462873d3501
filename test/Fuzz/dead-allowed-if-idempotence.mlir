// Bug found by the fuzzer (tools/amp-fuzz, seed 40496780 with its batch's
// configuration; shrunk), open: with scf.if on the allow list,
// keep-public-signatures=false and no cast economy, an unused scf.if that
// forwards a public argument, next to an f32 fill read only through a bf16
// round trip, is painted differently by a second run: the fill's
// tensor.empty turns f16. Found at the end of the 2026-11-26 session
// (docs/fuzzing.md, "Known bugs").
// Cause, as far as seen: on the first run the f32 -> bf16 -> f32 round trip
// of the fill separates the allowed (low) fill from the clear
// tensor.extract, which stays f32; the separate cleanup then folds the round
// trip of the constant fill away, and on the second run the extract (and
// the cmpf after it) are clear neighbours of the low fill and go low. The
// same class as seed 4058304 (extension-into-body-idempotence.mlir), fixed
// for the pass's own cleanup by cleaning the input before painting; without
// its own cleanup (optimize-casts=false) the pass paints the input as is.
// XFAIL: *
//
// RUN: amp-opt %s '--amp-auto-mixed-precision=mode=f16 allow-add=scf.if,linalg.fill,linalg.negf clear-remove=linalg.fill,arith.maximumf,linalg.negf infer-add=arith.maximumf cast-economy=false keep-public-signatures=false' --amp-optimize-casts -o %t.1.mlir
// RUN: amp-opt %t.1.mlir '--amp-auto-mixed-precision=mode=f16 allow-add=scf.if,linalg.fill,linalg.negf clear-remove=linalg.fill,arith.maximumf,linalg.negf infer-add=arith.maximumf cast-economy=false keep-public-signatures=false' --amp-optimize-casts -o %t.2.mlir
// RUN: diff %t.1.mlir %t.2.mlir

func.func @f1(%a94: tensor<1xf32>) -> tensor<1xf16> {
  %v73 = tensor.empty() : tensor<1xf32>
  %s74 = arith.constant 0.0 : f32
  %v75 = linalg.fill ins(%s74 : f32) outs(%v73 : tensor<1xf32>) -> tensor<1xf32>
  %v88 = arith.truncf %v75 : tensor<1xf32> to tensor<1xbf16>
  %v89 = arith.extf %v88 : tensor<1xbf16> to tensor<1xf32>
  %c90 = arith.constant 0 : index
  %s91 = tensor.extract %v89[%c90] : tensor<1xf32>
  %s92 = arith.constant 0.0 : f32
  %s93 = arith.cmpf ogt, %s91, %s92 : f32
  %v119 = scf.if %s93 -> (tensor<1xf32>) {
    scf.yield %a94 : tensor<1xf32>
  } else {
    scf.yield %a94 : tensor<1xf32>
  }
  %v123 = arith.constant dense<0.5> : tensor<1xf16>
  return %v123 : tensor<1xf16>
}
