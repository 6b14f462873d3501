//===- PaintingScopes.cpp - Functions painted together --------------------===//
//
// One walk of the module's symbol uses (only when some function could be
// specialised) decides which functions are specialisable, and ties each to
// the functions that call it; the connected sets are the scopes.
//
//===----------------------------------------------------------------------===//

#include "amp/Analysis/PaintingScopes.h"

#include "PaintingWalks.h"

#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/EquivalenceClasses.h"
#include "llvm/ADT/StringMap.h"

using namespace mlir;
using namespace mlir::amp;

/// The calls of `func` if it is specialisable: every use of its name is a
/// call of it whose operands are exactly its arguments.
static std::optional<SmallVector<CallOpInterface>>
getSpecializableCalls(FunctionOpInterface func, ArrayRef<Operation *> users) {
  StringAttr name = SymbolTable::getSymbolName(func);
  SmallVector<CallOpInterface> calls;
  for (Operation *user : users) {
    auto call = dyn_cast<CallOpInterface>(user);
    auto callee = call ? dyn_cast<SymbolRefAttr>(call.getCallableForCallee())
                       : SymbolRefAttr();
    // Address taken, or a call whose other operands are not the callee's
    // arguments: keep the signature.
    if (!callee || callee.getRootReference() != name ||
        call.getArgOperands().size() != user->getNumOperands())
      return std::nullopt;
    calls.push_back(call);
  }
  return calls;
}

SmallVector<PaintingScope>
mlir::amp::partitionIntoPaintingScopes(ModuleOp module,
                                       bool keepPublicSignatures) {
  SmallVector<FunctionOpInterface> functions;
  DenseMap<Operation *, unsigned> indexOf;
  forEachFunction(module, [&](FunctionOpInterface func) {
    indexOf[func] = functions.size();
    functions.push_back(func);
  });

  auto isCandidate = [&](FunctionOpInterface func) {
    return !func.isExternal() && !(func.isPublic() && keepPublicSignatures) &&
           func->getParentOp() == module.getOperation();
  };
  // One walk collects every symbol use (not one walk per function), and only
  // when some function could be specialised: the walk visits every attribute
  // of every op, a large share of the pass on big graphs whose functions are
  // all public. Without a complete list of uses (unknown ops that may be
  // symbol tables) nothing is specialised.
  DenseMap<unsigned, SmallVector<CallOpInterface>> specializable;
  llvm::EquivalenceClasses<unsigned> tied;
  for (unsigned i = 0, e = functions.size(); i < e; ++i)
    tied.insert(i);
  std::optional<SymbolTable::UseRange> uses;
  if (llvm::any_of(functions, isCandidate))
    uses = SymbolTable::getSymbolUses(&module.getBodyRegion());
  if (uses) {
    llvm::StringMap<SmallVector<Operation *>> users;
    for (const SymbolTable::SymbolUse &use : *uses)
      users[use.getSymbolRef().getRootReference()].push_back(use.getUser());
    for (auto [index, func] : llvm::enumerate(functions)) {
      if (!isCandidate(func))
        continue;
      std::optional<SmallVector<CallOpInterface>> calls = getSpecializableCalls(
          func, users.lookup(SymbolTable::getSymbolName(func)));
      if (!calls)
        continue;
      // Painted with the functions its calls sit in.
      for (CallOpInterface call : *calls)
        for (Operation *parent = call->getParentOp(); parent;
             parent = parent->getParentOp())
          if (auto it = indexOf.find(parent); it != indexOf.end()) {
            tied.unionSets(index, it->second);
            break;
          }
      specializable[index] = std::move(*calls);
    }
  }

  SmallVector<PaintingScope> scopes;
  DenseMap<unsigned, unsigned> scopeOfLeader;
  for (auto [index, func] : llvm::enumerate(functions)) {
    auto [it, inserted] =
        scopeOfLeader.try_emplace(tied.getLeaderValue(index), scopes.size());
    if (inserted)
      scopes.emplace_back();
    PaintingScope &scope = scopes[it->second];
    scope.functions.push_back(func);
    if (auto calls = specializable.find(index); calls != specializable.end())
      scope.specializable.push_back({func, std::move(calls->second)});
  }
  return scopes;
}
