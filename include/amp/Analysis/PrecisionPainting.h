//===- PrecisionPainting.h - Decide f32 or low for every value --*- C++ -*-===//
//
// Builds a dataflow graph over the ops of a set of functions (one node per op
// that touches f32 values, one node per group of values that control flow or
// calls tie to one type) and paints it with TensorFlow AMP's algorithm:
//
//   1. allow nodes are low;
//   2. deny propagates forward through infer nodes and through clear nodes
//      that lie upstream of a deny or infer node;
//   3. infer nodes between allow nodes become low (bf16: also an infer node
//      fed directly by an allow node);
//   4. low floods through clear nodes in both directions.
//
// Two rules keep the painting a fixed point of the rewrite (running the pass
// again over its output, with amp-optimize-casts and amp-pad-for-tensor-cores
// in between, changes nothing):
//
//   * ops whose results are unused (transitively: only dead, side-effect free
//     ops read them) and that are not allow ops take no part in the painting:
//     they have no edges and afterwards follow their operands (low when every
//     operand that is not a constant is low, else f32), so no cast is ever
//     inserted for them and dead casts that a cleanup erases change nothing;
//   * a tensor.extract_slice of the f32 accumulator result of a contraction
//     (what amp-pad-for-tensor-cores slices a padded result back with) is
//     transparent: it stays f32 and its users see the contraction as their
//     producer, so casts go after the slice, on the smaller tensor; a
//     tensor.pad only read as an f32 accumulator (the padded `outs`) stays
//     f32 too.
//===----------------------------------------------------------------------===//

#ifndef AMP_ANALYSIS_PRECISIONPAINTING_H
#define AMP_ANALYSIS_PRECISIONPAINTING_H

#include "amp/Analysis/PaintingScopes.h"
#include "amp/Analysis/PrecisionPolicy.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

#include <string>
#include <vector>

namespace mlir::tensor {
class ExtractSliceOp;
} // namespace mlir::tensor

namespace mlir::amp {

/// What an f32 operand or result of a painted op does.
enum class SlotRole {
  None,        // not an f32 value: never touched
  Painted,     // takes the op's precision
  Accumulator, // stays f32 (the `outs` of a contraction and its result)
  Broadcast,   // stays f32: a per-channel input broadcast into a low
               // elementwise op (cast-economy), which reads it in f32
};

/// True for f32 scalars and ranked tensors / vectors of f32. Unranked
/// tensors are not: arith.truncf / extf do not verify on them, so they are
/// never painted and the ops that read or produce them stay f32.
bool isF32Like(Type type);
/// `type` with its f32 element type replaced by `elementType`.
Type withElementType(Type type, Type elementType);
/// arith.truncf / arith.extf.
bool isFloatCast(Operation *op);

struct PaintingOptions {
  AmpMode mode = AmpMode::F16;
  AmpLevel level = AmpLevel::Default;
  /// Keep low clear regions in f32 where that moves fewer bytes than the
  /// casts around them (false: TensorFlow's painting, unchanged).
  bool castEconomy = true;
};

class PrecisionPainting {
public:
  struct Node {
    /// The op of an op node; null for a group node.
    Operation *op = nullptr;
    Classification classification;
    /// Never low: unlisted ops, sources, mixed-type groups, level limits.
    bool fixed = false;
    /// Constants and empty tensors: f32 values from no f32 operands.
    bool source = false;
    bool deny = false;
    bool low = false;
    /// Its results are unused and it is no allow op: no edges, follows its
    /// operands after the painting.
    bool dead = false;
    /// A tensor.extract_slice of an accumulator result: f32, its result is
    /// seen as the sliced value.
    bool passThrough = false;
    /// Why the node ended up low or f32 (rendered by explain()): the rule
    /// that decided, the node it refers to, and the byte costs of the cast
    /// economy. Kept structured so painting builds no strings.
    enum class Why {
      Undecided,
      Source,
      Unlisted,
      LevelLimit,
      Allow,
      Deny,
      Tainted,
      InferBetween,
      InferFollows,
      ClearNeighbour,
      InferNotBetween,
      ClearAlone,
      Economy,
      Unranked,
      Call,
      OutOfRange,
      Unused,
      AccumulatorSlice,
      AccumulatorPad,
      BatchStatistic,
      FeedsNormalization,
      FeedsEquality,
      SummedProduct,
    } why = Why::Undecided;
    unsigned related = 0;
    /// Slot roles precomputed for the painting's hot paths: operands from
    /// this index on (and the results tied to them) are f32 accumulators;
    /// `interfaceRoles` when the op's interface answers per slot.
    unsigned firstAccumulator = ~0u;
    bool interfaceRoles = false;
    /// Bit i: input i is a broadcast operand that stays f32 (SlotRole::
    /// Broadcast; inputs 0..63).
    uint64_t broadcastInputs = 0;
    int64_t costLow = 0, costF32 = 0;
    SmallVector<unsigned, 4> preds, succs;
    /// Group nodes: the values of the group and the operands forwarded to it.
    SmallVector<Value, 2> members;
    SmallVector<OpOperand *, 2> forwarded;

    /// The op's location, or that of the group's first value.
    Location getLoc() const;
  };

  /// Paints the functions of `scope` (partitionIntoPaintingScopes()). It
  /// reads and the rewrite changes nothing outside them: the painting of
  /// other scopes can run at the same time, each with its own `policy`
  /// (whose classification caches are not thread-safe).
  PrecisionPainting(const PaintingScope &scope, const PrecisionPolicy &policy,
                    const PaintingOptions &options);

  ArrayRef<Node> getNodes() const { return nodes; }

  /// Why `node` ended up low or f32, for remarks.
  std::string explain(const Node &node) const;

  /// The node of an op, or null if the op is not painted.
  const Node *lookupOp(Operation *op) const;
  /// The group node a value or a forwarded operand belongs to, or null.
  const Node *lookupGroup(Value value) const;
  const Node *lookupGroup(OpOperand &operand) const;

  /// Role of operand `index` / result `index` of an op with `classification`.
  static SlotRole operandRole(Operation *op, unsigned index,
                              const Classification &classification);
  static SlotRole resultRole(Operation *op, unsigned index,
                             const Classification &classification);
  /// The same for the op of `node`, from what the node precomputed.
  static SlotRole operandRole(const Node &node, unsigned index);
  static SlotRole resultRole(const Node &node, unsigned index);

  /// Functions whose signature may change (private, only called directly).
  const llvm::SmallPtrSetImpl<Operation *> &getSpecializable() const {
    return specializable;
  }

private:
  /// The carried values: block arguments and results of region-branch ops
  /// and of specialisable functions, tied to the operands that forward into
  /// them; one group node per class whose members are all f32.
  struct GroupClasses;
  void buildGroups(const PaintingScope &scope);
  static void tieRegionBranch(Operation *branch, GroupClasses &groups);
  void tieSpecializableCalls(const PaintingScope &scope, GroupClasses &groups);
  void addGroupNodes(GroupClasses &groups);
  void buildOpNodes(Region &region);
  /// A call whose operands and results all belong to carried groups.
  bool onlyForwardsValues(Operation &op) const;
  /// The node of `op`: its class, and whether and why it is fixed f32.
  Node classifyOpNode(Operation &op);
  void markAccumulatorSlice(Node &node, tensor::ExtractSliceOp slice);
  void buildEdges();
  /// The painting, TensorFlow's algorithm in named steps; each returns or
  /// extends the nodes the next starts from.
  void paint();
  SmallVector<unsigned> paintAllowAndDeny();
  SmallVector<unsigned> paintInferBetweenAllow(ArrayRef<unsigned> allow);
  void paintInferFollowingAllow(SmallVectorImpl<unsigned> &lowSeeds);
  void floodClear(ArrayRef<unsigned> lowSeeds);
  bool hasClass(unsigned id, PrecisionClass cls) const;
  /// Neither fixed nor tainted by deny: the painting may still change it.
  bool isOpen(unsigned id) const;
  /// Keeps f32 the consumers of constants that the low type cannot hold.
  void fixOutOfRangeConstants();
  void economizeClearComponents();
  /// bf16: keeps f32 what computes from a batch-norm statistic on its
  /// reduced shape (means, variances, their rsqrt: per-channel vectors).
  void keepBatchStatisticsF32();
  /// Keeps f32 the infer and clear ops that a deny normalization statistic
  /// reads through infer / clear ops only (e.g. a residual stream into a
  /// layer norm), before infer ops between allow ops are painted low.
  void keepNormalizationInputsF32();
  void keepComparedOperandsF32();
  /// bf16: keeps f32 the low products that only sums read (the terms of a
  /// dot product accumulated in f32).
  void keepSummedProductsF32();
  /// The bytes per step that a connected set of low clear nodes costs in
  /// casts and traffic low and f32: {low, f32}.
  std::pair<int64_t, int64_t>
  componentCosts(ArrayRef<unsigned> component,
                 const llvm::SmallDenseSet<unsigned> &inComponent) const;
  /// Whether `value` will be low after the rewrite / `use` wants it low.
  bool producesLow(Value value) const;
  bool wantsLow(OpOperand &use) const;
  std::optional<unsigned> consumerNode(OpOperand &use) const;

  std::optional<unsigned> producerNode(Value value) const;
  /// `value`, or the sliced value for the result of a pass-through slice.
  Value throughPassThrough(Value value) const;
  /// Ops whose results only dead, side-effect free ops read (allow ops
  /// excepted), in `region` and its nested regions.
  void collectDeadOps(Region &region);
  /// Paints the dead nodes after their operands.
  void paintDeadNodes();
  bool isDeadUse(OpOperand &use) const {
    return deadOps.contains(use.getOwner());
  }
  unsigned addNode(Node node);

  const PrecisionPolicy &policy;
  PaintingOptions options;
  std::vector<Node> nodes;
  DenseMap<Operation *, unsigned> opNodes;
  DenseMap<const void *, unsigned> groupOf; // Value or OpOperand* -> node
  llvm::SmallPtrSet<Operation *, 8> specializable;
  llvm::SmallPtrSet<Operation *, 8> deadOps;
};

} // namespace mlir::amp

#endif // AMP_ANALYSIS_PRECISIONPAINTING_H
