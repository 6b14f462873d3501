//===- JitFunction.cpp - Calling JIT-compiled functions on host buffers ---===//

#include "JitFunction.h"
#include "Error.h"
#include "TrackedAlloc.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cstring>
#include <string>

using namespace amp::run;

HostTensor::HostTensor(const TensorSpec &spec) : spec(spec) {
  size_t bytes = std::max<int64_t>(64, (spec.numBytes() + 63) / 64 * 64);
  storage.reset(static_cast<char *>(std::aligned_alloc(64, bytes)));
  if (!storage) {
    llvm::errs() << "amp-run: error: out of memory\n";
    std::exit(1);
  }
  std::memset(storage.get(), 0, bytes);
  auto ptr = static_cast<int64_t>(reinterpret_cast<intptr_t>(storage.get()));
  desc = {ptr, ptr, 0};
  desc.append(spec.shape.begin(), spec.shape.end());
  llvm::SmallVector<int64_t, 4> strides(spec.shape.size());
  int64_t stride = 1;
  for (int64_t i = static_cast<int64_t>(spec.shape.size()) - 1; i >= 0; --i) {
    strides[i] = stride;
    stride *= spec.shape[i];
  }
  desc.append(strides.begin(), strides.end());
}

JitFunction::JitFunction(const Signature &sig, void (*packed)(void **))
    : sig(sig), packed(packed) {
  for (const RoleValue &r : sig.results) {
    offsets.push_back(totalWords);
    totalWords += r.spec.descriptorWords();
  }
  resultWords.assign(totalWords, 0);
}

void JitFunction::call(llvm::ArrayRef<HostTensor *> args) {
  std::fill(resultWords.begin(), resultWords.end(), 0);
  llvm::SmallVector<void *, 16> descriptors;
  for (HostTensor *t : args)
    descriptors.push_back(t->descriptor());
  void *resultPtr = resultWords.data();
  // The packed wrapper reads argument i from *packedArgs[i]: first the
  // pointer to the result struct, then one descriptor pointer per memref.
  llvm::SmallVector<void *, 17> packedArgs;
  packedArgs.push_back(&resultPtr);
  for (void *&d : descriptors)
    packedArgs.push_back(&d);
  packed(packedArgs.data());
}

llvm::Error JitFunction::checkResult(size_t i) const {
  ResultView v = result(i);
  const TensorSpec &spec = sig.results[i].spec;
  if (!llvm::equal(v.sizes(), spec.shape))
    return makeError(
        "@" + sig.name + " returned result " + llvm::Twine(i) +
        " with sizes [" +
        llvm::join(llvm::map_range(v.sizes(),
                                   [](int64_t s) { return std::to_string(s); }),
                   ", ") +
        "], expected " + spec.str());
  if (!v.aligned() && spec.numElements() > 0)
    return makeError("@" + sig.name + " returned a null buffer as result " +
                     llvm::Twine(i));
  return llvm::Error::success();
}

void JitFunction::copyResult(size_t i, char *dst) const {
  ResultView v = result(i);
  const TensorSpec &spec = sig.results[i].spec;
  int64_t elemBytes = spec.elemBytes();
  const char *base = v.aligned() + v.offset() * elemBytes;
  int64_t n = spec.numElements();
  bool contiguous = true;
  int64_t expected = 1;
  for (int64_t d = v.rank - 1; d >= 0; --d) {
    if (v.sizes()[d] != 1 && v.strides()[d] != expected)
      contiguous = false;
    expected *= v.sizes()[d];
  }
  // A donated argument's buffer, updated in place, is its own result.
  if (base == dst)
    return;
  if (contiguous) {
    std::memcpy(dst, base, n * elemBytes);
    return;
  }
  llvm::SmallVector<int64_t, 4> index(v.rank, 0);
  for (int64_t k = 0; k < n; ++k) {
    int64_t off = 0;
    for (int64_t d = 0; d < v.rank; ++d)
      off += index[d] * v.strides()[d];
    std::memcpy(dst + k * elemBytes, base + off * elemBytes, elemBytes);
    for (int64_t d = v.rank - 1; d >= 0; --d) {
      if (++index[d] < v.sizes()[d])
        break;
      index[d] = 0;
    }
  }
}

void JitFunction::freeResults() {
  llvm::SmallDenseSet<void *, 8> freed;
  for (size_t i = 0, e = sig.results.size(); i < e; ++i) {
    void *p = result(i).allocated();
    if (p && isTrackedAllocation(p) && freed.insert(p).second)
      freeTrackedAllocation(p);
  }
}
