//===- Runtime.cpp - libamp_rt front end: errors, backends, staging -------===//
//
// Everything that does not depend on the backend: the per-thread error, the
// run-time choice of backend (loading libamp_rt_cuda.so on demand), the
// registry of caller-owned buffers, the staging of host operands into
// runtime-owned buffers, argument checking, and the C API entry points.
//
//===----------------------------------------------------------------------===//

#include "Frontend.h"

#include "Convert.h"
#include "ScaleRule.h"

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace amp {
namespace rt {

std::unique_ptr<Backend> createCPUBackend();

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

namespace {
thread_local amp_rt_status tlsStatus = AMP_RT_SUCCESS;
thread_local char tlsMessage[1024] = "";
} // namespace

amp_rt_status fail(amp_rt_status code, const char *fmt, ...) {
  // Format into a copy first: callers may pass the current message.
  char buf[sizeof(tlsMessage)];
  va_list args;
  va_start(args, fmt);
  vsnprintf(buf, sizeof(buf), fmt, args);
  va_end(args);
  std::memcpy(tlsMessage, buf, sizeof(buf));
  tlsStatus = code;
  return code;
}

namespace {
/// Prefixes the failure message with the API function's name, once.
amp_rt_status named(const char *fn, amp_rt_status s) {
  if (s == AMP_RT_SUCCESS)
    return s;
  size_t n = std::strlen(fn);
  if (std::strncmp(tlsMessage, fn, n) == 0 && tlsMessage[n] == ':')
    return s;
  return fail(s, "%s: %s", fn, tlsMessage);
}
} // namespace

const char *dtypeName(amp_rt_dtype t) {
  switch (t) {
  case AMP_RT_F32:
    return "f32";
  case AMP_RT_F16:
    return "f16";
  case AMP_RT_BF16:
    return "bf16";
  }
  return "<invalid dtype>";
}

#define AMP_RT_TRY(expr)                                                       \
  do {                                                                         \
    amp_rt_status status_ = (expr);                                            \
    if (status_ != AMP_RT_SUCCESS)                                             \
      return status_;                                                          \
  } while (false)

namespace {

bool validDtype(int t) {
  return t == AMP_RT_F32 || t == AMP_RT_F16 || t == AMP_RT_BF16;
}

/// a * b + c without overflow, for element counts; false on overflow.
bool mulAdd(int64_t a, int64_t b, int64_t c, int64_t &out) {
  int64_t p;
  return !__builtin_mul_overflow(a, b, &p) &&
         !__builtin_add_overflow(p, c, &out);
}

/// Number of elements from element 0 to the last one, inclusive (strides are
/// non-negative). 0 for an empty view; -1 on overflow.
int64_t spanElements(const TensorView &v) {
  int64_t span = 1;
  for (int i = 0; i < v.rank; ++i) {
    if (v.sizes[i] == 0)
      return 0;
    if (!mulAdd(v.sizes[i] - 1, v.strides[i], span, span))
      return -1;
  }
  return span;
}

bool isRowMajorContiguous(const TensorView &v) {
  int64_t expected = 1;
  for (int i = v.rank - 1; i >= 0; --i) {
    if (v.sizes[i] != 1 && v.strides[i] != expected)
      return false;
    expected *= v.sizes[i];
  }
  return true;
}

void denseStrides(const TensorView &v, int64_t *strides) {
  int64_t s = 1;
  for (int i = v.rank - 1; i >= 0; --i) {
    strides[i] = s;
    s *= v.sizes[i];
  }
}

//===----------------------------------------------------------------------===//
// Backend slots: a backend with its buffer registry and staging arena
//===----------------------------------------------------------------------===//

/// Runtime-owned staging memory of one backend: blocks handed out by a bump
/// pointer during a call. When a call needed more than one block, they are
/// merged into one larger block at the start of the next call, so the steady
/// state allocates nothing.
class Arena {
public:
  void reset(Backend &be) {
    offset = 0;
    if (blocks.size() <= 1)
      return;
    size_t total = 0;
    for (const Block &b : blocks)
      total += b.size;
    releaseAll(be);
    void *p = nullptr;
    if (be.allocate(total, &p) == AMP_RT_SUCCESS)
      blocks.push_back({p, total});
    // On failure the next allocate() retries with what it needs.
  }

  amp_rt_status allocate(Backend &be, size_t bytes, void **out) {
    bytes = (std::max<size_t>(bytes, 1) + 255) & ~size_t(255);
    if (!blocks.empty() && offset + bytes <= blocks.back().size) {
      *out = static_cast<char *>(blocks.back().ptr) + offset;
      offset += bytes;
      return AMP_RT_SUCCESS;
    }
    size_t size = std::max(bytes, blocks.empty() ? size_t(1) << 20
                                                 : 2 * blocks.back().size);
    void *p = nullptr;
    if (be.allocate(size, &p) != AMP_RT_SUCCESS) {
      // A smaller exact-size block may still fit.
      if (size == bytes || be.allocate(bytes, &p) != AMP_RT_SUCCESS)
        return fail(AMP_RT_ERROR_OUT_OF_MEMORY,
                    "out of %s memory allocating %zu bytes of staging space "
                    "(%s)",
                    be.name(), bytes, amp_rt_last_error());
      size = bytes;
    }
    blocks.push_back({p, size});
    *out = p;
    offset = bytes;
    return AMP_RT_SUCCESS;
  }

  void releaseAll(Backend &be) {
    if (!blocks.empty())
      be.synchronize(); // asynchronous work may still use the blocks
    for (const Block &b : blocks)
      be.deallocate(b.ptr);
    blocks.clear();
    offset = 0;
  }

private:
  struct Block {
    void *ptr;
    size_t size;
  };
  std::vector<Block> blocks;
  size_t offset = 0;
};

struct Slot {
  std::unique_ptr<Backend> backend;
  std::map<uintptr_t, size_t> buffers; // caller-owned: base -> bytes
  Arena arena;

  bool contains(const void *p, size_t bytes) const {
    uintptr_t a = reinterpret_cast<uintptr_t>(p);
    auto it = buffers.upper_bound(a);
    if (it == buffers.begin())
      return false;
    --it;
    return a >= it->first && bytes <= it->second &&
           a - it->first <= it->second - bytes;
  }
};

struct Runtime {
  std::recursive_mutex mutex;
  Slot cpu, cuda;
  Slot *current = nullptr;
  bool selected = false;
  amp_rt_status selectionStatus = AMP_RT_SUCCESS;
  std::string selectionError;
  // Result of trying to create the cuda backend: 0 untried, 1 ok, -1 failed.
  int cudaState = 0;
  std::string cudaError;
};

Runtime &runtime() {
  // Deliberately leaked: CUDA handles must not be destroyed from static
  // destructors after the CUDA runtime itself has shut down.
  static Runtime *rt = new Runtime();
  return *rt;
}

amp_rt_error_mode initialErrorMode() {
  const char *env = std::getenv("AMP_RT_ON_ERROR");
  return env && std::strcmp(env, "record") == 0 ? AMP_RT_ERRORS_RECORD
                                                : AMP_RT_ERRORS_ABORT;
}
amp_rt_error_mode &errorModeRef() {
  static amp_rt_error_mode mode = initialErrorMode();
  return mode;
}

/// Directory of libamp_rt itself, where libamp_rt_cuda.so is installed.
std::string ownDirectory() {
  Dl_info info;
  if (dladdr(reinterpret_cast<void *>(&ownDirectory), &info) &&
      info.dli_fname) {
    std::string path = info.dli_fname;
    size_t slash = path.rfind('/');
    if (slash != std::string::npos)
      return path.substr(0, slash + 1);
  }
  return "";
}

bool tryCreateCuda(Runtime &rt) {
  if (rt.cudaState != 0)
    return rt.cudaState > 0;
  rt.cudaState = -1;
  const char *env = std::getenv("AMP_RT_CUDA_LIBRARY");
  std::vector<std::string> candidates;
  if (env && *env)
    candidates.push_back(env);
  candidates.push_back(ownDirectory() + "libamp_rt_cuda.so");
  candidates.push_back("libamp_rt_cuda.so");
  void *handle = nullptr;
  std::string errors;
  for (const std::string &c : candidates) {
    handle = dlopen(c.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle)
      break;
    const char *e = dlerror();
    errors += (errors.empty() ? "" : "; ") + std::string(e ? e : c.c_str());
  }
  if (!handle) {
    rt.cudaError = "cannot load the cuda backend: " + errors;
    return false;
  }
  auto create =
      reinterpret_cast<CreateBackendFn>(dlsym(handle, kCudaFactorySymbol));
  if (!create) {
    rt.cudaError = "libamp_rt_cuda.so has no " +
                   std::string(kCudaFactorySymbol) + " symbol";
    return false;
  }
  char why[512] = "";
  Backend *be = create(kBackendAbiVersion, why, sizeof(why));
  if (!be) {
    rt.cudaError = why[0] ? why : "the cuda backend failed to start";
    return false;
  }
  rt.cuda.backend.reset(be);
  rt.cudaState = 1;
  return true;
}

Slot &cpuSlot(Runtime &rt) {
  if (!rt.cpu.backend)
    rt.cpu.backend = createCPUBackend();
  return rt.cpu;
}

/// Applies a selection request (name == nullptr or "" means the default).
amp_rt_status selectLocked(Runtime &rt, const char *name) {
  rt.selected = true;
  rt.selectionStatus = AMP_RT_SUCCESS;
  rt.selectionError.clear();
  rt.current = nullptr;
  if (!name || !*name) {
    rt.current = tryCreateCuda(rt) ? &rt.cuda : &cpuSlot(rt);
    return AMP_RT_SUCCESS;
  }
  if (std::strcmp(name, "cpu") == 0) {
    rt.current = &cpuSlot(rt);
    return AMP_RT_SUCCESS;
  }
  if (std::strcmp(name, "cuda") == 0) {
    if (tryCreateCuda(rt)) {
      rt.current = &rt.cuda;
      return AMP_RT_SUCCESS;
    }
    rt.selectionStatus = AMP_RT_ERROR_BACKEND_UNAVAILABLE;
    rt.selectionError =
        "backend 'cuda' requested but unavailable: " + rt.cudaError;
  } else {
    rt.selectionStatus = AMP_RT_ERROR_INVALID_ARGUMENT;
    rt.selectionError = "unknown backend '" + std::string(name) +
                        "' (expected 'cpu' or 'cuda')";
  }
  return fail(rt.selectionStatus, "%s", rt.selectionError.c_str());
}

/// The active slot, selecting it on first use; fails with the reason when
/// the requested backend is unavailable.
amp_rt_status activeSlot(const char *fn, Slot *&slot) {
  Runtime &rt = runtime();
  if (!rt.selected) {
    const char *env = std::getenv("AMP_RT_BACKEND");
    selectLocked(rt, env);
  }
  if (!rt.current) {
    const char *suffix =
        std::getenv("AMP_RT_BACKEND") ? " (from AMP_RT_BACKEND)" : "";
    return fail(rt.selectionStatus, "%s: %s%s", fn, rt.selectionError.c_str(),
                suffix);
  }
  slot = rt.current;
  return AMP_RT_SUCCESS;
}

//===----------------------------------------------------------------------===//
// Staging of one call's operands
//===----------------------------------------------------------------------===//

/// Makes every operand of one call accessible to the backend (and dense when
/// asked), then writes outputs back. Host operands on the cuda backend are
/// copied to arena memory; non-contiguous ones are packed on the host first
/// when their span has gaps (so write-backs never touch memory between
/// elements), or by the backend when they are already resident.
class CallContext {
public:
  CallContext(const char *fn, Slot &slot)
      : fn(fn), slot(slot), be(*slot.backend) {
    slot.arena.reset(be);
  }

  amp_rt_status scratch(size_t bytes, void **p) {
    return slot.arena.allocate(be, bytes, p);
  }

  bool isResident(const TensorView &v) const {
    if (be.usesHostMemory())
      return true;
    int64_t span = spanElements(v);
    return slot.contains(v.data, size_t(span) * dtypeSize(v.dtype));
  }

  amp_rt_status input(const TensorView &v, bool dense, TensorView &out) {
    out = v;
    int64_t n = numElements(v), span = spanElements(v);
    if (n == 0)
      return AMP_RT_SUCCESS;
    size_t es = dtypeSize(v.dtype);
    bool contiguous = isRowMajorContiguous(v);
    if (isResident(v)) {
      if (!dense || contiguous)
        return AMP_RT_SUCCESS;
      AMP_RT_TRY(scratch(size_t(n) * es, &out.data));
      denseStrides(v, out.strides);
      return be.copyStrided(copyOf(v, out));
    }
    touchedHost = true;
    if ((!dense || contiguous) && span <= 2 * n + 4096) {
      // Upload the whole span, gaps included, and keep the strides.
      AMP_RT_TRY(scratch(size_t(span) * es, &out.data));
      return be.copyToDevice(out.data, v.data, size_t(span) * es);
    }
    std::vector<char> &host = hostTemp(size_t(n) * es);
    TensorView packed = v;
    packed.data = host.data();
    denseStrides(v, packed.strides);
    hostStridedCopy(copyOf(v, packed));
    AMP_RT_TRY(scratch(size_t(n) * es, &out.data));
    denseStrides(v, out.strides);
    return be.copyToDevice(out.data, host.data(), size_t(n) * es);
  }

  /// `read`: the call reads the output's old value (accumulation, beta != 0).
  amp_rt_status output(const TensorView &v, bool read, bool dense,
                       TensorView &out) {
    out = v;
    int64_t n = numElements(v), span = spanElements(v);
    if (n == 0)
      return AMP_RT_SUCCESS;
    size_t es = dtypeSize(v.dtype);
    bool contiguous = isRowMajorContiguous(v);
    if (isResident(v)) {
      if (!dense || contiguous)
        return AMP_RT_SUCCESS;
      AMP_RT_TRY(scratch(size_t(n) * es, &out.data));
      denseStrides(v, out.strides);
      if (read)
        AMP_RT_TRY(be.copyStrided(copyOf(v, out)));
      writeBacks.push_back({WriteBack::DeviceUnpack, v, out, {}});
      return AMP_RT_SUCCESS;
    }
    touchedHost = true;
    if (span == n && (!dense || contiguous)) {
      AMP_RT_TRY(scratch(size_t(n) * es, &out.data));
      if (read)
        AMP_RT_TRY(be.copyToDevice(out.data, v.data, size_t(n) * es));
      writeBacks.push_back({WriteBack::Download, v, out, {}});
      return AMP_RT_SUCCESS;
    }
    WriteBack wb{WriteBack::DownloadAndUnpack, v, v, {}};
    wb.host.resize(size_t(n) * es);
    TensorView packed = v;
    packed.data = wb.host.data();
    denseStrides(v, packed.strides);
    if (read)
      hostStridedCopy(copyOf(v, packed));
    AMP_RT_TRY(scratch(size_t(n) * es, &out.data));
    denseStrides(v, out.strides);
    if (read)
      AMP_RT_TRY(be.copyToDevice(out.data, wb.host.data(), size_t(n) * es));
    wb.staged = out;
    writeBacks.push_back(std::move(wb));
    return AMP_RT_SUCCESS;
  }

  /// Writes outputs back; waits for the backend when host memory was used.
  amp_rt_status finish() {
    for (WriteBack &wb : writeBacks) {
      size_t es = dtypeSize(wb.user.dtype);
      size_t bytes = size_t(numElements(wb.user)) * es;
      switch (wb.kind) {
      case WriteBack::DeviceUnpack:
        AMP_RT_TRY(be.copyStrided(copyOf(wb.staged, wb.user)));
        break;
      case WriteBack::Download:
        AMP_RT_TRY(be.copyToHost(wb.user.data, wb.staged.data, bytes));
        break;
      case WriteBack::DownloadAndUnpack: {
        AMP_RT_TRY(be.copyToHost(wb.host.data(), wb.staged.data, bytes));
        TensorView packed = wb.user;
        packed.data = wb.host.data();
        denseStrides(wb.user, packed.strides);
        hostStridedCopy(copyOf(packed, wb.user));
        break;
      }
      }
    }
    if (touchedHost && !be.usesHostMemory())
      return be.synchronize();
    return AMP_RT_SUCCESS;
  }

  Backend &backend() { return be; }
  const char *name() const { return fn; }

private:
  struct WriteBack {
    enum Kind { DeviceUnpack, Download, DownloadAndUnpack } kind;
    TensorView user, staged;
    std::vector<char> host;
  };

  static StridedCopy copyOf(const TensorView &from, const TensorView &to) {
    StridedCopy c{};
    c.rank = from.rank;
    c.elemSize = dtypeSize(from.dtype);
    c.src = from.data;
    c.dst = to.data;
    for (int i = 0; i < from.rank; ++i) {
      c.sizes[i] = from.sizes[i];
      c.srcStrides[i] = from.strides[i];
      c.dstStrides[i] = to.strides[i];
    }
    return c;
  }

  std::vector<char> &hostTemp(size_t bytes) {
    hostTemps.emplace_back(bytes);
    return hostTemps.back();
  }

  const char *fn;
  Slot &slot;
  Backend &be;
  bool touchedHost = false;
  std::vector<WriteBack> writeBacks;
  std::vector<std::vector<char>> hostTemps;
};

/// How a rank-3 (batch, rows, cols) view maps onto BLAS arguments.
struct BlasMatrix {
  bool ok;      // false: must be packed first
  bool flipped; // stored column-major: it is the transpose, row-major
  int64_t ld, batchStride;
};

BlasMatrix blasForm(const TensorView &v) {
  int64_t rows = v.sizes[1], cols = v.sizes[2];
  int64_t rs = v.strides[1], cs = v.strides[2];
  int64_t bs = v.sizes[0] == 1 ? 0 : v.strides[0];
  if ((cols == 1 || cs == 1) && (rows == 1 || rs >= cols))
    return {true, false, rows == 1 ? std::max<int64_t>(cols, 1) : rs, bs};
  if ((rows == 1 || rs == 1) && (cols == 1 || cs >= rows))
    return {true, true, cols == 1 ? std::max<int64_t>(rows, 1) : cs, bs};
  return {false, false, 0, bs};
}

} // namespace

//===----------------------------------------------------------------------===//
// Core operations over views
//===----------------------------------------------------------------------===//

int64_t numElements(const TensorView &v) {
  int64_t n = 1;
  for (int i = 0; i < v.rank; ++i)
    n *= v.sizes[i];
  return n;
}

void hostStridedCopy(const StridedCopy &c) {
  int64_t sizes[4] = {1, 1, 1, 1}, ss[4] = {0, 0, 0, 0}, ds[4] = {0, 0, 0, 0};
  int off = 4 - c.rank; // right-align into rank 4
  for (int i = 0; i < c.rank; ++i) {
    sizes[off + i] = c.sizes[i];
    ss[off + i] = c.srcStrides[i];
    ds[off + i] = c.dstStrides[i];
  }
  const char *src = static_cast<const char *>(c.src);
  char *dst = static_cast<char *>(c.dst);
  size_t es = c.elemSize;
  for (int64_t i0 = 0; i0 < sizes[0]; ++i0)
    for (int64_t i1 = 0; i1 < sizes[1]; ++i1)
      for (int64_t i2 = 0; i2 < sizes[2]; ++i2) {
        const char *s = src + (i0 * ss[0] + i1 * ss[1] + i2 * ss[2]) * es;
        char *d = dst + (i0 * ds[0] + i1 * ds[1] + i2 * ds[2]) * es;
        if (ss[3] == 1 && ds[3] == 1) {
          std::memcpy(d, s, size_t(sizes[3]) * es);
          continue;
        }
        for (int64_t i3 = 0; i3 < sizes[3]; ++i3)
          std::memcpy(d + i3 * ds[3] * es, s + i3 * ss[3] * es, es);
      }
}

amp_rt_error_mode mlirErrorMode() { return errorModeRef(); }

static amp_rt_status gemmViewsImpl(const char *fn, const TensorView &A,
                                   bool transA, const TensorView &B,
                                   bool transB, const TensorView &C,
                                   float alpha, float beta) {
  int64_t batch = C.sizes[0], M = C.sizes[1], N = C.sizes[2];
  int64_t aM = transA ? A.sizes[2] : A.sizes[1];
  int64_t K = transA ? A.sizes[1] : A.sizes[2];
  int64_t bK = transB ? B.sizes[2] : B.sizes[1];
  int64_t bN = transB ? B.sizes[1] : B.sizes[2];
  if (A.sizes[0] != batch || B.sizes[0] != batch)
    return fail(AMP_RT_ERROR_INVALID_ARGUMENT,
                "%s: batch sizes differ: A %lld, B %lld, C %lld", fn,
                (long long)A.sizes[0], (long long)B.sizes[0], (long long)batch);
  if (aM != M || bN != N || bK != K)
    return fail(AMP_RT_ERROR_INVALID_ARGUMENT,
                "%s: shapes do not match: op(A) is %lldx%lld, op(B) is "
                "%lldx%lld, C is %lldx%lld (transA=%d, transB=%d)",
                fn, (long long)aM, (long long)K, (long long)bK, (long long)bN,
                (long long)M, (long long)N, int(transA), int(transB));
  if (batch == 0 || M == 0 || N == 0)
    return AMP_RT_SUCCESS;

  std::lock_guard<std::recursive_mutex> lock(runtime().mutex);
  Slot *slot = nullptr;
  AMP_RT_TRY(activeSlot(fn, slot));
  CallContext ctx(fn, *slot);
  Backend &be = ctx.backend();

  GemmArgs g{};
  g.abType = A.dtype;
  g.cType = C.dtype;
  g.batch = batch;
  g.alpha = alpha;
  g.beta = beta;
  TensorView a, b, c;
  if (K == 0) {
    // C = beta * C: multiply zero matrices (M x 1 and 1 x N) with alpha 0,
    // which keeps the backends' beta handling (C not read when beta == 0).
    size_t es = dtypeSize(A.dtype);
    void *zeros;
    AMP_RT_TRY(ctx.scratch(size_t(std::max(M, N)) * es, &zeros));
    AMP_RT_TRY(be.fillZero(zeros, size_t(std::max(M, N)) * es));
    a = A;
    a.data = zeros;
    a.sizes[1] = M;
    a.sizes[2] = 1;
    a.strides[0] = 0;
    a.strides[1] = 1;
    a.strides[2] = 1;
    b = a;
    b.sizes[1] = 1;
    b.sizes[2] = N;
    transA = transB = false;
    K = 1;
    g.alpha = 0.0f;
  } else {
    AMP_RT_TRY(ctx.input(A, !blasForm(A).ok, a));
    AMP_RT_TRY(ctx.input(B, !blasForm(B).ok, b));
  }
  AMP_RT_TRY(ctx.output(C, beta != 0.0f, !blasForm(C).ok, c));

  BlasMatrix fa = blasForm(a), fb = blasForm(b), fc = blasForm(c);
  if (!fa.ok || !fb.ok || !fc.ok)
    return fail(AMP_RT_ERROR_INTERNAL, "%s: operand still not BLAS-shaped", fn);
  bool ta = transA != fa.flipped, tb = transB != fb.flipped;
  if (fc.flipped) {
    // C is column-major: compute C^T = op(B)^T op(A)^T in row-major.
    g.M = N;
    g.N = M;
    g.A = b.data;
    g.lda = fb.ld;
    g.strideA = fb.batchStride;
    g.transA = !tb;
    g.B = a.data;
    g.ldb = fa.ld;
    g.strideB = fa.batchStride;
    g.transB = !ta;
  } else {
    g.M = M;
    g.N = N;
    g.A = a.data;
    g.lda = fa.ld;
    g.strideA = fa.batchStride;
    g.transA = ta;
    g.B = b.data;
    g.ldb = fb.ld;
    g.strideB = fb.batchStride;
    g.transB = tb;
  }
  g.K = K;
  g.C = c.data;
  g.ldc = fc.ld;
  g.strideC = fc.batchStride;
  AMP_RT_TRY(be.gemm(g));
  return ctx.finish();
}

amp_rt_status gemmViews(const char *fn, const TensorView &A, bool transA,
                        const TensorView &B, bool transB, const TensorView &C,
                        float alpha, float beta) {
  return named(fn, gemmViewsImpl(fn, A, transA, B, transB, C, alpha, beta));
}

void convTensorShapes(const ConvProblem &p, int64_t x[4], int64_t w[4],
                      int64_t y[4]) {
  const amp_rt_conv2d_desc &d = p.desc;
  bool nhwc = d.layout == AMP_RT_NHWC;
  int64_t xs[4] = {d.N, d.H, d.W, d.C}, xc[4] = {d.N, d.C, d.H, d.W};
  int64_t ys[4] = {d.N, p.P, p.Q, d.K}, yc[4] = {d.N, d.K, p.P, p.Q};
  std::copy(nhwc ? xs : xc, (nhwc ? xs : xc) + 4, x);
  std::copy(nhwc ? ys : yc, (nhwc ? ys : yc) + 4, y);
  int64_t krsc[4] = {d.K, d.R, d.S, d.C}, kcrs[4] = {d.K, d.C, d.R, d.S},
          rsck[4] = {d.R, d.S, d.C, d.K};
  const int64_t *f = d.filter_layout == AMP_RT_FILTER_KRSC   ? krsc
                     : d.filter_layout == AMP_RT_FILTER_KCRS ? kcrs
                                                             : rsck;
  std::copy(f, f + 4, w);
}

amp_rt_status makeConvProblem(const char *fn, const amp_rt_conv2d_desc *desc,
                              ConvProblem &p) {
  if (!desc)
    return fail(AMP_RT_ERROR_INVALID_ARGUMENT, "%s: desc is NULL", fn);
  p.desc = *desc;
  amp_rt_conv2d_desc &d = p.desc;
  if (d.layout != AMP_RT_NHWC && d.layout != AMP_RT_NCHW)
    return fail(AMP_RT_ERROR_INVALID_ARGUMENT,
                "%s: layout %d is neither AMP_RT_NHWC nor AMP_RT_NCHW", fn,
                int(d.layout));
  if (d.filter_layout < AMP_RT_FILTER_DEFAULT ||
      d.filter_layout > AMP_RT_FILTER_RSCK)
    return fail(AMP_RT_ERROR_INVALID_ARGUMENT, "%s: invalid filter_layout %d",
                fn, int(d.filter_layout));
  if (d.filter_layout == AMP_RT_FILTER_DEFAULT)
    d.filter_layout =
        d.layout == AMP_RT_NHWC ? AMP_RT_FILTER_KRSC : AMP_RT_FILTER_KCRS;
  struct {
    const char *name;
    int64_t value, min;
  } fields[] = {{"N", d.N, 1},
                {"H", d.H, 1},
                {"W", d.W, 1},
                {"C", d.C, 1},
                {"K", d.K, 1},
                {"R", d.R, 1},
                {"S", d.S, 1},
                {"pad_h", d.pad_h, 0},
                {"pad_w", d.pad_w, 0},
                {"stride_h", d.stride_h, 1},
                {"stride_w", d.stride_w, 1},
                {"dil_h", d.dil_h, 1},
                {"dil_w", d.dil_w, 1}};
  for (const auto &f : fields) {
    if (f.value < f.min)
      return fail(AMP_RT_ERROR_INVALID_ARGUMENT,
                  "%s: %s = %lld must be >= %lld", fn, f.name,
                  (long long)f.value, (long long)f.min);
    if (f.value > (int64_t(1) << 31))
      return fail(AMP_RT_ERROR_INVALID_ARGUMENT, "%s: %s = %lld is too large",
                  fn, f.name, (long long)f.value);
  }
  int64_t effR = (d.R - 1) * d.dil_h + 1, effS = (d.S - 1) * d.dil_w + 1;
  int64_t padH = d.H + 2 * d.pad_h, padW = d.W + 2 * d.pad_w;
  if (effR > padH || effS > padW)
    return fail(AMP_RT_ERROR_INVALID_ARGUMENT,
                "%s: the dilated %lldx%lld filter does not fit the padded "
                "%lldx%lld input",
                fn, (long long)effR, (long long)effS, (long long)padH,
                (long long)padW);
  p.P = (padH - effR) / d.stride_h + 1;
  p.Q = (padW - effS) / d.stride_w + 1;
  // Every tensor's element count must be representable.
  int64_t x[4], w[4], y[4];
  convTensorShapes(p, x, w, y);
  for (const int64_t *s : {x, w, y}) {
    int64_t n = 1;
    for (int i = 0; i < 4; ++i)
      if (!mulAdd(n, s[i], 0, n) || n > (int64_t(1) << 40))
        return fail(AMP_RT_ERROR_INVALID_ARGUMENT,
                    "%s: tensor of %lldx%lldx%lldx%lld elements is too large",
                    fn, (long long)s[0], (long long)s[1], (long long)s[2],
                    (long long)s[3]);
  }
  return AMP_RT_SUCCESS;
}

static amp_rt_status convViewsImpl(const char *fn, ConvDirection dir,
                                   const ConvProblem &problem,
                                   amp_rt_dtype inType, amp_rt_dtype outType,
                                   float alpha, const TensorView &in0,
                                   const TensorView &in1, float beta,
                                   const TensorView &out) {
  std::lock_guard<std::recursive_mutex> lock(runtime().mutex);
  Slot *slot = nullptr;
  AMP_RT_TRY(activeSlot(fn, slot));
  CallContext ctx(fn, *slot);
  TensorView a, b, c;
  AMP_RT_TRY(ctx.input(in0, true, a));
  AMP_RT_TRY(ctx.input(in1, true, b));
  AMP_RT_TRY(ctx.output(out, beta != 0.0f, true, c));
  AMP_RT_TRY(ctx.backend().conv(dir, problem, inType, outType, alpha, a.data,
                                b.data, beta, c.data));
  return ctx.finish();
}

amp_rt_status convViews(const char *fn, ConvDirection dir,
                        const ConvProblem &problem, amp_rt_dtype inType,
                        amp_rt_dtype outType, float alpha,
                        const TensorView &in0, const TensorView &in1,
                        float beta, const TensorView &out) {
  return named(fn, convViewsImpl(fn, dir, problem, inType, outType, alpha, in0,
                                 in1, beta, out));
}

} // namespace rt
} // namespace amp

//===----------------------------------------------------------------------===//
// C API
//===----------------------------------------------------------------------===//

using namespace amp::rt;

extern "C" {

const char *amp_rt_last_error(void) { return tlsMessage; }
amp_rt_status amp_rt_last_status(void) { return tlsStatus; }
void amp_rt_clear_error(void) {
  tlsStatus = AMP_RT_SUCCESS;
  tlsMessage[0] = '\0';
}

const char *amp_rt_status_string(amp_rt_status status) {
  switch (status) {
  case AMP_RT_SUCCESS:
    return "AMP_RT_SUCCESS";
  case AMP_RT_ERROR_INVALID_ARGUMENT:
    return "AMP_RT_ERROR_INVALID_ARGUMENT";
  case AMP_RT_ERROR_UNSUPPORTED:
    return "AMP_RT_ERROR_UNSUPPORTED";
  case AMP_RT_ERROR_BACKEND_UNAVAILABLE:
    return "AMP_RT_ERROR_BACKEND_UNAVAILABLE";
  case AMP_RT_ERROR_OUT_OF_MEMORY:
    return "AMP_RT_ERROR_OUT_OF_MEMORY";
  case AMP_RT_ERROR_BACKEND:
    return "AMP_RT_ERROR_BACKEND";
  case AMP_RT_ERROR_INTERNAL:
    return "AMP_RT_ERROR_INTERNAL";
  }
  return "<unknown amp_rt_status>";
}

const char *amp_rt_backend_name(void) {
  std::lock_guard<std::recursive_mutex> lock(runtime().mutex);
  Slot *slot = nullptr;
  if (activeSlot("amp_rt_backend_name", slot) != AMP_RT_SUCCESS)
    return "none";
  return slot->backend->name();
}

amp_rt_status amp_rt_select_backend(const char *name) {
  Runtime &rt = runtime();
  std::lock_guard<std::recursive_mutex> lock(rt.mutex);
  if (!name || !*name)
    name = std::getenv("AMP_RT_BACKEND");
  if (rt.current == &rt.cuda && !rt.cuda.buffers.empty() &&
      !(name && std::strcmp(name, "cuda") == 0))
    return fail(AMP_RT_ERROR_INVALID_ARGUMENT,
                "amp_rt_select_backend: %zu cuda buffer(s) from "
                "amp_rt_buffer_create are still live; free them first",
                rt.cuda.buffers.size());
  if (rt.current)
    rt.current->arena.releaseAll(*rt.current->backend);
  if (selectLocked(rt, name) != AMP_RT_SUCCESS)
    return fail(rt.selectionStatus, "amp_rt_select_backend: %s",
                rt.selectionError.c_str());
  return AMP_RT_SUCCESS;
}

int amp_rt_cuda_available(void) {
  Runtime &rt = runtime();
  std::lock_guard<std::recursive_mutex> lock(rt.mutex);
  return tryCreateCuda(rt) ? 1 : 0;
}

amp_rt_status amp_rt_buffer_create(size_t bytes, void **ptr) {
  const char *fn = "amp_rt_buffer_create";
  if (!ptr)
    return fail(AMP_RT_ERROR_INVALID_ARGUMENT, "%s: ptr is NULL", fn);
  *ptr = nullptr;
  if (bytes == 0 || bytes > (size_t(1) << 48))
    return fail(AMP_RT_ERROR_INVALID_ARGUMENT, "%s: invalid size %zu bytes", fn,
                bytes);
  std::lock_guard<std::recursive_mutex> lock(runtime().mutex);
  Slot *slot = nullptr;
  AMP_RT_TRY(activeSlot(fn, slot));
  void *p = nullptr;
  if (slot->backend->allocate(bytes, &p) != AMP_RT_SUCCESS)
    return fail(AMP_RT_ERROR_OUT_OF_MEMORY, "%s: %s", fn, amp_rt_last_error());
  slot->buffers[reinterpret_cast<uintptr_t>(p)] = bytes;
  *ptr = p;
  return AMP_RT_SUCCESS;
}

amp_rt_status amp_rt_buffer_free(void *ptr) {
  if (!ptr)
    return AMP_RT_SUCCESS;
  Runtime &rt = runtime();
  std::lock_guard<std::recursive_mutex> lock(rt.mutex);
  for (Slot *slot : {&rt.cpu, &rt.cuda}) {
    auto it = slot->buffers.find(reinterpret_cast<uintptr_t>(ptr));
    if (it == slot->buffers.end())
      continue;
    slot->buffers.erase(it);
    amp_rt_status s = slot->backend->synchronize();
    amp_rt_status d = slot->backend->deallocate(ptr);
    if (s != AMP_RT_SUCCESS || d != AMP_RT_SUCCESS)
      return fail(s != AMP_RT_SUCCESS ? s : d, "amp_rt_buffer_free: %s",
                  amp_rt_last_error());
    return AMP_RT_SUCCESS;
  }
  return fail(AMP_RT_ERROR_INVALID_ARGUMENT,
              "amp_rt_buffer_free: %p was not returned by amp_rt_buffer_create "
              "(or was already freed)",
              ptr);
}

static amp_rt_status transfer(const char *fn, void *dst, const void *src,
                              size_t bytes, bool upload) {
  if (bytes == 0)
    return AMP_RT_SUCCESS;
  if (!dst || !src)
    return fail(AMP_RT_ERROR_INVALID_ARGUMENT, "%s: %s is NULL", fn,
                dst ? "src" : "dst");
  std::lock_guard<std::recursive_mutex> lock(runtime().mutex);
  Slot *slot = nullptr;
  AMP_RT_TRY(activeSlot(fn, slot));
  const void *buf = upload ? dst : src;
  if (!slot->contains(buf, bytes))
    return fail(AMP_RT_ERROR_INVALID_ARGUMENT,
                "%s: [%p, +%zu bytes) is not inside a buffer of the %s backend "
                "from amp_rt_buffer_create",
                fn, buf, bytes, slot->backend->name());
  Backend &be = *slot->backend;
  amp_rt_status s = upload ? be.copyToDevice(dst, src, bytes)
                           : be.copyToHost(dst, src, bytes);
  if (s == AMP_RT_SUCCESS && upload)
    s = be.synchronize(); // the caller may reuse src right away
  if (s != AMP_RT_SUCCESS)
    return fail(s, "%s: %s", fn, amp_rt_last_error());
  return AMP_RT_SUCCESS;
}

amp_rt_status amp_rt_buffer_upload(void *dst, const void *src, size_t bytes) {
  return transfer("amp_rt_buffer_upload", dst, src, bytes, true);
}

amp_rt_status amp_rt_buffer_download(void *dst, const void *src, size_t bytes) {
  return transfer("amp_rt_buffer_download", dst, src, bytes, false);
}

amp_rt_status amp_rt_synchronize(void) {
  std::lock_guard<std::recursive_mutex> lock(runtime().mutex);
  Slot *slot = nullptr;
  AMP_RT_TRY(activeSlot("amp_rt_synchronize", slot));
  if (slot->backend->synchronize() != AMP_RT_SUCCESS)
    return fail(amp_rt_last_status(), "amp_rt_synchronize: %s",
                amp_rt_last_error());
  return AMP_RT_SUCCESS;
}

amp_rt_status amp_rt_release_cached_memory(void) {
  Runtime &rt = runtime();
  std::lock_guard<std::recursive_mutex> lock(rt.mutex);
  for (Slot *slot : {&rt.cpu, &rt.cuda})
    if (slot->backend)
      slot->arena.releaseAll(*slot->backend);
  return AMP_RT_SUCCESS;
}

//===--- GEMM -------------------------------------------------------------===//

/// Input type `in` (F32, F16 or BF16) and output type `out` (F32, or `in`).
static amp_rt_status checkContractionTypes(const char *fn, const char *inName,
                                           const char *outName, int in,
                                           int out) {
  if (!validDtype(in))
    return fail(AMP_RT_ERROR_INVALID_ARGUMENT,
                "%s: %s must be AMP_RT_F32, AMP_RT_F16 or AMP_RT_BF16 (got "
                "%d)",
                fn, inName, in);
  if (out != AMP_RT_F32 && out != in)
    return fail(AMP_RT_ERROR_INVALID_ARGUMENT,
                "%s: %s must be AMP_RT_F32 or %s %s (got %d)", fn, outName,
                inName, dtypeName(amp_rt_dtype(in)), out);
  return AMP_RT_SUCCESS;
}

static amp_rt_status checkGemmTypes(const char *fn, int ab, int c) {
  return checkContractionTypes(fn, "ab_type", "c_type", ab, c);
}

/// Checks one matrix operand of the C API and builds its rank-3 view.
static amp_rt_status gemmOperand(const char *fn, const char *name,
                                 const void *p, amp_rt_dtype t, int64_t rows,
                                 int64_t cols, int64_t ld, int64_t stride,
                                 int64_t batch, TensorView &v) {
  if (ld < std::max<int64_t>(1, cols))
    return fail(AMP_RT_ERROR_INVALID_ARGUMENT,
                "%s: ld%s = %lld < %lld, the row length of %s as stored", fn,
                name, (long long)ld, (long long)std::max<int64_t>(1, cols),
                name);
  if (stride < 0)
    return fail(AMP_RT_ERROR_INVALID_ARGUMENT, "%s: stride_%s = %lld < 0", fn,
                name, (long long)stride);
  v = TensorView{};
  v.data = const_cast<void *>(p);
  v.dtype = t;
  v.rank = 3;
  v.sizes[0] = batch;
  v.sizes[1] = rows;
  v.sizes[2] = cols;
  v.strides[0] = stride;
  v.strides[1] = ld;
  v.strides[2] = 1;
  int64_t span = spanElements(v);
  if (span < 0 || span > (int64_t(1) << 46))
    return fail(AMP_RT_ERROR_INVALID_ARGUMENT, "%s: %s spans too many elements",
                fn, name);
  if (span > 0 && !p)
    return fail(AMP_RT_ERROR_INVALID_ARGUMENT, "%s: %s is NULL", fn, name);
  return AMP_RT_SUCCESS;
}

amp_rt_status amp_rt_gemm_batched(amp_rt_dtype ab_type, amp_rt_dtype c_type,
                                  int trans_a, int trans_b, int64_t M,
                                  int64_t N, int64_t K, float alpha,
                                  const void *A, int64_t lda, int64_t stride_a,
                                  const void *B, int64_t ldb, int64_t stride_b,
                                  float beta, void *C, int64_t ldc,
                                  int64_t stride_c, int64_t batch) {
  const char *fn = "amp_rt_gemm_batched";
  AMP_RT_TRY(checkGemmTypes(fn, ab_type, c_type));
  if (M < 0 || N < 0 || K < 0 || batch < 0)
    return fail(AMP_RT_ERROR_INVALID_ARGUMENT,
                "%s: negative size (M=%lld, N=%lld, K=%lld, batch=%lld)", fn,
                (long long)M, (long long)N, (long long)K, (long long)batch);
  TensorView a, b, c;
  AMP_RT_TRY(gemmOperand(fn, "a", A, ab_type, trans_a ? K : M, trans_a ? M : K,
                         lda, stride_a, batch, a));
  AMP_RT_TRY(gemmOperand(fn, "b", B, ab_type, trans_b ? N : K, trans_b ? K : N,
                         ldb, stride_b, batch, b));
  AMP_RT_TRY(gemmOperand(fn, "c", C, c_type, M, N, ldc, stride_c, batch, c));
  if (batch > 1 && M > 0 && N > 0 && stride_c < (M - 1) * ldc + N)
    return fail(AMP_RT_ERROR_INVALID_ARGUMENT,
                "%s: stride_c = %lld makes the C matrices overlap (need >= "
                "%lld)",
                fn, (long long)stride_c, (long long)((M - 1) * ldc + N));
  return gemmViews(fn, a, trans_a != 0, b, trans_b != 0, c, alpha, beta);
}

amp_rt_status amp_rt_gemm(amp_rt_dtype ab_type, amp_rt_dtype c_type,
                          int trans_a, int trans_b, int64_t M, int64_t N,
                          int64_t K, float alpha, const void *A, int64_t lda,
                          const void *B, int64_t ldb, float beta, void *C,
                          int64_t ldc) {
  amp_rt_status s =
      amp_rt_gemm_batched(ab_type, c_type, trans_a, trans_b, M, N, K, alpha, A,
                          lda, 0, B, ldb, 0, beta, C, ldc, 0, 1);
  if (s != AMP_RT_SUCCESS &&
      std::strncmp(tlsMessage, "amp_rt_gemm_batched", 19) == 0) {
    // Name the function the caller actually called.
    std::string rest = tlsMessage + 19;
    fail(s, "amp_rt_gemm%s", rest.c_str());
  }
  return s;
}

//===--- Convolution ------------------------------------------------------===//

static amp_rt_status convCall(const char *fn, ConvDirection dir,
                              const amp_rt_conv2d_desc *desc,
                              amp_rt_dtype in_type, amp_rt_dtype out_type,
                              float alpha, const void *in0, const void *in1,
                              float beta, void *out) {
  AMP_RT_TRY(
      checkContractionTypes(fn, "in_type", "out_type", in_type, out_type));
  ConvProblem p;
  AMP_RT_TRY(makeConvProblem(fn, desc, p));
  int64_t x[4], w[4], y[4];
  convTensorShapes(p, x, w, y);
  const int64_t *shapes[3];
  const char *names[3];
  switch (dir) {
  case ConvDirection::Forward:
    shapes[0] = x, shapes[1] = w, shapes[2] = y;
    names[0] = "x", names[1] = "w", names[2] = "y";
    break;
  case ConvDirection::BackwardData:
    shapes[0] = y, shapes[1] = w, shapes[2] = x;
    names[0] = "dy", names[1] = "w", names[2] = "dx";
    break;
  case ConvDirection::BackwardFilter:
    shapes[0] = x, shapes[1] = y, shapes[2] = w;
    names[0] = "x", names[1] = "dy", names[2] = "dw";
    break;
  }
  const void *ptrs[3] = {in0, in1, out};
  TensorView views[3];
  for (int i = 0; i < 3; ++i) {
    if (!ptrs[i])
      return fail(AMP_RT_ERROR_INVALID_ARGUMENT, "%s: %s is NULL", fn,
                  names[i]);
    TensorView &v = views[i];
    v.data = const_cast<void *>(ptrs[i]);
    v.dtype = i == 2 ? out_type : in_type;
    v.rank = 4;
    std::copy(shapes[i], shapes[i] + 4, v.sizes);
    denseStrides(v, v.strides);
  }
  return convViews(fn, dir, p, in_type, out_type, alpha, views[0], views[1],
                   beta, views[2]);
}

amp_rt_status amp_rt_conv2d_output_size(const amp_rt_conv2d_desc *desc,
                                        int64_t *P, int64_t *Q) {
  ConvProblem p;
  AMP_RT_TRY(makeConvProblem("amp_rt_conv2d_output_size", desc, p));
  if (!P || !Q)
    return fail(AMP_RT_ERROR_INVALID_ARGUMENT,
                "amp_rt_conv2d_output_size: P or Q is NULL");
  *P = p.P;
  *Q = p.Q;
  return AMP_RT_SUCCESS;
}

amp_rt_status amp_rt_conv2d_forward(const amp_rt_conv2d_desc *desc,
                                    amp_rt_dtype in_type, amp_rt_dtype out_type,
                                    float alpha, const void *x, const void *w,
                                    float beta, void *y) {
  return convCall("amp_rt_conv2d_forward", ConvDirection::Forward, desc,
                  in_type, out_type, alpha, x, w, beta, y);
}

amp_rt_status amp_rt_conv2d_backward_data(const amp_rt_conv2d_desc *desc,
                                          amp_rt_dtype in_type,
                                          amp_rt_dtype out_type, float alpha,
                                          const void *dy, const void *w,
                                          float beta, void *dx) {
  return convCall("amp_rt_conv2d_backward_data", ConvDirection::BackwardData,
                  desc, in_type, out_type, alpha, dy, w, beta, dx);
}

amp_rt_status amp_rt_conv2d_backward_filter(const amp_rt_conv2d_desc *desc,
                                            amp_rt_dtype in_type,
                                            amp_rt_dtype out_type, float alpha,
                                            const void *x, const void *dy,
                                            float beta, void *dw) {
  return convCall("amp_rt_conv2d_backward_filter",
                  ConvDirection::BackwardFilter, desc, in_type, out_type, alpha,
                  x, dy, beta, dw);
}

//===--- Loss scaling -----------------------------------------------------===//

static amp_rt_status unscaleAndCheck(const char *fn, void *const *tensors,
                                     const amp_rt_dtype *dtypes,
                                     const int64_t *counts, int64_t n,
                                     float inv_scale, int32_t *found_inf) {
  if (n < 0)
    return fail(AMP_RT_ERROR_INVALID_ARGUMENT, "%s: n = %lld < 0", fn,
                (long long)n);
  if (!found_inf)
    return fail(AMP_RT_ERROR_INVALID_ARGUMENT, "%s: found_inf is NULL", fn);
  if (n > 0 && (!tensors || !dtypes || !counts))
    return fail(AMP_RT_ERROR_INVALID_ARGUMENT,
                "%s: tensors, dtypes and counts must not be NULL when n > 0",
                fn);
  if (!isFiniteF32(inv_scale))
    return fail(AMP_RT_ERROR_INVALID_ARGUMENT, "%s: inv_scale %g is not finite",
                fn, double(inv_scale));
  for (int64_t i = 0; i < n; ++i) {
    if (!validDtype(dtypes[i]))
      return fail(AMP_RT_ERROR_INVALID_ARGUMENT, "%s: dtypes[%lld] = %d", fn,
                  (long long)i, int(dtypes[i]));
    if (counts[i] < 0 || counts[i] > (int64_t(1) << 46))
      return fail(AMP_RT_ERROR_INVALID_ARGUMENT, "%s: counts[%lld] = %lld", fn,
                  (long long)i, (long long)counts[i]);
    if (counts[i] > 0 && !tensors[i])
      return fail(AMP_RT_ERROR_INVALID_ARGUMENT, "%s: tensors[%lld] is NULL",
                  fn, (long long)i);
  }
  std::lock_guard<std::recursive_mutex> lock(runtime().mutex);
  Slot *slot = nullptr;
  AMP_RT_TRY(activeSlot(fn, slot));
  CallContext ctx(fn, *slot);
  std::vector<void *> ptrs;
  std::vector<amp_rt_dtype> types;
  std::vector<int64_t> sizes;
  for (int64_t i = 0; i < n; ++i) {
    if (counts[i] == 0)
      continue;
    TensorView v, staged;
    v.data = tensors[i];
    v.dtype = dtypes[i];
    v.rank = 1;
    v.sizes[0] = counts[i];
    v.strides[0] = 1;
    AMP_RT_TRY(ctx.output(v, true, true, staged));
    ptrs.push_back(staged.data);
    types.push_back(dtypes[i]);
    sizes.push_back(counts[i]);
  }
  TensorView flag, stagedFlag;
  flag.data = found_inf;
  flag.dtype = AMP_RT_F32; // 4-byte element; only the size matters here
  flag.rank = 1;
  flag.sizes[0] = 1;
  flag.strides[0] = 1;
  AMP_RT_TRY(ctx.output(flag, false, true, stagedFlag));
  AMP_RT_TRY(ctx.backend().unscaleAndCheck(
      ptrs.data(), types.data(), sizes.data(), int64_t(ptrs.size()), inv_scale,
      static_cast<int32_t *>(stagedFlag.data)));
  return ctx.finish();
}

amp_rt_status amp_rt_unscale_and_check(void *const *tensors,
                                       const amp_rt_dtype *dtypes,
                                       const int64_t *counts, int64_t n,
                                       float inv_scale, int32_t *found_inf) {
  const char *fn = "amp_rt_unscale_and_check";
  return named(fn, unscaleAndCheck(fn, tensors, dtypes, counts, n, inv_scale,
                                   found_inf));
}

static amp_rt_status updateScale(const char *fn, float *scale,
                                 int32_t *good_steps, const int32_t *flagPtr,
                                 int flagValue, float growth, float backoff,
                                 int32_t interval, float min_scale,
                                 float max_scale) {
  if (!scale || !good_steps)
    return fail(AMP_RT_ERROR_INVALID_ARGUMENT, "%s: %s is NULL", fn,
                scale ? "good_steps" : "scale");
  if (!(isFiniteF32(growth) && growth > 0.0f))
    return fail(AMP_RT_ERROR_INVALID_ARGUMENT,
                "%s: growth %g must be finite and > 0", fn, double(growth));
  if (!(isFiniteF32(backoff) && backoff > 0.0f))
    return fail(AMP_RT_ERROR_INVALID_ARGUMENT,
                "%s: backoff %g must be finite and > 0", fn, double(backoff));
  if (interval < 1)
    return fail(AMP_RT_ERROR_INVALID_ARGUMENT, "%s: interval %d must be >= 1",
                fn, int(interval));
  if (!(min_scale >= 0.0f && isFiniteF32(min_scale) && max_scale >= min_scale))
    return fail(AMP_RT_ERROR_INVALID_ARGUMENT,
                "%s: need 0 <= min_scale (%g) <= max_scale (%g), min finite",
                fn, double(min_scale), double(max_scale));
  std::lock_guard<std::recursive_mutex> lock(runtime().mutex);
  Slot *slot = nullptr;
  AMP_RT_TRY(activeSlot(fn, slot));
  CallContext ctx(fn, *slot);
  ScaleParams params{growth, backoff, interval, min_scale, max_scale};
  TensorView vs, vg, vf;
  vs.dtype = vg.dtype = vf.dtype = AMP_RT_F32; // 4-byte elements
  vs.rank = vg.rank = vf.rank = 1;
  vs.sizes[0] = vg.sizes[0] = vf.sizes[0] = 1;
  vs.strides[0] = vg.strides[0] = vf.strides[0] = 1;
  vs.data = scale;
  vg.data = good_steps;
  vf.data = const_cast<int32_t *>(flagPtr);
  bool hostOnly = !ctx.isResident(vs) && !ctx.isResident(vg) &&
                  (!flagPtr || !ctx.isResident(vf));
  if (ctx.backend().usesHostMemory() || hostOnly) {
    bool found = flagPtr ? *flagPtr != 0 : flagValue != 0;
    applyScaleRule(*scale, *good_steps, found, growth, backoff, interval,
                   min_scale, max_scale);
    return AMP_RT_SUCCESS;
  }
  TensorView s, g, f;
  AMP_RT_TRY(ctx.output(vs, true, true, s));
  AMP_RT_TRY(ctx.output(vg, true, true, g));
  if (flagPtr) {
    AMP_RT_TRY(ctx.input(vf, true, f));
  } else {
    int32_t value = flagValue != 0;
    AMP_RT_TRY(ctx.scratch(sizeof(int32_t), &f.data));
    AMP_RT_TRY(ctx.backend().copyToDevice(f.data, &value, sizeof(value)));
    AMP_RT_TRY(ctx.backend().synchronize()); // `value` is on this stack
  }
  AMP_RT_TRY(ctx.backend().updateScale(
      static_cast<float *>(s.data), static_cast<int32_t *>(g.data),
      static_cast<const int32_t *>(f.data), params));
  return ctx.finish();
}

amp_rt_status amp_rt_update_scale(float *scale, int32_t *good_steps,
                                  int found_inf, float growth, float backoff,
                                  int32_t interval, float min_scale,
                                  float max_scale) {
  return named("amp_rt_update_scale",
               updateScale("amp_rt_update_scale", scale, good_steps, nullptr,
                           found_inf, growth, backoff, interval, min_scale,
                           max_scale));
}

amp_rt_status amp_rt_update_scale_from_flag(float *scale, int32_t *good_steps,
                                            const int32_t *found_inf,
                                            float growth, float backoff,
                                            int32_t interval, float min_scale,
                                            float max_scale) {
  if (!found_inf)
    return fail(AMP_RT_ERROR_INVALID_ARGUMENT,
                "amp_rt_update_scale_from_flag: found_inf is NULL");
  return named("amp_rt_update_scale_from_flag",
               updateScale("amp_rt_update_scale_from_flag", scale, good_steps,
                           found_inf, 0, growth, backoff, interval, min_scale,
                           max_scale));
}

//===--- Conversions ------------------------------------------------------===//

amp_rt_status amp_rt_convert(amp_rt_dtype dst_type, void *dst,
                             amp_rt_dtype src_type, const void *src,
                             int64_t count) {
  const char *fn = "amp_rt_convert";
  if (!validDtype(dst_type) || !validDtype(src_type))
    return fail(AMP_RT_ERROR_INVALID_ARGUMENT, "%s: invalid dtype (%d, %d)", fn,
                int(dst_type), int(src_type));
  if (count < 0)
    return fail(AMP_RT_ERROR_INVALID_ARGUMENT, "%s: count = %lld < 0", fn,
                (long long)count);
  if (count == 0)
    return AMP_RT_SUCCESS;
  if (!dst || !src)
    return fail(AMP_RT_ERROR_INVALID_ARGUMENT, "%s: %s is NULL", fn,
                dst ? "src" : "dst");
  size_t n = size_t(count);
  if (dst_type == src_type) {
    std::memmove(dst, src, n * dtypeSize(dst_type));
    return AMP_RT_SUCCESS;
  }
  if (src_type == AMP_RT_F32) {
    convertF32ToLow(dst_type == AMP_RT_BF16, static_cast<const float *>(src),
                    static_cast<uint16_t *>(dst), n);
    return AMP_RT_SUCCESS;
  }
  const uint16_t *in = static_cast<const uint16_t *>(src);
  if (dst_type == AMP_RT_F32) {
    convertLowToF32(src_type == AMP_RT_BF16, in, static_cast<float *>(dst), n);
    return AMP_RT_SUCCESS;
  }
  // f16 <-> bf16 through f32 (exact widening, one rounding), in blocks.
  uint16_t *out = static_cast<uint16_t *>(dst);
  float tmp[1024];
  for (size_t i = 0; i < n; i += 1024) {
    size_t m = std::min<size_t>(1024, n - i);
    convertLowToF32(src_type == AMP_RT_BF16, in + i, tmp, m);
    convertF32ToLow(dst_type == AMP_RT_BF16, tmp, out + i, m);
  }
  return AMP_RT_SUCCESS;
}

uint16_t amp_rt_f32_to_f16(float x) { return f32ToF16Scalar(x); }
float amp_rt_f16_to_f32(uint16_t x) { return f16ToF32Scalar(x); }
uint16_t amp_rt_f32_to_bf16(float x) { return f32ToBf16Scalar(x); }
float amp_rt_bf16_to_f32(uint16_t x) { return bf16ToF32Scalar(x); }

void amp_rt_set_error_mode(amp_rt_error_mode mode) {
  errorModeRef() =
      mode == AMP_RT_ERRORS_RECORD ? AMP_RT_ERRORS_RECORD : AMP_RT_ERRORS_ABORT;
}

} // extern "C"
