//===- JitFunction.h - Calling JIT-compiled functions on host buffers -*- C++
//-*-===//
//
// HostTensor: a buffer amp-run owns (params, optimizer state, batches) with
// the memref descriptor that the compiled code takes. JitFunction: a
// function with the C interface (`_mlir_ciface_NAME(results *, args *...)`),
// called on HostTensors, whose result descriptors it reads, copies and
// frees.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_RUN_JITFUNCTION_H
#define AMP_RUN_JITFUNCTION_H

#include "Signature.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <vector>

namespace amp::run {

/// A buffer of amp-run holding one argument, with its memref descriptor
/// (allocated, aligned, offset, sizes..., strides...). Zero-filled, 64-byte
/// aligned; exits on out of memory.
class HostTensor {
public:
  explicit HostTensor(const TensorSpec &spec);

  float *f32() { return reinterpret_cast<float *>(storage.get()); }
  int32_t *i32() { return reinterpret_cast<int32_t *>(storage.get()); }
  char *bytes() { return storage.get(); }
  /// What the `_mlir_ciface_` function takes for a memref argument.
  void *descriptor() { return desc.data(); }

  TensorSpec spec;

private:
  struct FreeDeleter {
    void operator()(char *p) const { std::free(p); }
  };
  std::unique_ptr<char, FreeDeleter> storage;
  llvm::SmallVector<int64_t, 11> desc;
};

/// A view of one result descriptor inside the result struct the callee
/// filled.
struct ResultView {
  const int64_t *words;
  int64_t rank;

  void *allocated() const {
    return reinterpret_cast<void *>(static_cast<intptr_t>(words[0]));
  }
  const char *aligned() const {
    return reinterpret_cast<const char *>(static_cast<intptr_t>(words[1]));
  }
  int64_t offset() const { return words[2]; }
  llvm::ArrayRef<int64_t> sizes() const { return {words + 3, size_t(rank)}; }
  llvm::ArrayRef<int64_t> strides() const {
    return {words + 3 + rank, size_t(rank)};
  }
};

/// A JIT-compiled function with the C interface, called with memref
/// descriptors: `_mlir_ciface_NAME(results *, args *...)`.
class JitFunction {
public:
  JitFunction(const Signature &sig, void (*packed)(void **));

  /// Calls the function; `args` are in the order of its arguments.
  void call(llvm::ArrayRef<HostTensor *> args);

  ResultView result(size_t i) const {
    return {resultWords.data() + offsets[i],
            static_cast<int64_t>(sig.results[i].spec.shape.size())};
  }

  /// Checks that result `i` has the declared shape.
  llvm::Error checkResult(size_t i) const;

  /// Copies result `i` into the contiguous buffer `dst` (nothing to do when
  /// the result is `dst` itself: a donated argument updated in place).
  void copyResult(size_t i, char *dst) const;

  /// Frees the result buffers that the callee allocated (each once).
  void freeResults();

  const Signature &sig;

private:
  void (*packed)(void **);
  llvm::SmallVector<int64_t, 8> offsets;
  int64_t totalWords = 0;
  std::vector<int64_t> resultWords;
};

} // namespace amp::run

#endif // AMP_RUN_JITFUNCTION_H
