//===- Passes.td - amp-opt conversion passes ---------------*- tablegen -*-===//
//
// Conversions out of the linalg the AMP passes leave: into calls of
// libamp_rt (runtime/include/amp_rt.h).
//
//===----------------------------------------------------------------------===//

#ifndef AMP_CONVERSION_PASSES
#define AMP_CONVERSION_PASSES

include "mlir/Pass/PassBase.td"

def LowerToRuntimePass : Pass<"amp-lower-to-runtime", "::mlir::ModuleOp"> {
  let summary = "Lower low-precision (optionally also f32) matmuls and "
                "convolutions on memrefs to libamp_rt calls";
  let description = [{
    Runs after bufferization. Every `linalg.matmul`, `linalg.batch_matmul`,
    `linalg.conv_2d_nhwc_hwcf` and `linalg.conv_2d_nchw_fchw` on memrefs
    whose two inputs are f16 (or both bf16) and whose output is f32 or the
    input type becomes a `func.call` to the matching entry point of libamp_rt
    (runtime/include/amp_rt.h), declared once per module as a private
    function with `llvm.emit_c_interface`:

    * `@amp_rt_matmul_<in>_<out>(A, B, C, i32 transA, i32 transB)`: C += A·B;
      the transposed forms of `linalg.matmul` (A as KxM, B as NxK, given by
      `indexing_maps`) set transA / transB;
    * `@amp_rt_batch_matmul_<in>_<out>(A, B, C, i32 transA, i32 transB)`;
    * `@amp_rt_conv2d_nhwc_hwcf_<in>_<out>(I, F, O, i64 strideH,
      i64 strideW, i64 dilH, i64 dilW)` and the same for nchw_fchw.

    Operands are cast (`memref.cast`) to the fully dynamic strided layout
    (`memref<?x?xf16, strided<[?, ?], offset: ?>>`), so static shapes,
    identity layouts and strided subviews all pass. Everything else (f32
    inputs, other ops, other indexing maps such as broadcasts, non-strided
    layouts, tensors) is left for the upstream lowering; with `explain` a
    remark says why.

    With `include-f32=true`, f32 x f32 -> f32 contractions are lowered too,
    to `@amp_rt_matmul_f32_f32`, `@amp_rt_batch_matmul_f32_f32`,
    `@amp_rt_conv2d_nhwc_hwcf_f32_f32` and `@amp_rt_conv2d_nchw_fchw_f32_f32`
    (same signatures and accumulate semantics). The fast lowering pipeline
    (`amp-lower-to-llvm{fast=true}`) sets it, so that an f32 program and its
    AMP version run their contractions in the same library and their step
    times compare fairly. Mixed f32 / f16 / bf16 operands are never lowered.

    ```mlir
    linalg.matmul ins(%a, %b : memref<32x64xf16>, memref<64x10xf16>)
                  outs(%c : memref<32x10xf32>)
    ```

    becomes

    ```mlir
    %0 = memref.cast %a : memref<32x64xf16>
        to memref<?x?xf16, strided<[?, ?], offset: ?>>
    %1 = memref.cast %b : ...
    %2 = memref.cast %c : memref<32x10xf32>
        to memref<?x?xf32, strided<[?, ?], offset: ?>>
    %no = arith.constant 0 : i32
    call @amp_rt_matmul_f16_f32(%0, %1, %2, %no, %no)
        : (memref<?x?xf16, strided<[?, ?], offset: ?>>, ...) -> ()
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::func::FuncDialect",
                           "::mlir::memref::MemRefDialect"];
  let options = [
    Option<"includeF32", "include-f32", "bool", /*default=*/"false",
           "Also lower f32 x f32 -> f32 contractions (to the _f32_f32 entry "
           "points), so that an f32 program and its AMP version call the "
           "same library">,
    Option<"explain", "explain", "bool", /*default=*/"false",
           "Emit a remark for every candidate op: lowered, or why not">,
    Option<"printStats", "stats", "bool", /*default=*/"false",
           "Print the statistics to stderr (Debian's Release MLIR has no "
           "--mlir-pass-statistics)">,
  ];
  let statistics = [
    Statistic<"numLowered", "ops-lowered",
              "Contractions lowered to runtime calls">,
    Statistic<"numLeft", "ops-left",
              "Low-precision contractions left for the upstream lowering">,
  ];
}

def WidenRuntimeInputsPass
    : Pass<"amp-widen-runtime-inputs", "::mlir::func::FuncOp"> {
  let summary = "Give the library contractions f32 copies of their f16 / "
                "bf16 inputs, made in the IR where they fuse into the "
                "producers";
  let description = [{
    On tensors, before elementwise fusion. Every contraction that
    `amp-lower-to-runtime` would send to libamp_rt (its matmuls and
    convolutions, and amp-block-convs' blocked convolutions) with an f32
    output and 16-bit inputs that its body only extends to f32 reads f32
    copies of those inputs instead: a `linalg.generic` of `arith.extf`
    after each input's definition (one per value), and the contraction's
    body reads the f32 argument directly. Both inputs or neither (libamp_rt
    has no mixed entry point).

    This is for CPUs without dot products in the input type (bf16 without
    AVX512_BF16, f16 on every CPU libamp_rt knows): there libamp_rt would
    widen the inputs itself on every call, one more pass over each
    activation into a scratch buffer. In the IR the extension fuses into the
    elementwise op that rounded the value to 16 bits, which then stores the
    rounded value as f32; the program's numbers are unchanged (a 16-bit
    value widened is exact, and the library accumulates in f32 either way).
    Not for GPUs or CPUs with the dot products: there the 16-bit operands
    are what makes the contraction fast. `amp-lower-to-llvm`'s
    `low-contractions` option decides (docs/lowering.md).

    ```mlir
    %r = arith.truncf %x : tensor<8x64xf32> to tensor<8x64xbf16>   // (a generic)
    %y = linalg.matmul ins(%r, %w : tensor<8x64xbf16>, tensor<64x32xbf16>)
                       outs(%acc : tensor<8x32xf32>) -> tensor<8x32xf32>
    ```

    becomes a matmul of `linalg.generic {arith.extf}` of `%r` and of `%w`,
    f32 x f32 -> f32.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
  let options = [
    Option<"bf16", "bf16", "bool", /*default=*/"true",
           "Widen bf16 inputs">,
    Option<"f16", "f16", "bool", /*default=*/"true",
           "Widen f16 inputs">,
    Option<"trainingSteps", "training-steps", "bool", /*default=*/"true",
           "Also in training steps (functions with a result marked "
           "amp.updates), where the 16-bit values are mostly saved for the "
           "backward pass: measured slower there on a CPU without "
           "AVX512_BF16, so low-contractions=auto turns it off">,
  ];
  let statistics = [
    Statistic<"numWidened", "contractions-widened",
              "Contractions given f32 copies of their inputs">,
  ];
}

#endif // AMP_CONVERSION_PASSES
