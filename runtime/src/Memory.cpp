//===- Memory.cpp - caller-owned buffers of the active backend ------------===//
//
// amp_rt_buffer_create / amp_rt_buffer_free register the buffers a caller
// owns in the active backend's slot, so that staging can use them in place;
// amp_rt_buffer_upload / amp_rt_buffer_download copy to and from them.
//
//===----------------------------------------------------------------------===//

#include "RuntimeInternal.h"

using namespace amp::rt;

/// Copies `bytes` between host memory and a buffer from amp_rt_buffer_create
/// (the destination when `upload`, else the source).
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

extern "C" {

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

amp_rt_status amp_rt_buffer_upload(void *dst, const void *src, size_t bytes) {
  return transfer("amp_rt_buffer_upload", dst, src, bytes, true);
}

amp_rt_status amp_rt_buffer_download(void *dst, const void *src, size_t bytes) {
  return transfer("amp_rt_buffer_download", dst, src, bytes, false);
}

} // extern "C"
