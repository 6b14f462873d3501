//===- BackendRegistry.cpp - the backends and the choice among them -------===//
//
// The process-wide Runtime: one slot per backend (cpu, and cuda loaded from
// libamp_rt_cuda.so with dlopen() on first use), the selection of the active
// one (AMP_RT_BACKEND, amp_rt_select_backend), and the C API functions that
// act on the backend as a whole.
//
//===----------------------------------------------------------------------===//

#include "RuntimeInternal.h"

#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <memory>
#include <string>
#include <vector>

namespace amp {
namespace rt {

std::unique_ptr<Backend> createCPUBackend();

Runtime &runtime() {
  // Deliberately leaked: CUDA handles must not be destroyed from static
  // destructors after the CUDA runtime itself has shut down.
  static Runtime *rt = new Runtime();
  return *rt;
}

namespace {

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

} // namespace

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

} // namespace rt
} // namespace amp

//===----------------------------------------------------------------------===//
// C API
//===----------------------------------------------------------------------===//

using namespace amp::rt;

extern "C" {

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

} // extern "C"
