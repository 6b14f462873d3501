//===- Status.cpp - errors, status and error mode of libamp_rt ------------===//
//
// Each thread's last status and message (`fail`, read back through
// amp_rt_last_error / amp_rt_last_status), the names of statuses and dtypes,
// the type checks the contraction entry points share, and the error mode of
// the MLIR entry points (AMP_RT_ON_ERROR, amp_rt_set_error_mode).
//
//===----------------------------------------------------------------------===//

#include "RuntimeInternal.h"

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace amp {
namespace rt {

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

amp_rt_status named(const char *fn, amp_rt_status s) {
  if (s == AMP_RT_SUCCESS)
    return s;
  size_t n = std::strlen(fn);
  if (std::strncmp(tlsMessage, fn, n) == 0 && tlsMessage[n] == ':')
    return s;
  return fail(s, "%s: %s", fn, tlsMessage);
}

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

amp_rt_status checkContractionTypes(const char *fn, const char *inName,
                                    const char *outName, int in, int out) {
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

namespace {
amp_rt_error_mode initialErrorMode() {
  const char *env = std::getenv("AMP_RT_ON_ERROR");
  return env && std::strcmp(env, "record") == 0 ? AMP_RT_ERRORS_RECORD
                                                : AMP_RT_ERRORS_ABORT;
}
amp_rt_error_mode &errorModeRef() {
  static amp_rt_error_mode mode = initialErrorMode();
  return mode;
}
} // namespace

amp_rt_error_mode mlirErrorMode() { return errorModeRef(); }

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

void amp_rt_set_error_mode(amp_rt_error_mode mode) {
  errorModeRef() =
      mode == AMP_RT_ERRORS_RECORD ? AMP_RT_ERRORS_RECORD : AMP_RT_ERRORS_ABORT;
}

} // extern "C"
