//===- TestOps.td - amp_test dialect ------------------------*- tablegen -*-===//

#ifndef AMP_TEST_OPS
#define AMP_TEST_OPS

include "amp/Interfaces/AmpPrecisionOpInterface.td"
include "mlir/IR/OpBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def AmpTest_Dialect : Dialect {
  let name = "amp_test";
  let summary = "Ops of a dialect unknown to amp-opt, for the lit tests";
  let cppNamespace = "::mlir::amp::test";
}

class AmpTest_Op<string mnemonic, list<Trait> traits = []>
    : Op<AmpTest_Dialect, mnemonic, traits>;

def AmpTest_MatmulOp : AmpTest_Op<"matmul", [Pure,
    DeclareOpInterfaceMethods<AmpPrecisionOpInterface,
      ["isAmpAccumulatorOperand", "isAmpAccumulatorResult"]>]> {
  let summary = "A vendor contraction: lhs x rhs + acc (acc and result f32)";
  let arguments = (ins AnyRankedTensor:$lhs, AnyRankedTensor:$rhs,
                       AnyRankedTensor:$acc);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs `,` $acc attr-dict `:` type($lhs) `,` type($rhs) `,`
    type($acc) `->` type($result)
  }];
}

def AmpTest_ScaleOp : AmpTest_Op<"scale", [Pure]> {
  let summary = "An op whose class comes from an external model (deny)";
  let arguments = (ins AnyType:$input);
  let results = (outs AnyType:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
}

def AmpTest_OpaqueOp : AmpTest_Op<"opaque", [Pure]> {
  let summary = "An op with no AMP class at all (unlisted)";
  let arguments = (ins AnyType:$input);
  let results = (outs AnyType:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
}

#endif // AMP_TEST_OPS
