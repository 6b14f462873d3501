//===- FilterPack.cpp - 16-bit filters into oneDNN's blocked layouts ------===//

#include "FilterPack.h"

#include <cstdlib>
#include <cstring>

namespace amp {
namespace rt {

namespace {

/// The largest block the packers assemble on the stack, in 32-bit words
/// (oneDNN's are 32 or 16 x 8).
constexpr int64_t kMaxBlockWords = 512;

bool packersEnabled() {
  static const bool enabled = [] {
    const char *v = std::getenv("AMP_RT_FILTER_PACK");
    return !v || std::strcmp(v, "0") != 0;
  }();
  return enabled;
}

bool isSixteenBit(dnnl_data_type_t t) {
  return t == dnnl_bf16 || t == dnnl_f16;
}

/// Whether `md` is a 4-d, 16-bit, unpadded, blocked descriptor starting at
/// its base.
bool isPlainShape(const dnnl_memory_desc_t &md) {
  if (md.ndims != 4 || md.format_kind != dnnl_blocked || md.offset0 != 0 ||
      !isSixteenBit(md.data_type))
    return false;
  for (int d = 0; d < 4; ++d)
    if (md.padded_dims[d] != md.dims[d] || md.padded_offsets[d] != 0)
      return false;
  return true;
}

} // namespace

FilterPack FilterPack::match(const dnnl::memory::desc &fromDesc,
                             const dnnl::memory::desc &toDesc) {
  FilterPack p;
  const dnnl_memory_desc_t &from = fromDesc.data, &to = toDesc.data;
  if (!packersEnabled() || !isPlainShape(from) || !isPlainShape(to) ||
      from.data_type != to.data_type)
    return p;
  for (int d = 0; d < 4; ++d)
    if (from.dims[d] != to.dims[d])
      return p;
  // The source: dense hwio, dims (O, I, H, W) with O innermost.
  const dnnl_blocking_desc_t &src = from.format_desc.blocking;
  const int64_t O = from.dims[0], I = from.dims[1], H = from.dims[2],
                W = from.dims[3];
  if (src.inner_nblks != 0 || src.strides[0] != 1 || src.strides[1] != O ||
      src.strides[3] != O * I || src.strides[2] != O * I * W)
    return p;
  const dnnl_blocking_desc_t &dst = to.format_desc.blocking;
  Kind kind = Kind::None;
  int64_t blockO = 0, blockI = 0;
  if (dst.inner_nblks == 2 && dst.inner_idxs[0] == 0 &&
      dst.inner_idxs[1] == 1 && dst.inner_blks[1] == 2) {
    kind = Kind::InterleaveInputPairs;
    blockO = dst.inner_blks[0], blockI = 2;
  } else if (dst.inner_nblks == 3 && dst.inner_idxs[0] == 0 &&
             dst.inner_idxs[1] == 1 && dst.inner_idxs[2] == 0 &&
             dst.inner_blks[2] == 2) {
    kind = Kind::TransposeOutputPairs;
    blockO = 2 * dst.inner_blks[0], blockI = dst.inner_blks[1];
  }
  if (kind == Kind::None || blockO <= 0 || blockI <= 0 || O % blockO != 0 ||
      I % blockI != 0 || blockO * blockI / 2 > kMaxBlockWords)
    return p;
  // Blocks are dense: every outer stride is a whole number of blocks.
  const int64_t block = blockO * blockI;
  for (int d = 0; d < 4; ++d)
    if (dst.strides[d] % block != 0)
      return p;
  p.kind = kind;
  p.O = O, p.I = I, p.H = H, p.W = W;
  p.blockO = blockO, p.blockI = blockI;
  p.strideO = dst.strides[0], p.strideI = dst.strides[1];
  p.strideH = dst.strides[2], p.strideW = dst.strides[3];
  return p;
}

void FilterPack::run(const void *from, void *to) const {
  const auto *src = static_cast<const uint16_t *>(from);
  auto *dst = static_cast<uint16_t *>(to);
  if (kind == Kind::InterleaveInputPairs)
    interleaveInputPairs(src, dst);
  else if (kind == Kind::TransposeOutputPairs)
    transposeOutputPairs(src, dst);
}

std::string FilterPack::describe() const {
  if (kind == Kind::InterleaveInputPairs)
    return "hwio -> blocks of " + std::to_string(blockO) +
           " output channels x 2 input channels";
  if (kind == Kind::TransposeOutputPairs)
    return "hwio -> blocks of " + std::to_string(blockO / 2) + " x " +
           std::to_string(blockI) + " x 2 (output pairs)";
  return "none";
}

// Block [X o][2 i]: the two source rows of an input pair (X output channels
// each, contiguous) interleaved. Rows are read in order; each block is
// assembled in 32-bit words and stored whole, a loop the compiler
// vectorizes (with X known at compile time for oneDNN's usual 16, 32, 64),
// without type-punning the caller's buffers.
template <int64_t X>
static void interleaveRows(const uint16_t *row0, const uint16_t *row1,
                           uint16_t *out, int64_t blockO) {
  const int64_t n = X ? X : blockO;
  uint32_t block[kMaxBlockWords];
  for (int64_t a = 0; a < n; ++a)
    block[a] = uint32_t(row0[a]) | (uint32_t(row1[a]) << 16);
  std::memcpy(out, block, size_t(n) * 4);
}

template <int64_t X>
void FilterPack::interleaveAll(const uint16_t *src, uint16_t *dst) const {
  for (int64_t h = 0; h < H; ++h)
    for (int64_t w = 0; w < W; ++w)
      for (int64_t i = 0; i < I; i += 2) {
        const uint16_t *row0 = src + ((h * W + w) * I + i) * O;
        uint16_t *pair = dst + h * strideH + w * strideW + (i / 2) * strideI;
        for (int64_t o = 0; o < O; o += blockO)
          interleaveRows<X>(row0 + o, row0 + O + o,
                            pair + (o / blockO) * strideO, blockO);
      }
}

void FilterPack::interleaveInputPairs(const uint16_t *src,
                                      uint16_t *dst) const {
  switch (blockO) {
  case 16:
    return interleaveAll<16>(src, dst);
  case 32:
    return interleaveAll<32>(src, dst);
  case 64:
    return interleaveAll<64>(src, dst);
  default:
    return interleaveAll<0>(src, dst);
  }
}

// Block [P][Q i][2 o]: in 32-bit words (an output pair each), a Q x P
// transpose of the source's rows (Q input channels, P output pairs each),
// assembled on the stack and stored whole; sizes known at compile time for
// oneDNN's usual 8 x 16.
template <int64_t P, int64_t Q>
static void transposeBlock(const uint16_t *rows, int64_t rowStride,
                           uint16_t *out, int64_t pairs, int64_t blockI) {
  const int64_t np = P ? P : pairs, nq = Q ? Q : blockI;
  uint32_t block[kMaxBlockWords];
  for (int64_t q = 0; q < nq; ++q) {
    uint32_t row[kMaxBlockWords];
    std::memcpy(row, rows + q * rowStride, size_t(np) * 4);
    for (int64_t p = 0; p < np; ++p)
      block[p * nq + q] = row[p];
  }
  std::memcpy(out, block, size_t(np * nq) * 4);
}

template <int64_t P, int64_t Q>
void FilterPack::transposeAll(const uint16_t *src, uint16_t *dst) const {
  const int64_t pairs = blockO / 2;
  for (int64_t h = 0; h < H; ++h)
    for (int64_t w = 0; w < W; ++w)
      for (int64_t i = 0; i < I; i += blockI) {
        const uint16_t *rows = src + ((h * W + w) * I + i) * O;
        uint16_t *blocks =
            dst + h * strideH + w * strideW + (i / blockI) * strideI;
        for (int64_t o = 0; o < O; o += blockO)
          transposeBlock<P, Q>(rows + o, O, blocks + (o / blockO) * strideO,
                               pairs, blockI);
      }
}

void FilterPack::transposeOutputPairs(const uint16_t *src,
                                      uint16_t *dst) const {
  if (blockO == 16 && blockI == 16)
    return transposeAll<8, 16>(src, dst);
  return transposeAll<0, 0>(src, dst);
}

} // namespace rt
} // namespace amp
