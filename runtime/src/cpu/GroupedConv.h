//===- GroupedConv.h - direct grouped convolutions ---------------*- C++
//-*-===//
//
// Grouped and depthwise convolutions (groups > 1) on the cpu backend where
// oneDNN does not run them (no oneDNN path for the input type, or
// AMP_RT_CPU_F32=openblas).
//
//===----------------------------------------------------------------------===//

#ifndef AMP_RT_CPU_GROUPEDCONV_H
#define AMP_RT_CPU_GROUPEDCONV_H

#include "../Frontend.h"
#include "CpuCommon.h"

namespace amp {
namespace rt {

class GroupedConv {
public:
  explicit GroupedConv(ThreadPool &pool) : pool(pool) {}

  /// Any inType and groups; the Backend::conv contract.
  amp_rt_status run(ConvDirection dir, const ConvProblem &p,
                    amp_rt_dtype inType, amp_rt_dtype outType, float alpha,
                    const void *in0, const void *in1, float beta, void *out);

private:
  ThreadPool &pool;
  Scratch bufA, bufB, bufC;
};

} // namespace rt
} // namespace amp

#endif // AMP_RT_CPU_GROUPEDCONV_H
