//===- LegacyConv.h - convolutions through cuDNN's legacy API ---*- C++ -*-===//
//
// The convolution path of cudnnConvolutionForward / BackwardData /
// BackwardFilter: f32 inputs always take it, 16-bit inputs where the graph
// API (GraphConv.h) has no engine or AMP_RT_CUDNN_API=legacy says so.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_RT_CUDA_LEGACYCONV_H
#define AMP_RT_CUDA_LEGACYCONV_H

#include "CudaCommon.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>

namespace amp {
namespace rt {
namespace cuda {

/// The legacy-API convolutions of one cuDNN handle, with their algorithms
/// cached per shape.
class LegacyConv {
public:
  /// out = alpha * conv + beta * out (Backend::conv's operands), issued on
  /// `cudnn`, whose stream must be `stream`.
  amp_rt_status run(cudnnHandle_t cudnn, cudaStream_t stream, ConvDirection dir,
                    const ConvProblem &p, amp_rt_dtype inType,
                    amp_rt_dtype outType, float alpha, const void *in0,
                    const void *in1, float beta, void *out,
                    const WorkspaceFn &workspace);

private:
  struct Algo {
    int algo;
    cudnnMathType_t math;
    size_t workspace;
  };
  /// `exactF32`: f32 inputs, which must not be rounded to TF32, so only
  /// FMA-math algorithms qualify.
  amp_rt_status chooseAlgo(cudnnHandle_t cudnn, ConvDirection dir,
                           const ConvProblem &p, cudnnDataType_t type,
                           bool exactF32, cudnnTensorDescriptor_t x,
                           cudnnFilterDescriptor_t w,
                           cudnnConvolutionDescriptor_t conv,
                           cudnnTensorDescriptor_t y, Algo &out);

  /// Direction, type, layout, sizes, padding, stride, dilation, groups and
  /// exact-f32 flag.
  std::map<std::array<int64_t, 18>, Algo> algoCache;
};

} // namespace cuda
} // namespace rt
} // namespace amp

#endif // AMP_RT_CUDA_LEGACYCONV_H
