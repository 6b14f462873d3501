//===- PrecisionPolicy.cpp - Which ops run in low precision ---------------===//
//
// Default lists follow TensorFlow's AMP lists translated to upstream MLIR ops
// (DESIGN.md §4); docs/policy.md lists them.
//
//===----------------------------------------------------------------------===//

#include "amp/Analysis/PrecisionPolicy.h"
#include "amp/Analysis/BodyPatterns.h"

#include "amp/Interfaces/AmpPrecisionOpInterface.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/GlobPattern.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::amp;

StringRef mlir::amp::stringifyBodyPattern(BodyPattern pattern) {
  switch (pattern) {
  case BodyPattern::Contraction:
    return "contraction";
  case BodyPattern::SumReduction:
    return "sum-reduction";
  case BodyPattern::Normalization:
    return "normalization";
  case BodyPattern::BatchNormalization:
    return "batch-normalization";
  case BodyPattern::Reduction:
    return "reduction";
  case BodyPattern::Copy:
    return "copy";
  case BodyPattern::Elementwise:
    return "elementwise";
  case BodyPattern::Sigmoid:
    return "sigmoid";
  }
  llvm_unreachable("unknown body pattern");
}

//===----------------------------------------------------------------------===//
// Default lists
//===----------------------------------------------------------------------===//

// Contractions: Tensor Core candidates, f32 accumulation.
static const char *const kAllowList[] = {
    "linalg.matmul",
    "linalg.batch_matmul",
    "linalg.batch_reduce_matmul",
    "linalg.contract",
    "linalg.matvec",
    "linalg.vecmat",
    "linalg.batch_matvec",
    "linalg.batch_vecmat",
    "linalg.dot",
    "linalg.mmt4d",
    "linalg.batch_mmt4d",
    "linalg.conv_*",
    "linalg.depthwise_conv_*",
    "linalg.generic:contraction",
    "tosa.matmul",
    "tosa.conv2d",
    "tosa.conv3d",
    "tosa.depthwise_conv2d",
    "tosa.transpose_conv2d",
};

// Safe in low precision when the inputs already are.
static const char *const kInferList[] = {
    "arith.addf",
    "arith.subf",
    "arith.mulf",
    "arith.divf",
    "arith.remf",
    "math.fma",
    "math.tanh",
    "math.sqrt",
    "math.rsqrt",
    "math.log",
    "math.log1p",
    "math.log2",
    "math.log10",
    "math.erf",
    "math.erfc",
    "math.sin",
    "math.cos",
    "math.tan",
    "math.atan",
    "math.atan2",
    "math.cbrt",
    "linalg.add",
    "linalg.sub",
    "linalg.mul",
    "linalg.div",
    "linalg.sqrt",
    "linalg.rsqrt",
    "linalg.tanh",
    "linalg.erf",
    "linalg.log",
    "linalg.reciprocal",
    "linalg.square",
    "linalg.pooling_*_sum",
    "tosa.add",
    "tosa.sub",
    "tosa.mul",
    "tosa.sigmoid",
    "tosa.tanh",
    "tosa.rsqrt",
    "tosa.reciprocal",
    "tosa.erf",
    "tosa.log",
    "tosa.sin",
    "tosa.cos",
    "tosa.avg_pool2d",
    "tosa.resize",
    // 1 / (1 + exp(-x)) as one generic (torch-mlir's sigmoid), like
    // tosa.sigmoid: bounded, and the body computes in f32.
    "linalg.generic:sigmoid",
};

// Exact in any precision: data movement, selection, sign and comparisons.
// Not here: tensor.bitcast (reinterprets bits) and math.isinf/isfinite (an
// f32 value above 65504 is finite, its f16 copy is not).
static const char *const kClearList[] = {
    "tensor.reshape",
    "tensor.expand_shape",
    "tensor.collapse_shape",
    "tensor.extract_slice",
    "tensor.insert_slice",
    "tensor.concat",
    "tensor.pad",
    "tensor.extract",
    "tensor.insert",
    "tensor.from_elements",
    "tensor.splat",
    "tensor.cast",
    "tensor.gather",
    "tensor.scatter",
    // Shape queries: reading a shape must not cost a cast of the tensor.
    "tensor.dim",
    "tensor.rank",

    "linalg.transpose",
    "linalg.broadcast",
    "linalg.copy",
    "linalg.fill",
    "linalg.max",
    "linalg.min",
    "linalg.abs",
    "linalg.negf",
    "linalg.select",
    "linalg.ceil",
    "linalg.floor",
    "linalg.round",
    "linalg.pooling_*_max",
    "linalg.pooling_*_min",
    "linalg.pack",
    "linalg.unpack",
    "linalg.generic:copy",
    "arith.maximumf",
    "arith.minimumf",
    "arith.maxnumf",
    "arith.minnumf",
    "arith.negf",
    "arith.select",
    "arith.cmpf",
    "math.absf",
    "math.copysign",
    "math.ceil",
    "math.floor",
    "math.round",
    "math.roundeven",
    "math.trunc",

    "tosa.reshape",
    "tosa.transpose",
    "tosa.slice",
    "tosa.concat",
    "tosa.pad",
    "tosa.tile",
    "tosa.gather",
    "tosa.scatter",
    "tosa.clamp",
    "tosa.maximum",
    "tosa.minimum",
    "tosa.select",
    "tosa.reverse",
    "tosa.identity",
    "tosa.abs",
    "tosa.negate",
    "tosa.ceil",
    "tosa.floor",
    "tosa.max_pool2d",
    "tosa.reduce_max",
    "tosa.reduce_min",
    "tosa.equal",
    "tosa.greater",
    "tosa.greater_equal",
    "tosa.argmax",
};

// Must stay f32: exponentials, powers, sums, softmax.
static const char *const kDenyList[] = {
    "math.exp",
    "math.exp2",
    "math.expm1",
    "math.powf",
    "math.fpowi",
    "math.sinh",
    "math.cosh",
    "linalg.exp",
    "linalg.powf",
    "linalg.softmax",
    "linalg.generic:sum-reduction",
    "linalg.generic:normalization",
    "linalg.generic:batch-normalization",
    "tosa.exp",
    "tosa.pow",
    "tosa.reduce_sum",
    "tosa.reduce_product",
};

// bf16 has f32's exponent range: sums and sum-pooling may run in bf16, and
// so may batch norm with batch statistics, as under PyTorch's autocast (its
// statistics still accumulate in f32: a sum keeps an f32 accumulator).
static const char *const kBF16InferOverrides[] = {
    "linalg.generic:sum-reduction",
    "linalg.generic:batch-normalization",
    "tosa.reduce_sum",
};

PrecisionPolicy::PrecisionPolicy(AmpMode mode) : mode(mode) {
  for (const char *name : kAllowList)
    set(name, PrecisionClass::Allow, "default");
  for (const char *name : kInferList)
    set(name, PrecisionClass::Infer, "default");
  for (const char *name : kClearList)
    set(name, PrecisionClass::Clear, "default");
  for (const char *name : kDenyList)
    set(name, PrecisionClass::Deny, "default");
  if (mode == AmpMode::BF16)
    for (const char *name : kBF16InferOverrides)
      set(name, PrecisionClass::Infer, "default (bf16)");
}

PrecisionPolicy PrecisionPolicy::cloneLists() const {
  // Not PrecisionPolicy(mode): its default lists would be overwritten here.
  PrecisionPolicy copy(mode, NoLists{});
  copy.entries = entries;
  copy.contractions = contractions;
  copy.inferAsDeny = inferAsDeny;
  return copy;
}

void PrecisionPolicy::set(StringRef key, PrecisionClass cls, StringRef source) {
  invalidateCaches();
  auto &list = entries[key];
  list.clear();
  list.push_back({cls, source.str()});
}

void PrecisionPolicy::denyDefaultConvolutions(StringRef source) {
  for (const char *key : kAllowList) {
    if (!StringRef(key).contains("conv"))
      continue;
    auto it = entries.find(key);
    if (it != entries.end() && it->second.size() == 1 &&
        it->second.front().cls == PrecisionClass::Allow &&
        it->second.front().source == "default")
      set(key, PrecisionClass::Deny, source);
  }
}

void PrecisionPolicy::removeFrom(PrecisionClass list,
                                 ArrayRef<std::string> names) {
  invalidateCaches();
  for (const std::string &name : names) {
    auto &existing = entries[name];
    llvm::erase_if(existing,
                   [&](const Entry &entry) { return entry.cls == list; });
    // A removed op is unlisted: it must not fall back to its body's class.
    if (existing.empty())
      existing.push_back({PrecisionClass::Unlisted,
                          (stringifyPrecisionClass(list) + "-remove").str()});
  }
}

void PrecisionPolicy::addTo(PrecisionClass list, ArrayRef<std::string> names,
                            StringRef source) {
  invalidateCaches();
  for (const std::string &name : names) {
    auto &existing = entries[name];
    llvm::erase_if(existing, [](const Entry &entry) {
      return entry.cls == PrecisionClass::Unlisted;
    });
    if (llvm::none_of(existing,
                      [&](const Entry &entry) { return entry.cls == list; }))
      existing.push_back({list, source.str()});
  }
}

LogicalResult PrecisionPolicy::verifyNoConflicts(std::string &error) const {
  llvm::raw_string_ostream os(error);
  SmallVector<StringRef> keys;
  for (const auto &it : entries)
    if (it.second.size() > 1)
      keys.push_back(it.getKey());
  llvm::sort(keys);
  for (StringRef key : keys) {
    const auto &list = entries.find(key)->second;
    os << "op '" << key << "' is on more than one list:";
    for (const Entry &entry : list)
      os << " " << stringifyPrecisionClass(entry.cls) << " (" << entry.source
         << ")";
    os << "; remove it from all but one (e.g. "
       << stringifyPrecisionClass(list.front().cls) << "-remove=" << key
       << ")\n";
  }
  if (!error.empty())
    error.pop_back(); // trailing newline
  return success(keys.empty());
}

std::optional<PrecisionClass>
PrecisionPolicy::lookup(StringRef key, std::string *source) const {
  auto [cached, inserted] = lookupCache.try_emplace(key, nullptr);
  if (inserted)
    cached->second = findEntries(key);
  const SmallVector<Entry, 1> *list = cached->second;
  if (!list)
    return std::nullopt;
  if (source)
    *source = list->front().source;
  return adjust(list->front().cls);
}

const SmallVector<PrecisionPolicy::Entry, 1> *
PrecisionPolicy::findEntries(StringRef key) const {
  auto it = entries.find(key);
  if (it != entries.end() && !it->second.empty())
    return &it->second;
  // Wildcards: `prefix*` entries; the longest matching prefix wins.
  const SmallVector<Entry, 1> *best = nullptr;
  size_t bestLength = 0;
  for (const auto &entry : entries) {
    StringRef pattern = entry.getKey();
    if (!pattern.contains('*') || entry.second.empty())
      continue;
    // A `*` may also stand in the middle: linalg.pooling_*_sum.
    auto [head, tail] = pattern.split('*');
    if (key.size() >= head.size() + tail.size() && key.starts_with(head) &&
        key.ends_with(tail) && head.size() + tail.size() > bestLength) {
      best = &entry.second;
      bestLength = head.size() + tail.size();
    }
  }
  return best;
}

void PrecisionPolicy::print(raw_ostream &os) const {
  for (PrecisionClass cls :
       {PrecisionClass::Allow, PrecisionClass::Infer, PrecisionClass::Clear,
        PrecisionClass::Deny, PrecisionClass::Unlisted}) {
    SmallVector<StringRef> keys;
    for (const auto &entry : entries)
      if (llvm::any_of(entry.second,
                       [&](const Entry &e) { return adjust(e.cls) == cls; }))
        keys.push_back(entry.getKey());
    if (keys.empty())
      continue;
    llvm::sort(keys);
    os << stringifyPrecisionClass(cls) << ":\n";
    for (StringRef key : keys)
      os << "  - \"" << key << "\"\n";
  }
  // Contractions print as such too (their allow entries above are what
  // loading them adds; naming an op under both is not a conflict).
  SmallVector<StringRef> names;
  for (const auto &entry : contractions)
    names.push_back(entry.getKey());
  if (names.empty())
    return;
  llvm::sort(names);
  os << "contraction:\n";
  for (StringRef name : names) {
    ArrayRef<unsigned> operands = contractions.lookup(name).accumulatorOperands;
    os << "  - \"" << name << "\"";
    if (!operands.empty()) {
      os << ": [";
      llvm::interleaveComma(operands, os);
      os << "]";
    }
    os << "\n";
  }
}

PrecisionClass PrecisionPolicy::adjust(PrecisionClass cls) const {
  if (inferAsDeny && cls == PrecisionClass::Infer)
    return PrecisionClass::Deny;
  return cls;
}

//===----------------------------------------------------------------------===//
// Classification
//===----------------------------------------------------------------------===//

/// Orders body-op classes by strictness: the body takes its strictest op's.
static int strictness(PrecisionClass cls) {
  switch (cls) {
  case PrecisionClass::Clear:
    return 0;
  case PrecisionClass::Infer:
    return 1;
  case PrecisionClass::Allow:
    return 1; // an allow op inside a body is only arithmetic there
  case PrecisionClass::Unlisted:
    return 2;
  case PrecisionClass::Deny:
    return 3;
  }
  llvm_unreachable("unknown precision class");
}

std::optional<Classification>
PrecisionPolicy::classifyLinalgBody(Operation *op) const {
  std::optional<BodyPattern> matched = matchBodyPattern(op);
  if (!matched)
    return std::nullopt;
  // An equality against a captured tensor's elements (max-pool indices)
  // needs its operands exact: deny, and the painting keeps what feeds it
  // f32 (PrecisionPainting::keepComparedOperandsF32).
  if (comparesCapturedFloats(op))
    return Classification{PrecisionClass::Deny,
                          "linalg.generic: compares a captured tensor's "
                          "elements for equality (argmax positions)"};
  BodyPattern pattern = *matched;
  auto patternKey = static_cast<unsigned>(pattern);
  auto [listedIt, firstOfPattern] = bodyListed.try_emplace(patternKey);
  if (firstOfPattern) {
    std::string key = ("linalg.generic:" + stringifyBodyPattern(pattern)).str();
    std::string source;
    std::optional<PrecisionClass> listed = lookup(key, &source);
    // A sigmoid is an elementwise body too, a batch-norm statistic a
    // normalization statistic, and that a sum: a user entry for a more
    // general pattern beats the default one for the special one.
    SmallVector<StringRef, 2> generalKeys;
    if (pattern == BodyPattern::Sigmoid)
      generalKeys = {"linalg.generic:elementwise"};
    else if (pattern == BodyPattern::BatchNormalization)
      generalKeys = {"linalg.generic:normalization",
                     "linalg.generic:sum-reduction"};
    else if (pattern == BodyPattern::Normalization)
      generalKeys = {"linalg.generic:sum-reduction"};
    for (StringRef generalKey : generalKeys) {
      if (!StringRef(source).starts_with("default"))
        break;
      std::string generalSource;
      std::optional<PrecisionClass> general =
          lookup(generalKey, &generalSource);
      if (general && !StringRef(generalSource).starts_with("default")) {
        key = generalKey.str();
        listed = general;
        source = generalSource;
      }
    }
    if (listed)
      listedIt->second =
          Classification{*listed, intern(key + " (" + source + ")")};
  }
  if (listedIt->second)
    return *listedIt->second;

  // Otherwise the strictest body op decides.
  PrecisionClass cls = PrecisionClass::Clear;
  Operation *strictest = nullptr;
  for (Operation &bodyOp : op->getRegion(0).front().without_terminator()) {
    if (isNeutralBodyOp(&bodyOp))
      continue;
    PrecisionClass bodyCls = lookup(bodyOp.getName().getStringRef())
                                 .value_or(PrecisionClass::Unlisted);
    if (!strictest || strictness(bodyCls) > strictness(cls)) {
      cls = bodyCls == PrecisionClass::Allow ? PrecisionClass::Infer : bodyCls;
      strictest = &bodyOp;
    }
  }
  auto reasonKey = std::make_tuple(
      patternKey,
      strictest ? strictest->getName().getAsOpaquePointer() : nullptr,
      static_cast<unsigned>(cls));
  auto [reasonIt, newReason] = bodyReasons.try_emplace(reasonKey);
  if (newReason) {
    std::string reason;
    llvm::raw_string_ostream os(reason);
    os << "linalg.generic:" << stringifyBodyPattern(pattern);
    if (strictest)
      os << ", strictest body op " << strictest->getName() << " is "
         << stringifyPrecisionClass(cls);
    reasonIt->second = intern(reason);
  }
  return Classification{cls, reasonIt->second};
}

StringRef PrecisionPolicy::intern(const Twine &reason) const {
  SmallString<64> storage;
  return reasons.insert(reason.toStringRef(storage)).first->getKey();
}

Classification PrecisionPolicy::classify(Operation *op) const {
  // The class of most ops follows from their name alone and is computed once
  // per name; linalg ops on no list (decided by their body) and interface
  // ops (which may answer per op) are classified one by one.
  auto it = byName.find(op->getName());
  if (it != byName.end())
    return it->second;
  bool perOp = false;
  Classification result = classifyUncached(op, perOp);
  if (result.cls == PrecisionClass::Allow) {
    if (const ContractionSpec *spec =
            lookupContraction(op->getName().getStringRef())) {
      result.contraction = spec;
      result.reason = "contraction, policy file";
    }
  }
  if (!perOp)
    byName[op->getName()] = result;
  return result;
}

Classification PrecisionPolicy::classifyUncached(Operation *op,
                                                 bool &perOp) const {
  StringRef name = op->getName().getStringRef();
  std::string source;
  std::optional<PrecisionClass> listed = lookup(name, &source);

  // User entries (policy file, CLI) beat the interface, which beats defaults.
  bool userEntry = listed && !StringRef(source).starts_with("default");
  if (!userEntry) {
    if (auto iface = dyn_cast<AmpPrecisionOpInterface>(op)) {
      perOp = true;
      PrecisionClass cls = adjust(iface.getAmpPrecisionClass());
      return {cls, "AmpPrecisionOpInterface"};
    }
  }
  if (listed)
    return {*listed, intern(stringifyPrecisionClass(*listed) + " list (" +
                            source + ")")};
  perOp = isa<linalg::LinalgOp>(op);
  if (std::optional<Classification> body = classifyLinalgBody(op))
    return *body;
  return {PrecisionClass::Unlisted, "not on any list"};
}
