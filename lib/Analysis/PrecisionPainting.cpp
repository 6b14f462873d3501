//===- PrecisionPainting.cpp - Decide f32 or low for every value ----------===//

#include "amp/Analysis/PrecisionPainting.h"

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

bool mlir::amp::isF32Like(Type type) {
  if (auto shaped = dyn_cast<ShapedType>(type)) {
    if (!isa<RankedTensorType, VectorType>(shaped))
      return false;
    return shaped.getElementType().isF32();
  }
  return type.isF32();
}

Type mlir::amp::withElementType(Type type, Type elementType) {
  if (auto shaped = dyn_cast<ShapedType>(type))
    return shaped.clone(elementType);
  return elementType;
}

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

/// Calls `callback` on every func.func under `module`, without entering
/// function bodies (a full walk of a large graph costs as much as a step of
/// the painting).
static void forEachFunction(ModuleOp module,
                            function_ref<void(func::FuncOp)> callback) {
  module->walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (auto func = dyn_cast<func::FuncOp>(op)) {
      callback(func);
      return WalkResult::skip();
    }
    return WalkResult::advance();
  });
}

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

/// Calls `callback` on the region-branch ops of `region` and, nested, of
/// their regions: the ops whose regions buildOpNodes() enters. Other regions
/// (linalg bodies) hold no painted value.
static void
forEachRegionBranch(Region &region,
                    function_ref<void(RegionBranchOpInterface)> callback) {
  for (Block &block : region)
    for (Operation &op : block)
      if (auto branch = dyn_cast<RegionBranchOpInterface>(op)) {
        callback(branch);
        for (Region &nested : op.getRegions())
          forEachRegionBranch(nested, callback);
      }
}

PrecisionPainting::PrecisionPainting(ModuleOp module,
                                     const PrecisionPolicy &policy,
                                     const PaintingOptions &options)
    : policy(policy), options(options) {
  // Room for a node per op: growing the vector would copy every node.
  size_t numOps = 0;
  forEachFunction(
      module, [&](func::FuncOp func) { numOps += countOps(func.getBody()); });
  nodes.reserve(numOps);
  opNodes.reserve(numOps);
  buildGroups(module);
  forEachFunction(module, [&](func::FuncOp func) {
    if (!func.isExternal()) {
      collectDeadOps(func.getBody());
      buildOpNodes(func.getBody());
    }
  });
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

/// Groups values that must share one type: the operands a region-branch op
/// or its terminators forward and the block arguments / results receiving
/// them, and the arguments / results of specialisable functions with the
/// operands / results of their calls.
void PrecisionPainting::buildGroups(ModuleOp module) {
  llvm::EquivalenceClasses<const void *> classes;
  // Keys that are OpOperand* (forwarded slots) rather than Values.
  llvm::SmallPtrSet<const void *, 16> operandKeys;
  auto tie = [&](OpOperand &operand, Value input) {
    operandKeys.insert(&operand);
    classes.unionSets(&operand, input.getAsOpaquePointer());
  };

  auto tieBranch = [&](RegionBranchOpInterface branch) {
    Operation *op = branch.getOperation();
    // (forwarded operand, successor input) pairs of every edge. They must
    // line up one to one with equal types; an op whose edges do not (e.g.
    // scf.forall, whose results come from tensor.parallel_insert_slice) is
    // left opaque: its operands are f32 sinks and its values f32 sources.
    SmallVector<std::pair<OpOperand *, Value>> pairs;
    bool aligned = true;
    auto collect = [&](ArrayRef<OpOperand *> forwarded, ValueRange inputs) {
      if (forwarded.size() != inputs.size()) {
        aligned = false;
        return;
      }
      for (auto [operand, input] : llvm::zip(forwarded, inputs)) {
        aligned &= operand->get().getType() == input.getType();
        pairs.emplace_back(operand, input);
      }
    };
    SmallVector<RegionSuccessor> successors;
    branch.getSuccessorRegions(RegionBranchPoint::parent(), successors);
    for (RegionSuccessor &successor : successors) {
      OperandRange forwarded = branch.getEntrySuccessorOperands(successor);
      SmallVector<OpOperand *> slots;
      // (An empty range has no valid begin index.)
      if (!forwarded.empty())
        for (unsigned i = 0, e = forwarded.size(); i < e; ++i)
          slots.push_back(
              &op->getOpOperand(forwarded.getBeginOperandIndex() + i));
      collect(slots, successor.getSuccessorInputs());
    }
    for (Region &region : op->getRegions())
      for (Block &block : region) {
        auto terminator = dyn_cast_or_null<RegionBranchTerminatorOpInterface>(
            block.empty() ? nullptr : &block.back());
        if (!terminator)
          continue;
        SmallVector<RegionSuccessor> exits;
        branch.getSuccessorRegions(RegionBranchPoint(terminator), exits);
        for (RegionSuccessor &successor : exits) {
          MutableOperandRange forwarded =
              terminator.getMutableSuccessorOperands(successor);
          SmallVector<OpOperand *> slots;
          for (unsigned i = 0, e = forwarded.size(); i < e; ++i)
            slots.push_back(&forwarded[i]);
          collect(slots, successor.getSuccessorInputs());
        }
      }
    if (!aligned)
      return;
    for (auto [operand, input] : pairs)
      tie(*operand, input);
  };
  forEachFunction(module, [&](func::FuncOp func) {
    forEachRegionBranch(func.getBody(), tieBranch);
  });

  // Functions called only directly from this module can be specialised.
  // One walk collects every symbol use (not one walk per function), and only
  // when some function could be specialised: the walk visits every
  // attribute of every op, a large share of the pass on big graphs whose
  // functions are all public. Without a complete list of uses (unknown ops
  // that may be symbol tables) nothing is specialised.
  auto isCandidate = [&](func::FuncOp func) {
    return !func.isExternal() &&
           !(func.isPublic() && options.keepPublicSignatures) &&
           func->getParentOp() == module.getOperation();
  };
  llvm::StringMap<SmallVector<Operation *>> users;
  std::optional<SymbolTable::UseRange> uses;
  if (llvm::any_of(module.getOps<func::FuncOp>(), isCandidate))
    uses = SymbolTable::getSymbolUses(&module.getBodyRegion());
  if (uses)
    for (const SymbolTable::SymbolUse &use : *uses)
      users[use.getSymbolRef().getRootReference()].push_back(use.getUser());
  if (uses)
    forEachFunction(module, [&](func::FuncOp func) {
      if (!isCandidate(func))
        return;
      SmallVector<CallOpInterface> calls;
      for (Operation *user : users.lookup(func.getSymName())) {
        auto call = dyn_cast<CallOpInterface>(user);
        auto callee = call
                          ? dyn_cast<SymbolRefAttr>(call.getCallableForCallee())
                          : SymbolRefAttr();
        // Address taken, or a call whose other operands are not the
        // callee's arguments: keep the signature.
        if (!callee || callee.getRootReference() != func.getSymNameAttr() ||
            call.getArgOperands().size() != user->getNumOperands())
          return;
        calls.push_back(call);
      }
      specializable.insert(func);
      Block &entry = func.getBody().front();
      for (BlockArgument arg : entry.getArguments())
        classes.insert(arg.getAsOpaquePointer());
      SmallVector<func::ReturnOp> returns;
      func.walk([&](func::ReturnOp ret) { returns.push_back(ret); });
      // Results of a function without callers still form groups.
      SmallVector<const void *> resultKeys(func.getNumResults(), nullptr);
      for (func::ReturnOp ret : returns)
        for (OpOperand &operand : ret->getOpOperands()) {
          operandKeys.insert(&operand);
          classes.insert(&operand);
          unsigned i = operand.getOperandNumber();
          if (resultKeys[i])
            classes.unionSets(resultKeys[i], &operand);
          resultKeys[i] = &operand;
        }
      for (CallOpInterface call : calls) {
        for (OpOperand &operand : call->getOpOperands())
          tie(operand, entry.getArgument(operand.getOperandNumber()));
        for (OpResult result : call->getResults())
          if (resultKeys[result.getResultNumber()])
            classes.unionSets(resultKeys[result.getResultNumber()],
                              result.getAsOpaquePointer());
      }
    });

  // One group node per class whose members are all f32.
  for (auto it = classes.begin(); it != classes.end(); ++it) {
    if (!(*it)->isLeader())
      continue;
    Node node;
    node.classification = {PrecisionClass::Clear, "carried value"};
    bool allF32 = true;
    for (auto member = classes.member_begin(**it);
         member != classes.member_end(); ++member) {
      const void *key = *member;
      if (operandKeys.contains(key)) {
        auto *operand =
            const_cast<OpOperand *>(static_cast<const OpOperand *>(key));
        allF32 &= isF32Like(operand->get().getType());
        node.forwarded.push_back(operand);
      } else {
        Value value = Value::getFromOpaquePointer(key);
        allF32 &= isF32Like(value.getType());
        node.members.push_back(value);
      }
    }
    if (!allF32 || (node.members.empty() && node.forwarded.empty()))
      continue;
    if (options.level == AmpLevel::TensorCoresOnly) {
      node.fixed = true;
      node.why = Node::Why::LevelLimit;
    }
    unsigned id = addNode(std::move(node));
    for (Value member : nodes[id].members)
      groupOf[member.getAsOpaquePointer()] = id;
    for (OpOperand *operand : nodes[id].forwarded)
      groupOf[operand] = id;
  }
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
      if (op.hasTrait<OpTrait::IsTerminator>())
        continue;
      bool isCall = isa<CallOpInterface>(op);
      // Calls to specialisable functions only forward values.
      if (isCall &&
          llvm::all_of(op.getOpOperands(),
                       [&](OpOperand &o) { return groupOf.count(&o); }) &&
          llvm::all_of(op.getResults(), [&](Value v) {
            return groupOf.count(v.getAsOpaquePointer());
          }))
        continue;
      bool touchesF32 = llvm::any_of(op.getOperandTypes(), isF32Like) ||
                        llvm::any_of(op.getResultTypes(), isF32Like);
      if (!touchesF32)
        continue;
      Node node;
      node.op = &op;
      if (isCall) {
        // Any other call keeps the callee's signature, whatever the policy
        // says: a declaration cannot follow, and a callee with a body is
        // specialised only when all its uses are calls (buildGroups).
        node.classification = policy.classify(&op);
        node.fixed = true;
        node.why = Node::Why::Call;
      } else if (llvm::any_of(op.getOperandTypes(), isUnrankedF32) ||
                 llvm::any_of(op.getResultTypes(), isUnrankedF32)) {
        node.classification = policy.classify(&op);
        node.fixed = true;
        node.why = Node::Why::Unranked;
      } else if (isSource(&op)) {
        node.classification = {PrecisionClass::Clear, "source"};
        node.fixed = true;
        node.source = true;
        node.why = Node::Why::Source;
      } else {
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
        // A slice of an f32 accumulator (amp-pad-for-tensor-cores slices
        // padded results back) stays f32 and lets its users see the
        // accumulator: the painting of `matmul -> users` and of
        // `padded matmul -> slice -> users` must be the same.
        if (auto slice = dyn_cast<tensor::ExtractSliceOp>(op);
            slice && !node.fixed) {
          // (A slice of such a slice too: the pad's slice of a sliced
          // result.)
          auto source =
              dyn_cast<OpResult>(throughPassThrough(slice.getSource()));
          auto it = source ? opNodes.find(source.getOwner()) : opNodes.end();
          if (it != opNodes.end() &&
              resultRole(nodes[it->second], source.getResultNumber()) ==
                  SlotRole::Accumulator) {
            node.fixed = true;
            node.passThrough = true;
            node.why = Node::Why::AccumulatorSlice;
            node.related = it->second;
          }
        }
      }
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

//===----------------------------------------------------------------------===//
// Painting
//===----------------------------------------------------------------------===//

static std::string describe(const PrecisionPainting::Node &node) {
  std::string text;
  llvm::raw_string_ostream os(text);
  if (node.op)
    os << node.op->getName() << " at " << node.op->getLoc();
  else
    os << "carried value at " << node.getLoc();
  return text;
}

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
        if (!isDeadUse(use) && !inside(consumerNode(use)) &&
            wantsLow(use) != low)
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
      if (node.op) {
        for (OpOperand &operand : node.op->getOpOperands())
          if (operandRole(node, operand.getOperandNumber()) ==
              SlotRole::Painted) {
            input(operand.get());
            costLow += 2 * numElements(operand.get().getType());
            costF32 += 4 * numElements(operand.get().getType());
          }
        for (Value result : node.op->getResults())
          if (isF32Like(result.getType()))
            output(result, /*traffic=*/true);
      } else {
        for (OpOperand *operand : node.forwarded)
          input(operand->get());
        for (Value member : node.members)
          output(member, /*traffic=*/false);
      }
    }
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

void PrecisionPainting::paint() {
  auto is = [&](unsigned id, PrecisionClass cls) {
    return nodes[id].classification.cls == cls;
  };
  auto open = [&](unsigned id) { return !nodes[id].fixed && !nodes[id].deny; };
  // DFS from `seeds` along succs (forward), preds (backward) or both,
  // entering nodes that satisfy `enter`; `visit(node, from)` is called once
  // per entered node.
  enum Direction { Backward, Forward, Both };
  auto dfs = [&](ArrayRef<unsigned> seeds, Direction direction, auto enter,
                 auto visit) {
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
      if (direction != Backward)
        step(nodes[id].succs);
      if (direction != Forward)
        step(nodes[id].preds);
    }
  };

  // 1. Allow nodes are low.
  SmallVector<unsigned> allow, denySeeds, denyOrInfer;
  for (unsigned id = 0, e = nodes.size(); id < e; ++id) {
    if (nodes[id].fixed)
      continue;
    if (is(id, PrecisionClass::Allow)) {
      nodes[id].low = true;
      nodes[id].why = Node::Why::Allow;
      allow.push_back(id);
    } else if (is(id, PrecisionClass::Deny)) {
      nodes[id].deny = true;
      nodes[id].why = Node::Why::Deny;
      denySeeds.push_back(id);
      denyOrInfer.push_back(id);
    } else if (is(id, PrecisionClass::Infer)) {
      denyOrInfer.push_back(id);
    }
  }

  // 2. Deny flows forward through infer nodes and through the clear nodes
  //    upstream of a deny or infer node.
  std::vector<char> upstream(nodes.size(), 0);
  dfs(
      denyOrInfer, Backward,
      [&](unsigned id) { return open(id) && is(id, PrecisionClass::Clear); },
      [&](unsigned id, unsigned) { upstream[id] = 1; });
  // One DFS from all deny nodes; each tainted node remembers its origin.
  std::vector<unsigned> origin(nodes.size(), 0);
  for (unsigned seed : denySeeds)
    origin[seed] = seed;
  dfs(
      denySeeds, Forward,
      [&](unsigned id) {
        return open(id) && (is(id, PrecisionClass::Infer) ||
                            (is(id, PrecisionClass::Clear) && upstream[id]));
      },
      [&](unsigned id, unsigned from) {
        origin[id] = origin[from];
        nodes[id].deny = true;
        nodes[id].why = Node::Why::Tainted;
        nodes[id].related = origin[id];
      });

  // 3. Infer nodes between allow nodes become low.
  auto passable = [&](unsigned id) {
    return open(id) &&
           (is(id, PrecisionClass::Infer) || is(id, PrecisionClass::Clear));
  };
  std::vector<char> downstream(nodes.size(), 0);
  dfs(allow, Forward, passable,
      [&](unsigned id, unsigned) { downstream[id] = 1; });
  SmallVector<unsigned> lowSeeds(allow);
  dfs(
      allow, Backward,
      [&](unsigned id) { return passable(id) && downstream[id]; },
      [&](unsigned id, unsigned) {
        if (!is(id, PrecisionClass::Infer))
          return;
        nodes[id].low = true;
        nodes[id].why = Node::Why::InferBetween;
        lowSeeds.push_back(id);
      });
  if (options.mode == AmpMode::BF16) {
    // An infer op fed directly by an allow op follows it, unless a deny op
    // also feeds it (TensorFlow's AddInferToAllowIfFollowAllow). Only direct
    // successors: chains would also pull e.g. an SGD update `w - lr * dw`
    // into bf16 and round the f32 master weights.
    for (unsigned id = 0, e = nodes.size(); id < e; ++id) {
      if (!open(id) || nodes[id].low || !is(id, PrecisionClass::Infer))
        continue;
      const auto &preds = nodes[id].preds;
      if (llvm::any_of(preds, [&](unsigned p) { return nodes[p].deny; }))
        continue;
      auto it = llvm::find_if(preds, [&](unsigned p) {
        return is(p, PrecisionClass::Allow) && nodes[p].low;
      });
      if (it == preds.end())
        continue;
      nodes[id].low = true;
      nodes[id].why = Node::Why::InferFollows;
      nodes[id].related = *it;
      lowSeeds.push_back(id);
    }
  }

  // 4. Low floods through clear nodes, both ways.
  auto clearOpen = [&](unsigned id) {
    return open(id) && !nodes[id].low && is(id, PrecisionClass::Clear);
  };
  auto paintClear = [&](unsigned id, unsigned from) {
    nodes[id].low = true;
    nodes[id].why = Node::Why::ClearNeighbour;
    nodes[id].related = from;
  };
  dfs(lowSeeds, Both, clearOpen, paintClear);

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

std::string PrecisionPainting::explain(const Node &node) const {
  std::string cls = stringifyPrecisionClass(node.classification.cls).str();
  std::string why = node.classification.reason.str();
  switch (node.why) {
  case Node::Why::Source:
    return "source: kept f32, amp-optimize-casts folds its casts";
  case Node::Why::Unlisted:
    return "unlisted (" + why + "): kept f32";
  case Node::Why::LevelLimit:
    return cls + ": level=tensor-cores-only, only allow ops run low";
  case Node::Why::Allow:
    return "allow (" + why + "): low-precision inputs, f32 accumulation";
  case Node::Why::Deny:
    return "deny (" + why + ")";
  case Node::Why::Tainted:
    return cls + ": fed by " + describe(nodes[node.related]) +
           " through infer/clear ops, kept f32";
  case Node::Why::InferBetween:
    return "infer: between allow ops, runs low";
  case Node::Why::InferFollows:
    return "infer: follows allow op " + describe(nodes[node.related]) +
           " (bf16), runs low";
  case Node::Why::ClearNeighbour:
    return "clear: next to low-precision " + describe(nodes[node.related]);
  case Node::Why::InferNotBetween:
    return "infer: not between allow ops, kept f32";
  case Node::Why::ClearAlone:
    return "clear: no low-precision neighbour, kept f32";
  case Node::Why::Economy:
    return "clear: kept f32, its casts would move more bytes than running "
           "it in f32 (" +
           std::to_string(node.costF32) + " vs " +
           std::to_string(node.costLow) + " bytes/step)";
  case Node::Why::Unranked:
    return cls + ": reads or produces an unranked tensor, kept f32 (casts "
                 "go on the ranked side)";
  case Node::Why::Call:
    return cls + ": call, keeps the callee's signature";
  case Node::Why::OutOfRange:
    return cls + ": reads " + describe(nodes[node.related]) +
           ", whose values the low-precision type cannot hold, kept f32";
  case Node::Why::Unused:
    return cls + ": result unused, follows its operands, " +
           (node.low ? "runs low" : "kept f32");
  case Node::Why::AccumulatorSlice:
    return "clear: slice of the f32 accumulator of " +
           describe(nodes[node.related]) + ", kept f32 (casts go after it)";
  case Node::Why::AccumulatorPad:
    return cls + ": only read as an f32 accumulator, kept f32";
  case Node::Why::Undecided:
    break;
  }
  return cls;
}
