//===- Passes.td - amp-opt transformation passes -----------*- tablegen -*-===//

#ifndef AMP_TRANSFORMS_PASSES
#define AMP_TRANSFORMS_PASSES

include "mlir/Pass/PassBase.td"

def AutoMixedPrecisionPass
    : Pass<"amp-auto-mixed-precision", "::mlir::ModuleOp"> {
  let summary = "Run contractions in f16/bf16 and keep numerically risky ops "
                "in f32, with the fewest casts";
  let description = [{
    Classifies every op of every function into one of TensorFlow AMP's
    classes (allow / infer / clear / deny / unlisted), paints every f32 SSA
    value low precision (f16 or bf16) or f32, and rewrites the IR:

    * allow ops (matmuls, convolutions, contraction `linalg.generic`s, TOSA
      matmul/conv) take low-precision inputs and accumulate in f32 (their
      `outs` / `acc_type` stay f32);
    * infer ops run low only between allow ops, clear ops follow their
      neighbours, deny ops and everything fed by them through infer/clear
      chains stay f32, unlisted ops are never touched;
    * `arith.truncf` / `arith.extf` are inserted only at the borders, at most
      one per value and target type.

    Painting crosses `scf` regions (iter_args, yields and results agree) and
    calls to private functions (which are specialised). Public function
    signatures are preserved.

    Example (f16):

    ```mlir
    %0 = linalg.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x8xf32>)
                       outs(%acc : tensor<8x8xf32>) -> tensor<8x8xf32>
    ```

    becomes

    ```mlir
    %a16 = arith.truncf %a : tensor<8x16xf32> to tensor<8x16xf16>
    %b16 = arith.truncf %b : tensor<16x8xf32> to tensor<16x8xf16>
    %0 = linalg.matmul ins(%a16, %b16 : tensor<8x16xf16>, tensor<16x8xf16>)
                       outs(%acc : tensor<8x8xf32>) -> tensor<8x8xf32>
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
  let options = [
    Option<"mode", "mode", "std::string", /*default=*/"\"f16\"",
           "Low-precision type: f16 or bf16">,
    Option<"level", "level", "std::string", /*default=*/"\"default\"",
           "How far to go: default, tensor-cores-only (only allow ops run "
           "low) or treat-infer-as-deny">,
    Option<"policyFile", "policy", "std::string", /*default=*/"\"\"",
           "JSON or YAML file mapping op names and linalg.generic body "
           "patterns to classes">,
    ListOption<"allowAdd", "allow-add", "std::string",
               "Op names to add to the allow list">,
    ListOption<"inferAdd", "infer-add", "std::string",
               "Op names to add to the infer list">,
    ListOption<"clearAdd", "clear-add", "std::string",
               "Op names to add to the clear list">,
    ListOption<"denyAdd", "deny-add", "std::string",
               "Op names to add to the deny list">,
    ListOption<"allowRemove", "allow-remove", "std::string",
               "Op names to remove from the allow list">,
    ListOption<"inferRemove", "infer-remove", "std::string",
               "Op names to remove from the infer list">,
    ListOption<"clearRemove", "clear-remove", "std::string",
               "Op names to remove from the clear list">,
    ListOption<"denyRemove", "deny-remove", "std::string",
               "Op names to remove from the deny list">,
    Option<"keepPublicSignatures", "keep-public-signatures", "bool",
           /*default=*/"true",
           "Keep the f32 signature of public functions (false: their "
           "arguments and results are painted like any other value)">,
    Option<"castEconomy", "cast-economy", "bool", /*default=*/"true",
           "Keep a low clear region in f32 where its border casts would "
           "move more bytes (false: TensorFlow's painting unchanged)">,
    Option<"explain", "explain", "bool", /*default=*/"false",
           "Emit a remark per op: its class and why it ended up low or f32">,
    Option<"printStats", "stats", "bool", /*default=*/"false",
           "Print the statistics to stderr (Debian's Release MLIR has no "
           "--mlir-pass-statistics)">,
    Option<"printPolicy", "print-policy", "bool", /*default=*/"false",
           "Print the effective policy (defaults, file and edits) to stdout "
           "as a policy file">,
  ];
  let statistics = [
    Statistic<"numOpsLow", "ops-converted",
              "Ops converted to low precision">,
    Statistic<"numOpsF32", "ops-kept-f32", "Floating-point ops kept in f32">,
    Statistic<"numCastsInserted", "casts-inserted",
              "arith.truncf / arith.extf inserted">,
    Statistic<"numValuesCarried", "carried-values-low",
              "Loop-carried / call-carried values made low precision">,
  ];
}

def OptimizeCastsPass : Pass<"amp-optimize-casts", "::mlir::ModuleOp"> {
  let summary = "Remove, merge, fold and hoist the casts of mixed precision";
  let description = [{
    Cleans up the `arith.truncf` / `arith.extf` the AMP rewrite (or a user)
    left:

    * `extf(truncf(x))` is never folded (it rounds); `truncf(extf(x))` back
      to the type of `x` is exact and folds to `x`;
    * casts of one value to one type are merged (CSE);
    * `extf(extf(x))` is one `extf`, `truncf(extf(x))` is one `truncf` or
      `extf` of `x` when that is exact;
    * casts of constants (`arith.constant`, `tosa.const`, any constant-like
      op) become constants of the new type, unless a value is outside the
      range of the new type (f16: |x| > 65504), which is reported with a
      remark on the constant and keeps the cast; casts of `tensor.empty`
      become an empty tensor of the new type (same dynamic sizes), casts of
      a `linalg.fill` of a constant into a `tensor.empty` a fill of the new
      type;
    * a cast in another block than its input's definition moves right after
      that definition (to the start of the block for a block argument): casts
      of loop-invariant values leave `scf` loops (any loop-like op) and
      `scf.if`, casts of function arguments (weights) move to the function
      entry, so each is cast once per call.

    The pass walks the IR once and is idempotent.

    Example (f16):

    ```mlir
    %c = arith.constant dense<2.0> : tensor<4xf32>
    %0 = scf.for %i = %lb to %ub step %s iter_args(%a = %init) -> tensor<4xf16> {
      %w16 = arith.truncf %w : tensor<4xf32> to tensor<4xf16>
      %c16 = arith.truncf %c : tensor<4xf32> to tensor<4xf16>
      ...
    ```

    becomes

    ```mlir
    %w16 = arith.truncf %w : tensor<4xf32> to tensor<4xf16>
    %c16 = arith.constant dense<2.0> : tensor<4xf16>
    %0 = scf.for %i = %lb to %ub step %s iter_args(%a = %init) -> tensor<4xf16> {
      ...
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
  let options = [
    Option<"printStats", "stats", "bool", /*default=*/"false",
           "Print the statistics to stderr (Debian's Release MLIR has no "
           "--mlir-pass-statistics)">,
  ];
  let statistics = [
    Statistic<"numCastsRemoved", "casts-removed",
              "Casts folded away or merged">,
    Statistic<"numConstantsFolded", "constants-folded",
              "Casts of constants replaced by low-precision constants">,
    Statistic<"numCastsHoisted", "casts-hoisted",
              "Casts moved next to their input's definition, out of a loop, "
              "a branch or to the function entry">,
  ];
}

#endif // AMP_TRANSFORMS_PASSES
