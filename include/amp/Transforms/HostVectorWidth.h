//===- HostVectorWidth.h - The compiling machine's vector lanes -*- C++ -*-===//
//
// The default vector width of the fast pipeline's loops: what the machine
// that JIT-compiles the step (amp-run) can run.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_TRANSFORMS_HOSTVECTORWIDTH_H
#define AMP_TRANSFORMS_HOSTVECTORWIDTH_H

namespace mlir::amp {

/// f32 lanes of the host's widest vector registers: 16 with AVX-512, 8 with
/// AVX2 or AVX, 4 otherwise.
unsigned hostF32Lanes();

} // namespace mlir::amp

#endif // AMP_TRANSFORMS_HOSTVECTORWIDTH_H
