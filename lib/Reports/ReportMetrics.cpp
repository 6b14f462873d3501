//===- ReportMetrics.cpp - What the AMP report measures in a function -----===//
//
// Ops are visited like the painting visits them: the bodies of region-branch
// ops (scf.for, scf.if, ...) are walked, the regions of other ops (linalg
// bodies) belong to their op. A loop with a static trip count multiplies the
// FLOPs, bytes and time of its body.
//
//===----------------------------------------------------------------------===//

#include "amp/Reports/ReportMetrics.h"
#include "amp/Analysis/PrecisionPainting.h"

#include "amp/Analysis/GpuTargets.h"
#include "amp/Analysis/PrecisionAnnotations.h"
#include "amp/Reports/OpCost.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "llvm/ADT/DenseSet.h"

using namespace mlir;
using namespace mlir::amp;

StringRef mlir::amp::stringifyOpPrecision(OpPrecision precision) {
  switch (precision) {
  case OpPrecision::Low:
    return "low";
  case OpPrecision::F32:
    return "f32";
  case OpPrecision::Other:
    return "other";
  }
  llvm_unreachable("unknown precision");
}

/// Calls `fn(op, times)` for every op the report looks at, with the number of
/// times it runs per call of the function.
static void walkOps(Region &region, int64_t times,
                    function_ref<void(Operation *, int64_t)> fn) {
  for (Block &block : region)
    for (Operation &op : block) {
      if (!isa<RegionBranchOpInterface>(op)) {
        fn(&op, times);
        continue;
      }
      int64_t inner = times;
      if (auto loop = dyn_cast<LoopLikeOpInterface>(op))
        if (std::optional<APInt> trips = loop.getStaticTripCount())
          inner *= trips->getSExtValue();
      for (Region &nested : op.getRegions())
        walkOps(nested, inner, fn);
    }
}

/// Scalars, tensors and vectors of a float type (the values AMP paints).
static bool isFloatValueType(Type type) {
  if (isa<FloatType>(type))
    return true;
  auto shaped = dyn_cast<ShapedType>(type);
  return shaped && isa<TensorType, VectorType>(shaped) &&
         isa<FloatType>(shaped.getElementType());
}

OpPrecision mlir::amp::getOpPrecision(Operation *op) {
  bool anyLow = false, anyF32 = false;
  auto visit = [&](Type type) {
    if (!isFloatValueType(type))
      return;
    Type element = getElementTypeOrSelf(type);
    anyLow |= isLowFloat(element);
    anyF32 |= element.isF32();
  };
  llvm::for_each(op->getOperandTypes(), visit);
  llvm::for_each(op->getResultTypes(), visit);
  if (anyLow)
    return OpPrecision::Low;
  return anyF32 ? OpPrecision::F32 : OpPrecision::Other;
}

/// Ops that compute on float values; sources (constants, empty tensors) only
/// create them and are not counted.
static bool readsFloatValue(Operation *op) {
  return llvm::any_of(op->getOperandTypes(), isFloatValueType);
}

static bool isGradSeed(Operation *op) {
  return op->getName().getStringRef() == "amp.grad_seed";
}

static bool isTrainingStepMarker(Operation *op) {
  return op->getName().getDialectNamespace() == "amp";
}

/// The value a metadata-only op (a reshape, a cast of the static shape)
/// aliases, so that each stored tensor is counted once.
static Value getStorageRoot(Value value) {
  while (Operation *def = value.getDefiningOp()) {
    if (!isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp, tensor::ReshapeOp,
             tensor::CastOp>(def))
      break;
    value = def->getOperand(0);
  }
  return value;
}

/// Values with no storage of their own to keep for the backward pass.
static bool definesNoData(Operation *op) {
  return op->hasTrait<OpTrait::ConstantLike>() || isa<tensor::EmptyOp>(op);
}

/// Fills `saved` and `savedArgumentCopies` of `metrics`.
static void measureSaved(func::FuncOp func, FunctionMetrics &metrics) {
  CountAndBytes &saved = metrics.saved;
  CountAndBytes &copies = metrics.savedArgumentCopies;
  llvm::DenseSet<Value> counted;
  auto count = [&](Value value) {
    Value root = getStorageRoot(value);
    // Arguments (inputs, weights) are kept by the caller anyway.
    Operation *def = root.getDefiningOp();
    if (!def || definesNoData(def) || !counted.insert(root).second)
      return;
    int64_t bytes = getStorageBytes(root.getType()).value_or(0);
    ++saved.count;
    saved.bytes += bytes;
    if (isFloatCast(def) && isa<BlockArgument>(def->getOperand(0))) {
      ++copies.count;
      copies.bytes += bytes;
    }
  };

  Operation *seed = nullptr;
  func.walk([&](Operation *op) {
    if (!isGradSeed(op))
      return WalkResult::advance();
    seed = op;
    return WalkResult::interrupt();
  });
  Block &entry = func.getBody().front();
  Operation *seedInEntry = seed ? entry.findAncestorOpInBlock(*seed) : nullptr;
  if (!seedInEntry) {
    // No backward pass in the IR: every intermediate value may be kept.
    walkOps(func.getBody(), 1, [&](Operation *op, int64_t) {
      for (Value result : op->getResults())
        count(result);
    });
    return;
  }
  // Forward values that an op after the seed reads.
  for (Operation &op : entry) {
    if (&op == seedInEntry)
      break;
    for (Value result : op.getResults())
      if (llvm::any_of(result.getUsers(), [&](Operation *user) {
            Operation *top = entry.findAncestorOpInBlock(*user);
            return top && seedInEntry->isBeforeInBlock(top);
          }))
        count(result);
  }
}

FunctionMetrics mlir::amp::measureFunction(func::FuncOp func) {
  FunctionMetrics metrics;
  metrics.name = func.getSymName().str();
  ArrayRef<GpuTarget> targets = getGpuTargets();
  metrics.seconds.assign(targets.size(), 0.0);
  if (func.isExternal())
    return metrics;

  walkOps(func.getBody(), 1, [&](Operation *op, int64_t times) {
    metrics.trainingStep |= isGradSeed(op);
    // The training-step markers are identities, not ops of the step.
    if (op->hasTrait<OpTrait::IsTerminator>() || isTrainingStepMarker(op))
      return;
    std::optional<PrecisionDecision> decision = getPrecisionDecision(op);
    if (decision)
      ++metrics.byClass[static_cast<unsigned>(decision->cls)];
    if (isFloatCast(op)) {
      ++metrics.casts.count;
      metrics.casts.bytes +=
          getStorageBytes(op->getResult(0).getType()).value_or(0);
    } else if (readsFloatValue(op)) {
      unsigned column = static_cast<unsigned>(getOpPrecision(op));
      ++metrics.byPrecision[column];
      unsigned row =
          decision ? static_cast<unsigned>(decision->cls) : kNumClasses;
      ++metrics.classPrecision[row][column];
    }

    OpCost cost = estimateOpCost(op);
    if (cost.unknown) {
      ++metrics.uncostedOps;
      return;
    }
    metrics.flops += times * cost.flops;
    metrics.bytes += times * cost.bytes;
    if (cost.contraction) {
      metrics.contractionFlops += times * cost.flops;
      if (cost.inputElementType && isLowFloat(cost.inputElementType))
        metrics.lowContractionFlops += times * cost.flops;
    }
    for (auto [i, target] : llvm::enumerate(targets))
      metrics.seconds[i] += times * getRooflineSeconds(cost, target);
  });
  measureSaved(func, metrics);
  return metrics;
}

std::vector<FunctionMetrics> mlir::amp::measureModule(ModuleOp module) {
  std::vector<FunctionMetrics> all;
  module.walk([&](func::FuncOp func) {
    // Declarations have nothing to report.
    if (!func.isExternal())
      all.push_back(measureFunction(func));
  });
  return all;
}

//===----------------------------------------------------------------------===//
// Snapshots: the metrics as JSON in a module attribute
//===----------------------------------------------------------------------===//

static llvm::json::Value toJSON(const CountAndBytes &value) {
  return llvm::json::Array{value.count, value.bytes};
}

static bool fromJSON(const llvm::json::Value &value, CountAndBytes &out,
                     llvm::json::Path path) {
  std::vector<int64_t> pair;
  if (!llvm::json::fromJSON(value, pair, path))
    return false;
  if (pair.size() != 2) {
    path.report("expected [count, bytes]");
    return false;
  }
  out = {pair[0], pair[1]};
  return true;
}

template <size_t N>
static bool fromJSON(const llvm::json::Value &value,
                     std::array<int64_t, N> &out, llvm::json::Path path) {
  std::vector<int64_t> list;
  if (!llvm::json::fromJSON(value, list, path))
    return false;
  if (list.size() != N) {
    path.report("wrong number of counts");
    return false;
  }
  llvm::copy(list, out.begin());
  return true;
}

llvm::json::Value mlir::amp::toJSON(const FunctionMetrics &metrics) {
  llvm::json::Array matrix;
  for (const auto &row : metrics.classPrecision)
    matrix.push_back(llvm::json::Array(row));
  return llvm::json::Object{
      {"name", metrics.name},
      {"training_step", metrics.trainingStep},
      {"by_class", llvm::json::Array(metrics.byClass)},
      {"by_precision", llvm::json::Array(metrics.byPrecision)},
      {"class_precision", std::move(matrix)},
      {"casts", ::toJSON(metrics.casts)},
      {"contraction_flops", metrics.contractionFlops},
      {"low_contraction_flops", metrics.lowContractionFlops},
      {"flops", metrics.flops},
      {"bytes", metrics.bytes},
      {"uncosted_ops", metrics.uncostedOps},
      {"saved", ::toJSON(metrics.saved)},
      {"saved_argument_copies", ::toJSON(metrics.savedArgumentCopies)},
      {"seconds", llvm::json::Array(metrics.seconds)},
  };
}

bool mlir::amp::fromJSON(const llvm::json::Value &value,
                         FunctionMetrics &metrics, llvm::json::Path path) {
  llvm::json::ObjectMapper mapper(value, path);
  if (!mapper || !mapper.map("name", metrics.name) ||
      !mapper.map("training_step", metrics.trainingStep) ||
      !mapper.map("contraction_flops", metrics.contractionFlops) ||
      !mapper.map("low_contraction_flops", metrics.lowContractionFlops) ||
      !mapper.map("flops", metrics.flops) ||
      !mapper.map("bytes", metrics.bytes) ||
      !mapper.map("uncosted_ops", metrics.uncostedOps) ||
      !mapper.map("seconds", metrics.seconds))
    return false;
  const llvm::json::Object *object = value.getAsObject();
  auto field = [&](StringRef key) -> const llvm::json::Value & {
    static const llvm::json::Value null = nullptr;
    const llvm::json::Value *found = object->get(key);
    return found ? *found : null;
  };
  if (!::fromJSON(field("by_class"), metrics.byClass, path.field("by_class")) ||
      !::fromJSON(field("by_precision"), metrics.byPrecision,
                  path.field("by_precision")) ||
      !::fromJSON(field("casts"), metrics.casts, path.field("casts")) ||
      !::fromJSON(field("saved"), metrics.saved, path.field("saved")) ||
      !::fromJSON(field("saved_argument_copies"), metrics.savedArgumentCopies,
                  path.field("saved_argument_copies")))
    return false;
  const llvm::json::Array *matrix = field("class_precision").getAsArray();
  if (!matrix || matrix->size() != metrics.classPrecision.size()) {
    path.field("class_precision").report("expected one row per class");
    return false;
  }
  for (auto [i, row] : llvm::enumerate(*matrix))
    if (!::fromJSON(row, metrics.classPrecision[i],
                    path.field("class_precision").index(i)))
      return false;
  if (metrics.seconds.size() != getGpuTargets().size()) {
    path.field("seconds").report("expected one time per GPU preset");
    return false;
  }
  return true;
}

static std::string getSnapshotAttrName(StringRef stage) {
  return ("amp.report." + stage).str();
}

void mlir::amp::storeSnapshot(ModuleOp module, StringRef stage,
                              ArrayRef<FunctionMetrics> metrics) {
  llvm::json::Array functions;
  for (const FunctionMetrics &function : metrics)
    functions.push_back(toJSON(function));
  std::string text;
  llvm::raw_string_ostream os(text);
  os << llvm::json::Value(std::move(functions));
  module->setAttr(getSnapshotAttrName(stage),
                  StringAttr::get(module.getContext(), text));
}

FailureOr<std::vector<FunctionMetrics>>
mlir::amp::loadSnapshot(ModuleOp module, StringRef stage) {
  auto text = module->getAttrOfType<StringAttr>(getSnapshotAttrName(stage));
  if (!text)
    return failure();
  llvm::Expected<llvm::json::Value> parsed = llvm::json::parse(text.getValue());
  if (!parsed) {
    llvm::consumeError(parsed.takeError());
    return failure();
  }
  std::vector<FunctionMetrics> metrics;
  llvm::json::Path::Root root;
  if (!llvm::json::fromJSON(*parsed, metrics, root)) {
    llvm::consumeError(root.getError());
    return failure();
  }
  return metrics;
}

void mlir::amp::stripSnapshots(ModuleOp module) {
  SmallVector<StringAttr> names;
  for (NamedAttribute attr : module->getDiscardableAttrs())
    if (attr.getName().getValue().starts_with("amp.report."))
      names.push_back(attr.getName());
  for (StringAttr name : names)
    module->removeDiscardableAttr(name);
}
