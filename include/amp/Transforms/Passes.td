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
    Option<"mode", "mode", "::mlir::amp::AmpModeOption",
           /*default=*/"::mlir::amp::AmpModeOption::F16",
           "Low-precision type: f16, bf16, or auto (what pays on `target`)">,
    Option<"target", "target", "::mlir::amp::TargetOption",
           /*default=*/"::mlir::amp::TargetOption::Cpu",
           "With mode=auto or emit=iree: v100, a100, h100 or cpu (the host "
           "CPU, or the one cpu-features describes)">,
    Option<"emit", "emit", "::mlir::amp::EmitOption",
           /*default=*/"::mlir::amp::EmitOption::Mlir",
           "Who compiles the output: mlir (any pipeline) or iree (on "
           "target=cpu, convolutions stay f32: IREE's llvm-cpu has no fast "
           "16-bit convolution)">,
    ListOption<"cpuFeatures", "cpu-features", "std::string",
               "With mode=auto target=cpu: LLVM x86 feature names to decide "
               "from instead of the host's (e.g. avx512bf16,f16c)">,
    Option<"level", "level", "::mlir::amp::AmpLevel",
           /*default=*/"::mlir::amp::AmpLevel::Default",
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
           "move more bytes, and let elementwise readers of a rounding "
           "read the value unrounded (false: TensorFlow's painting and "
           "casts unchanged)">,
    Option<"explain", "explain", "bool", /*default=*/"false",
           "Emit a remark per op: its class and why it ended up low or f32">,
    Option<"printStats", "stats", "bool", /*default=*/"false",
           "Print the statistics to stderr (Debian's Release MLIR has no "
           "--mlir-pass-statistics)">,
    Option<"printPolicy", "print-policy", "bool", /*default=*/"false",
           "Print the effective policy (defaults, file and edits) to stdout "
           "as a policy file">,
    Option<"annotate", "annotate", "bool", /*default=*/"false",
           "Attach each classified op's class, precision and reason as an "
           "amp.decision attribute (read and removed by amp-report-write)">,
    Option<"optimizeCasts", "optimize-casts", "bool", /*default=*/"false",
           "Run amp-optimize-casts' cleanup at the end of this pass (the "
           "--amp pipeline does, to verify the module once instead of "
           "twice)">,
  ];
  let statistics = [
    Statistic<"numOpsLow", "ops-converted",
              "Ops converted to low precision">,
    Statistic<"numOpsF32", "ops-kept-f32", "Floating-point ops kept in f32">,
    Statistic<"numCastsInserted", "casts-inserted",
              "arith.truncf / arith.extf inserted">,
    Statistic<"numRoundingsReadWide", "roundings-read-wide",
              "Inserted roundings (casts, and low elementwise ops' "
              "roundings on yield) dropped because their readers extend "
              "them back (cast-economy)">,
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
      entry, so each is cast once per call;
    * a tensor `truncf` of a `linalg.generic` result that nothing else reads
      moves into that generic's body when the body does not read the
      result's `outs` (the generic yields the rounded element; same bits,
      no f32 tensor); a tensor `extf` read only as inputs of linalg ops with
      an explicit body moves into those bodies.

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

def LossScalingPass : Pass<"amp-loss-scaling", "::mlir::ModuleOp"> {
  let summary = "Scale the loss, unscale and check the gradients, skip "
                "overflowing steps and update the scale";
  let description = [{
    Rewrites every function that contains an `amp.grad_seed` (the markers of
    docs/training-step.md):

    * the seed becomes the loss scale S (a splat of S of the loss's type),
      so every gradient of the backward pass is scaled by S;
    * every `amp.param_grad %g` becomes `g * (1/S)` computed in f32 (`g` is
      extended first if it is f16/bf16), and every unscaled gradient feeds
      one all-finite flag computed in the IR: per gradient a reduction of
      `acc + g * 0.0` (NaN iff an element is inf or NaN), summed, compared
      with 0;
    * every `amp.state_update %old, %new` becomes
      `arith.select %all_finite, %new, %old` (`skip-on-overflow`), so a
      step with an overflow leaves weights and optimizer state unchanged;
    * `mode=dynamic` updates S with PyTorch GradScaler's rule: on overflow
      `S' = max(S * backoff-factor, min-scale)` and the counter restarts;
      otherwise the counter grows and, when it reaches `growth-interval`,
      `S' = min(S * growth-factor, max-scale)` (if finite) and it restarts.

    With `state=args` the scale and the good-step counter are appended as
    arguments `tensor<f32> {amp.role = "loss_scale"}` and
    `tensor<i32> {amp.role = "good_steps"}`, and their new values plus
    `tensor<i1> {amp.role = "step_ok"}` as results (`mode=static`: only
    `step_ok`). With `state=globals` they live in `ml_program.global`s.
    `mode=none` replaces the markers by their identities.

    Example (`mode=static init-scale=1024`):

    ```mlir
    %seed = amp.grad_seed %loss : tensor<f32>
    ...
    %g = amp.param_grad %dw : tensor<4xf32>
    %nw = arith.subf %w, %g : tensor<4xf32>
    %w2 = amp.state_update %w, %nw : tensor<4xf32>
    ```

    becomes

    ```mlir
    %S = arith.constant 1.024000e+03 : f32
    %invS = arith.divf %one, %S : f32
    %seed = tensor.splat %S : tensor<f32>
    ...
    %s = tensor.splat %invS : tensor<4xf32>
    %g = arith.mulf %dw, %s : tensor<4xf32>
    %r = linalg.generic ... ins(%g) outs(%zero) { acc + g * 0.0 }
    %probe = tensor.extract %r[] : tensor<f32>
    %ok = arith.cmpf oeq, %probe, %cst0 : f32
    %nw = arith.subf %w, %g : tensor<4xf32>
    %w2 = arith.select %ok, %nw, %w : tensor<4xf32>
    ```
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::func::FuncDialect",
    "::mlir::linalg::LinalgDialect", "::mlir::ml_program::MLProgramDialect",
    "::mlir::tensor::TensorDialect"
  ];
  let options = [
    Option<"mode", "mode", "::mlir::amp::ScalingMode",
           /*default=*/"::mlir::amp::ScalingMode::Dynamic",
           "dynamic (GradScaler's update rule), static (a constant scale) "
           "or none (the markers become identities)">,
    Option<"initScale", "init-scale", "double", /*default=*/"65536.0",
           "Initial scale (dynamic) or the scale (static)">,
    Option<"growthFactor", "growth-factor", "double", /*default=*/"2.0",
           "Factor applied to the scale after growth-interval good steps "
           "(> 1)">,
    Option<"backoffFactor", "backoff-factor", "double", /*default=*/"0.5",
           "Factor applied to the scale on overflow (in (0, 1))">,
    Option<"growthInterval", "growth-interval", "int64_t",
           /*default=*/"2000",
           "Consecutive good steps before the scale grows (>= 1)">,
    Option<"minScale", "min-scale", "double", /*default=*/"1.0",
           "Lower bound of the scale after a backoff (> 0)">,
    Option<"maxScale", "max-scale", "double", /*default=*/"16777216.0",
           "Upper bound of the scale after a growth (2^24)">,
    Option<"skipOnOverflow", "skip-on-overflow", "bool", /*default=*/"true",
           "Keep the old state (weights, optimizer buffers) when a gradient "
           "is inf or NaN">,
    Option<"state", "state", "::mlir::amp::ScaleStateKind",
           /*default=*/"::mlir::amp::ScaleStateKind::Args",
           "Where the scale state lives: args (extra arguments and results) "
           "or globals (ml_program.global)">,
    Option<"printStats", "stats", "bool", /*default=*/"false",
           "Print the statistics to stderr (Debian's Release MLIR has no "
           "--mlir-pass-statistics)">,
  ];
  let statistics = [
    Statistic<"numFunctionsScaled", "functions-scaled",
              "Functions whose loss is scaled">,
    Statistic<"numGradientsUnscaled", "gradients-unscaled",
              "amp.param_grad unscaled and checked">,
    Statistic<"numUpdatesGuarded", "updates-guarded",
              "amp.state_update skipped on overflow">,
  ];
}

def StripMarkersPass : Pass<"amp-strip-markers"> {
  let summary = "Replace the amp markers by their identities";
  let description = [{
    Replaces `amp.grad_seed %loss` by ones of the loss's type
    (`arith.constant`), `amp.param_grad %g` by `%g` and
    `amp.state_update %old, %new` by `%new`, so that the output is
    upstream-only IR. Run it after `amp-loss-scaling` (which consumes the
    markers of the functions it scales) or instead of it. It works on any
    op and touches nothing outside it: `--amp` runs it on each function of
    the module, in parallel.

    ```mlir
    %seed = amp.grad_seed %loss : tensor<f32>
    %w2 = amp.state_update %w, %nw : tensor<4xf32>
    ```

    becomes

    ```mlir
    %seed = arith.constant dense<1.000000e+00> : tensor<f32>
    // uses of %w2 use %nw
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::tensor::TensorDialect"];
}

def CheckMasterWeightsPass : Pass<"amp-check-master-weights"> {
  let summary = "Check that training state is kept and updated in f32";
  let description = [{
    Mixed precision keeps an f32 master copy of every weight: the step reads
    it, casts it to f16/bf16 where a contraction uses it, and updates the
    f32 copy, so that small updates (`lr * g` below half an f16 ulp of the
    weight) are not lost.

    * error: an `amp.state_update` whose state is f16 / bf16 (any float
      narrower than f32): the weight would be stored in low precision;
    * warning: the new value of an f32 state is an `arith.extf` of a
      low-precision value: the update itself ran in low precision.

    The pass changes nothing. It works on any op: `--amp` runs it on each
    function of the module, in parallel (the diagnostics keep the functions'
    order).
  }];
}

def PadForTensorCoresPass
    : Pass<"amp-pad-for-tensor-cores", "::mlir::ModuleOp"> {
  let summary = "Pad M/N/K and conv channels of low-precision contractions "
                "to Tensor Core multiples";
  let description = [{
    Tensor Cores (and cuBLAS / cuDNN's fastest kernels) want the GEMM
    dimensions M, N, K — and a convolution's input and output channels C
    and F — to be multiples of 8 for f16 / bf16 operands (16 for int8).
    This pass pads them, on tensors, for

    * `linalg.matmul` and `linalg.batch_matmul` (transposed forms given by
      `indexing_maps` included): M, N and K, never the batch dimension;
    * `linalg.conv_2d_nhwc_hwcf` and `linalg.conv_2d_nchw_fchw`: C and F,
      never the batch, spatial or window dimensions;

    whose inputs are both f16 / bf16 (`multiple`) or both i8
    (`int8-multiple`); the `outs` may have any type (f32 accumulators from
    amp-auto-mixed-precision). Every operand with a dimension to pad gets a
    `tensor.pad` with a zero of its element type (zeros add nothing to the
    products; padded rows / columns / channels of the result are dropped),
    the accumulator `outs` too, and the result is sliced back with
    `tensor.extract_slice`.

    Cost rule: an op is padded only if the padded iteration space is at
    most `max-flop-growth` (default 0.25, i.e. 25%) larger than the
    original one, i.e. the product of padded/original over the padded
    dimensions is at most 1 + max-flop-growth. M×N×K = 30×50×70 → 32×56×72
    (+23%) is padded; K = 3 → 8 (+167%) is not. Aligned ops are left
    alone, so the pass is idempotent. Ops whose dimensions to pad are
    dynamic are left alone with a remark; so are ops the cost rule rejects.

    Example (f16, multiple=8):

    ```mlir
    %r = linalg.matmul ins(%a, %b : tensor<30x70xf16>, tensor<70x50xf16>)
                       outs(%c : tensor<30x50xf32>) -> tensor<30x50xf32>
    ```

    becomes

    ```mlir
    %z16 = arith.constant 0.000000e+00 : f16
    %pa = tensor.pad %a low[0, 0] high[2, 2] { tensor.yield %z16 : f16 }
        : tensor<30x70xf16> to tensor<32x72xf16>
    %pb = tensor.pad %b low[0, 0] high[2, 6] { tensor.yield %z16 : f16 }
        : tensor<70x50xf16> to tensor<72x56xf16>
    %z32 = arith.constant 0.000000e+00 : f32
    %pc = tensor.pad %c low[0, 0] high[2, 6] { tensor.yield %z32 : f32 }
        : tensor<30x50xf32> to tensor<32x56xf32>
    %p = linalg.matmul ins(%pa, %pb : tensor<32x72xf16>, tensor<72x56xf16>)
                       outs(%pc : tensor<32x56xf32>) -> tensor<32x56xf32>
    %r = tensor.extract_slice %p[0, 0] [30, 50] [1, 1]
        : tensor<32x56xf32> to tensor<30x50xf32>
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::tensor::TensorDialect"];
  let options = [
    Option<"multiple", "multiple", "int64_t", /*default=*/"8",
           "Pad to a multiple of this for f16 / bf16 inputs (>= 1)">,
    Option<"int8Multiple", "int8-multiple", "int64_t", /*default=*/"16",
           "Pad to a multiple of this for i8 inputs (>= 1)">,
    Option<"maxFlopGrowth", "max-flop-growth", "double", /*default=*/"0.25",
           "Pad only if the padded op does at most this fraction more "
           "multiply-adds (>= 0)">,
    Option<"explain", "explain", "bool", /*default=*/"false",
           "Also emit a remark for every op that is padded or already "
           "aligned">,
    Option<"printStats", "stats", "bool", /*default=*/"false",
           "Print the statistics to stderr (Debian's Release MLIR has no "
           "--mlir-pass-statistics)">,
  ];
  let statistics = [
    Statistic<"numPadded", "ops-padded", "Contractions padded">,
    Statistic<"numAligned", "ops-aligned",
              "Contractions already aligned (nothing to do)">,
    Statistic<"numSkippedCost", "ops-skipped-cost",
              "Contractions left alone by the cost rule">,
    Statistic<"numSkippedDynamic", "ops-skipped-dynamic",
              "Contractions left alone because a dimension to pad is "
              "dynamic">,
  ];
}

def FuseElementwisePass : Pass<"amp-fuse-elementwise"> {
  let summary = "Fuse chains of elementwise linalg.generic ops on tensors, "
                "keeping named contractions named";
  let description = [{
    Upstream's elementwise fusion (`linalg::populateElementwiseOpsFusionPatterns`:
    producer-into-consumer fusion of elementwise `linalg.generic`s, splat
    constants and fills folded into the bodies, unused operands dropped),
    restricted so that the result stays a program `amp-lower-to-runtime`
    can map onto libamp_rt:

    * the consumer is a `linalg.generic`: an elementwise producer (e.g. an
      AMP cast) is never fused into a `linalg.matmul` or a convolution, which
      would turn it into a generic contraction;
    * the producer has one use, so no work is duplicated;
    * no reshape propagation: upstream's `linalg-fuse-elementwise-ops` also
      folds `tensor.expand_shape` / `collapse_shape` into linalg ops by
      expanding their iteration spaces, which rewrites the attention
      projections of a transformer (a matmul between reshapes) into
      5-D `linalg.generic` contractions that then run as scalar loops.

    The fast lowering pipeline (`amp-lower-to-llvm{fast=true}`) runs it
    right after `convert-elementwise-to-linalg`, so that an AMP cast, a bias
    add and an activation become one loop nest with no buffer between them.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

def ApproximateMathPass : Pass<"amp-approximate-math"> {
  let summary = "Replace tanh / exp / log / erf by MLIR's polynomial "
                "approximations, which LLVM vectorizes";
  let description = [{
    `convert-math-to-llvm` / `convert-math-to-libm` lower `math.tanh`,
    `math.erf`, `math.expm1`, ... to scalar libm calls and `math.exp` /
    `math.log` to LLVM intrinsics that the x86 backend also expands to libm
    calls (no vector math library in the JIT): a loop with one of them is
    never vectorized and pays a call per element. This pass rewrites them
    with upstream's polynomial approximations
    (`populateMathPolynomialApproximationPatterns`, the ones IREE's CPU
    backend uses; a few ulp from libm) into plain `arith` ops on f32, which
    the loop vectorizer handles; f16 / bf16 math ops are computed in f32
    first (`populateMathF32ExpansionPatterns`). The fast lowering pipeline
    runs it; the reference pipeline keeps libm.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::vector::VectorDialect"];
}

def ExpandArithPass : Pass<"amp-expand-arith"> {
  let summary = "arith-expand, except for f32 / f64 float min / max: LLVM "
                "lowers those itself and vectorizes their reductions";
  let description = [{
    Upstream `arith-expand` rewrites the arith ops that `convert-arith-to-llvm`
    has no lowering for (`ceildivsi`, `ceildivui`, `floordivsi`,
    `scaling_extf`, `scaling_truncf`) and also `maximumf` / `minimumf` /
    `maxnumf` / `minnumf`, into compares and selects. On f32 and f64 the
    latter have LLVM intrinsics (`llvm.maximum`, ...) that the x86 backend
    lowers well, and in the expanded form LLVM's loop vectorizer no longer
    recognizes a max reduction: the softmax's row maximum of the transformer
    step ran as a scalar compare / select chain. This pass applies upstream's
    expansions (`populateArithExpandOpsPatterns`) to every arith op except
    those f32 / f64 min / max ops. On f16 / bf16 they are still expanded: x86
    without 16-bit float arithmetic scalarizes `llvm.maximum` on them (the
    ReLUs and max-pools of resnet18's bf16 forward, 94 → 123 ms when they
    were left whole). The fast lowering pipeline runs it instead of
    `arith-expand`.

    `include-bf16` adds upstream's bf16 expansions
    (`populateExpandBFloat16Patterns`, as `arith-expand{include-bf16}`):
    `truncf` f32 -> bf16 becomes integer round-to-nearest-even and `extf` a
    shift. Without AVX512_BF16, LLVM lowers such a `truncf` to a
    `__truncsfbf2` call per element, also inside vector code; the integer
    form vectorizes.
  }];
  let options = [
    Option<"includeBf16", "include-bf16", "bool", /*default=*/"false",
           "Also expand f32 <-> bf16 conversions into integer ops">
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def FoldTransposesIntoContractionsPass
    : Pass<"amp-fold-transposes-into-contractions"> {
  let summary = "Read transposed matmul operands through indexing maps "
                "instead of a linalg.transpose";
  let description = [{
    On tensors, a `linalg.transpose` (permutation [1, 0]) feeding an input of
    `linalg.matmul`, or one (permutation [0, 2, 1]) feeding an input of
    `linalg.batch_matmul`, is folded into the contraction's
    `indexing_maps`: the contraction reads the untransposed tensor. The
    transpose disappears once it has no other use. The backward pass of a
    training step transposes activations and weights for every weight
    gradient; after this pass `amp-lower-to-runtime` passes them to
    libamp_rt with transA / transB set instead of materializing them with
    strided loops. The fast lowering pipeline (`amp-lower-to-llvm{fast=true}`)
    runs it before bufferization.

    ```mlir
    %t = linalg.transpose ins(%x : tensor<512x2048xf32>)
           outs(%e : tensor<2048x512xf32>) permutation = [1, 0]
    %r = linalg.matmul ins(%t, %g : tensor<2048x512xf32>, tensor<512x16xf32>)
           outs(%z : tensor<2048x16xf32>) -> tensor<2048x16xf32>
    ```

    becomes

    ```mlir
    %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>,
                                        affine_map<(m, n, k) -> (k, n)>,
                                        affine_map<(m, n, k) -> (m, n)>]
           ins(%x, %g : tensor<512x2048xf32>, tensor<512x16xf32>)
           outs(%z : tensor<2048x16xf32>) -> tensor<2048x16xf32>
    ```
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

def BlockConvsPass : Pass<"amp-block-convs"> {
  let summary = "Keep the activations of NCHW convolutions blocked by 16 "
                "channels (oneDNN's nChw16c) between the convolutions";
  let description = [{
    libamp_rt hands an NCHW convolution to oneDNN, whose kernels read and
    write activations blocked by 16 channels: every call reorders its input
    into that layout and its output back (13 of the 100 ms of resnet18's
    bf16 forward at batch 8 on a Zen 4). This pass rewrites each
    `linalg.conv_2d_nchw_fchw` on static tensors whose input and output
    channels are multiples of 16 as a `linalg.generic` on blocked
    activations (N x C/16 x H x W x 16; the filter stays FCHW), marked
    `amp.blocked_conv = array<i64: stride_h, stride_w, dilation_h,
    dilation_w>`, between a `linalg.pack` of its input and output and a
    `linalg.unpack` of its result. Upstream's data-layout propagation
    (`linalg::populateDataLayoutPropagationPatterns`) then moves the packs
    and unpacks across the batch-norm, ReLU, residual and padding ops in
    between, where they meet and fold away; the ones left at the ends of a
    chain are lowered to transposes and reshapes (`linalg::lowerPack`,
    `lowerUnPack`). `amp-lower-to-runtime` turns the generic into a call of
    `amp_rt_conv2d_nchw16c_fchw_*`. Convolutions with fewer channels (a
    stem on RGB) and weight gradients written as convolutions (a filter
    larger than the output) are left alone. The fast lowering pipeline runs
    it first.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::arith::ArithDialect"];
}

def CollapseContiguousDimsPass
    : Pass<"amp-collapse-contiguous-dims", "::mlir::func::FuncOp"> {
  let summary = "Merge the loops of elementwise ops whose dimensions are "
                "contiguous in every operand";
  let description = [{
    A `linalg.generic`, `linalg.copy` or `linalg.transpose` on tensors whose
    loops are all parallel, whose innermost loop is shorter than 16 and
    whose operands are whole tensors (not slices) gets its adjacent loops
    merged wherever every indexing map keeps them adjacent and in order
    (upstream's `linalg::populateCollapseDimensions`, with
    `tensor.collapse_shape` / `tensor.expand_shape` around the op). Weight-
    shaped ops are the reason: an SGD update of a 512x512x3x3 filter lowers
    to 2.4 million 3-long innermost loops that LLVM does not vectorize, and
    runs at about a third of the memory bandwidth; collapsed, it is one
    loop of 2.4 million. A transpose of a filter gradient ([1, 0, 2, 3])
    keeps its 3x3 as one loop of 9. Ops with `linalg.index`, reductions and
    ops whose innermost loop has 16 or more iterations (the blocked and wide
    activations, which vectorize as they are) are left alone. The fast
    lowering pipeline runs it before `amp-order-transpose-loops`.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
}

def SplitReductionsPass
    : Pass<"amp-split-reductions", "::mlir::func::FuncOp"> {
  let summary = "Sum long floating-point reductions in blocks, not in one "
                "sequential chain";
  let description = [{
    A `linalg.generic` or `linalg.reduce` on tensors whose combiner is
    `arith.addf` and whose reduction loops run at least `min-terms` terms
    per result (static shapes) becomes two ops: the first sums blocks of
    about the square root of the terms into a tensor of partial sums (its
    outer reduction loops made parallel), the second adds the partial sums
    to the original init. Lowered to loops, a reduction adds its terms one
    after the other into one accumulator, whose rounding error grows with
    their count (n u); blocked, it grows with about 2 sqrt(n) u. Batch
    norm's backward sums thousands of terms that cancel: its gradients came
    out 60 times less accurate than PyTorch's (torch-fuzz seed 1543).
    Reductions over several loops split between loops; one long reduction
    loop is split by upstream's `linalg::splitReduction`. Contractions and
    convolutions (their own kernels sum them) are left alone, and so are
    ops with other combiners or dynamic shapes.
  }];
  let options = [
    Option<"minTerms", "min-terms", "int64_t", "256",
           "split reductions of at least this many terms per result">,
  ];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::arith::ArithDialect"];
}

def OrderTransposeLoopsPass : Pass<"amp-order-transpose-loops"> {
  let summary = "Run a linalg.transpose's loops with the input's and the "
                "output's innermost dimensions innermost";
  let description = [{
    A `linalg.transpose` lowers to loops in the order of its output's
    dimensions. When the permutation moves the input's innermost (contiguous)
    dimension away from the output's last two, every load of the innermost
    loop touches another cache line, and a line is read again only after the
    whole rest of the tensor: the transpose NHWC -> CHWN of a weight
    gradient (`amp-gen-model`'s CNN step, 32x28x28x128) moves one
    64-byte line per 2-byte element. This pass rewrites such a transpose as
    a `linalg.generic` (`linalg::generalizeNamedOp`) whose loops
    (`linalg::interchangeGenericOp`) keep the other dimensions outside, in
    their order, then the output dimension that reads the input's innermost
    one, then the output's innermost: the loads of one input row and the
    stores of one output row stay within a small block that fits in L1. The
    fast lowering pipeline runs it before `amp-tile-for-threads`.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

def TileForThreadsPass : Pass<"amp-tile-for-threads"> {
  let summary = "Split the loops that stay (elementwise ops, casts, "
                "reductions, optimizer updates) into one scf.forall chunk "
                "per thread";
  let description = [{
    After elementwise fusion, what a training step runs outside libamp_rt is
    memory-bound loops over whole tensors: AMP casts, bias and activation
    epilogues and their gradients, bias-gradient reductions, and the
    optimizer's update of every weight and its momentum. On one core they
    take as long as the bf16 GEMMs of an MLP step. This pass tiles every
    `linalg` op on static tensors that is not a contraction or a
    convolution (those go to libamp_rt) and has at least `min-iterations`
    points, with upstream's `scf::tileUsingSCF` into an `scf.forall` of
    `num-threads` chunks along its outermost parallel dimension whose
    extent is at least `num-threads`: each chunk is a contiguous slab, so
    the loops inside stay unit-stride and vectorizable. The fast pipeline
    with `parallel=true` then bufferizes the foralls in place and runs them
    as OpenMP work-sharing loops (`scf-forall-to-parallel`,
    `convert-scf-to-openmp`) on the same OpenMP runtime as oneDNN.

    Ops below the threshold stay serial: a fork/join costs a few
    microseconds, more than a 32K-point loop saves.

    With `buffers=true` (run after bufferization and amp-lower-to-runtime)
    it splits the `linalg` ops on memrefs instead: the fills that stayed
    for a library call that could not overwrite its output, and the copies
    bufferization made. Every static `memref.copy` of at least
    `min-iterations` elements becomes a `linalg.copy` first: lowered as it
    is, a copy runs on one thread, through the C runner's
    element-by-element `memrefCopy` when a side is strided (torch-mlir's
    max-pooling backward writes stride-2 slices).
  }];
  let options = [
    Option<"numThreads", "num-threads", "unsigned", /*default=*/"0",
           "Chunks per tiled op (0: the compiling machine's hardware "
           "threads)">,
    Option<"buffers", "buffers", "bool", /*default=*/"false",
           "Split ops on memrefs (and memref.copy) instead of ops on "
           "tensors">,
    Option<"minIterations", "min-iterations", "int64_t",
           /*default=*/"32768",
           "Tile only ops whose iteration space has at least this many "
           "points">
  ];
  let dependentDialects = ["::mlir::scf::SCFDialect",
                           "::mlir::affine::AffineDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::tensor::TensorDialect"];
}

def ShrinkSlicedConvsPass : Pass<"amp-shrink-sliced-convs"> {
  let summary = "Compute only the slice of a convolution's result that is "
                "read";
  let description = [{
    torch-mlir writes the weight gradient of a strided convolution as a
    grouped convolution (`linalg.conv_2d_ngchw_gfchw`, the batch as the
    groups) whose output window is larger than the filter (2×2 for a 1×1
    filter of stride 2, 4×4 for a 3×3 one, 8×8 for resnet18's 7×7 stem),
    and keeps only the filter's corner with `tensor.extract_slice`: up to 4×
    the work, on a result of up to 67 MB (resnet18, batch 8). A
    convolution (`linalg::ConvolutionOpInterface`) whose only use is an
    `extract_slice` is replaced by the convolution of that slice
    (upstream's `tensor::replaceExtractSliceWithTiledProducer` through the
    `TilingInterface`), after upstream's patterns have moved the slices
    above the reshapes and elementwise ops (an AMP rounding) between them
    and merged consecutive slices; the
    sliced `linalg.fill` init becomes a fill of a smaller `tensor.empty`.

    Part of the fast pipeline, before `amp-prepare-destinations`.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
}

def UngroupSummedConvsPass : Pass<"amp-ungroup-summed-convs"> {
  let summary = "Turn a sum over a grouped convolution's groups into one "
                "ungrouped convolution";
  let description = [{
    torch-mlir writes the weight gradient of a strided convolution as a
    grouped convolution (`linalg.conv_2d_ngchw_gfchw`) with the batch as
    the groups and one input channel per group, then sums the per-sample
    gradients: a `linalg.generic` reducing the group dimension of (a
    `linalg.transpose` of) its result, through the AMP rounding of that
    result when it is bf16 / f16. The sum over the groups of a grouped
    convolution is the `linalg.conv_2d_nchw_fchw` whose input channels are
    the (group, channel) pairs: the input's N x G*C x H x W view and the
    filter transposed to F x G*C x KH x KW, same strides and dilations,
    into zeros, transposed to the sum's layout. The batch-sized result, its
    rounding, transpose and reduction go, and the library runs one
    weight gradient over the batch instead of one per sample.

    Matched only when the sum starts from zeros, the grouped convolution
    too, and each op between them has no other reader. Numerics: the
    per-group results are no longer rounded to bf16 / f16 before they are
    summed in f32 (the sum is more accurate, as a backward-weights kernel
    computes it); in f32 only the order of the sum changes.

    Part of the fast pipeline, after `amp-shrink-sliced-convs`.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
}

def PrepareDestinationsPass : Pass<"amp-prepare-destinations"> {
  let summary = "Give each contraction its own zero-filled init and make "
                "pads and slice insertions copy loops, so that bufferization "
                "copies nothing";
  let description = [{
    Two shapes of tensor IR make one-shot bufferization copy whole
    activations; both are common in imported models (torch-mlir's resnet18
    export: 38 copies per forward, 18 of them through the runtime's
    element-by-element `memrefCopy` on one thread):

    - one `linalg.fill` shared as the init of several ops (torch-mlir
      zero-fills one tensor per shape for all its convolutions): each such
      init use but one gets its own clone of the fill (and of its
      `tensor.empty`), which `amp-lower-to-runtime` then drops in favour of
      an `_overwrite` call;
    - `tensor.pad` with a constant (upstream's `DecomposePadOpPattern`:
      `tensor.empty` + `linalg.fill` + `tensor.insert_slice`), and any
      `tensor.insert_slice` that is not rank-reducing: the insertion becomes
      a `linalg.copy` into a `tensor.extract_slice` of the destination, which
      bufferizes in place into a copy loop that `amp-tile-for-threads`
      splits and LLVM vectorizes.

    Part of the fast pipeline, before `amp-tile-for-threads`.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
}

def LowPrecisionArgumentsPass
    : Pass<"amp-low-precision-arguments", "::mlir::ModuleOp"> {
  let summary = "Take the arguments a function only reads rounded as "
                "f16/bf16 arguments (the caller passes the rounded copy)";
  let description = [{
    After amp-auto-mixed-precision, a weight that is a function argument is
    rounded by an `arith.truncf` on every call. A compiler that runs the
    function many times with the same weights (IREE, serving) pays that
    cast each time; autocast caches it per step. For every f32 tensor
    argument of a function with a body whose every use is an
    `arith.truncf` to one 16-bit type, this pass makes the argument that
    type, drops the casts, and marks the argument
    `amp.rounded_from = <the f32 type>`: the caller passes the argument
    already rounded to nearest even (what the `truncf` computed), once per
    set of weights instead of once per call. Calls of the function inside
    the module round the operand at the call instead. Arguments read in f32
    anywhere (a residual connection, an optimizer update) keep their type,
    so no value is rounded that was not before: the output is numerically
    the input's. `--amp='emit=iree'` runs it (docs/passes.md).
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
  let statistics = [
    Statistic<"numArguments", "arguments-rounded-by-caller",
              "Arguments the caller now passes rounded">,
  ];
}

def CarryRoundedParamsPass
    : Pass<"amp-carry-rounded-params", "::mlir::ModuleOp"> {
  let summary = "Carry each parameter's f16/bf16 rounding across training "
                "steps as state, computed by the optimizer update";
  let description = [{
    After amp-auto-mixed-precision a training step rounds every weight it
    multiplies in 16 bits at its start (`arith.truncf` of the `param`
    argument) and writes the weight's new f32 value at its end. The rounding
    reads the whole f32 master copy once more per step and writes a
    temporary 16-bit copy: for a 2048x2048 weight, 24 MB of memory traffic
    that the f32 step does not have (about 2% of the MLP training step on
    the 2-core CPUs). Mixed-precision trainers keep that copy between steps
    instead (apex O2, DeepSpeed's bf16 weights): the optimizer, which writes
    the new master weight anyway, writes its rounding too.

    For every `param` argument N of a function that returns its new value
    (a result with `amp.updates = N`) and whose value the function rounds
    with `arith.truncf` to a 16-bit type (to nearest even, the default),
    this pass appends an argument of that type, `amp.role = "param_copy"`,
    `amp.copy_of = N`, replaces the roundings by it, and appends the result
    `arith.truncf` of the new value, `amp.role = "update"`, `amp.updates` =
    the new argument. The caller initialises the copy with the rounding of
    the initial parameter (amp-run does); from then on every step computes
    bit for bit what it computed before. A function with symbol uses (a
    callee) keeps its signature. amp-run applies the pass to the step it
    runs (`--carry-rounded-params`, on by default); docs/training-step.md
    has the contract.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
  let statistics = [
    Statistic<"numCopies", "param-copies-carried",
              "Parameters whose rounded copy is now carried across steps">,
  ];
}

def UpdateStateInPlacePass
    : Pass<"amp-update-state-in-place", "::mlir::func::FuncOp"> {
  let summary = "Write a training step's new params and optimizer state into "
                "their arguments' buffers (the caller donates them)";
  let description = [{
    A training step returns, for every param and optimizer-state argument,
    its new value (the result's `amp.updates = N` names argument N). Written
    into a fresh buffer, the optimizer update of a 2048x2048 weight reads
    the weight, its momentum and its gradient and writes two new 16 MB
    buffers, each write first fetching the destination's cache lines: about
    1.6x the memory traffic of an update in place, and the step's peak
    memory holds every param and every state tensor twice.

    For a result whose value is computed by an all-parallel
    `linalg.generic` that does not read that result's init (its init is
    typically a `tensor.empty`), and whose argument is read, apart from that
    generic (at the same element), only by ops before it in the block, this
    pass makes the argument the generic's init, marks it
    `bufferization.writable` and `amp.donated`, and folds the generic's
    reads of the argument into its init (upstream's
    `populateEraseUnnecessaryInputsPatterns`), so that one-shot
    bufferization, after `amp-tile-for-threads` too, updates the buffer in
    place. `amp-return-donated-buffers` then returns that buffer instead of
    the copy the buffer deallocation pipeline makes of it.

    This changes the calling convention: the step's caller must not read an
    `amp.donated` argument after the call (its buffer holds the new value,
    which the matching result returns). `amp-run` donates its params and
    optimizer state; `amp-lower-to-llvm` does it with `donate-state=true`.
    Results and arguments that do not match stay as they are.
  }];
  let dependentDialects = ["::mlir::bufferization::BufferizationDialect"];
}

def ReturnDonatedBuffersPass
    : Pass<"amp-return-donated-buffers", "::mlir::func::FuncOp"> {
  let summary = "Return a donated argument's buffer instead of a clone of it";
  let description = [{
    After one-shot bufferization has updated an `amp.donated` argument in
    place (`amp-update-state-in-place`), the ownership-based buffer
    deallocation returns a `bufferization.clone` of it, since a function
    does not own its arguments. The caller donated that buffer and expects
    it back: this pass returns the argument itself wherever such a clone is
    only returned and retained by `bufferization.dealloc`s that do not read
    its ownership, saving a copy of every updated tensor per call. Run it
    after `buffer-deallocation-simplification` and before
    `bufferization-lower-deallocations` (whose pointer comparisons would
    read the clone).
  }];
}

def AnnotateVectorLoopsPass : Pass<"amp-annotate-vector-loops"> {
  let summary = "Ask LLVM's loop vectorizer for full-width vectors on the "
                "innermost loops";
  let description = [{
    Sets `loop_annotation = #llvm.loop_annotation<vectorize =
    #llvm.loop_vectorize<disable = false, width = W>>` on every innermost
    `scf.for` (no loop inside it) whose static trip count is at least W;
    `convert-scf-to-cf` moves it to the loop's back-edge branch,
    `convert-cf-to-llvm` onto the `llvm.br` (whose own attribute of that
    name it is) and the LLVM translation makes it `!llvm.loop` metadata. Left alone, LLVM's cost model
    picks 4 lanes for the big fused bodies of a backward pass (GELU's
    derivative with a polynomial tanh: 2.6 ms of the transformer step on
    128-bit vectors) and does not vectorize an f32 sum along the innermost
    dimension at all (the order of its additions may not change). An
    explicit width allows both: such sums are then reassociated across the
    W lanes, which changes their last bits, as any vectorized or threaded
    reduction does.

    W is `width` f32 lanes; 0 (the default) takes the compiling machine's
    vector registers: 16 with AVX-512, 8 with AVX2, 4 otherwise.
  }];
  let options = [
    Option<"width", "width", "unsigned", /*default=*/"0",
           "Vector lanes to ask for (0: the host's f32 lanes)">
  ];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def StoreBf16BitsPass : Pass<"amp-store-bf16-bits"> {
  let summary = "Store the 16-bit integers of a bf16 vector instead of the "
                "bf16 vector (LLVM dialect)";
  let description = [{
    Rewrites `llvm.store (llvm.bitcast %x : vector<N x i16> to
    vector<N x bf16>)` to `llvm.store %x`: the same bits to the same
    address; the same for a scalar bf16 bitcast from i16 (LLVM's loop
    vectorizer makes vector stores of those) and for a stored bf16
    constant, which stores its bits. Upstream's bf16 `truncf` expansion ends in such a bitcast, and
    on a CPU without AVX512_BF16 LLVM 22's x86 back end legalizes a stored
    `<N x bfloat>` lane by lane (16 extracts, shifts and 16-bit stores per
    vector; a whole fused loop of stores and selects turns scalar), while it
    stores `<N x i16>` with one instruction. LLVM's own InstCombine does not
    fold the bitcast into the store. Runs after the conversion to the LLVM
    dialect (amp-lower-to-llvm with bf16 conversions expanded).
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def VectorizeElementwisePass
    : Pass<"amp-vectorize-elementwise", "::mlir::func::FuncOp"> {
  let summary = "Run elementwise linalg ops on buffers as vector loads, "
                "vector arithmetic and vector stores";
  let description = [{
    An elementwise `linalg.generic` on buffers (all loops parallel, static
    shapes, float operands, an arith / math body, projected-permutation
    maps, and its innermost loop a multiple of `width` that every operand
    indexing it reads contiguously) becomes loops over its outer points and
    `width`-element chunks of the innermost loop, each chunk vectorized by
    upstream's `linalg::vectorize` and its transfers lowered to
    `vector.load` / `vector.store` (broadcast operands: one scalar load and
    a `vector.broadcast`).

    Left to LLVM's loop vectorizer, such a loop whose output buffer is one
    of its inputs (amp-prepare-destinations reuses dead inputs) fails the
    vectorizer's runtime overlap check and runs its scalar copy: a ReLU
    backward became a branch per element (the select of a loaded value),
    10x slower on real activations than on predictable ones. Vector code
    loads a whole chunk before it stores, which is correct for the same
    element read and written, the only overlap linalg's parallel loops
    allow.

    `width` 0 (the default) takes the compiling machine's f32 lanes: 16
    with AVX-512, 8 with AVX2, 4 otherwise.
  }];
  let options = [
    Option<"width", "width", "unsigned", /*default=*/"0",
           "Elements per vector (0: the host's f32 lanes)">
  ];
  let dependentDialects = ["::mlir::vector::VectorDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::arith::ArithDialect"];
}

#endif // AMP_TRANSFORMS_PASSES
