//===- PaintingGraph.cpp - The graph that PrecisionPainting paints -------===//
//
// Slot roles (which operands and results take an op's precision, which stay
// f32 accumulators or broadcast parameters) and the graph over the ops of
// every function: op nodes, dead ops, and the edges (docs/design.md,
// Painting). The group nodes of the values that control flow and calls tie
// together are built in PaintingGroups.cpp.
//
//===----------------------------------------------------------------------===//

#include "amp/Analysis/PrecisionPainting.h"

#include "PaintingWalks.h"

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

//===----------------------------------------------------------------------===//
// Slot roles
//===----------------------------------------------------------------------===//

/// Allow ops whose results hold the f32 accumulator.
static bool hasAccumulatorResults(Operation *op) {
  return isa<tosa::MatMulOp>(op);
}

/// Reductions that compute (not clear ones like max) keep their init and
/// result f32 when their inputs run low: a sum of 1024 ones stops at 256 in
/// bf16 storage and a 56x56 sum-pooling window at 2048 in f16.
static bool accumulatesInF32(Operation *op, PrecisionClass cls) {
  if (cls == PrecisionClass::Clear)
    return false;
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  return linalgOp && linalgOp.getNumReductionLoops() > 0;
}

/// Whether operand `index` of `op`, declared a contraction by `spec`, holds
/// its accumulator: a listed operand, or an init of a destination-style op.
static bool isContractionAccumulator(Operation *op, unsigned index,
                                     const ContractionSpec &spec) {
  if (llvm::is_contained(spec.accumulatorOperands, index))
    return true;
  auto dps = dyn_cast<DestinationStyleOpInterface>(op);
  return dps && dps.isDpsInit(&op->getOpOperand(index));
}

SlotRole PrecisionPainting::operandRole(Operation *op, unsigned index,
                                        const Classification &classification) {
  PrecisionClass cls = classification.cls;
  if (!isF32Like(op->getOperand(index).getType()))
    return SlotRole::None;
  if (cls == PrecisionClass::Allow && classification.contraction)
    return isContractionAccumulator(op, index, *classification.contraction)
               ? SlotRole::Accumulator
               : SlotRole::Painted;
  if (cls == PrecisionClass::Allow)
    if (auto iface = dyn_cast<AmpPrecisionOpInterface>(op))
      return iface.isAmpAccumulatorOperand(index) ? SlotRole::Accumulator
                                                  : SlotRole::Painted;
  // A contraction accumulates into its inits: Tensor Core semantics.
  if (accumulatesInF32(op, cls) &&
      cast<linalg::LinalgOp>(op).isDpsInit(&op->getOpOperand(index)))
    return SlotRole::Accumulator;
  return SlotRole::Painted;
}

SlotRole PrecisionPainting::resultRole(Operation *op, unsigned index,
                                       const Classification &classification) {
  PrecisionClass cls = classification.cls;
  Value result = op->getResult(index);
  if (!isF32Like(result.getType()))
    return SlotRole::None;
  if (cls == PrecisionClass::Allow) {
    if (hasAccumulatorResults(op) || classification.contraction)
      return SlotRole::Accumulator;
    if (auto iface = dyn_cast<AmpPrecisionOpInterface>(op))
      if (iface.isAmpAccumulatorResult(index))
        return SlotRole::Accumulator;
  }
  if (auto dps = dyn_cast<DestinationStyleOpInterface>(op)) {
    OpOperand *tied = dps.getTiedOpOperand(cast<OpResult>(result));
    if (tied && operandRole(op, tied->getOperandNumber(), classification) ==
                    SlotRole::Accumulator)
      return SlotRole::Accumulator;
  }
  return SlotRole::Painted;
}

SlotRole PrecisionPainting::operandRole(const Node &node, unsigned index) {
  if (node.interfaceRoles)
    return operandRole(node.op, index, node.classification);
  if (!isF32Like(node.op->getOperand(index).getType()))
    return SlotRole::None;
  if (index < 64 && (node.broadcastInputs >> index & 1))
    return SlotRole::Broadcast;
  return index >= node.firstAccumulator ? SlotRole::Accumulator
                                        : SlotRole::Painted;
}

/// Whether `value` is a parameter: a function argument or a constant,
/// possibly reshaped, or computed from parameters only by a few elementwise
/// linalg ops (an inference batch norm's 1 / sqrt(var + eps)). Not a value
/// the painting decides from activations: a broadcast mean must stay an
/// edge, so that a deny statistic taints what it feeds.
static bool isParameter(Value value, int depth = 0) {
  Operation *def = value.getDefiningOp();
  if (!def)
    return isa<FunctionOpInterface>(
        cast<BlockArgument>(value).getOwner()->getParentOp());
  if (def->getNumOperands() == 0)
    return true; // arith.constant, tosa.const
  if (isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp, tensor::CastOp,
          tensor::ReshapeOp>(def))
    return isParameter(def->getOperand(0), depth);
  auto linalgOp = dyn_cast<linalg::LinalgOp>(def);
  if (!linalgOp || depth >= 4 || linalgOp.getNumReductionLoops() > 0)
    return false;
  return llvm::all_of(linalgOp.getDpsInputOperands(), [&](OpOperand *input) {
    return isParameter(input->get(), depth + 1);
  });
}

/// The inputs of an elementwise linalg op that it broadcasts (an indexing
/// map with fewer results than loops) and that are parameters: a bias, an
/// inference batch norm's mean / variance / scale / shift, a scalar; as a
/// mask. When the op runs low they stay f32:
/// a low op computes its body in f32, so such an input costs no cast and
/// no rounding (PyTorch's autocast keeps batch-norm parameters f32 too),
/// for a read of a few f32 bytes per channel.
static uint64_t findBroadcastInputs(Operation *op) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  if (!linalgOp || linalgOp.getNumReductionLoops() > 0 ||
      !op->getNumRegions() || linalgOp.getNumDpsInputs() > 64)
    return 0;
  uint64_t mask = 0;
  unsigned loops = linalgOp.getNumLoops();
  for (OpOperand *input : linalgOp.getDpsInputOperands()) {
    if (!isa<RankedTensorType>(input->get().getType()) ||
        !isF32Like(input->get().getType()))
      continue;
    if (linalgOp.getMatchingIndexingMap(input).getNumResults() < loops &&
        isParameter(input->get()))
      mask |= uint64_t(1) << input->getOperandNumber();
  }
  return mask;
}

SlotRole PrecisionPainting::resultRole(const Node &node, unsigned index) {
  if (node.interfaceRoles)
    return resultRole(node.op, index, node.classification);
  if (!isF32Like(node.op->getResult(index).getType()))
    return SlotRole::None;
  // The results of a linalg op are tied to its inits.
  return node.firstAccumulator != ~0u ? SlotRole::Accumulator
                                      : SlotRole::Painted;
}

//===----------------------------------------------------------------------===//
// Graph construction
//===----------------------------------------------------------------------===//

/// The ops of `region` that buildOpNodes() visits: an upper bound of its
/// nodes.
static size_t countOps(Region &region) {
  size_t count = 0;
  for (Block &block : region)
    for (Operation &op : block) {
      ++count;
      if (isa<RegionBranchOpInterface>(op))
        for (Region &nested : op.getRegions())
          count += countOps(nested);
    }
  return count;
}

PrecisionPainting::PrecisionPainting(const PaintingScope &scope,
                                     const PrecisionPolicy &policy,
                                     const PaintingOptions &options)
    : policy(policy), options(options) {
  // Room for a node per op: growing the vector would copy every node.
  size_t numOps = 0;
  for (FunctionOpInterface func : scope.functions)
    numOps += countOps(func.getFunctionBody());
  nodes.reserve(numOps);
  opNodes.reserve(numOps);
  buildGroups(scope);
  for (FunctionOpInterface func : scope.functions) {
    if (!func.isExternal()) {
      collectDeadOps(func.getFunctionBody());
      buildOpNodes(func.getFunctionBody());
    }
  }
  buildEdges();
  fixOutOfRangeConstants();
  paint();
}

unsigned PrecisionPainting::addNode(Node node) {
  nodes.push_back(std::move(node));
  return nodes.size() - 1;
}

const PrecisionPainting::Node *
PrecisionPainting::lookupOp(Operation *op) const {
  auto it = opNodes.find(op);
  return it == opNodes.end() ? nullptr : &nodes[it->second];
}

const PrecisionPainting::Node *
PrecisionPainting::lookupGroup(Value value) const {
  auto it = groupOf.find(value.getAsOpaquePointer());
  return it == groupOf.end() ? nullptr : &nodes[it->second];
}

const PrecisionPainting::Node *
PrecisionPainting::lookupGroup(OpOperand &operand) const {
  auto it = groupOf.find(&operand);
  return it == groupOf.end() ? nullptr : &nodes[it->second];
}

/// Walks `region` backwards, so that the users of an op (later in its block,
/// or nested in a later op) are decided before it. Only the regions that
/// buildOpNodes() enters are visited; a user elsewhere (in a linalg body, in
/// another block of a CFG region not yet visited) counts as live.
void PrecisionPainting::collectDeadOps(Region &region) {
  for (Block &block : llvm::reverse(region))
    for (Operation &op : llvm::reverse(block)) {
      if (isa<RegionBranchOpInterface>(op)) {
        for (Region &nested : op.getRegions())
          collectDeadOps(nested);
        continue;
      }
      if (op.getNumResults() == 0 || op.hasTrait<OpTrait::IsTerminator>() ||
          isa<CallOpInterface>(op))
        continue;
      if (!llvm::all_of(op.getUsers(), [&](Operation *user) {
            return deadOps.contains(user);
          }))
        continue;
      if (!isMemoryEffectFree(&op))
        continue;
      // An unused contraction is still painted like any other: it seeds the
      // painting of its inputs. So is one that an earlier run made low, or
      // the second run would see its inputs as dead where the first did not.
      if (policy.classify(&op).cls == PrecisionClass::Allow)
        continue;
      deadOps.insert(&op);
    }
}

static bool isUnrankedF32(Type type) {
  auto unranked = dyn_cast<UnrankedTensorType>(type);
  return unranked && unranked.getElementType().isF32();
}

/// Ops that produce f32 values from nothing: constants and empty tensors are
/// cheaper to recreate in low precision (amp-optimize-casts) than to paint.
static bool isSource(Operation *op) {
  return llvm::none_of(op->getOperandTypes(), isF32Like);
}

void PrecisionPainting::buildOpNodes(Region &region) {
  for (Block &block : region)
    for (Operation &op : block) {
      if (isa<RegionBranchOpInterface>(op)) {
        for (Region &nested : op.getRegions())
          buildOpNodes(nested);
        continue;
      }
      if (op.hasTrait<OpTrait::IsTerminator>() || onlyForwardsValues(op))
        continue;
      bool touchesF32 = llvm::any_of(op.getOperandTypes(), isF32Like) ||
                        llvm::any_of(op.getResultTypes(), isF32Like);
      if (!touchesF32)
        continue;
      Node node = classifyOpNode(op);
      // The other side of a padded contraction: a tensor.pad only read as
      // an f32 accumulator (the padded `outs`) stays f32, as the value it
      // pads went straight into the accumulator before padding.
      if (isa<tensor::PadOp>(op) && !node.fixed && !op.use_empty() &&
          llvm::all_of(op.getUses(), [&](OpOperand &use) {
            Operation *user = use.getOwner();
            return operandRole(user, use.getOperandNumber(),
                               policy.classify(user)) == SlotRole::Accumulator;
          })) {
        node.fixed = true;
        node.why = Node::Why::AccumulatorPad;
      }
      node.dead = deadOps.contains(&op);
      opNodes[&op] = addNode(std::move(node));
    }
}

bool PrecisionPainting::onlyForwardsValues(Operation &op) const {
  // Calls to specialisable functions only forward values.
  return isa<CallOpInterface>(op) &&
         llvm::all_of(op.getOpOperands(),
                      [&](OpOperand &o) { return groupOf.count(&o); }) &&
         llvm::all_of(op.getResults(), [&](Value v) {
           return groupOf.count(v.getAsOpaquePointer());
         });
}

PrecisionPainting::Node PrecisionPainting::classifyOpNode(Operation &op) {
  Node node;
  node.op = &op;
  if (isa<CallOpInterface>(op)) {
    // Any other call keeps the callee's signature, whatever the policy
    // says: a declaration cannot follow, and a callee with a body is
    // specialised only when all its uses are calls (buildGroups).
    node.classification = policy.classify(&op);
    node.fixed = true;
    node.why = Node::Why::Call;
    return node;
  }
  if (llvm::any_of(op.getOperandTypes(), isUnrankedF32) ||
      llvm::any_of(op.getResultTypes(), isUnrankedF32)) {
    node.classification = policy.classify(&op);
    node.fixed = true;
    node.why = Node::Why::Unranked;
    return node;
  }
  if (isSource(&op)) {
    node.classification = {PrecisionClass::Clear, "source"};
    node.fixed = true;
    node.source = true;
    node.why = Node::Why::Source;
    return node;
  }
  node.classification = policy.classify(&op);
  PrecisionClass cls = node.classification.cls;
  if (cls == PrecisionClass::Unlisted) {
    node.fixed = true;
    node.why = Node::Why::Unlisted;
  } else if (options.level == AmpLevel::TensorCoresOnly &&
             cls != PrecisionClass::Allow) {
    node.fixed = true;
    node.why = Node::Why::LevelLimit;
  }
  node.interfaceRoles =
      (cls == PrecisionClass::Allow &&
       (isa<AmpPrecisionOpInterface>(op) || hasAccumulatorResults(&op) ||
        node.classification.contraction));
  if (!node.interfaceRoles && accumulatesInF32(&op, cls))
    node.firstAccumulator = cast<linalg::LinalgOp>(op).getNumDpsInputs();
  else if (options.castEconomy && cls == PrecisionClass::Infer)
    node.broadcastInputs = findBroadcastInputs(&op);
  if (auto slice = dyn_cast<tensor::ExtractSliceOp>(op); slice && !node.fixed)
    markAccumulatorSlice(node, slice);
  return node;
}

void PrecisionPainting::markAccumulatorSlice(Node &node,
                                             tensor::ExtractSliceOp slice) {
  // A slice of an f32 accumulator (amp-pad-for-tensor-cores slices padded
  // results back) stays f32 and lets its users see the accumulator: the
  // painting of `matmul -> users` and of `padded matmul -> slice -> users`
  // must be the same. (A slice of such a slice too: the pad's slice of a
  // sliced result.)
  auto source = dyn_cast<OpResult>(throughPassThrough(slice.getSource()));
  auto it = source ? opNodes.find(source.getOwner()) : opNodes.end();
  if (it == opNodes.end() ||
      resultRole(nodes[it->second], source.getResultNumber()) !=
          SlotRole::Accumulator)
    return;
  node.fixed = true;
  node.passThrough = true;
  node.why = Node::Why::AccumulatorSlice;
  node.related = it->second;
}

std::optional<unsigned> PrecisionPainting::producerNode(Value value) const {
  auto group = groupOf.find(value.getAsOpaquePointer());
  if (group != groupOf.end())
    return group->second;
  auto result = dyn_cast<OpResult>(value);
  if (!result)
    return std::nullopt;
  auto it = opNodes.find(result.getOwner());
  if (it == opNodes.end())
    return std::nullopt;
  const Node &node = nodes[it->second];
  if (node.passThrough)
    return producerNode(cast<tensor::ExtractSliceOp>(node.op).getSource());
  if (resultRole(node, result.getResultNumber()) == SlotRole::None)
    return std::nullopt;
  return it->second;
}

Value PrecisionPainting::throughPassThrough(Value value) const {
  while (auto result = dyn_cast<OpResult>(value)) {
    auto it = opNodes.find(result.getOwner());
    if (it == opNodes.end() || !nodes[it->second].passThrough)
      break;
    value = cast<tensor::ExtractSliceOp>(result.getOwner()).getSource();
  }
  return value;
}

void PrecisionPainting::buildEdges() {
  auto connect = [&](std::optional<unsigned> from, unsigned to) {
    if (!from || *from == to)
      return;
    nodes[*from].succs.push_back(to);
    nodes[to].preds.push_back(*from);
  };
  for (unsigned id = 0, e = nodes.size(); id < e; ++id) {
    Node &node = nodes[id];
    // Dead ops follow their operands after the painting (paintDeadNodes).
    if (node.dead)
      continue;
    if (node.op) {
      for (OpOperand &operand : node.op->getOpOperands())
        if (operandRole(node, operand.getOperandNumber()) == SlotRole::Painted)
          connect(producerNode(operand.get()), id);
    } else {
      for (OpOperand *operand : node.forwarded)
        connect(producerNode(operand->get()), id);
    }
  }
  for (Node &node : nodes) {
    llvm::sort(node.preds);
    node.preds.erase(llvm::unique(node.preds), node.preds.end());
    llvm::sort(node.succs);
    node.succs.erase(llvm::unique(node.succs), node.succs.end());
  }
}
