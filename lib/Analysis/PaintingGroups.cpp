//===- PaintingGroups.cpp - Values that control flow and calls tie -------===//
//
// The group nodes of the painting: the values a region-branch op forwards
// (operands of its terminators, block arguments, results) and the
// arguments and results of specialisable functions with their calls'
// operands and results, each class painted as one node (docs/design.md,
// Painting).
//
//===----------------------------------------------------------------------===//

#include "amp/Analysis/PrecisionPainting.h"

#include "PaintingWalks.h"

#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/EquivalenceClasses.h"

using namespace mlir;
using namespace mlir::amp;

/// Groups values that must share one type: the operands a region-branch op
/// or its terminators forward and the block arguments / results receiving
/// them, and the arguments / results of specialisable functions with the
/// operands / results of their calls.
struct PrecisionPainting::GroupClasses {
  llvm::EquivalenceClasses<const void *> classes;
  /// Keys that are OpOperand* (forwarded slots) rather than Values.
  llvm::SmallPtrSet<const void *, 16> operandKeys;

  void tie(OpOperand &operand, Value input) {
    operandKeys.insert(&operand);
    classes.unionSets(&operand, input.getAsOpaquePointer());
  }
};

/// Ties what every edge of a region-branch op forwards to the successor
/// input it becomes.
void PrecisionPainting::tieRegionBranch(Operation *branchOp,
                                        GroupClasses &groups) {
  auto branch = cast<RegionBranchOpInterface>(branchOp);
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
    groups.tie(*operand, input);
}

void PrecisionPainting::buildGroups(const PaintingScope &scope) {
  GroupClasses groups;
  for (FunctionOpInterface func : scope.functions)
    forEachRegionBranch(func.getFunctionBody(),
                        [&](RegionBranchOpInterface branch) {
                          tieRegionBranch(branch.getOperation(), groups);
                        });
  tieSpecializableCalls(scope, groups);
  addGroupNodes(groups);
}

/// Ties the arguments of each specialisable function to its call operands,
/// and its results across returns and calls.
void PrecisionPainting::tieSpecializableCalls(const PaintingScope &scope,
                                              GroupClasses &groups) {
  for (const SpecializableFunction &specialized : scope.specializable) {
    FunctionOpInterface func = specialized.func;
    specializable.insert(func);
    Block &entry = func.getFunctionBody().front();
    for (BlockArgument arg : entry.getArguments())
      groups.classes.insert(arg.getAsOpaquePointer());
    // Results of a function without callers still form groups.
    SmallVector<const void *> resultKeys(func.getNumResults(), nullptr);
    for (Operation *ret : getReturns(func))
      for (OpOperand &operand : ret->getOpOperands()) {
        groups.operandKeys.insert(&operand);
        groups.classes.insert(&operand);
        unsigned i = operand.getOperandNumber();
        if (resultKeys[i])
          groups.classes.unionSets(resultKeys[i], &operand);
        resultKeys[i] = &operand;
      }
    for (CallOpInterface call : specialized.calls) {
      for (OpOperand &operand : call->getOpOperands())
        groups.tie(operand, entry.getArgument(operand.getOperandNumber()));
      for (OpResult result : call->getResults())
        if (resultKeys[result.getResultNumber()])
          groups.classes.unionSets(resultKeys[result.getResultNumber()],
                                   result.getAsOpaquePointer());
    }
  }
}

void PrecisionPainting::addGroupNodes(GroupClasses &groups) {
  // One group node per class whose members are all f32.
  for (auto it = groups.classes.begin(); it != groups.classes.end(); ++it) {
    if (!(*it)->isLeader())
      continue;
    Node node;
    node.classification = {PrecisionClass::Clear, "carried value"};
    bool allF32 = true;
    for (auto member = groups.classes.member_begin(**it);
         member != groups.classes.member_end(); ++member) {
      const void *key = *member;
      if (groups.operandKeys.contains(key)) {
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
