//===- PrecisionPolicy.h - Which ops run in low precision -------*- C++ -*-===//
//
// The AMP policy: four op lists (allow / infer / clear / deny) keyed by op
// name, `prefix*` wildcard or `linalg.generic:<body pattern>`, built from the
// defaults of a mode, a policy file and CLI list edits, and the classifier
// that maps an operation to its class with a reason.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_ANALYSIS_PRECISIONPOLICY_H
#define AMP_ANALYSIS_PRECISIONPOLICY_H

#include "amp/Interfaces/PrecisionClass.h"
#include "amp/Support/OptionEnums.h"
#include "mlir/IR/Operation.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

#include <optional>
#include <string>
#include <tuple>

namespace mlir::amp {

/// The low-precision floating-point type the rewrite targets.
enum class AmpMode { F16, BF16 };

/// Body patterns of linalg ops with an explicit region (linalg.generic,
/// linalg.map, linalg.reduce) and of named linalg ops that no list names.
/// Policy keys are `linalg.generic:<pattern>`.
enum class BodyPattern {
  Contraction,        // multiply-accumulate over reduction dims
  SumReduction,       // additive reduction (sum, mean, variance, norm)
  Normalization,      // a sum whose result is combined with the values it sums
                      // (layer norm statistics, softmax denominators)
  BatchNormalization, // such a sum over the batch dimension (batch norm
                      // statistics with batch statistics, their gradients)
  Reduction,          // other reduction (max, min, ...): class of its body ops
  Copy,        // yields block arguments only (copy, transpose, broadcast)
  Elementwise, // parallel only: class of its strictest body op
  Sigmoid,     // parallel only, exactly 1 / (1 + exp(-x)): bounded in [0, 1]
};
StringRef stringifyBodyPattern(BodyPattern pattern);

/// The class of one op and a human-readable reason. The reason is a literal
/// or interned by the policy (one copy per distinct text, owned by the
/// policy): a painting keeps one Classification per op.
/// An op a policy file declares a contraction: allow, with every result and
/// the listed operands (and a destination-style op's inits) holding its f32
/// accumulator.
struct ContractionSpec {
  SmallVector<unsigned, 1> accumulatorOperands;
};

struct Classification {
  PrecisionClass cls = PrecisionClass::Unlisted;
  StringRef reason;
  /// Set for an allow op declared a contraction by a policy file; owned by
  /// the policy.
  const ContractionSpec *contraction = nullptr;
};

/// What is wrong with a policy key a user wrote (a policy file entry or a
/// CLI list edit); a warning leaves the entry in place.
struct PolicyKeyProblem {
  std::string message;
  bool warning = false;
};

/// Checks a user's policy key against what `ctx` knows: an op registered in
/// it (its dialect is loaded if it is only registered), a `prefix*suffix`
/// pattern that matches a registered op, or `linalg.generic:<pattern>` with a
/// known body pattern. Unknown names of a registered dialect are errors with
/// the nearest name ("did you mean 'linalg.matmul'?"); names of a dialect
/// that is not registered only get a warning (a shared policy file may name
/// ops of dialects this tool does not have).
std::optional<PolicyKeyProblem> checkPolicyKey(MLIRContext *ctx, StringRef key);

class PrecisionPolicy {
public:
  /// The built-in lists of `mode` (DESIGN.md §4).
  explicit PrecisionPolicy(AmpMode mode);
  // Move-only: the caches and the classifications handed out point into the
  // policy's own entries and reasons, which a move keeps where they are.
  PrecisionPolicy(const PrecisionPolicy &) = delete;
  PrecisionPolicy &operator=(const PrecisionPolicy &) = delete;
  PrecisionPolicy(PrecisionPolicy &&) = default;
  PrecisionPolicy &operator=(PrecisionPolicy &&) = default;

  /// The same lists with empty caches, for another thread: classify() fills
  /// the caches, so one policy is not shared between threads.
  PrecisionPolicy cloneLists() const;

  /// Loads a policy file (JSON or YAML): a mapping from class names
  /// (`allow`, `infer`, `clear`, `deny`, `unlisted`) to lists of op names.
  /// An op the file names is moved to that class. Under `contraction`, an
  /// item is an op name, or a one-key mapping from an op name to the
  /// indices of its accumulator operands: the op is allow, and its results
  /// and those operands stay f32. Errors (unreadable file,
  /// syntax, an op on two lists of the file) are returned as a message
  /// carrying `file:line:col`.
  /// `checkKey`, if given, is called on every op name of the file with
  /// the name's line and column: a message it returns fails the load at
  /// the name's `file:line:col`.
  LogicalResult loadFile(
      StringRef path, std::string &error,
      function_ref<std::optional<std::string>(StringRef, unsigned, unsigned)>
          checkKey = {});

  /// TensorFlow-style list edits: removes first, then adds. An op that ends
  /// up on two lists is reported by verifyNoConflicts().
  void removeFrom(PrecisionClass list, ArrayRef<std::string> names);
  void addTo(PrecisionClass list, ArrayRef<std::string> names,
             StringRef source);

  /// Fails with a message naming every op that is on more than one list.
  LogicalResult verifyNoConflicts(std::string &error) const;

  /// Prints the lists as a policy file (YAML) that loadFile() accepts.
  void print(raw_ostream &os) const;

  /// Moves the convolutions of the built-in allow list that no policy file
  /// or edit has touched to deny, with `source` as the reason (emit=iree on
  /// a CPU, whose IREE backend has no fast 16-bit convolution).
  void denyDefaultConvolutions(StringRef source);

  /// Every infer entry becomes deny (level=treat-infer-as-deny).
  void treatInferAsDeny() {
    inferAsDeny = true;
    invalidateCaches();
  }

  /// The class of `op`: list entries from a policy file or CLI edit first,
  /// then AmpPrecisionOpInterface, then the default lists, then the body of
  /// linalg ops, else unlisted.
  Classification classify(Operation *op) const;

  /// Whether a policy file declared any contraction.
  bool hasContractions() const { return !contractions.empty(); }
  /// The contraction a policy file declared for the op named `name`, if any
  /// (whether it applies depends on the op's class: classify()).
  const ContractionSpec *lookupContraction(StringRef name) const {
    auto it = contractions.find(name);
    return it == contractions.end() ? nullptr : &it->second;
  }

  /// Looks a key up in the lists (exact name, then the longest `prefix*`).
  std::optional<PrecisionClass> lookup(StringRef key,
                                       std::string *source = nullptr) const;

private:
  struct Entry {
    PrecisionClass cls;
    std::string source; // "default", "policy file", "allow-add", ...
  };
  /// Entries of one key; more than one entry is a conflict.
  llvm::StringMap<SmallVector<Entry, 1>> entries;
  /// Contractions declared by policy files, by exact op name (their class
  /// is an allow entry of `entries`).
  llvm::StringMap<ContractionSpec> contractions;
  AmpMode mode;
  bool inferAsDeny = false;
  /// classify() results of ops whose class depends on their name only.
  mutable DenseMap<OperationName, Classification> byName;
  /// lookup() results: the entries a key resolves to (null: none). Wildcard
  /// keys make a lookup scan every entry, so each key is resolved once.
  mutable llvm::StringMap<const SmallVector<Entry, 1> *> lookupCache;
  /// The storage of every reason built at run time.
  mutable llvm::StringSet<> reasons;
  /// classifyLinalgBody() results: per body pattern when a list names it
  /// (none: it falls back to the body ops), and per pattern, strictest body
  /// op and class otherwise. A graph has few distinct ones, and building
  /// their reason strings per op was a tenth of the painting.
  mutable DenseMap<unsigned, std::optional<Classification>> bodyListed;
  mutable DenseMap<std::tuple<unsigned, const void *, unsigned>, StringRef>
      bodyReasons;

  /// A policy with no entries (cloneLists() fills them).
  struct NoLists {};
  PrecisionPolicy(AmpMode mode, NoLists) : mode(mode) {}

  void invalidateCaches() {
    byName.clear();
    lookupCache.clear();
    bodyListed.clear();
    bodyReasons.clear();
  }
  const SmallVector<Entry, 1> *findEntries(StringRef key) const;

  void set(StringRef key, PrecisionClass cls, StringRef source);
  PrecisionClass adjust(PrecisionClass cls) const;
  std::optional<Classification> classifyLinalgBody(Operation *op) const;
  /// Sets `perOp` when the result depends on more than the op's name.
  Classification classifyUncached(Operation *op, bool &perOp) const;
  StringRef intern(const Twine &reason) const;
};

} // namespace mlir::amp

#endif // AMP_ANALYSIS_PRECISIONPOLICY_H
