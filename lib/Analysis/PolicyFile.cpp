//===- PolicyFile.cpp - Policy files and the names users write ------------===//
//
// Loading a policy file (JSON or YAML: classes, and contractions with their
// accumulator operands) and checking every op name a user gives, in a file
// or a CLI list edit, with a "did you mean" (docs/policy.md).
//
//===----------------------------------------------------------------------===//

#include "amp/Analysis/PrecisionPolicy.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/GlobPattern.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/YAMLParser.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::amp;

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
          BodyPattern::Normalization, BodyPattern::BatchNormalization,
          BodyPattern::Reduction, BodyPattern::Copy, BodyPattern::Elementwise,
          BodyPattern::Sigmoid}) {
      if (key == stringifyBodyPattern(pattern))
        return std::nullopt;
      patterns.push_back(
          ("linalg.generic:" + stringifyBodyPattern(pattern)).str());
    }
    return error("unknown body pattern 'linalg.generic:" + key +
                 "' (expected contraction, sum-reduction, normalization, "
                 "batch-normalization, reduction, copy, elementwise or "
                 "sigmoid)" +
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

namespace {

/// The entries of one policy file, parsed from its YAML (JSON is YAML) with
/// errors at file:line:col. An op named under two classes is an error.
class PolicyFileParser {
public:
  using CheckKey =
      function_ref<std::optional<std::string>(StringRef, unsigned, unsigned)>;

  PolicyFileParser(std::unique_ptr<llvm::MemoryBuffer> buffer,
                   std::string &error, CheckKey checkKey)
      : os(error), checkKey(checkKey) {
    // The YAML parser reports through the SourceMgr; keep its file:line:col.
    sourceMgr.setDiagHandler(
        [](const llvm::SMDiagnostic &diag, void *context) {
          auto &out = *static_cast<llvm::raw_string_ostream *>(context);
          diag.print(/*ProgName=*/nullptr, out, /*ShowColors=*/false,
                     /*ShowKindLabel=*/true);
        },
        &os);
    bufferId = sourceMgr.AddNewSourceBuffer(std::move(buffer), llvm::SMLoc());
  }

  /// Parses every document; false on the first error (in `error`).
  LogicalResult parse();

  /// The ops in the order the file names them, with their classes.
  SmallVector<std::string> order;
  llvm::StringMap<std::pair<PrecisionClass, llvm::yaml::Node *>> entries;
  llvm::StringMap<ContractionSpec> contractions;

private:
  LogicalResult fail(llvm::yaml::Node *node, const Twine &message) {
    sourceMgr.PrintMessage(os, node->getSourceRange().Start,
                           llvm::SourceMgr::DK_Error, message);
    return failure();
  }
  LogicalResult parseClass(llvm::yaml::KeyValueNode &kv);
  LogicalResult parseItem(llvm::yaml::Node &item, PrecisionClass cls,
                          bool isContraction);

  llvm::SourceMgr sourceMgr;
  llvm::raw_string_ostream os;
  CheckKey checkKey;
  unsigned bufferId = 0;
};

} // namespace

LogicalResult PolicyFileParser::parse() {
  llvm::yaml::Stream stream(
      sourceMgr.getMemoryBuffer(bufferId)->getMemBufferRef(), sourceMgr);
  for (llvm::yaml::Document &doc : stream) {
    llvm::yaml::Node *root = doc.getRoot();
    if (!root || isa<llvm::yaml::NullNode>(root))
      continue;
    auto *map = dyn_cast<llvm::yaml::MappingNode>(root);
    if (!map)
      return fail(root, "policy file must be a mapping from class names "
                        "(allow, infer, clear, deny, unlisted) to op lists");
    for (llvm::yaml::KeyValueNode &kv : *map)
      if (failed(parseClass(kv)))
        return failure();
  }
  return failure(stream.failed());
}

/// One `class: [ops]` entry; `contraction: [...]` lists allow ops with their
/// accumulator operands.
LogicalResult PolicyFileParser::parseClass(llvm::yaml::KeyValueNode &kv) {
  auto *keyNode = dyn_cast_or_null<llvm::yaml::ScalarNode>(kv.getKey());
  if (!keyNode)
    return fail(kv.getKey(), "expected a class name");
  SmallString<16> keyStorage;
  StringRef className = keyNode->getValue(keyStorage);
  bool isContraction = className == "contraction";
  std::optional<PrecisionClass> cls = isContraction
                                          ? PrecisionClass::Allow
                                          : symbolizePrecisionClass(className);
  if (!cls)
    return fail(keyNode, "unknown class '" + className +
                             "' (expected allow, infer, clear, deny, "
                             "unlisted or contraction)");
  auto *list = dyn_cast_or_null<llvm::yaml::SequenceNode>(kv.getValue());
  if (!list)
    return fail(kv.getValue() ? kv.getValue() : keyNode,
                "expected a list of op names for '" + className + "'");
  for (llvm::yaml::Node &item : *list)
    if (failed(parseItem(item, *cls, isContraction)))
      return failure();
  return success();
}

LogicalResult PolicyFileParser::parseItem(llvm::yaml::Node &item,
                                          PrecisionClass cls,
                                          bool isContraction) {
  auto *scalar = dyn_cast<llvm::yaml::ScalarNode>(&item);
  ContractionSpec spec;
  if (isContraction && !scalar &&
      failed(parseContractionItem(
          &item, scalar, spec,
          [&](llvm::yaml::Node *node, const Twine &message) {
            return fail(node, message);
          })))
    return failure();
  if (!scalar)
    return fail(&item, "expected an op name");
  SmallString<32> storage;
  std::string opName = scalar->getValue(storage).str();
  if (opName.empty())
    return fail(&item, "empty op name");
  if (isContraction && StringRef(opName).find_first_of(":*") != StringRef::npos)
    return fail(&item, "a contraction is an op name, not a pattern");
  if (checkKey) {
    auto [line, col] =
        sourceMgr.getLineAndColumn(item.getSourceRange().Start, bufferId);
    if (std::optional<std::string> message = checkKey(opName, line, col))
      return fail(&item, *message);
  }
  auto [it, inserted] = entries.try_emplace(opName, cls, &item);
  if (!inserted && it->second.first != cls)
    return fail(&item, "op '" + opName + "' is listed as both " +
                           stringifyPrecisionClass(it->second.first) + " and " +
                           stringifyPrecisionClass(cls));
  if (inserted)
    order.push_back(opName);
  if (isContraction)
    contractions[opName] = std::move(spec);
  return success();
}

LogicalResult PrecisionPolicy::loadFile(StringRef path, std::string &error,
                                        PolicyFileParser::CheckKey checkKey) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!buffer) {
    error = ("cannot read policy file '" + path +
             "': " + buffer.getError().message())
                .str();
    return failure();
  }
  PolicyFileParser parser(std::move(*buffer), error, checkKey);
  if (failed(parser.parse())) {
    if (error.empty())
      error = ("cannot parse policy file '" + path + "'").str();
    return failure();
  }
  std::string source = ("policy file " + llvm::sys::path::filename(path)).str();
  // An explicit `unlisted` entry still shadows wildcards and the interface.
  for (const std::string &opName : parser.order)
    set(opName, parser.entries[opName].first, source);
  for (auto &entry : parser.contractions)
    contractions[entry.getKey()] = std::move(entry.getValue());
  return success();
}
