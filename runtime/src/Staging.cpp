//===- Staging.cpp - views and the staging of a call's operands -----------===//
//
// What the GEMM, convolution and loss-scaling dispatch share to hand their
// operands to the backend: element counts and strides of TensorViews, the
// host strided copy, the per-backend staging arena, and CallContext, which
// uploads, packs and writes back the operands of one call.
//
//===----------------------------------------------------------------------===//

#include "RuntimeInternal.h"

#include <algorithm>
#include <cstring>

namespace amp {
namespace rt {

//===----------------------------------------------------------------------===//
// Views
//===----------------------------------------------------------------------===//

int64_t numElements(const TensorView &v) {
  int64_t n = 1;
  for (int i = 0; i < v.rank; ++i)
    n *= v.sizes[i];
  return n;
}

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

bool spansOverlap(const TensorView &a, const TensorView &b) {
  int64_t spanA = spanElements(a), spanB = spanElements(b);
  if (spanA == 0 || spanB == 0)
    return false;
  // An overflowing span (-1) is treated as reaching everything.
  auto begin = [](const TensorView &v) {
    return reinterpret_cast<uintptr_t>(v.data);
  };
  auto end = [&](const TensorView &v, int64_t span) {
    return span < 0 ? UINTPTR_MAX
                    : begin(v) + uintptr_t(span) * dtypeSize(v.dtype);
  };
  return begin(a) < end(b, spanB) && begin(b) < end(a, spanA);
}

namespace {

bool isRowMajorContiguous(const TensorView &v) {
  int64_t expected = 1;
  for (int i = v.rank - 1; i >= 0; --i) {
    if (v.sizes[i] != 1 && v.strides[i] != expected)
      return false;
    expected *= v.sizes[i];
  }
  return true;
}

/// The copy of `from`'s elements to the same indices of `to`.
StridedCopy copyOf(const TensorView &from, const TensorView &to) {
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

} // namespace

void denseStrides(const TensorView &v, int64_t *strides) {
  int64_t s = 1;
  for (int i = v.rank - 1; i >= 0; --i) {
    strides[i] = s;
    s *= v.sizes[i];
  }
}

namespace {
/// The shape of `v`, dense (row-major) at `data`.
TensorView denseAt(const TensorView &v, void *data) {
  TensorView dense = v;
  dense.data = data;
  denseStrides(v, dense.strides);
  return dense;
}
} // namespace

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

//===----------------------------------------------------------------------===//
// Arena
//===----------------------------------------------------------------------===//

void Arena::reset(Backend &be) {
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

amp_rt_status Arena::allocate(Backend &be, size_t bytes, void **out) {
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

void Arena::releaseAll(Backend &be) {
  if (!blocks.empty())
    be.synchronize(); // asynchronous work may still use the blocks
  for (const Block &b : blocks)
    be.deallocate(b.ptr);
  blocks.clear();
  offset = 0;
}

//===----------------------------------------------------------------------===//
// CallContext
//===----------------------------------------------------------------------===//

CallContext::CallContext(const char *fn, Slot &slot)
    : fn(fn), slot(slot), be(*slot.backend) {
  slot.arena.reset(be);
}

amp_rt_status CallContext::scratch(size_t bytes, void **p) {
  return slot.arena.allocate(be, bytes, p);
}

bool CallContext::isResident(const TensorView &v) const {
  if (be.usesHostMemory())
    return true;
  int64_t span = spanElements(v);
  return slot.contains(v.data, size_t(span) * dtypeSize(v.dtype));
}

bool CallContext::usableInPlace(const TensorView &v, bool dense) const {
  return numElements(v) == 0 ||
         (isResident(v) && (!dense || isRowMajorContiguous(v)));
}

amp_rt_status CallContext::denseScratch(const TensorView &v, TensorView &out) {
  AMP_RT_TRY(scratch(size_t(numElements(v)) * dtypeSize(v.dtype), &out.data));
  denseStrides(v, out.strides);
  return AMP_RT_SUCCESS;
}

amp_rt_status CallContext::packOnDevice(const TensorView &v, bool read,
                                        TensorView &out) {
  AMP_RT_TRY(denseScratch(v, out));
  if (read)
    return be.copyStrided(copyOf(v, out));
  return AMP_RT_SUCCESS;
}

amp_rt_status CallContext::input(const TensorView &v, bool dense,
                                 TensorView &out, const TensorView *writtenBy) {
  out = v;
  bool aliased = writtenBy && spansOverlap(v, *writtenBy);
  if (!aliased && usableInPlace(v, dense))
    return AMP_RT_SUCCESS;
  if (isResident(v))
    return packOnDevice(v, /*read=*/true, out);
  touchedHost = true;
  int64_t n = numElements(v), span = spanElements(v);
  size_t es = dtypeSize(v.dtype);
  if ((!dense || isRowMajorContiguous(v)) && span <= 2 * n + 4096) {
    // Upload the whole span, gaps included, and keep the strides.
    AMP_RT_TRY(scratch(size_t(span) * es, &out.data));
    return be.copyToDevice(out.data, v.data, size_t(span) * es);
  }
  std::vector<char> &host = hostTemp(size_t(n) * es);
  hostStridedCopy(copyOf(v, denseAt(v, host.data())));
  AMP_RT_TRY(denseScratch(v, out));
  return be.copyToDevice(out.data, host.data(), size_t(n) * es);
}

amp_rt_status CallContext::output(const TensorView &v, bool read, bool dense,
                                  TensorView &out) {
  out = v;
  if (usableInPlace(v, dense))
    return AMP_RT_SUCCESS;
  if (isResident(v)) {
    AMP_RT_TRY(packOnDevice(v, read, out));
    writeBacks.push_back({WriteBack::DeviceUnpack, v, out, {}});
    return AMP_RT_SUCCESS;
  }
  touchedHost = true;
  int64_t n = numElements(v), span = spanElements(v);
  size_t es = dtypeSize(v.dtype);
  if (span == n && (!dense || isRowMajorContiguous(v))) {
    AMP_RT_TRY(scratch(size_t(n) * es, &out.data));
    if (read)
      AMP_RT_TRY(be.copyToDevice(out.data, v.data, size_t(n) * es));
    writeBacks.push_back({WriteBack::Download, v, out, {}});
    return AMP_RT_SUCCESS;
  }
  WriteBack wb{WriteBack::DownloadAndUnpack, v, v, {}};
  wb.host.resize(size_t(n) * es);
  if (read)
    hostStridedCopy(copyOf(v, denseAt(v, wb.host.data())));
  AMP_RT_TRY(denseScratch(v, out));
  if (read)
    AMP_RT_TRY(be.copyToDevice(out.data, wb.host.data(), size_t(n) * es));
  wb.staged = out;
  writeBacks.push_back(std::move(wb));
  return AMP_RT_SUCCESS;
}

amp_rt_status CallContext::finish() {
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
      hostStridedCopy(copyOf(denseAt(wb.user, wb.host.data()), wb.user));
      break;
    }
    }
  }
  if (touchedHost && !be.usesHostMemory())
    return be.synchronize();
  return AMP_RT_SUCCESS;
}

std::vector<char> &CallContext::hostTemp(size_t bytes) {
  hostTemps.emplace_back(bytes);
  return hostTemps.back();
}

} // namespace rt
} // namespace amp
