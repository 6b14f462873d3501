//===- BodyPatterns.cpp - What the body of a linalg op computes -----------===//
//
// The body patterns that classify linalg ops no list names (`linalg.generic`,
// `linalg.map`, `linalg.reduce`, ...): contractions (upstream's matcher, plus
// the masked and convolution-backward forms of backward graphs), sums and
// the normalization statistics among them, other reductions, copies,
// sigmoids and elementwise bodies (docs/policy.md).
//
//===----------------------------------------------------------------------===//

#include "amp/Analysis/BodyPatterns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Linalg/Utils/Utils.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/SmallBitVector.h"

using namespace mlir;
using namespace mlir::amp;

/// Ops in a linalg body that say nothing about its numerics.
bool mlir::amp::isNeutralBodyOp(Operation *op) {
  return isa<arith::ConstantOp, arith::ExtFOp, arith::TruncFOp, linalg::IndexOp,
             linalg::YieldOp>(op) ||
         // Integer and index arithmetic.
         llvm::none_of(op->getResultTypes(),
                       [](Type t) { return isa<FloatType>(t); });
}

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

/// Whether `body` computes exactly 1 / (1 + exp(-x)) of one block argument
/// (-x as arith.negf x or 0 - x), as torch-mlir emits a sigmoid.
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

/// Whether the sum `op` runs over the first (batch) dimension of what it
/// sums, per some other dimension: batch norm's statistics are over (N, H,
/// W) per channel, layer norm's and softmax's over one sample's features.
static bool sumsOverBatch(linalg::LinalgOp op) {
  if (op.getNumParallelLoops() == 0)
    return false;
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  bool any = false;
  for (OpOperand *input : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(input);
    // Broadcast operands (a per-channel scale) say nothing.
    if (!map.isPermutation())
      continue;
    auto first = dyn_cast<AffineDimExpr>(map.getResult(0));
    if (!first || !linalg::isReductionIterator(iterators[first.getPosition()]))
      return false;
    any = true;
  }
  return any;
}

std::optional<BodyPattern> mlir::amp::matchBodyPattern(Operation *op) {
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
    if (!sums)
      pattern = BodyPattern::Reduction;
    else if (!isNormalizationStatistic(op))
      pattern = BodyPattern::SumReduction;
    else
      pattern = sumsOverBatch(linalgOp) ? BodyPattern::BatchNormalization
                                        : BodyPattern::Normalization;
  } else if (!computes) {
    pattern = BodyPattern::Copy;
  } else {
    pattern =
        isSigmoidBody(body) ? BodyPattern::Sigmoid : BodyPattern::Elementwise;
  }
  return pattern;
}

bool mlir::amp::comparesCapturedFloats(Operation *op) {
  if (op->getNumRegions() != 1)
    return false;
  Region &body = op->getRegion(0);
  auto captured = [&](Value v) {
    auto extract = v.getDefiningOp<tensor::ExtractOp>();
    return extract && !body.isAncestor(extract.getTensor().getParentRegion());
  };
  WalkResult found = body.walk([&](arith::CmpFOp cmp) {
    switch (cmp.getPredicate()) {
    case arith::CmpFPredicate::OEQ:
    case arith::CmpFPredicate::UEQ:
    case arith::CmpFPredicate::ONE:
    case arith::CmpFPredicate::UNE:
      break;
    default:
      return WalkResult::advance();
    }
    return llvm::any_of(cmp->getOperands(), captured) ? WalkResult::interrupt()
                                                      : WalkResult::advance();
  });
  return found.wasInterrupted();
}
