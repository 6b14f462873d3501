//===- FilterPack.h - 16-bit filters into oneDNN's blocked layouts -*- C++
//-*-===//
//
// A convolution's 16-bit filter in the caller's dense hwio layout (RSCK:
// output channels innermost, what NHWC convolutions take) repacked into the
// blocked layout oneDNN's bf16 kernels ask for, in place of oneDNN 2.6.3's
// own reorder. That reorder (jit:uni) reads the filter once per block of
// output channels, striding through all of it, and on the deep layers of a
// CNN costs a third of the convolution: 0.6-2.7 ms for resnet18's 4.7 MB
// 512x512x3x3 filter on Zen 4 against 0.13 ms for a memcpy of it
// (docs/performance.md). These packers read the filter in order and write
// each block whole (0.25 ms there).
//
// Two layout families are handled, those of oneDNN's forward and
// backward-data bf16 convolutions on AVX512_BF16 CPUs: pairs of input
// channels interleaved inside blocks of X output channels ("AcdB32a2b"),
// and pairs of output channels inside Q x 2P blocks ("ABcd8a16b2a"). Any
// other pair of layouts, or dimensions that the blocks do not divide (the
// blocked tensor would then be zero-padded), stays with oneDNN's reorder.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_RT_CPU_FILTERPACK_H
#define AMP_RT_CPU_FILTERPACK_H

#include <dnnl.hpp>

#include <cstdint>
#include <string>

namespace amp {
namespace rt {

class FilterPack {
public:
  /// The packer from `from` to `to`, or an empty one (false) when this pair
  /// is not one it handles, or AMP_RT_FILTER_PACK=0 turns packers off.
  static FilterPack match(const dnnl::memory::desc &from,
                          const dnnl::memory::desc &to);

  explicit operator bool() const { return kind != Kind::None; }
  /// Writes `to` (the blocked layout) from `from` (dense hwio).
  void run(const void *from, void *to) const;
  /// "hwio -> AcdB32a2b"-like, for AMP_RT_VERBOSE.
  std::string describe() const;

private:
  enum class Kind {
    None,
    /// Block [X o][2 i]: o in the block's rows, each row an input pair.
    InterleaveInputPairs,
    /// Block [P][Q i][2 o]: output pairs, Q input channels each.
    TransposeOutputPairs,
  };
  void interleaveInputPairs(const uint16_t *from, uint16_t *to) const;
  template <int64_t X>
  void interleaveAll(const uint16_t *from, uint16_t *to) const;
  void transposeOutputPairs(const uint16_t *from, uint16_t *to) const;
  template <int64_t P, int64_t Q>
  void transposeAll(const uint16_t *from, uint16_t *to) const;

  Kind kind = Kind::None;
  int64_t O = 0, I = 0, H = 0, W = 0;
  /// Output and input channels per block (blockO = X, or 2P; blockI = 2, or
  /// Q).
  int64_t blockO = 0, blockI = 0;
  /// Elements between consecutive blocks of O and I, and consecutive h, w.
  int64_t strideO = 0, strideI = 0, strideH = 0, strideW = 0;
};

} // namespace rt
} // namespace amp

#endif // AMP_RT_CPU_FILTERPACK_H
