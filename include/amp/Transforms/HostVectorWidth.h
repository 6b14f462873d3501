//===- HostVectorWidth.h - The compiling machine's vector lanes -*- C++ -*-===//
//
// The defaults of the fast pipeline's code generation that depend on the
// machine that JIT-compiles the step (amp-run): its vector width and
// whether it has bf16 conversion instructions.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_TRANSFORMS_HOSTVECTORWIDTH_H
#define AMP_TRANSFORMS_HOSTVECTORWIDTH_H

namespace mlir::amp {

/// f32 lanes of the host's widest vector registers: 16 with AVX-512, 8 with
/// AVX2 or AVX, 4 otherwise.
unsigned hostF32Lanes();

/// Whether the host converts f32 to bf16 in one instruction
/// (AVX512_BF16's vcvtneps2bf16); elsewhere LLVM calls __truncsfbf2.
bool hostHasBf16Conversions();

} // namespace mlir::amp

#endif // AMP_TRANSFORMS_HOSTVECTORWIDTH_H
