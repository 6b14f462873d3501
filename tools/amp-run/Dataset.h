//===- Dataset.h - Classification data sets for amp-run ---------*- C++ -*-===//
//
// In-memory classification data (float features, integer labels), the
// loaders of `--data=digits:<csv[.gz]>` and `--data=synthetic:<classes>`, a
// deterministic random number generator and the train/test split.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_RUN_DATASET_H
#define AMP_RUN_DATASET_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace amp::run {

/// splitmix64: small, fast, and the same sequence on every platform (unlike
/// the distributions of <random>).
class Rng {
public:
  explicit Rng(uint64_t seed) : state(seed) {}
  uint64_t next();
  /// The generator `n` calls of next() ahead (SplitMix64 only counts): what
  /// lets a stream be drawn in parallel pieces, value for value.
  Rng ahead(uint64_t n) const { return Rng(state + n * 0x9e3779b97f4a7c15ULL); }
  /// Uniform in [0, 1), 53 random bits.
  double uniform();
  /// Uniform in [lo, hi).
  double uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }
  /// Uniform integer in [0, n), n > 0.
  uint64_t below(uint64_t n);
  /// Standard normal (Box-Muller): two calls of next().
  double normal();

private:
  uint64_t state;
};

/// Mixes a seed with a stream number, so that independent uses of one user
/// seed (shuffling, initialization, synthetic data) get unrelated streams.
uint64_t mixSeed(uint64_t seed, uint64_t stream);

/// Fisher-Yates shuffle with `rng`.
void shuffle(std::vector<int64_t> &indices, Rng &rng);

/// A classification data set: `size()` samples of `numFeatures` floats
/// (row-major) and a label in [0, numClasses) each.
struct Dataset {
  std::string description;
  int64_t numFeatures = 0;
  int64_t numClasses = 0;
  std::vector<float> features;
  std::vector<int32_t> labels;

  int64_t size() const { return static_cast<int64_t>(labels.size()); }
};

/// Reads the 8x8 handwritten digits of scikit-learn (`digits.csv` or
/// `digits.csv.gz`): one sample a line, 64 comma-separated pixel values in
/// [0, 16] then the label in [0, 9]. Pixels are scaled to [0, 1].
llvm::Expected<Dataset> loadDigits(llvm::StringRef path);

/// Parses the text of a digits CSV (exposed for the error tests).
llvm::Expected<Dataset> parseDigitsCsv(llvm::StringRef text,
                                       llvm::StringRef name);

/// Gaussian blobs: `numClasses` centres uniform in [-1, 1]^numFeatures,
/// samples = centre + N(0, 1) noise, classes in turn.
Dataset makeSynthetic(int64_t numClasses, int64_t numFeatures,
                      int64_t numSamples, uint64_t seed);

/// A deterministic shuffled split: `round(size * testFraction)` samples for
/// testing, the rest for training.
struct Split {
  std::vector<int64_t> train;
  std::vector<int64_t> test;
};
Split splitDataset(const Dataset &data, double testFraction, uint64_t seed);

} // namespace amp::run

#endif // AMP_RUN_DATASET_H
