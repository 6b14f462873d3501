// --amp runs amp-check-master-weights and amp-strip-markers on the module
// itself, not nested per function (a nested pipeline would cost a
// verification of the module after it): every function is checked, the
// diagnostics come in the functions' order, threads or not
// (test/StripMarkers/per-function.mlir: the stripping).
// RUN: not amp-opt %s --amp --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=PIPE
// RUN: not amp-opt %s --amp -o /dev/null 2>&1 | FileCheck %s --check-prefix=DIAG
// RUN: not amp-opt %s --amp --mlir-disable-threading -o /dev/null 2>&1 | FileCheck %s --check-prefix=DIAG

// PIPE:      amp-auto-mixed-precision
// PIPE-NOT:  any(
// PIPE:      amp-check-master-weights,
// PIPE-NEXT: amp-loss-scaling
// PIPE:      amp-strip-markers
// PIPE-NOT:  any(

// DIAG: error: weight %arg0 would be stored in f16
// DIAG: error: weight %arg1 would be stored in bf16
// DIAG: error: weight %arg0 would be stored in f16
// DIAG-NOT: error:

func.func @first(%w: tensor<4xf16>, %g: tensor<4xf16>) -> tensor<4xf16> {
  %nw = arith.subf %w, %g : tensor<4xf16>
  %w2 = amp.state_update %w, %nw : tensor<4xf16>
  return %w2 : tensor<4xf16>
}
func.func @second(%w: tensor<4xf32>, %m: bf16, %g: bf16) -> bf16 {
  %nm = arith.addf %m, %g : bf16
  %m2 = amp.state_update %m, %nm : bf16
  return %m2 : bf16
}
func.func @third(%w: tensor<2xf16>, %g: tensor<2xf16>) -> tensor<2xf16> {
  %nw = arith.subf %w, %g : tensor<2xf16>
  %w2 = amp.state_update %w, %nw : tensor<2xf16>
  return %w2 : tensor<2xf16>
}
