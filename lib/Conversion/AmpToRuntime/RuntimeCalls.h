//===- RuntimeCalls.h - Which libamp_rt entry point runs an op --*- C++ -*-===//
//
// amp-lower-to-runtime's matching of linalg contractions on memrefs to
// libamp_rt's entry points (runtime/include/amp_rt.h): names, operand
// layouts and the scalar arguments. Private to lib/Conversion/AmpToRuntime.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_CONVERSION_AMPTORUNTIME_RUNTIMECALLS_H
#define AMP_CONVERSION_AMPTORUNTIME_RUNTIMECALLS_H

#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/SmallVector.h"

#include <string>

namespace mlir::amp {

/// One runtime call: the callee and the trailing scalar arguments after the
/// three memrefs (i32 transA, transB for GEMMs; i64 strides and dilations
/// for convolutions).
struct RuntimeCall {
  std::string callee;
  SmallVector<Type, 4> scalarTypes;
  SmallVector<int64_t, 4> scalars;
};

/// The runtime's name of an element type, or "" if it has no entry points
/// for it.
StringRef getRuntimeTypeName(Type type);

/// The fully dynamic strided memref of `type`'s rank and element type: the
/// parameter type of every entry point.
MemRefType getDynamicStridedType(MemRefType type);

/// The runtime call implementing `op`, or the reason there is none. f32
/// inputs have an entry point (f32 x f32 -> f32) only with `includeF32`.
FailureOr<RuntimeCall> matchRuntimeCall(linalg::LinalgOp op, bool includeF32,
                                        std::string &why);

} // namespace mlir::amp

#endif // AMP_CONVERSION_AMPTORUNTIME_RUNTIMECALLS_H
