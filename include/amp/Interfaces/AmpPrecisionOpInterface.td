//===- AmpPrecisionOpInterface.td - AMP precision class of an op ---------===//
//
// Lets a dialect outside upstream MLIR tell amp-auto-mixed-precision which
// precision class its ops belong to, without recompiling amp-opt: attach the
// interface to the op (natively or as an external model from a plugin).
//
//===----------------------------------------------------------------------===//

#ifndef AMP_INTERFACES_AMPPRECISIONOPINTERFACE
#define AMP_INTERFACES_AMPPRECISIONOPINTERFACE

include "mlir/IR/OpBase.td"

def AmpPrecisionOpInterface : OpInterface<"AmpPrecisionOpInterface"> {
  let description = [{
    Declares the automatic-mixed-precision class of an operation: `allow`
    (always run in f16/bf16; contractions accumulate in f32), `infer`
    (low precision only between allow ops), `clear` (exact in any precision,
    follows its neighbours), `deny` (must stay f32) or `unlisted` (never
    converted). The class from this interface wins over the built-in tables;
    a policy file or a CLI list edit still wins over the interface.

    Ops that implement it and are classified `allow` can also name the
    operands that carry the f32 accumulator (they keep f32).
  }];
  let cppNamespace = "::mlir::amp";
  let methods = [
    InterfaceMethod<
      /*desc=*/"Returns the AMP precision class of this operation.",
      /*retTy=*/"::mlir::amp::PrecisionClass",
      /*methodName=*/"getAmpPrecisionClass",
      /*args=*/(ins)>,
    InterfaceMethod<
      /*desc=*/[{
        Returns true if operand `index` is an f32 accumulator that must stay
        f32 when the op runs in low precision (e.g. the `outs` of a
        contraction). Its tied result then stays f32 too.
      }],
      /*retTy=*/"bool",
      /*methodName=*/"isAmpAccumulatorOperand",
      /*args=*/(ins "unsigned":$index),
      /*methodBody=*/"",
      /*defaultImplementation=*/"return false;">,
    InterfaceMethod<
      /*desc=*/[{
        Returns true if result `index` is the f32 accumulator of an `allow`
        op: it stays f32 (consumers that want low precision get a cast).
      }],
      /*retTy=*/"bool",
      /*methodName=*/"isAmpAccumulatorResult",
      /*args=*/(ins "unsigned":$index),
      /*methodBody=*/"",
      /*defaultImplementation=*/"return false;">,
  ];
}

#endif // AMP_INTERFACES_AMPPRECISIONOPINTERFACE
