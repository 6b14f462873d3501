//===- Stopwatch.h - Wall-clock time for amp-run's --timing -------*- C++
//-*-===//

#ifndef AMP_RUN_STOPWATCH_H
#define AMP_RUN_STOPWATCH_H

#include <algorithm>
#include <chrono>
#include <vector>

namespace amp::run {

/// Milliseconds since construction.
struct Stopwatch {
  std::chrono::steady_clock::time_point start =
      std::chrono::steady_clock::now();
  double ms() const {
    return std::chrono::duration<double, std::milli>(
               std::chrono::steady_clock::now() - start)
        .count();
  }
};

/// The median of `v` (not empty): the mean of the middle two for an even
/// count.
inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/// The element of `v` (not empty) at rank q * (size - 1), rounded.
inline double quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  return v[size_t(q * double(v.size() - 1) + 0.5)];
}

} // namespace amp::run

#endif // AMP_RUN_STOPWATCH_H
