//===- PrecisionPainting.cpp - Decide f32 or low for every value ----------===//
//
// TensorFlow's painting on the graph of PaintingGraph.cpp, then ours: the
// cast economy, out-of-range constants, unused ops, normalization inputs
// and batch statistics. PaintingExplain.cpp says why (--amp-explain).
//
//===----------------------------------------------------------------------===//

#include "amp/Analysis/PrecisionPainting.h"

#include "amp/Analysis/BodyPatterns.h"

#include "amp/Interfaces/AmpPrecisionOpInterface.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/EquivalenceClasses.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::amp;

// The concrete types are tested first: a ShapedType cast is an interface
// lookup, and these two helpers run for every slot of the graph.
bool mlir::amp::isF32Like(Type type) {
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    return tensor.getElementType().isF32();
  if (auto vector = dyn_cast<VectorType>(type))
    return vector.getElementType().isF32();
  // Scalars; other shaped types (unranked tensors, memrefs) are not f32.
  return type.isF32();
}

bool mlir::amp::isFloatCast(Operation *op) {
  return isa<arith::TruncFOp, arith::ExtFOp>(op);
}

Type mlir::amp::withElementType(Type type, Type elementType) {
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    return tensor.getElementType() == elementType
               ? type
               : RankedTensorType::get(tensor.getShape(), elementType,
                                       tensor.getEncoding());
  if (auto shaped = dyn_cast<ShapedType>(type))
    return shaped.clone(elementType);
  return elementType;
}

//===----------------------------------------------------------------------===//
// Painting
//===----------------------------------------------------------------------===//

Location PrecisionPainting::Node::getLoc() const {
  if (op)
    return op->getLoc();
  if (!members.empty())
    return members.front().getLoc();
  return forwarded.front()->getOwner()->getLoc();
}

/// Elements of a value, for the byte cost model (dynamic sizes count as 1).
static int64_t numElements(Type type) {
  auto shaped = dyn_cast<ShapedType>(type);
  if (!shaped || !shaped.hasRank())
    return 1;
  int64_t count = 1;
  for (int64_t size : shaped.getShape())
    count *= ShapedType::isDynamic(size) ? 1 : size;
  return count;
}

bool PrecisionPainting::producesLow(Value value) const {
  value = throughPassThrough(value);
  std::optional<unsigned> id = producerNode(value);
  if (!id || !nodes[*id].low)
    return false;
  const Node &node = nodes[*id];
  if (!node.op)
    return true;
  return resultRole(node, cast<OpResult>(value).getResultNumber()) ==
         SlotRole::Painted;
}

std::optional<unsigned> PrecisionPainting::consumerNode(OpOperand &use) const {
  auto group = groupOf.find(&use);
  if (group != groupOf.end())
    return group->second;
  auto it = opNodes.find(use.getOwner());
  if (it == opNodes.end())
    return std::nullopt;
  const Node &node = nodes[it->second];
  if (operandRole(node, use.getOperandNumber()) != SlotRole::Painted)
    return std::nullopt;
  return it->second;
}

bool PrecisionPainting::wantsLow(OpOperand &use) const {
  std::optional<unsigned> id = consumerNode(use);
  return id && nodes[*id].low;
}

/// Clear ops are exact in either precision, so a connected group of low clear
/// nodes may as well run in f32 when that moves fewer bytes: its own traffic
/// (2 or 4 bytes per element of each f32 slot) plus 6 bytes per element of
/// every cast at its border. TensorFlow's flood would keep e.g.
/// matmul -> reshape -> exp low and pay two casts; here it stays f32. Ties
/// stay low. In bf16 the infer ops that only follow an allow op join the
/// groups: keeping one in f32 is never less accurate, and a conv ->
/// batch-norm scale -> sigmoid chain would otherwise round the f32
/// accumulator to bf16 and extend it back around one cheap op.
/// An f32 tensor that only widens a 16-bit one. amp-optimize-casts sinks
/// such an extension into the linalg body that reads it, which then reads
/// the 16-bit tensor whether it runs low or in f32: the same 2 bytes per
/// element and no cast either way. Costing it so here keeps the decision
/// the same on the cleaned output, where the 16-bit operand is no slot at
/// all (fuzzer seed 30005723: test/Fuzz/reduce-extension-separate-cleanup).
/// (Of the other 16-bit type, bf16 in f16 mode, a low op does pay a
/// conversion the first time; such inputs are rare, and the decision must
/// not change between runs.)
static bool isExtensionOf16Bit(Value value) {
  auto ext = value.getDefiningOp<arith::ExtFOp>();
  if (!ext)
    return false;
  Type in = getElementTypeOrSelf(ext.getIn().getType());
  return in.isF16() || in.isBF16();
}

/// A batch-norm statistic (bf16 runs its sums low: bf16 activations into
/// an f32 accumulator) is a per-channel vector; rounding it, and the mean,
/// variance and rsqrt computed from it, to bf16 costs accuracy (the
/// centered activations then carry the mean's rounding error) and saves no
/// traffic. The low infer / clear ops fed by one whose results are no
/// larger than the statistic stay f32, and so on down such chains; the
/// activation-sized ops that read them still run low (and read the f32
/// vectors wide, amp-optimize-casts' read-roundings-wide).
void PrecisionPainting::keepBatchStatisticsF32() {
  auto largestResult = [](Operation *op) {
    int64_t largest = 0;
    for (Type type : op->getResultTypes())
      largest = std::max(largest, numElements(type));
    return largest;
  };
  for (unsigned start = 0, e = nodes.size(); start < e; ++start) {
    // Matching the body pattern again walks the op's neighbourhood: only
    // for the low infer reductions (bf16 infers batch-norm statistics).
    Operation *op = nodes[start].op;
    auto linalgOp = dyn_cast_or_null<linalg::LinalgOp>(op);
    if (!linalgOp || !nodes[start].low ||
        nodes[start].classification.cls != PrecisionClass::Infer ||
        linalgOp.getNumReductionLoops() == 0 ||
        matchBodyPattern(op) != BodyPattern::BatchNormalization)
      continue;
    int64_t statistic = largestResult(op);
    SmallVector<unsigned> stack(nodes[start].succs.begin(),
                                nodes[start].succs.end());
    while (!stack.empty()) {
      unsigned id = stack.pop_back_val();
      Node &node = nodes[id];
      if (!node.op || !node.low || node.why == Node::Why::BatchStatistic ||
          (node.classification.cls != PrecisionClass::Infer &&
           node.classification.cls != PrecisionClass::Clear) ||
          largestResult(node.op) > statistic)
        continue;
      node.low = false;
      node.why = Node::Why::BatchStatistic;
      node.related = start;
      stack.append(node.succs.begin(), node.succs.end());
    }
  }
}

void PrecisionPainting::economizeClearComponents() {
  auto candidate = [&](unsigned id) {
    const Node &node = nodes[id];
    return node.low && (node.classification.cls == PrecisionClass::Clear ||
                        node.why == Node::Why::InferFollows);
  };
  std::vector<char> seen(nodes.size(), 0);
  for (unsigned start = 0, e = nodes.size(); start < e; ++start) {
    if (seen[start] || !candidate(start))
      continue;
    // The component: low clear nodes connected to `start`.
    SmallVector<unsigned> component{start}, stack{start};
    seen[start] = 1;
    llvm::SmallDenseSet<unsigned> inComponent{start};
    while (!stack.empty()) {
      unsigned id = stack.pop_back_val();
      for (ArrayRef<unsigned> list :
           {ArrayRef(nodes[id].preds), ArrayRef(nodes[id].succs)})
        for (unsigned next : list)
          if (!seen[next] && candidate(next)) {
            seen[next] = 1;
            inComponent.insert(next);
            component.push_back(next);
            stack.push_back(next);
          }
    }
    auto [costLow, costF32] = componentCosts(component, inComponent);
    if (costF32 >= costLow)
      continue;
    for (unsigned id : component) {
      nodes[id].low = false;
      nodes[id].why = Node::Why::Economy;
      nodes[id].costLow = costLow;
      nodes[id].costF32 = costF32;
    }
  }
}

std::pair<int64_t, int64_t> PrecisionPainting::componentCosts(
    ArrayRef<unsigned> component,
    const llvm::SmallDenseSet<unsigned> &inComponent) const {
  auto inside = [&](std::optional<unsigned> id) {
    return id && inComponent.contains(*id);
  };
  int64_t costLow = 0, costF32 = 0;
  llvm::SmallDenseSet<Value> inputsSeen;
  // A cast of an input is paid only if no consumer outside the component
  // needs it anyway: casts are placed once per value and type.
  auto input = [&](Value value) {
    if (inside(producerNode(value)) || !inputsSeen.insert(value).second)
      return;
    bool low = producesLow(value);
    for (OpOperand &use : value.getUses())
      if (!isDeadUse(use) && !inside(consumerNode(use)) && wantsLow(use) != low)
        return;
    (low ? costF32 : costLow) += 6 * numElements(value.getType());
  };
  auto output = [&](Value value, bool traffic) {
    int64_t elements = numElements(value.getType());
    bool toLow = false, toF32 = false;
    for (OpOperand &use : value.getUses()) {
      // Dead users follow whatever the component becomes.
      if (isDeadUse(use) || inside(consumerNode(use)))
        continue;
      (wantsLow(use) ? toLow : toF32) = true;
    }
    costLow += toF32 ? 6 * elements : 0;
    costF32 += toLow ? 6 * elements : 0;
    if (traffic) {
      costLow += 2 * elements;
      costF32 += 4 * elements;
    }
  };
  for (unsigned id : component) {
    const Node &node = nodes[id];
    if (!node.op) {
      for (OpOperand *operand : node.forwarded)
        input(operand->get());
      for (Value member : node.members)
        output(member, /*traffic=*/false);
      continue;
    }
    for (OpOperand &operand : node.op->getOpOperands())
      if (operandRole(node, operand.getOperandNumber()) == SlotRole::Painted &&
          !isExtensionOf16Bit(operand.get())) {
        input(operand.get());
        costLow += 2 * numElements(operand.get().getType());
        costF32 += 4 * numElements(operand.get().getType());
      }
    for (Value result : node.op->getResults())
      if (isF32Like(result.getType()))
        output(result, /*traffic=*/true);
  }
  return {costLow, costF32};
}

/// Whether a float value of the constant `op` is finite but not finite
/// once rounded to `semantics` (f16: |x| > 65504).
static bool overflowsIn(Operation *op, const llvm::fltSemantics &semantics) {
  Attribute attr;
  if (!matchPattern(op, m_Constant(&attr)))
    return false;
  auto overflows = [&](APFloat value) {
    if (!value.isFinite())
      return false;
    bool losesInfo = false;
    value.convert(semantics, APFloat::rmNearestTiesToEven, &losesInfo);
    return !value.isFinite();
  };
  if (auto floatAttr = dyn_cast<FloatAttr>(attr))
    return overflows(floatAttr.getValue());
  auto dense = dyn_cast<DenseFPElementsAttr>(attr);
  if (!dense)
    return false;
  if (dense.isSplat())
    return overflows(dense.getSplatValue<APFloat>());
  return llvm::any_of(dense.getValues<APFloat>(), overflows);
}

/// A constant the low type cannot hold (1e6 in f16) would become an
/// infinity: its consumers and the clear / infer ops downstream of them
/// (which carry such values on) stay f32, and so does an allow op that reads
/// one. bf16 has f32's range: there only values near FLT_MAX overflow.
void PrecisionPainting::fixOutOfRangeConstants() {
  const llvm::fltSemantics &semantics =
      options.mode == AmpMode::F16 ? APFloat::IEEEhalf() : APFloat::BFloat();
  std::vector<char> seen(nodes.size(), 0);
  for (unsigned source = 0, e = nodes.size(); source < e; ++source) {
    if (!nodes[source].source || nodes[source].succs.empty() ||
        !overflowsIn(nodes[source].op, semantics))
      continue;
    SmallVector<unsigned> stack(nodes[source].succs.begin(),
                                nodes[source].succs.end());
    while (!stack.empty()) {
      unsigned id = stack.pop_back_val();
      Node &node = nodes[id];
      PrecisionClass cls = node.classification.cls;
      // Deny ops stay f32 anyway (and keep tainting their users).
      if (seen[id] || node.fixed || cls == PrecisionClass::Deny)
        continue;
      seen[id] = 1;
      node.fixed = true;
      node.why = Node::Why::OutOfRange;
      node.related = source;
      if (!node.op || cls == PrecisionClass::Clear ||
          cls == PrecisionClass::Infer)
        stack.append(node.succs.begin(), node.succs.end());
    }
  }
}

namespace {
enum class Direction { Backward, Forward, Both };
} // namespace

/// Depth-first search of the painting graph from `seeds` along succs
/// (forward), preds (backward) or both, entering nodes that satisfy `enter`;
/// `visit(node, from)` is called once per entered node.
static void searchNodes(ArrayRef<PrecisionPainting::Node> nodes,
                        ArrayRef<unsigned> seeds, Direction direction,
                        function_ref<bool(unsigned)> enter,
                        function_ref<void(unsigned, unsigned)> visit) {
  std::vector<char> seen(nodes.size(), 0);
  SmallVector<unsigned> stack(seeds.begin(), seeds.end());
  for (unsigned seed : seeds)
    seen[seed] = 1;
  while (!stack.empty()) {
    unsigned id = stack.pop_back_val();
    auto step = [&](ArrayRef<unsigned> neighbours) {
      for (unsigned next : neighbours) {
        if (seen[next] || !enter(next))
          continue;
        seen[next] = 1;
        visit(next, id);
        stack.push_back(next);
      }
    };
    if (direction != Direction::Backward)
      step(nodes[id].succs);
    if (direction != Direction::Forward)
      step(nodes[id].preds);
  }
}

/// Keeps f32 (deny, for `why`, related to the seed it came from) every node
/// that a search from `seeds` enters (`enter`).
static void keepF32From(MutableArrayRef<PrecisionPainting::Node> nodes,
                        ArrayRef<unsigned> seeds, Direction direction,
                        PrecisionPainting::Node::Why why,
                        function_ref<bool(unsigned)> enter) {
  std::vector<unsigned> origin(nodes.size(), 0);
  for (unsigned seed : seeds)
    origin[seed] = seed;
  searchNodes(nodes, seeds, direction, enter, [&](unsigned id, unsigned from) {
    origin[id] = origin[from];
    nodes[id].deny = true;
    nodes[id].why = why;
    nodes[id].related = origin[id];
  });
}

bool PrecisionPainting::hasClass(unsigned id, PrecisionClass cls) const {
  return nodes[id].classification.cls == cls;
}

bool PrecisionPainting::isOpen(unsigned id) const {
  return !nodes[id].fixed && !nodes[id].deny;
}

SmallVector<unsigned> PrecisionPainting::paintAllowAndDeny() {
  // Allow nodes are low.
  SmallVector<unsigned> allow, denySeeds, denyOrInfer;
  for (unsigned id = 0, e = nodes.size(); id < e; ++id) {
    if (nodes[id].fixed)
      continue;
    if (hasClass(id, PrecisionClass::Allow)) {
      nodes[id].low = true;
      nodes[id].why = Node::Why::Allow;
      allow.push_back(id);
    } else if (hasClass(id, PrecisionClass::Deny)) {
      nodes[id].deny = true;
      nodes[id].why = Node::Why::Deny;
      denySeeds.push_back(id);
      denyOrInfer.push_back(id);
    } else if (hasClass(id, PrecisionClass::Infer)) {
      denyOrInfer.push_back(id);
    }
  }

  // Deny flows forward through infer nodes and through the clear nodes
  // upstream of a deny or infer node.
  std::vector<char> upstream(nodes.size(), 0);
  searchNodes(
      nodes, denyOrInfer, Direction::Backward,
      [&](unsigned id) {
        return isOpen(id) && hasClass(id, PrecisionClass::Clear);
      },
      [&](unsigned id, unsigned) { upstream[id] = 1; });
  // One search from all deny nodes; each tainted node remembers its origin.
  keepF32From(nodes, denySeeds, Direction::Forward, Node::Why::Tainted,
              [&](unsigned id) {
                return isOpen(id) &&
                       (hasClass(id, PrecisionClass::Infer) ||
                        (hasClass(id, PrecisionClass::Clear) && upstream[id]));
              });
  return allow;
}

SmallVector<unsigned>
PrecisionPainting::paintInferBetweenAllow(ArrayRef<unsigned> allow) {
  auto passable = [&](unsigned id) {
    return isOpen(id) && (hasClass(id, PrecisionClass::Infer) ||
                          hasClass(id, PrecisionClass::Clear));
  };
  std::vector<char> downstream(nodes.size(), 0);
  searchNodes(nodes, allow, Direction::Forward, passable,
              [&](unsigned id, unsigned) { downstream[id] = 1; });
  SmallVector<unsigned> lowSeeds(allow);
  searchNodes(
      nodes, allow, Direction::Backward,
      [&](unsigned id) { return passable(id) && downstream[id]; },
      [&](unsigned id, unsigned) {
        if (!hasClass(id, PrecisionClass::Infer))
          return;
        nodes[id].low = true;
        nodes[id].why = Node::Why::InferBetween;
        lowSeeds.push_back(id);
      });
  return lowSeeds;
}

void PrecisionPainting::paintInferFollowingAllow(
    SmallVectorImpl<unsigned> &lowSeeds) {
  for (unsigned id = 0, e = nodes.size(); id < e; ++id) {
    if (!isOpen(id) || nodes[id].low || !hasClass(id, PrecisionClass::Infer))
      continue;
    const auto &preds = nodes[id].preds;
    if (llvm::any_of(preds, [&](unsigned p) { return nodes[p].deny; }))
      continue;
    auto it = llvm::find_if(preds, [&](unsigned p) {
      return hasClass(p, PrecisionClass::Allow) && nodes[p].low;
    });
    if (it == preds.end())
      continue;
    nodes[id].low = true;
    nodes[id].why = Node::Why::InferFollows;
    nodes[id].related = *it;
    lowSeeds.push_back(id);
  }
}

void PrecisionPainting::floodClear(ArrayRef<unsigned> lowSeeds) {
  searchNodes(
      nodes, lowSeeds, Direction::Both,
      [&](unsigned id) {
        return isOpen(id) && !nodes[id].low &&
               hasClass(id, PrecisionClass::Clear);
      },
      [&](unsigned id, unsigned from) {
        nodes[id].low = true;
        nodes[id].why = Node::Why::ClearNeighbour;
        nodes[id].related = from;
      });
}

/// `x - mean(x)` and `(x - mean) * rsqrt(var + eps)` cancel: where the
/// values of a row are close, their 16-bit rounding decides the sign and
/// size of every normalized element (a layer norm over a residual stream
/// rounded to bf16 lost 10% of a training step's loss on a seed of
/// tools/amp-fuzz/step-fuzz.py). The statistics are deny; the values they
/// normalize stay f32 too, and so does the chain of infer / clear ops that
/// computes them, up to the allow ops whose f32 accumulators it reads, as
/// under PyTorch's autocast (an f32 residual plus a bf16 matmul result is
/// f32). Without it, bf16's "infer between allow ops" rounds a residual
/// stream that also reaches a later matmul (e.g. through a mean pooling).
void PrecisionPainting::keepNormalizationInputsF32() {
  SmallVector<unsigned> statistics;
  for (unsigned id = 0, e = nodes.size(); id < e; ++id) {
    auto linalgOp = dyn_cast_or_null<linalg::LinalgOp>(nodes[id].op);
    if (!linalgOp || nodes[id].why != Node::Why::Deny ||
        linalgOp.getNumReductionLoops() == 0)
      continue;
    std::optional<BodyPattern> pattern = matchBodyPattern(nodes[id].op);
    if (pattern == BodyPattern::Normalization ||
        pattern == BodyPattern::BatchNormalization)
      statistics.push_back(id);
  }
  keepF32From(nodes, statistics, Direction::Backward,
              Node::Why::FeedsNormalization, [&](unsigned id) {
                return isOpen(id) && (hasClass(id, PrecisionClass::Infer) ||
                                      hasClass(id, PrecisionClass::Clear));
              });
}

/// torch-mlir computes max-pool indices by comparing each input element,
/// read from inside the body, with the pooled maximum (a deny op,
/// PrecisionPolicy::classifyLinalgBody). Rounded on one side only, no
/// element equals the maximum, every index stays -1 and every gradient
/// upstream of the pool is zero (torch-fuzz seed 1676: a max pool fed by an
/// f32 group norm and feeding an f16 linear layer). The clear ops that
/// compute the compared operands (the pool, its reshapes) stay f32.
void PrecisionPainting::keepComparedOperandsF32() {
  SmallVector<unsigned> comparisons;
  for (unsigned id = 0, e = nodes.size(); id < e; ++id)
    if (nodes[id].op && nodes[id].why == Node::Why::Deny &&
        comparesCapturedFloats(nodes[id].op))
      comparisons.push_back(id);
  keepF32From(nodes, comparisons, Direction::Backward, Node::Why::FeedsEquality,
              [&](unsigned id) {
                return isOpen(id) && hasClass(id, PrecisionClass::Clear);
              });
}

/// A product of two values that only sums read is a term of a dot product
/// that the sums accumulate in f32: rounding each term to bf16 first gives that
/// f32 accumulation away (a batch norm's weight gradient, sum(dy * x_hat), is
/// such a sum, of cancelling terms: with its products rounded, torch-fuzz
/// seed 1799's was 2x further from PyTorch's than autocast's, which runs
/// batch norm's backward in one f32 kernel). Such low infer / clear
/// products stay f32; the sums read them once, and in the fast pipeline
/// they fuse into the sum, so nothing is stored either way.
void PrecisionPainting::keepSummedProductsF32() {
  // Squares do not cancel: a sum of rounded squares (a variance) keeps its
  // relative accuracy, and keeping them f32 would keep the centered
  // activations they square f32 too (resnet18's bf16 step: 3-7% slower).
  auto isSquare = [](linalg::GenericOp generic, arith::MulFOp mul) {
    // The element each side reads: an input's value and indexing map.
    auto element = [&](Value v) -> std::pair<Value, AffineMap> {
      if (auto ext = v.getDefiningOp<arith::ExtFOp>())
        v = ext.getIn();
      auto arg = dyn_cast<BlockArgument>(v);
      if (!arg || arg.getOwner() != generic.getBody())
        return {v, AffineMap()};
      OpOperand *operand = generic.getMatchingOpOperand(arg);
      return {operand->get(), generic.getMatchingIndexingMap(operand)};
    };
    return element(mul.getLhs()) == element(mul.getRhs());
  };
  // A sum of the one tensor it reads (not a convolution: linalg's named
  // ones match the sum pattern too).
  auto isSum = [](Operation *user) {
    auto generic = dyn_cast<linalg::GenericOp>(user);
    if (!generic || generic.getNumDpsInputs() != 1)
      return false;
    std::optional<BodyPattern> pattern = matchBodyPattern(user);
    return pattern == BodyPattern::SumReduction ||
           pattern == BodyPattern::Normalization ||
           pattern == BodyPattern::BatchNormalization;
  };
  for (unsigned self = 0, e = nodes.size(); self < e; ++self) {
    Node &node = nodes[self];
    auto generic = dyn_cast_or_null<linalg::GenericOp>(node.op);
    if (!generic || !node.low || generic->getNumResults() != 1 ||
        generic.getNumReductionLoops() != 0 || generic->use_empty() ||
        (node.classification.cls != PrecisionClass::Infer &&
         node.classification.cls != PrecisionClass::Clear))
      continue;
    auto yield = cast<linalg::YieldOp>(generic.getBody()->getTerminator());
    auto mul = yield.getValues()[0].getDefiningOp<arith::MulFOp>();
    if (!mul || isSquare(generic, mul))
      continue;
    // The sums reading it, each with its node; none if another op reads it.
    SmallVector<unsigned, 2> sums;
    for (Operation *user : generic->getUsers()) {
      auto it = opNodes.find(user);
      if (!isSum(user) || it == opNodes.end()) {
        sums.clear();
        break;
      }
      sums.push_back(it->second);
    }
    if (sums.empty())
      continue;
    node.low = false;
    node.why = Node::Why::SummedProduct;
    node.related = sums.front();
    // A low sum reads its input rounded: these read the product as it is
    // (their accumulators, and so their results, are f32 either way).
    for (unsigned id : sums) {
      if (!nodes[id].low)
        continue;
      nodes[id].low = false;
      nodes[id].why = Node::Why::SummedProduct;
      nodes[id].related = self;
    }
  }
}

void PrecisionPainting::paint() {
  // 1-2. Allow nodes are low; deny taints what it flows into.
  SmallVector<unsigned> allow = paintAllowAndDeny();
  keepNormalizationInputsF32();
  keepComparedOperandsF32();
  // 3. Infer nodes between allow nodes become low.
  SmallVector<unsigned> lowSeeds = paintInferBetweenAllow(allow);
  // An infer op fed directly by an allow op follows it, unless a deny op
  // also feeds it (TensorFlow's AddInferToAllowIfFollowAllow, bf16 only).
  // Only direct successors: chains would also pull e.g. an SGD update
  // `w - lr * dw` into bf16 and round the f32 master weights.
  if (options.mode == AmpMode::BF16)
    paintInferFollowingAllow(lowSeeds);
  // 4. Low floods through clear nodes, both ways.
  floodClear(lowSeeds);
  if (options.mode == AmpMode::BF16) {
    keepBatchStatisticsF32();
    keepSummedProductsF32();
  }

  if (options.castEconomy)
    economizeClearComponents();
  paintDeadNodes();

  // Remaining reasons.
  for (Node &node : nodes)
    if (node.why == Node::Why::Undecided)
      node.why = node.classification.cls == PrecisionClass::Infer
                     ? Node::Why::InferNotBetween
                     : Node::Why::ClearAlone;
}

/// An op whose results are unused computes nothing anyone reads: whatever
/// precision it runs in, no cast should be inserted for it. It follows its
/// operands (in program order, so dead chains follow their head): low when
/// every operand that is not a constant is low. Deny and unlisted ops stay
/// f32, as do ops reading a constant the low type cannot hold.
void PrecisionPainting::paintDeadNodes() {
  const llvm::fltSemantics &semantics =
      options.mode == AmpMode::F16 ? APFloat::IEEEhalf() : APFloat::BFloat();
  for (Node &node : nodes) {
    if (!node.dead || node.fixed)
      continue;
    PrecisionClass cls = node.classification.cls;
    if (cls != PrecisionClass::Infer && cls != PrecisionClass::Clear)
      continue;
    bool anyLow = false, allLow = true;
    for (OpOperand &operand : node.op->getOpOperands()) {
      if (operandRole(node, operand.getOperandNumber()) != SlotRole::Painted)
        continue;
      std::optional<unsigned> producer = producerNode(operand.get());
      if (producer && nodes[*producer].source) {
        allLow &= !overflowsIn(nodes[*producer].op, semantics);
        continue;
      }
      bool low = producesLow(operand.get());
      anyLow |= low;
      allLow &= low;
    }
    node.low = anyLow && allLow;
    node.why = Node::Why::Unused;
  }
}
