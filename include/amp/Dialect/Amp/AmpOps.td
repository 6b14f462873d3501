//===- AmpOps.td - The amp dialect's markers ----------------*- tablegen -*-===//
//
// amp.grad_seed, amp.param_grad and amp.state_update: identity-like markers
// that tell amp-loss-scaling where the backward pass begins, which values are
// weight gradients and which values replace a piece of training state.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_DIALECT_AMP_AMPOPS
#define AMP_DIALECT_AMP_AMPOPS

include "amp/Dialect/Amp/AmpDialect.td"
include "amp/Interfaces/AmpPrecisionOpInterface.td"
include "mlir/IR/OpBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

/// A float scalar or a ranked tensor of floats: what a loss or a gradient is.
def Amp_FloatLike : AnyTypeOf<[AnyFloat, RankedTensorOf<[AnyFloat]>],
                              "a float or a ranked tensor of floats">;

/// The result has the operand's type (the format infers one from the other).
class Amp_SameType<string operand, string what>
    : AllTypesMatch<[operand, "result"]> {
  let summary = "the result has the type of the " # what;
}

class Amp_Op<string mnemonic, list<Trait> traits = []>
    : Op<Amp_Dialect, mnemonic, traits> {
  // Every marker checks that it sits in a function.
  let hasVerifier = 1;
}

def Amp_GradSeedOp : Amp_Op<"grad_seed",
    [Pure, Amp_SameType<"loss", "loss">,
     DeclareOpInterfaceMethods<AmpPrecisionOpInterface>]> {
  let summary = "The gradient of the loss with respect to itself (ones)";
  let description = [{
    Marks where the backward pass starts: the result is dL/dL, ones of the
    loss's type, and the backward pass multiplies it in (e.g.
    `dlogits = (softmax - y) * seed / batch`). A function has at most one.

    `amp-loss-scaling` replaces it with the loss scale S (a splat of S of the
    loss's type), so every gradient computed from it is scaled by S.

    For amp-auto-mixed-precision it is a deny op: the values computed from
    the seed by infer/clear ops stay f32 (S = 65536 is above f16's range), as
    in PyTorch where the loss gradient is scaled in f32; the first
    contraction casts the scaled gradient.

    ```mlir
    %seed = amp.grad_seed %loss : tensor<f32>
    ```
  }];
  let arguments = (ins Amp_FloatLike:$loss);
  let results = (outs Amp_FloatLike:$result);
  let assemblyFormat = "$loss attr-dict `:` type($loss)";
}

def Amp_ParamGradOp : Amp_Op<"param_grad",
    [Pure, Amp_SameType<"grad", "gradient">]> {
  let summary = "A weight gradient that the optimizer consumes (identity)";
  let description = [{
    The identity on the gradient of a weight, marking it for the loss-scaling
    rewrite: `amp-loss-scaling` replaces the result by the gradient unscaled
    in f32 (`g * (1/S)`) and feeds it into the step's all-finite check.

    ```mlir
    %g = amp.param_grad %dw : tensor<64x128xf32>
    ```
  }];
  let arguments = (ins Amp_FloatLike:$grad);
  let results = (outs Amp_FloatLike:$result);
  let assemblyFormat = "$grad attr-dict `:` type($grad)";
}

def Amp_StateUpdateOp : Amp_Op<"state_update", [Pure]> {
  let summary = "The new value of a piece of training state (its second "
                "operand)";
  let description = [{
    `%old` (`$state`) is the state (a weight or an optimizer buffer, usually
    a function argument) and `%new` (`$new_value`) the value that replaces
    it; the result is `%new`. Both operands and the result have one type.

    With loss scaling and `skip-on-overflow`, `amp-loss-scaling` replaces it
    by `arith.select %all_finite, %new, %old`: a step with an inf or NaN
    gradient leaves the state bit-identical.

    ```mlir
    %w2 = amp.state_update %w, %w_new : tensor<64x128xf32>
    ```
  }];
  let arguments = (ins AnyType:$state, AnyType:$new_value);
  let results = (outs AnyType:$result);
  // `$state, $new_value attr-dict : type`, with a verifier that names both
  // types when they differ (AllTypesMatch would only say that they do).
  let hasCustomAssemblyFormat = 1;
}

#endif // AMP_DIALECT_AMP_AMPOPS
