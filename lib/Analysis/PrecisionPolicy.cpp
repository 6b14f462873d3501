//===- PrecisionPolicy.cpp - Which ops run in low precision ---------------===//
//
// Default lists follow TensorFlow's AMP lists translated to upstream MLIR ops
// (DESIGN.md §4); docs/policy.md lists them.
//
//===----------------------------------------------------------------------===//

#include "amp/Analysis/PrecisionPolicy.h"

#include "amp/Interfaces/AmpPrecisionOpInterface.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/SmallBitVector.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/GlobPattern.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/YAMLParser.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::amp;

std::optional<AmpMode> mlir::amp::parseAmpMode(StringRef name) {
  return llvm::StringSwitch<std::optional<AmpMode>>(name)
      .Case("f16", AmpMode::F16)
      .Case("bf16", AmpMode::BF16)
      .Default(std::nullopt);
}

std::optional<AmpLevel> mlir::amp::parseAmpLevel(StringRef name) {
  return llvm::StringSwitch<std::optional<AmpLevel>>(name)
      .Case("default", AmpLevel::Default)
      .Case("tensor-cores-only", AmpLevel::TensorCoresOnly)
      .Case("treat-infer-as-deny", AmpLevel::TreatInferAsDeny)
      .Default(std::nullopt);
}

StringRef mlir::amp::stringifyBodyPattern(BodyPattern pattern) {
  switch (pattern) {
  case BodyPattern::Contraction:
    return "contraction";
  case BodyPattern::SumReduction:
    return "sum-reduction";
  case BodyPattern::Normalization:
    return "normalization";
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
    "tosa.exp",
    "tosa.pow",
    "tosa.reduce_sum",
    "tosa.reduce_product",
};

// bf16 has f32's exponent range: sums and sum-pooling may run in bf16.
static const char *const kBF16InferOverrides[] = {
    "linalg.generic:sum-reduction",
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

void PrecisionPolicy::set(StringRef key, PrecisionClass cls, StringRef source) {
  invalidateCaches();
  auto &list = entries[key];
  list.clear();
  list.push_back({cls, source.str()});
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

/// Ops in a linalg body that say nothing about its numerics.
static bool isNeutralBodyOp(Operation *op) {
  return isa<arith::ConstantOp, arith::ExtFOp, arith::TruncFOp, linalg::IndexOp,
             linalg::YieldOp>(op) ||
         // Integer and index arithmetic.
         llvm::none_of(op->getResultTypes(),
                       [](Type t) { return isa<FloatType>(t); });
}

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

/// Whether `body` computes exactly 1 / (1 + exp(-x)) of one block argument
/// (-x as arith.negf x or 0 - x), as torch-mlir emits a sigmoid.
//===----------------------------------------------------------------------===//
// Contractions upstream's matcher does not see
//===----------------------------------------------------------------------===//

/// Collects the ops a contraction body match went through.
using MatchedOps = llvm::SmallPtrSetImpl<Operation *>;

static bool isZeroFloat(Value value) {
  return matchPattern(value, m_AnyZeroFloat());
}

/// The input block argument that `value` is, through float casts; null if it
/// is something else.
static BlockArgument inputArgThroughCasts(Value value, Block &body,
                                          unsigned numInputs,
                                          MatchedOps &matched) {
  while (Operation *def = value.getDefiningOp()) {
    if (def->getBlock() != &body || !isa<arith::ExtFOp, arith::TruncFOp>(def))
      return nullptr;
    matched.insert(def);
    value = def->getOperand(0);
  }
  auto arg = cast<BlockArgument>(value);
  return arg.getOwner() == &body && arg.getArgNumber() < numInputs ? arg
                                                                   : nullptr;
}

/// A mask condition: an `arith.cmpf` of inputs (through casts) and
/// constants, as a fused ReLU backward (`x > 0`) has. It must not read the
/// accumulator.
static bool isMaskCondition(Value cond, Block &body, unsigned numInputs,
                            MatchedOps &matched) {
  auto cmp = cond.getDefiningOp<arith::CmpFOp>();
  if (!cmp || cmp->getBlock() != &body)
    return false;
  for (Value operand : cmp->getOperands())
    if (!matchPattern(operand, m_Constant()) &&
        !inputArgThroughCasts(operand, body, numInputs, matched))
      return false;
  matched.insert(cmp);
  return true;
}

/// Strips `select(mask, v, 0)` / `select(mask, 0, v)` off `value`.
static Value stripMasks(Value value, Block &body, unsigned numInputs,
                        MatchedOps &matched) {
  while (auto select = value.getDefiningOp<arith::SelectOp>()) {
    if (select->getBlock() != &body)
      break;
    Value kept;
    if (isZeroFloat(select.getFalseValue()))
      kept = select.getTrueValue();
    else if (isZeroFloat(select.getTrueValue()))
      kept = select.getFalseValue();
    if (!kept ||
        !isMaskCondition(select.getCondition(), body, numInputs, matched))
      break;
    matched.insert(select);
    value = kept;
  }
  return value;
}

/// An input of the multiply: an input argument, possibly cast and masked.
static BlockArgument factor(Value value, Block &body, unsigned numInputs,
                            MatchedOps &matched) {
  value = stripMasks(value, body, numInputs, matched);
  return inputArgThroughCasts(value, body, numInputs, matched);
}

/// Whether `expr` is a sum of dimensions, each possibly scaled by a constant,
/// plus a constant (`d1`, `d1 + d4`, `d1 * 2 + d4`: the access of a strided
/// or dilated convolution); adds its dimensions to `dims`.
static bool collectConvolutionDims(AffineExpr expr,
                                   llvm::SmallBitVector &dims) {
  if (auto dim = dyn_cast<AffineDimExpr>(expr)) {
    dims.set(dim.getPosition());
    return true;
  }
  if (isa<AffineConstantExpr>(expr))
    return true;
  auto binary = dyn_cast<AffineBinaryOpExpr>(expr);
  if (!binary)
    return false;
  if (binary.getKind() == AffineExprKind::Add)
    return collectConvolutionDims(binary.getLHS(), dims) &&
           collectConvolutionDims(binary.getRHS(), dims);
  if (binary.getKind() == AffineExprKind::Mul &&
      isa<AffineConstantExpr>(binary.getRHS()))
    return collectConvolutionDims(binary.getLHS(), dims);
  return false;
}

/// Contractions that `linalg::isaContractionOpInterface` rejects but that are
/// multiply-accumulates all the same, as torch-mlir exports backward graphs:
///
///  * bodies that mask an input, the product or the update with
///    `arith.select` on an `arith.cmpf` of inputs (a ReLU backward fused
///    into the matmul that follows it): `acc + select(x > 0, g, 0) * w`;
///  * convolutions written as generics, including the backward ones, whose
///    input maps add loop dimensions (`d1 + d4`, `d1 * 2 + d4`): backward
///    data is a convolution of the output gradient with the flipped filter,
///    backward filter one of the input with the output gradient.
///
/// The body must compute `acc + a * b` (or `select(mask, acc + a * b, acc)`)
/// for two different inputs a and b, with nothing else than masks, casts
/// and constants; every reduction loop must index both a and b (a sum of
/// products over shared dimensions); the output map is a projected
/// permutation. `acc + x * x`, `max(acc, a * b)`, `acc + 0.5 * x` and masked
/// sums without a product stay reductions.
static bool isMaskedOrConvolutionContraction(linalg::GenericOp op) {
  if (op.getNumDpsInits() != 1 || op.getNumDpsInputs() < 2 ||
      op.getNumReductionLoops() == 0)
    return false;
  Block &body = *op.getBlock();
  unsigned numInputs = op.getNumDpsInputs();
  auto yield = dyn_cast<linalg::YieldOp>(body.getTerminator());
  if (!yield || yield->getNumOperands() != 1)
    return false;
  BlockArgument acc = body.getArgument(numInputs);
  if (!isa<FloatType>(acc.getType()))
    return false;

  llvm::SmallPtrSet<Operation *, 8> matched;
  Value update = yield->getOperand(0);
  // select(mask, acc + a * b, acc): skip masked-out terms.
  if (auto select = update.getDefiningOp<arith::SelectOp>();
      select && select->getBlock() == &body &&
      (select.getFalseValue() == acc || select.getTrueValue() == acc) &&
      isMaskCondition(select.getCondition(), body, numInputs, matched)) {
    matched.insert(select);
    update = select.getFalseValue() == acc ? select.getTrueValue()
                                           : select.getFalseValue();
  }
  auto add = update.getDefiningOp<arith::AddFOp>();
  if (!add || add->getBlock() != &body)
    return false;
  matched.insert(add);
  Value term;
  if (add.getLhs() == acc)
    term = add.getRhs();
  else if (add.getRhs() == acc)
    term = add.getLhs();
  else
    return false;
  term = stripMasks(term, body, numInputs, matched);
  auto mul = term.getDefiningOp<arith::MulFOp>();
  if (!mul || mul->getBlock() != &body)
    return false;
  matched.insert(mul);
  BlockArgument lhs = factor(mul.getLhs(), body, numInputs, matched);
  BlockArgument rhs = factor(mul.getRhs(), body, numInputs, matched);
  if (!lhs || !rhs || lhs == rhs)
    return false;
  for (Operation &bodyOp : body.without_terminator())
    if (!matched.contains(&bodyOp) && !bodyOp.hasTrait<OpTrait::ConstantLike>())
      return false;

  // Indexing: the output map is a projected permutation; the factors are
  // indexed by sums of dimensions and share every reduction dimension.
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  if (!maps[numInputs].isProjectedPermutation())
    return false;
  unsigned numLoops = op.getNumLoops();
  auto dimsOf = [&](BlockArgument arg, llvm::SmallBitVector &dims) {
    dims.resize(numLoops);
    AffineMap map = maps[arg.getArgNumber()];
    if (map.getNumSymbols() != 0)
      return false;
    return llvm::all_of(map.getResults(), [&](AffineExpr expr) {
      return collectConvolutionDims(expr, dims);
    });
  };
  llvm::SmallBitVector lhsDims, rhsDims;
  if (!dimsOf(lhs, lhsDims) || !dimsOf(rhs, rhsDims))
    return false;
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  for (unsigned d = 0; d < numLoops; ++d)
    if (iterators[d] == utils::IteratorType::reduction &&
        (!lhsDims.test(d) || !rhsDims.test(d)))
      return false;
  return true;
}

static bool isSigmoidBody(Block &body) {
  auto isConstant = [](Value value, double expected) {
    FloatAttr attr;
    return matchPattern(value, m_Constant(&attr)) &&
           attr.getValueAsDouble() == expected;
  };
  auto yield = dyn_cast<linalg::YieldOp>(body.getTerminator());
  if (!yield || yield->getNumOperands() != 1)
    return false;
  auto div = yield->getOperand(0).getDefiningOp<arith::DivFOp>();
  if (!div || !isConstant(div.getLhs(), 1.0))
    return false;
  auto add = div.getRhs().getDefiningOp<arith::AddFOp>();
  if (!add)
    return false;
  Value expValue = isConstant(add.getRhs(), 1.0)   ? add.getLhs()
                   : isConstant(add.getLhs(), 1.0) ? add.getRhs()
                                                   : Value();
  auto exp = expValue ? expValue.getDefiningOp<math::ExpOp>() : nullptr;
  if (!exp)
    return false;
  Value x;
  if (auto neg = exp.getOperand().getDefiningOp<arith::NegFOp>())
    x = neg.getOperand();
  else if (auto sub = exp.getOperand().getDefiningOp<arith::SubFOp>();
           sub && isConstant(sub.getLhs(), 0.0))
    x = sub.getRhs();
  auto arg = dyn_cast_or_null<BlockArgument>(x);
  if (!arg || arg.getOwner() != &body)
    return false;
  // Nothing else computes in the body (constants do not count).
  auto computes = [](Operation &op) {
    return !op.hasTrait<OpTrait::ConstantLike>();
  };
  return llvm::count_if(body.without_terminator(), computes) == 4;
}

/// Whether the sum `op` computes a normalization statistic: within a few
/// ops of its result, a value derived from it is combined with a value that
/// the summed input derives from (x - mean(x), dev * rsqrt(var(dev) + eps),
/// exp(x) / sum(exp(x)), and their backward sums). Such statistics and the
/// chains they scale are what bf16's 8-bit mantissa makes inaccurate; a
/// bias-gradient sum, only read by its update, is not one.
/// The values `op` computes from: a linalg op's inputs (not its inits,
/// which torch-mlir shares between unrelated ops), any other op's operands.
static OperandRange dataOperands(Operation *op) {
  if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op))
    return op->getOperands().take_front(linalgOp.getNumDpsInputs());
  return op->getOperands();
}

static bool isNormalizationStatistic(Operation *op) {
  constexpr int kDepth = 4;
  auto linalgOp = cast<linalg::LinalgOp>(op);
  // The summed inputs and what they are computed from, a few ops up.
  llvm::SmallPtrSet<void *, 16> sources;
  SmallVector<std::pair<Value, int>> work;
  // Only a value of the summed shape counts: a parameter read by the
  // forward pass and by its update is a source of its gradient's sum too.
  SmallVector<ArrayRef<int64_t>, 2> summedShapes;
  for (OpOperand *input : linalgOp.getDpsInputOperands()) {
    work.push_back({input->get(), 0});
    if (auto shaped = dyn_cast<ShapedType>(input->get().getType()))
      summedShapes.push_back(shaped.getShape());
  }
  while (!work.empty()) {
    auto [value, depth] = work.pop_back_val();
    Operation *def = value.getDefiningOp();
    // Constants and empty tensors relate nothing.
    if (!isa<ShapedType>(value.getType()) ||
        (def && def->getNumOperands() == 0) ||
        !sources.insert(value.getAsOpaquePointer()).second)
      continue;
    if (def && depth < kDepth)
      for (Value operand : dataOperands(def))
        work.push_back({operand, depth + 1});
  }
  // The ops that read the result, a few ops down, and whether one of them
  // also reads a source.
  llvm::SmallPtrSet<Operation *, 16> seen{op};
  SmallVector<std::pair<Operation *, int>> users{{op, 0}};
  while (!users.empty()) {
    auto [current, depth] = users.pop_back_val();
    if (depth >= kDepth)
      continue;
    for (Operation *user : current->getUsers()) {
      // Returning or yielding a value with the statistic combines nothing.
      if (user->hasTrait<OpTrait::IsTerminator>() || !seen.insert(user).second)
        continue;
      for (Value operand : dataOperands(user))
        if (operand.getDefiningOp() != current &&
            sources.contains(operand.getAsOpaquePointer()) &&
            llvm::is_contained(summedShapes,
                               cast<ShapedType>(operand.getType()).getShape()))
          return true;
      users.push_back({user, depth + 1});
    }
  }
  return false;
}

std::optional<Classification>
PrecisionPolicy::classifyLinalgBody(Operation *op) const {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  if (!linalgOp || op->getNumRegions() != 1 || op->getRegion(0).empty())
    return std::nullopt;
  Block &body = op->getRegion(0).front();

  BodyPattern pattern;
  bool hasReduction = linalgOp.getNumReductionLoops() > 0;
  bool computes = llvm::any_of(body.without_terminator(), [](Operation &o) {
    return !isNeutralBodyOp(&o);
  });
  // (The contraction check infers the op's dimensions: only bodies that
  // multiply can be contractions.)
  bool multiplies = llvm::any_of(body.without_terminator(), [](Operation &o) {
    return isa<arith::MulFOp, arith::MulIOp>(o);
  });
  auto generic = dyn_cast<linalg::GenericOp>(op);
  if (hasReduction && multiplies &&
      (linalg::isaContractionOpInterface(linalgOp) ||
       (generic && isMaskedOrConvolutionContraction(generic)))) {
    pattern = BodyPattern::Contraction;
  } else if (hasReduction) {
    // An addition that reads the accumulator (an output block argument) is a
    // sum: mean, variance, norm and loss reductions all have one.
    bool sums = llvm::any_of(body.without_terminator(), [&](Operation &o) {
      if (!isa<arith::AddFOp, arith::SubFOp>(o))
        return false;
      return llvm::any_of(o.getOperands(), [&](Value v) {
        auto arg = dyn_cast<BlockArgument>(v);
        return arg && arg.getOwner() == &body &&
               linalgOp.isDpsInit(linalgOp.getMatchingOpOperand(arg));
      });
    });
    pattern = !sums                          ? BodyPattern::Reduction
              : isNormalizationStatistic(op) ? BodyPattern::Normalization
                                             : BodyPattern::SumReduction;
  } else if (!computes) {
    pattern = BodyPattern::Copy;
  } else {
    pattern =
        isSigmoidBody(body) ? BodyPattern::Sigmoid : BodyPattern::Elementwise;
  }

  std::string key = ("linalg.generic:" + stringifyBodyPattern(pattern)).str();
  std::string source;
  std::optional<PrecisionClass> listed = lookup(key, &source);
  // A sigmoid is an elementwise body too, and a normalization statistic a
  // sum: a user entry for the general pattern beats the default one for the
  // special one.
  if ((pattern == BodyPattern::Sigmoid ||
       pattern == BodyPattern::Normalization) &&
      StringRef(source).starts_with("default")) {
    std::string generalKey = pattern == BodyPattern::Sigmoid
                                 ? "linalg.generic:elementwise"
                                 : "linalg.generic:sum-reduction";
    std::string generalSource;
    std::optional<PrecisionClass> general = lookup(generalKey, &generalSource);
    if (general && !StringRef(generalSource).starts_with("default")) {
      key = generalKey;
      listed = general;
      source = generalSource;
    }
  }
  if (listed)
    return Classification{*listed, intern(key + " (" + source + ")")};

  // Otherwise the strictest body op decides.
  PrecisionClass cls = PrecisionClass::Clear;
  Operation *strictest = nullptr;
  for (Operation &bodyOp : body.without_terminator()) {
    if (isNeutralBodyOp(&bodyOp))
      continue;
    PrecisionClass bodyCls = lookup(bodyOp.getName().getStringRef())
                                 .value_or(PrecisionClass::Unlisted);
    if (!strictest || strictness(bodyCls) > strictness(cls)) {
      cls = bodyCls == PrecisionClass::Allow ? PrecisionClass::Infer : bodyCls;
      strictest = &bodyOp;
    }
  }
  std::string reason;
  llvm::raw_string_ostream os(reason);
  os << key;
  if (strictest)
    os << ", strictest body op " << strictest->getName() << " is "
       << stringifyPrecisionClass(cls);
  return Classification{cls, intern(reason)};
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
    auto spec = contractions.find(op->getName().getStringRef());
    if (spec != contractions.end()) {
      result.contraction = &spec->second;
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

//===----------------------------------------------------------------------===//
// Policy files
//===----------------------------------------------------------------------===//

/// The candidate nearest to `name` by edit distance, if it is near enough to
/// be a typo.
static std::optional<std::string> nearest(StringRef name,
                                          ArrayRef<std::string> candidates) {
  unsigned limit = std::max<unsigned>(2, name.size() / 4);
  std::optional<std::string> best;
  unsigned bestDistance = limit + 1;
  for (const std::string &candidate : candidates) {
    unsigned distance =
        name.edit_distance(candidate, /*AllowReplacements=*/true,
                           /*MaxEditDistance=*/limit);
    if (distance < bestDistance) {
      bestDistance = distance;
      best = candidate;
    }
  }
  return best;
}

static std::string didYouMean(StringRef name,
                              ArrayRef<std::string> candidates) {
  std::optional<std::string> best = nearest(name, candidates);
  return best ? "; did you mean '" + *best + "'?" : std::string();
}

std::optional<PolicyKeyProblem> mlir::amp::checkPolicyKey(MLIRContext *ctx,
                                                          StringRef key) {
  auto error = [](const Twine &message) {
    return PolicyKeyProblem{message.str(), /*warning=*/false};
  };
  if (key.consume_front("linalg.generic:")) {
    SmallVector<std::string> patterns;
    for (BodyPattern pattern :
         {BodyPattern::Contraction, BodyPattern::SumReduction,
          BodyPattern::Normalization, BodyPattern::Reduction, BodyPattern::Copy,
          BodyPattern::Elementwise, BodyPattern::Sigmoid}) {
      if (key == stringifyBodyPattern(pattern))
        return std::nullopt;
      patterns.push_back(
          ("linalg.generic:" + stringifyBodyPattern(pattern)).str());
    }
    return error("unknown body pattern 'linalg.generic:" + key +
                 "' (expected contraction, sum-reduction, normalization, "
                 "reduction, copy, elementwise or sigmoid)" +
                 didYouMean(("linalg.generic:" + key).str(), patterns));
  }
  auto [dialectName, opName] = key.split('.');
  if (opName.empty())
    return error("'" + key + "' is not an op name (expected dialect.op)");
  // The casts are what the painting inserts and the cleanup removes; on a
  // list they would be painted like the ops they connect, and a second run
  // would undo the first (found by the fuzzer).
  if (key == "arith.truncf" || key == "arith.extf")
    return error("'" + key +
                 "' is a precision cast: amp-auto-mixed-precision inserts and "
                 "removes casts itself, they cannot be put on a list");
  if (!ctx->getOrLoadDialect(dialectName)) {
    // --allow-unregistered-dialect: the entry names the unregistered ops of
    // the input (a custom contraction declared in a policy file).
    if (ctx->allowsUnregisteredDialects())
      return std::nullopt;
    std::vector<StringRef> available = ctx->getAvailableDialects();
    SmallVector<std::string> dialects(available.begin(), available.end());
    return PolicyKeyProblem{
        "dialect '" + dialectName.str() + "' is not registered: '" + key.str() +
            "' matches no op" + didYouMean(dialectName, dialects),
        /*warning=*/true};
  }
  SmallVector<std::string> ops;
  for (RegisteredOperationName name : ctx->getRegisteredOperations())
    if (name.getDialectNamespace() == dialectName)
      ops.push_back(name.getStringRef().str());
  if (key.contains('*')) {
    llvm::Expected<llvm::GlobPattern> glob = llvm::GlobPattern::create(key);
    if (!glob) {
      llvm::consumeError(glob.takeError());
      return error("malformed pattern '" + key + "'");
    }
    if (llvm::none_of(ops,
                      [&](const std::string &op) { return glob->match(op); }))
      return error("pattern '" + key + "' matches no registered op");
    return std::nullopt;
  }
  if (RegisteredOperationName::lookup(key, ctx))
    return std::nullopt;
  return error("unknown op '" + key + "'" + didYouMean(key, ops));
}

/// A `contraction` item that is not a plain op name: `{op: [i, j]}`, one
/// key, the indices of its accumulator operands. Sets `name` to the key.
static LogicalResult parseContractionItem(
    llvm::yaml::Node *item, llvm::yaml::ScalarNode *&name,
    ContractionSpec &spec,
    function_ref<LogicalResult(llvm::yaml::Node *, const Twine &)> fail) {
  auto *map = dyn_cast<llvm::yaml::MappingNode>(item);
  auto expected = [&](llvm::yaml::Node *at) {
    return fail(at, "expected an op name, or a mapping from an op name to "
                    "the indices of its accumulator operands "
                    "(`my.gemm: [2]`)");
  };
  if (!map)
    return expected(item);
  for (llvm::yaml::KeyValueNode &kv : *map) {
    if (name)
      return fail(kv.getKey(), "one op per contraction item");
    name = dyn_cast_or_null<llvm::yaml::ScalarNode>(kv.getKey());
    auto *indices = dyn_cast_or_null<llvm::yaml::SequenceNode>(kv.getValue());
    if (!name || !indices)
      return expected(kv.getValue() ? kv.getValue() : item);
    for (llvm::yaml::Node &index : *indices) {
      auto *scalar = dyn_cast<llvm::yaml::ScalarNode>(&index);
      SmallString<8> storage;
      unsigned value;
      if (!scalar || scalar->getValue(storage).getAsInteger(10, value))
        return fail(&index, "expected an operand index (an integer >= 0)");
      spec.accumulatorOperands.push_back(value);
    }
  }
  if (!name)
    return expected(item);
  llvm::sort(spec.accumulatorOperands);
  spec.accumulatorOperands.erase(llvm::unique(spec.accumulatorOperands),
                                 spec.accumulatorOperands.end());
  return success();
}

LogicalResult PrecisionPolicy::loadFile(
    StringRef path, std::string &error,
    function_ref<std::optional<std::string>(StringRef)> checkKey) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!buffer) {
    error = ("cannot read policy file '" + path +
             "': " + buffer.getError().message())
                .str();
    return failure();
  }
  llvm::SourceMgr sourceMgr;
  llvm::raw_string_ostream os(error);
  // The YAML parser reports through the SourceMgr; keep its file:line:col.
  sourceMgr.setDiagHandler(
      [](const llvm::SMDiagnostic &diag, void *context) {
        auto &out = *static_cast<llvm::raw_string_ostream *>(context);
        diag.print(/*ProgName=*/nullptr, out, /*ShowColors=*/false,
                   /*ShowKindLabel=*/true);
      },
      &os);
  unsigned bufferId =
      sourceMgr.AddNewSourceBuffer(std::move(*buffer), llvm::SMLoc());
  llvm::yaml::Stream stream(
      sourceMgr.getMemoryBuffer(bufferId)->getMemBufferRef(), sourceMgr);

  auto fail = [&](llvm::yaml::Node *node, const Twine &message) {
    sourceMgr.PrintMessage(os, node->getSourceRange().Start,
                           llvm::SourceMgr::DK_Error, message);
    return failure();
  };

  // Entries of this file; an op named under two classes is an error.
  llvm::StringMap<std::pair<PrecisionClass, llvm::yaml::Node *>> fileEntries;
  llvm::StringMap<ContractionSpec> fileContractions;
  SmallVector<std::string> order;
  for (llvm::yaml::Document &doc : stream) {
    llvm::yaml::Node *root = doc.getRoot();
    if (!root || isa<llvm::yaml::NullNode>(root))
      continue;
    auto *map = dyn_cast<llvm::yaml::MappingNode>(root);
    if (!map)
      return fail(root, "policy file must be a mapping from class names "
                        "(allow, infer, clear, deny, unlisted) to op lists");
    for (llvm::yaml::KeyValueNode &kv : *map) {
      auto *keyNode = dyn_cast_or_null<llvm::yaml::ScalarNode>(kv.getKey());
      if (!keyNode)
        return fail(kv.getKey(), "expected a class name");
      SmallString<16> keyStorage;
      StringRef className = keyNode->getValue(keyStorage);
      bool isContraction = className == "contraction";
      std::optional<PrecisionClass> cls =
          isContraction ? PrecisionClass::Allow
                        : symbolizePrecisionClass(className);
      if (!cls)
        return fail(keyNode, "unknown class '" + className +
                                 "' (expected allow, infer, clear, deny, "
                                 "unlisted or contraction)");
      auto *list = dyn_cast_or_null<llvm::yaml::SequenceNode>(kv.getValue());
      if (!list)
        return fail(kv.getValue() ? kv.getValue() : keyNode,
                    "expected a list of op names for '" + className + "'");
      for (llvm::yaml::Node &item : *list) {
        auto *scalar = dyn_cast<llvm::yaml::ScalarNode>(&item);
        ContractionSpec spec;
        if (isContraction && !scalar) {
          if (failed(parseContractionItem(&item, scalar, spec, fail)))
            return failure();
        }
        if (!scalar)
          return fail(&item, "expected an op name");
        SmallString<32> storage;
        std::string opName = scalar->getValue(storage).str();
        if (opName.empty())
          return fail(&item, "empty op name");
        if (isContraction &&
            StringRef(opName).find_first_of(":*") != StringRef::npos)
          return fail(&item, "a contraction is an op name, not a pattern");
        if (checkKey)
          if (std::optional<std::string> message = checkKey(opName))
            return fail(&item, *message);
        auto [it, inserted] = fileEntries.try_emplace(opName, *cls, &item);
        if (!inserted && it->second.first != *cls)
          return fail(&item, "op '" + opName + "' is listed as both " +
                                 stringifyPrecisionClass(it->second.first) +
                                 " and " + stringifyPrecisionClass(*cls));
        if (inserted)
          order.push_back(opName);
        if (isContraction)
          fileContractions[opName] = std::move(spec);
      }
    }
  }
  if (stream.failed()) {
    if (error.empty())
      error = ("cannot parse policy file '" + path + "'").str();
    return failure();
  }
  std::string source = ("policy file " + llvm::sys::path::filename(path)).str();
  for (const std::string &opName : order) {
    PrecisionClass cls = fileEntries[opName].first;
    // An explicit `unlisted` entry still shadows wildcards and the interface.
    set(opName, cls, source);
  }
  for (auto &entry : fileContractions)
    contractions[entry.getKey()] = std::move(entry.getValue());
  return success();
}
