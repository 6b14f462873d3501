//===- MemrefView.h - strided views for the entry-point tests ---*- C++ -*-===//
//
// Views with offsets and any strides into test tensors, and the memref
// descriptors of them that lowered MLIR passes to the _mlir_ciface_ entry
// points.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_RT_TEST_MEMREFVIEW_H
#define AMP_RT_TEST_MEMREFVIEW_H

#include "TestUtil.h"

namespace amp_rt_test {

/// A logical rank-R view into a Tensor: element idx[] lives at
/// offset + sum(idx[i] * strides[i]).
template <int R> struct View {
  Tensor *t;
  int64_t offset;
  int64_t sizes[R];
  int64_t strides[R];

  size_t at(const int64_t (&idx)[R]) const {
    int64_t o = offset;
    for (int i = 0; i < R; ++i)
      o += idx[i] * strides[i];
    return size_t(o);
  }
  double get(const int64_t (&idx)[R]) const { return t->get(at(idx)); }

  template <typename Desc> Desc desc() const {
    Desc d;
    d.allocated = t->data();
    d.aligned = t->data();
    d.offset = offset;
    for (int i = 0; i < R; ++i) {
      d.sizes[i] = sizes[i];
      d.strides[i] = strides[i];
    }
    return d;
  }
};

/// A buffer big enough for `span` elements, filled with random values so
/// that elements outside the view are recognizable sentinels.
inline Tensor buffer(amp_rt_dtype t, int64_t span, std::mt19937 &rng) {
  Tensor x(t, size_t(span));
  x.fillRandom(rng);
  return x;
}

/// Dense views.
inline View<4> dense4(Tensor *t, int64_t a, int64_t b, int64_t c, int64_t d) {
  return View<4>{t, 0, {a, b, c, d}, {b * c * d, c * d, d, 1}};
}

inline View<5> dense5(Tensor *t, int64_t a, int64_t b, int64_t c, int64_t d) {
  return View<5>{
      t, 0, {a, b, c, d, 16}, {b * c * d * 16, c * d * 16, d * 16, 16, 1}};
}

/// Sets to zero the border of width `b` of a blocked view (N x C/16 x H x W
/// x 16): what amp-block-convs' padding writes around an activation.
inline void zeroBorder(const View<5> &v, int64_t b) {
  const int64_t H = v.sizes[2], W = v.sizes[3];
  for (int64_t n = 0; n < v.sizes[0]; ++n)
    for (int64_t cb = 0; cb < v.sizes[1]; ++cb)
      for (int64_t h = 0; h < H; ++h)
        for (int64_t w = 0; w < W; ++w)
          if (h < b || h >= H - b || w < b || w >= W - b)
            for (int64_t c = 0; c < 16; ++c)
              v.t->set(v.at({n, cb, h, w, c}), 0.0);
}

} // namespace amp_rt_test

#endif // AMP_RT_TEST_MEMREFVIEW_H
