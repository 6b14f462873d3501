//===- Stopwatch.h - Wall-clock time for amp-run's --timing -------*- C++
//-*-===//

#ifndef AMP_RUN_STOPWATCH_H
#define AMP_RUN_STOPWATCH_H

#include <chrono>

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

} // namespace amp::run

#endif // AMP_RUN_STOPWATCH_H
