//===- Dataset.cpp - Classification data sets for amp-run -----------------===//

#include "Dataset.h"
#include "Error.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/MemoryBuffer.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <thread>
#include <vector>

#ifdef AMP_RUN_HAVE_ZLIB
#include <zlib.h>
#endif

using namespace amp::run;
using llvm::StringRef;

//===----------------------------------------------------------------------===//
// Random numbers
//===----------------------------------------------------------------------===//

uint64_t Rng::next() {
  uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

double Rng::uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

uint64_t Rng::below(uint64_t n) {
  // Rejection sampling: exact, and the same on every platform.
  uint64_t limit = UINT64_MAX - UINT64_MAX % n;
  uint64_t r;
  do
    r = next();
  while (r >= limit);
  return r % n;
}

double Rng::normal() {
  double u1 = uniform();
  double u2 = uniform();
  // 1 - u1 is in (0, 1]: log is finite.
  return std::sqrt(-2.0 * std::log(1.0 - u1)) * std::cos(2.0 * M_PI * u2);
}

uint64_t amp::run::mixSeed(uint64_t seed, uint64_t stream) {
  Rng rng(seed ^ (stream * 0xd1b54a32d192ed03ULL));
  rng.next();
  return rng.next();
}

void amp::run::shuffle(std::vector<int64_t> &indices, Rng &rng) {
  for (size_t i = indices.size(); i > 1; --i) {
    size_t j = static_cast<size_t>(rng.below(i));
    std::swap(indices[i - 1], indices[j]);
  }
}

//===----------------------------------------------------------------------===//
// Digits
//===----------------------------------------------------------------------===//

/// Inflates a gzip file (one or more members) held in memory.
static llvm::Expected<std::string> gunzip(StringRef data, StringRef name) {
#ifdef AMP_RUN_HAVE_ZLIB
  std::string out;
  z_stream zs = {};
  // 16 + MAX_WBITS: expect a gzip header and trailer.
  if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK)
    return makeError("cannot initialize zlib");
  zs.next_in =
      reinterpret_cast<Bytef *>(const_cast<char *>(data.data())); // zlib API
  zs.avail_in = static_cast<uInt>(data.size());
  char chunk[1 << 16];
  while (true) {
    zs.next_out = reinterpret_cast<Bytef *>(chunk);
    zs.avail_out = sizeof(chunk);
    int rc = inflate(&zs, Z_NO_FLUSH);
    out.append(chunk, sizeof(chunk) - zs.avail_out);
    if (rc == Z_STREAM_END) {
      // Another gzip member may follow (as `cat a.gz b.gz` makes).
      if (zs.avail_in == 0)
        break;
      if (inflateReset(&zs) != Z_OK) {
        inflateEnd(&zs);
        return makeError(name + ": corrupt gzip data");
      }
      continue;
    }
    if (rc != Z_OK) {
      std::string reason = zs.msg ? zs.msg : "unexpected end of data";
      inflateEnd(&zs);
      return makeError(name + ": corrupt gzip data: " + reason);
    }
    if (zs.avail_in == 0 && zs.avail_out != 0) {
      inflateEnd(&zs);
      return makeError(name + ": truncated gzip data");
    }
  }
  inflateEnd(&zs);
  return out;
#else
  return makeError(name + ": amp-run was built without zlib; gunzip the "
                          "file and pass the .csv");
#endif
}

llvm::Expected<Dataset> amp::run::parseDigitsCsv(StringRef text,
                                                 StringRef name) {
  constexpr int64_t kPixels = 64;
  constexpr int kClasses = 10;
  Dataset data;
  data.numFeatures = kPixels;
  data.numClasses = kClasses;
  llvm::SmallVector<StringRef, 72> fields;
  int64_t lineNo = 0;
  while (!text.empty()) {
    StringRef line;
    std::tie(line, text) = text.split('\n');
    ++lineNo;
    line = line.trim(); // also drops a '\r' of CRLF files
    if (line.empty())
      continue;
    auto where = [&]() {
      return (name + ":" + llvm::Twine(lineNo) + ": ").str();
    };
    fields.clear();
    line.split(fields, ',');
    if (static_cast<int64_t>(fields.size()) != kPixels + 1)
      return makeError(where() +
                       "expected 65 comma-separated values (64 "
                       "pixels, then the label), found " +
                       llvm::Twine(fields.size()));
    for (int64_t i = 0; i < kPixels; ++i) {
      double v;
      StringRef f = fields[i].trim();
      if (f.getAsDouble(v) || !std::isfinite(v))
        return makeError(where() + "pixel " + llvm::Twine(i) +
                         " is not a number: '" + f + "'");
      if (v < 0 || v > 16)
        return makeError(where() + "pixel " + llvm::Twine(i) + " = " + f +
                         " is outside [0, 16]");
      data.features.push_back(static_cast<float>(v / 16.0));
    }
    double label;
    StringRef f = fields[kPixels].trim();
    if (f.getAsDouble(label) || label != std::floor(label) || label < 0 ||
        label >= kClasses)
      return makeError(where() + "label '" + f +
                       "' is not an integer in [0, 9]");
    data.labels.push_back(static_cast<int32_t>(label));
  }
  if (data.labels.empty())
    return makeError(name + ": no samples");
  data.description = ("digits " + name).str();
  return data;
}

llvm::Expected<Dataset> amp::run::loadDigits(StringRef path) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!buffer)
    return makeError("cannot read digits file '" + path +
                     "': " + buffer.getError().message() +
                     " (Debian's python3-sklearn ships it as "
                     "/usr/lib/python3/dist-packages/sklearn/datasets/data/"
                     "digits.csv.gz)");
  StringRef bytes = (*buffer)->getBuffer();
  std::string inflated;
  if (bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f &&
      static_cast<unsigned char>(bytes[1]) == 0x8b) {
    auto text = gunzip(bytes, path);
    if (!text)
      return text.takeError();
    inflated = std::move(*text);
    bytes = inflated;
  }
  if (bytes.find('\0') != StringRef::npos)
    return makeError(path + ": binary data, expected CSV text (or gzip)");
  return parseDigitsCsv(bytes, path);
}

//===----------------------------------------------------------------------===//
// Synthetic data and the split
//===----------------------------------------------------------------------===//

Dataset amp::run::makeSynthetic(int64_t numClasses, int64_t numFeatures,
                                int64_t numSamples, uint64_t seed) {
  Dataset data;
  data.numClasses = numClasses;
  data.numFeatures = numFeatures;
  Rng rng(mixSeed(seed, /*stream=*/3));
  std::vector<float> centres(numClasses * numFeatures);
  for (float &c : centres)
    c = static_cast<float>(rng.uniform(-1.0, 1.0));
  data.features.resize(numSamples * numFeatures);
  data.labels.resize(numSamples);
  // Samples [begin, end): each normal() takes two numbers of the stream, so
  // a piece starts 2 * numFeatures numbers per sample ahead, and the pieces
  // draw in parallel exactly the values one pass would (a step of the
  // transformer's 65536 features took seconds for 2048 samples).
  auto draw = [&](int64_t begin, int64_t end) {
    Rng piece = rng.ahead(uint64_t(2 * begin * numFeatures));
    for (int64_t i = begin; i < end; ++i) {
      int32_t label = static_cast<int32_t>(i % numClasses);
      data.labels[i] = label;
      for (int64_t j = 0; j < numFeatures; ++j)
        data.features[i * numFeatures + j] = centres[label * numFeatures + j] +
                                             static_cast<float>(piece.normal());
    }
  };
  // AMP_RUN_DATA_THREADS: how many threads draw (default: every hardware
  // thread); the values do not depend on it.
  const char *env = std::getenv("AMP_RUN_DATA_THREADS");
  const int64_t threadCount =
      env && std::atoi(env) > 0
          ? std::atoi(env)
          : std::max(1u, std::thread::hardware_concurrency());
  const int64_t pieces =
      std::min<int64_t>(threadCount, numSamples * numFeatures / (1 << 20) + 1);
  std::vector<std::thread> threads;
  for (int64_t p = 1; p < pieces; ++p)
    threads.emplace_back(draw, numSamples * p / pieces,
                         numSamples * (p + 1) / pieces);
  draw(0, numSamples / pieces);
  for (std::thread &t : threads)
    t.join();
  data.description =
      ("synthetic (" + llvm::Twine(numClasses) + " Gaussian blobs in " +
       llvm::Twine(numFeatures) + " dimensions)")
          .str();
  return data;
}

Split amp::run::splitDataset(const Dataset &data, double testFraction,
                             uint64_t seed) {
  std::vector<int64_t> order(data.size());
  for (int64_t i = 0; i < data.size(); ++i)
    order[i] = i;
  Rng rng(mixSeed(seed, /*stream=*/1));
  shuffle(order, rng);
  auto numTest = static_cast<int64_t>(
      std::llround(static_cast<double>(data.size()) * testFraction));
  Split split;
  split.test.assign(order.begin(), order.begin() + numTest);
  split.train.assign(order.begin() + numTest, order.end());
  return split;
}
