//===- DataflowDot.cpp - The mixed-precision dataflow graph as DOT --------===//
//
// The bodies of region-branch ops (scf.for, scf.if, ...) are drawn inside a
// cluster around their op's node: values flowing into the region come from
// that node, values yielded go back to it.
//
//===----------------------------------------------------------------------===//

#include "amp/Reports/DataflowDot.h"
#include "amp/Analysis/PrecisionPainting.h"

#include "amp/Analysis/PrecisionAnnotations.h"
#include "amp/Reports/OpCost.h"
#include "amp/Reports/ReportMetrics.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Location.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "llvm/ADT/DenseSet.h"

using namespace mlir;
using namespace mlir::amp;

namespace {

enum class Category { Low, F32, Cast, Unlisted, NoFloat };

struct CategoryStyle {
  Category category;
  const char *legend;
  const char *fill;
};

const CategoryStyle kStyles[] = {
    {Category::Low, "low precision (f16 / bf16)", "#a6dba0"},
    {Category::F32, "f32", "#92c5de"},
    {Category::Cast, "cast (truncf / extf)", "#fdb863"},
    {Category::Unlisted, "unlisted (never converted)", "#d9d9d9"},
    {Category::NoFloat, "no float values", "#ffffff"},
};

const char *getFill(Category category) {
  return kStyles[static_cast<unsigned>(category)].fill;
}

/// Escapes a string for a double-quoted DOT attribute.
std::string escape(StringRef text) {
  std::string out;
  for (char c : text) {
    if (c == '"' || c == '\\')
      out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out;
}

std::string printType(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << type;
  return text;
}

/// Colour of an edge: the precision of the value it carries.
const char *getEdgeColor(Type type) {
  Type element = getElementTypeOrSelf(type);
  if (isLowFloat(element))
    return "#1b7837";
  if (element.isF32())
    return "#2166ac";
  return "#636363";
}

class DotWriter {
public:
  explicit DotWriter(raw_ostream &os) : os(os) {}

  void writeHeader();
  void writeFunction(func::FuncOp func);
  void writeFooter();

private:
  std::string addNode(StringRef label, StringRef tooltip, Category category,
                      StringRef shape, StringRef indent);
  void writeRegion(Region &region, StringRef indent);
  void writeOp(Operation *op, StringRef indent);
  void addEdges(Operation *op, StringRef target, StringRef label = {});

  raw_ostream &os;
  unsigned nextNode = 0, nextCluster = 0;
  /// The node each drawn value comes from.
  DenseMap<Value, std::string> producers;
  /// Innermost region-branch op node, the target of its terminators.
  SmallVector<std::string> regionOwners;
  std::vector<std::string> edges;
  llvm::DenseSet<std::pair<Value, Operation *>> drawn;
};

} // namespace

void DotWriter::writeHeader() {
  os << "digraph amp {\n"
        "  rankdir=TB;\n"
        "  node [shape=box, style=\"rounded,filled\", fontname=\"Helvetica\", "
        "fontsize=10];\n"
        "  edge [fontname=\"Helvetica\", fontsize=8];\n"
        "  subgraph cluster_legend {\n"
        "    label=\"legend\";\n"
        "    { rank=same;";
  for (const CategoryStyle &style : kStyles)
    os << " legend_" << static_cast<unsigned>(style.category);
  os << " }\n    ";
  // Invisible edges keep the legend in this order.
  for (const CategoryStyle &style : kStyles)
    os << (style.category == kStyles[0].category ? "" : " -> ") << "legend_"
       << static_cast<unsigned>(style.category);
  os << " [style=invis];\n";
  for (const CategoryStyle &style : kStyles)
    os << "    legend_" << static_cast<unsigned>(style.category) << " [label=\""
       << style.legend << "\", fillcolor=\"" << style.fill << "\"];\n";
  os << "  }\n";
}

void DotWriter::writeFooter() {
  for (const std::string &edge : edges)
    os << "  " << edge << "\n";
  os << "}\n";
}

std::string DotWriter::addNode(StringRef label, StringRef tooltip,
                               Category category, StringRef shape,
                               StringRef indent) {
  std::string id = "n" + std::to_string(nextNode++);
  os << indent << id << " [label=\"" << label << "\", tooltip=\""
     << escape(tooltip) << "\", fillcolor=\"" << getFill(category) << "\"";
  if (!shape.empty())
    os << ", shape=" << shape;
  os << "];\n";
  return id;
}

void DotWriter::addEdges(Operation *op, StringRef target, StringRef label) {
  for (Value operand : op->getOperands()) {
    auto it = producers.find(operand);
    if (it == producers.end() || !drawn.insert({operand, op}).second)
      continue;
    std::string text = label.str();
    std::string type = printType(operand.getType());
    // Long types (big ranks, encodings) would swamp the picture.
    if (text.empty() && type.size() <= 24)
      text = type;
    std::string edge = it->second + " -> " + target.str() + " [color=\"" +
                       getEdgeColor(operand.getType()) + "\"";
    if (!text.empty())
      edge += ", label=\"" + escape(text) + "\"";
    edges.push_back(edge + "];");
  }
}

/// "linalg.matmul\nline 12" (the line only for file locations).
static std::string getOpLabel(Operation *op) {
  std::string label = escape(op->getName().getStringRef());
  if (auto fileLoc = dyn_cast<FileLineColLoc>(op->getLoc()))
    label += "\\nline " + std::to_string(fileLoc.getLine());
  return label;
}

void DotWriter::writeOp(Operation *op, StringRef indent) {
  // Constants and empty tensors would double the picture for no insight.
  if (op->hasTrait<OpTrait::ConstantLike>() || isa<tensor::EmptyOp>(op))
    return;
  if (op->hasTrait<OpTrait::IsTerminator>()) {
    if (isa<func::ReturnOp>(op)) {
      std::string id = addNode("return", "function results", Category::NoFloat,
                               "house", indent);
      addEdges(op, id);
    } else if (!regionOwners.empty()) {
      addEdges(op, regionOwners.back(), "yield");
    }
    return;
  }

  std::optional<PrecisionDecision> decision = getPrecisionDecision(op);
  OpPrecision precision = getOpPrecision(op);
  Category category = precision == OpPrecision::Low   ? Category::Low
                      : precision == OpPrecision::F32 ? Category::F32
                                                      : Category::NoFloat;
  std::string label = getOpLabel(op);
  std::string tooltip = op->getName().getStringRef().str() + ": ";
  if (isFloatCast(op)) {
    category = Category::Cast;
    Type from = op->getOperand(0).getType(), to = op->getResult(0).getType();
    label += "\\n" + escape(printType(getElementTypeOrSelf(from))) + " -> " +
             escape(printType(getElementTypeOrSelf(to)));
    tooltip += "cast " + printType(from) + " -> " + printType(to) + ", " +
               std::to_string(getStorageBytes(to).value_or(0)) + " bytes";
  } else if (decision) {
    if (decision->cls == PrecisionClass::Unlisted)
      category = Category::Unlisted;
    tooltip += decision->reason;
    if (decision->low && precision != OpPrecision::Low)
      tooltip += "; kept f32: its low-precision form does not verify";
  } else if (isa<RegionBranchOpInterface>(op)) {
    tooltip += "its body is in this cluster; the values it carries take the "
               "precision of their producers and users";
  } else {
    tooltip += category == Category::NoFloat
                   ? "no floating-point values"
                   : "not classified by amp-auto-mixed-precision";
  }

  if (!isa<RegionBranchOpInterface>(op)) {
    std::string id = addNode(label, tooltip, category, "", indent);
    addEdges(op, id);
    for (Value result : op->getResults())
      producers[result] = id;
    return;
  }
  // A region-branch op: its node and its bodies in one cluster.
  os << indent << "subgraph cluster_" << nextCluster++ << " {\n";
  std::string inner = (indent + "  ").str();
  os << inner << "label=\"" << escape(op->getName().getStringRef()) << "\";\n";
  std::string id = addNode(label, tooltip, category, "octagon", inner);
  addEdges(op, id);
  for (Region &region : op->getRegions())
    for (BlockArgument arg : region.getArguments())
      producers[arg] = id;
  regionOwners.push_back(id);
  for (Region &region : op->getRegions())
    writeRegion(region, inner);
  regionOwners.pop_back();
  os << indent << "}\n";
  for (Value result : op->getResults())
    producers[result] = id;
}

void DotWriter::writeRegion(Region &region, StringRef indent) {
  for (Block &block : region)
    for (Operation &op : block)
      writeOp(&op, indent);
}

void DotWriter::writeFunction(func::FuncOp func) {
  os << "  subgraph cluster_" << nextCluster++ << " {\n"
     << "    label=\"@" << escape(func.getSymName()) << "\";\n";
  if (!func.isExternal()) {
    for (BlockArgument arg : func.getArguments()) {
      Type type = arg.getType();
      Category category = isLowFloat(getElementTypeOrSelf(type)) ? Category::Low
                          : getElementTypeOrSelf(type).isF32()
                              ? Category::F32
                              : Category::NoFloat;
      std::string label = "%arg" + std::to_string(arg.getArgNumber());
      producers[arg] = addNode(label, "argument: " + printType(type), category,
                               "ellipse", "    ");
    }
    writeRegion(func.getBody(), "    ");
  }
  os << "  }\n";
}

LogicalResult mlir::amp::writeDataflowDot(ModuleOp module, StringRef function,
                                          raw_ostream &os) {
  SmallVector<func::FuncOp> funcs;
  module.walk([&](func::FuncOp func) {
    if (function.empty() || func.getSymName() == function)
      funcs.push_back(func);
  });
  if (funcs.empty() && !function.empty())
    return failure();
  DotWriter writer(os);
  writer.writeHeader();
  for (func::FuncOp func : funcs)
    writer.writeFunction(func);
  writer.writeFooter();
  return success();
}
