//===- AmpDialect.td - The amp dialect ----------------------*- tablegen -*-===//
//
// The amp dialect: the markers of the training-step contract
// (docs/training-step.md).
//
//===----------------------------------------------------------------------===//

#ifndef AMP_DIALECT_AMP_AMPDIALECT
#define AMP_DIALECT_AMP_AMPDIALECT

include "mlir/IR/OpBase.td"

def Amp_Dialect : Dialect {
  let name = "amp";
  let summary = "Markers of the structure of a training step";
  let description = [{
    A training step is a function whose backward pass is already in the IR.
    The `amp` ops mark its structure for the loss-scaling rewrite: where the
    backward pass starts (`amp.grad_seed`), which values are weight gradients
    (`amp.param_grad`) and which values replace a piece of training state, a
    weight or an optimizer buffer (`amp.state_update`).

    Each marker is an identity: without loss scaling `amp.grad_seed` is ones
    of the loss's type, `amp.param_grad` its operand and `amp.state_update`
    its second operand (`amp-strip-markers`). `amp-loss-scaling` rewrites
    them into a scaled seed, unscaled and checked gradients and guarded
    updates.
  }];
  let cppNamespace = "::mlir::amp";
  // The amp.* attributes are checked where they are attached: of function
  // arguments and results amp.role, amp.rounded_from, amp.donated and
  // amp.updates (docs/training-step.md, docs/downstream.md); of ops
  // amp.decision (amp-auto-mixed-precision{annotate}) and of a module
  // amp.report.<stage> (amp-report-snapshot, docs/reports.md). Any other
  // amp.* name is an error, so that a misspelt one is not ignored.
  let hasOperationAttrVerify = 1;
  let hasRegionArgAttrVerify = 1;
  let hasRegionResultAttrVerify = 1;
}

#endif // AMP_DIALECT_AMP_AMPDIALECT
