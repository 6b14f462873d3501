//===- Signature.cpp - amp.role analysis of step/eval functions -----------===//

#include "Signature.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>

using namespace amp::run;
using llvm::StringRef;

static constexpr StringRef kRoleAttr = "amp.role";
static constexpr StringRef kUpdatesAttr = "amp.updates";
static constexpr StringRef kCopyOfAttr = "amp.copy_of";

StringRef amp::run::roleName(Role role) {
  switch (role) {
  case Role::Input:
    return "input";
  case Role::Label:
    return "label";
  case Role::Param:
    return "param";
  case Role::ParamCopy:
    return "param_copy";
  case Role::OptState:
    return "opt_state";
  case Role::LossScale:
    return "loss_scale";
  case Role::GoodSteps:
    return "good_steps";
  case Role::Loss:
    return "loss";
  case Role::Update:
    return "update";
  case Role::StepOk:
    return "step_ok";
  case Role::Grad:
    return "grad";
  case Role::Logits:
    return "logits";
  }
  llvm_unreachable("unknown role");
}

static std::optional<Role> parseRole(StringRef name) {
  return llvm::StringSwitch<std::optional<Role>>(name)
      .Case("input", Role::Input)
      .Case("label", Role::Label)
      .Case("param", Role::Param)
      .Case("param_copy", Role::ParamCopy)
      .Case("opt_state", Role::OptState)
      .Case("loss_scale", Role::LossScale)
      .Case("good_steps", Role::GoodSteps)
      .Case("loss", Role::Loss)
      .Case("update", Role::Update)
      .Case("step_ok", Role::StepOk)
      .Case("grad", Role::Grad)
      .Case("logits", Role::Logits)
      .Default(std::nullopt);
}

int64_t TensorSpec::numElements() const {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

int64_t TensorSpec::elemBytes() const {
  switch (elem) {
  case ElemKind::F32:
  case ElemKind::I32:
    return 4;
  case ElemKind::I1:
    return 1;
  case ElemKind::BF16:
  case ElemKind::F16:
    return 2;
  }
  llvm_unreachable("unknown element kind");
}

StringRef amp::run::elemName(ElemKind elem) {
  switch (elem) {
  case ElemKind::F32:
    return "f32";
  case ElemKind::I32:
    return "i32";
  case ElemKind::I1:
    return "i1";
  case ElemKind::BF16:
    return "bf16";
  case ElemKind::F16:
    return "f16";
  }
  llvm_unreachable("unknown element kind");
}

std::string TensorSpec::str() const {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << "tensor<";
  for (int64_t d : shape)
    os << d << "x";
  os << elemName(elem) << ">";
  return s;
}

int64_t Signature::numFeatures() const {
  int64_t n = 1;
  for (int64_t d : llvm::ArrayRef(args[input].spec.shape).drop_front())
    n *= d;
  return n;
}

namespace {
/// Builds the errors of one function.
struct Checker {
  std::string fnName;

  llvm::Error error(const llvm::Twine &what) const {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "@" + fnName + ": " + what);
  }
};
} // namespace

static std::string typeStr(mlir::Type type) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << type;
  return s;
}

/// The tensor spec of `type`, whose element type must be the one of `role`:
/// i32 for good_steps, i1 for step_ok, bf16 or f16 for param_copy (and the
/// update that replaces it), f32 for the others.
static llvm::Expected<TensorSpec> specOf(const Checker &c, mlir::Type type,
                                         const llvm::Twine &what, Role role) {
  auto tensor = llvm::dyn_cast<mlir::RankedTensorType>(type);
  if (!tensor)
    return c.error(what + " has type " + typeStr(type) +
                   "; amp-run passes ranked tensors only");
  if (!tensor.hasStaticShape())
    return c.error(what + " has dynamic shape " + typeStr(type) +
                   "; amp-run needs static shapes");
  TensorSpec spec;
  spec.shape.assign(tensor.getShape().begin(), tensor.getShape().end());
  mlir::Type elem = tensor.getElementType();
  StringRef expected = "f32";
  if (role == Role::GoodSteps)
    expected = "i32";
  else if (role == Role::StepOk)
    expected = "i1";
  else if (role == Role::ParamCopy)
    expected = "bf16 or f16";
  // An update has the type of the argument it replaces (checked there).
  bool low = role == Role::ParamCopy || role == Role::Update;
  if (elem.isBF16() && low)
    spec.elem = ElemKind::BF16;
  else if (elem.isF16() && low)
    spec.elem = ElemKind::F16;
  else if (elem.isF32() && expected == "f32")
    spec.elem = ElemKind::F32;
  else if (elem.isSignlessInteger(32) && expected == "i32")
    spec.elem = ElemKind::I32;
  else if (elem.isSignlessInteger(1) && expected == "i1")
    spec.elem = ElemKind::I1;
  else
    return c.error(what + " (" + roleName(role) + ") has element type " +
                   typeStr(elem) + "; expected " + expected +
                   " (docs/training-step.md)");
  return spec;
}

static llvm::Error checkScalar(const Checker &c, const TensorSpec &spec,
                               const llvm::Twine &what, Role role) {
  if (spec.numElements() != 1)
    return c.error(what + " (" + roleName(role) + ") has type " + spec.str() +
                   "; expected a single element, e.g. tensor<" +
                   elemName(spec.elem) + ">");
  return llvm::Error::success();
}

/// Reads `amp.role` of argument or result `index` (dictionary `attrs`).
static llvm::Expected<Role> roleOf(const Checker &c, mlir::DictionaryAttr attrs,
                                   const llvm::Twine &what,
                                   StringRef expected) {
  mlir::Attribute attr = attrs ? attrs.get(kRoleAttr) : mlir::Attribute();
  if (!attr)
    return c.error(what + " has no amp.role attribute (expected one of " +
                   expected + "; see docs/training-step.md)");
  auto str = llvm::dyn_cast<mlir::StringAttr>(attr);
  if (!str) {
    std::string text;
    llvm::raw_string_ostream os(text);
    os << attr;
    return c.error(what + ": amp.role must be a string, got " + text);
  }
  std::optional<Role> role = parseRole(str.getValue());
  if (!role)
    return c.error(what + " has unknown amp.role \"" + str.getValue() +
                   "\" (expected one of " + expected + ")");
  return *role;
}

static llvm::Error setUnique(const Checker &c, int64_t &slot, int64_t index,
                             const llvm::Twine &kind, Role role) {
  if (slot >= 0)
    return c.error(kind + " " + llvm::Twine(index) + " and " +
                   llvm::Twine(slot) + " both have amp.role \"" +
                   roleName(role) + "\"; expected one");
  slot = index;
  return llvm::Error::success();
}

bool amp::run::hasResultRole(mlir::func::FuncOp fn, StringRef role) {
  for (unsigned i = 0, e = fn.getNumResults(); i < e; ++i)
    if (auto s = fn.getResultAttrOfType<mlir::StringAttr>(i, kRoleAttr))
      if (s.getValue() == role)
        return true;
  return false;
}

/// Checks the parts common to step and eval functions.
static llvm::Error checkDefinition(const Checker &c, mlir::func::FuncOp fn) {
  if (fn.isExternal())
    return c.error("is only a declaration; amp-run needs its body");
  return llvm::Error::success();
}

/// The argument that update result `what` (attributes `attrs`) replaces: its
/// `amp.updates` index, which must name a param, a param_copy or an
/// opt_state.
static llvm::Expected<int64_t> updateTarget(const Checker &c,
                                            mlir::DictionaryAttr attrs,
                                            const std::string &what,
                                            const Signature &sig) {
  auto idx =
      attrs ? llvm::dyn_cast_or_null<mlir::IntegerAttr>(attrs.get(kUpdatesAttr))
            : mlir::IntegerAttr();
  if (!idx)
    return c.error(what + " (update) needs an integer amp.updates = "
                          "<argument index> attribute");
  int64_t target = idx.getValue().getSExtValue();
  if (target < 0 || target >= static_cast<int64_t>(sig.args.size()))
    return c.error(what + ": amp.updates = " + llvm::Twine(target) +
                   " is not an argument index (the function has " +
                   llvm::Twine(sig.args.size()) + " arguments)");
  Role targetRole = sig.args[target].role;
  if (targetRole != Role::Param && targetRole != Role::ParamCopy &&
      targetRole != Role::OptState)
    return c.error(what + ": amp.updates = " + llvm::Twine(target) +
                   " names argument " + llvm::Twine(target) +
                   " whose role is \"" + roleName(targetRole) +
                   "\"; updates replace a param, a param_copy or an "
                   "opt_state");
  return target;
}

/// Checks that result `i` (`what`, of type `spec`) that replaces an argument
/// has its type and is the only one replacing it.
static llvm::Error checkReplacement(const Checker &c, const Signature &sig,
                                    unsigned i, const std::string &what,
                                    const TensorSpec &spec, int64_t target,
                                    llvm::SmallVectorImpl<int64_t> &updatedBy) {
  const TensorSpec &argSpec = sig.args[target].spec;
  if (!(argSpec == spec))
    return c.error(what + " has type " + spec.str() +
                   " but replaces argument " + llvm::Twine(target) +
                   " of type " + argSpec.str());
  if (updatedBy[target] >= 0)
    return c.error("results " + llvm::Twine(updatedBy[target]) + " and " +
                   llvm::Twine(i) + " both replace argument " +
                   llvm::Twine(target));
  updatedBy[target] = i;
  return llvm::Error::success();
}

/// The param that `param_copy` argument `i` is the rounding of: its
/// `amp.copy_of` index (the dialect verified that it names an f32 tensor of
/// the same shape), which must name a param.
static llvm::Expected<int64_t> copySource(const Checker &c,
                                          mlir::func::FuncOp fn, unsigned i,
                                          const Signature &sig) {
  auto idx = fn.getArgAttrOfType<mlir::IntegerAttr>(i, kCopyOfAttr);
  std::string what = ("argument " + llvm::Twine(i) + " (param_copy)").str();
  if (!idx)
    return c.error(what + " needs an integer amp.copy_of = <argument "
                          "index> attribute");
  int64_t source = idx.getValue().getSExtValue();
  if (source < 0 || source >= static_cast<int64_t>(sig.args.size()) ||
      sig.args[source].role != Role::Param ||
      sig.args[source].spec.shape != sig.args[i].spec.shape)
    return c.error(what + ": amp.copy_of = " + llvm::Twine(source) +
                   " must name a param of the same shape");
  return source;
}

/// The arguments of step `fn`: their roles and types, into `sig`.
static llvm::Error analyzeStepArguments(const Checker &c, mlir::func::FuncOp fn,
                                        Signature &sig) {
  StringRef argRoles =
      "input, label, param, param_copy, opt_state, loss_scale, good_steps";
  for (unsigned i = 0, e = fn.getNumArguments(); i < e; ++i) {
    std::string what = ("argument " + llvm::Twine(i)).str();
    auto role = roleOf(c, fn.getArgAttrDict(i), what, argRoles);
    if (!role)
      return role.takeError();
    if (*role == Role::Loss || *role == Role::Update || *role == Role::StepOk ||
        *role == Role::Grad || *role == Role::Logits)
      return c.error(what + " has amp.role \"" + roleName(*role) +
                     "\", a result role (arguments: " + argRoles + ")");
    auto spec = specOf(c, fn.getArgumentTypes()[i], what, *role);
    if (!spec)
      return spec.takeError();
    switch (*role) {
    case Role::Input:
      if (auto err = setUnique(c, sig.input, i, "arguments", *role))
        return err;
      if (spec->shape.size() < 2)
        return c.error(what + " (input) has type " + spec->str() +
                       "; expected a batch: rank >= 2, batch first");
      break;
    case Role::Label:
      if (auto err = setUnique(c, sig.label, i, "arguments", *role))
        return err;
      if (spec->shape.size() != 2)
        return c.error(what + " (label) has type " + spec->str() +
                       "; expected one-hot labels tensor<BATCHxCLASSESxf32>");
      break;
    case Role::Param:
      sig.params.push_back(i);
      break;
    case Role::ParamCopy:
      sig.paramCopies.push_back(i);
      break;
    case Role::OptState:
      break;
    case Role::LossScale:
      if (auto err = setUnique(c, sig.lossScaleArg, i, "arguments", *role))
        return err;
      if (auto err = checkScalar(c, *spec, what, *role))
        return err;
      break;
    case Role::GoodSteps:
      if (auto err = setUnique(c, sig.goodStepsArg, i, "arguments", *role))
        return err;
      if (auto err = checkScalar(c, *spec, what, *role))
        return err;
      break;
    default:
      llvm_unreachable("result roles rejected above");
    }
    sig.args.push_back({*role, std::move(*spec), -1});
  }
  for (int64_t i : sig.paramCopies) {
    auto source = copySource(c, fn, i, sig);
    if (!source)
      return source.takeError();
    sig.args[i].target = *source;
  }
  if (sig.input < 0)
    return c.error("no argument has amp.role \"input\"");
  if (sig.label < 0)
    return c.error("no argument has amp.role \"label\"");
  const TensorSpec &input = sig.args[sig.input].spec;
  const TensorSpec &label = sig.args[sig.label].spec;
  if (input.shape[0] != label.shape[0])
    return c.error("the input " + input.str() + " and the label " +
                   label.str() + " have different batch sizes");

  return llvm::Error::success();
}

/// Checks result `i` of role `role` against the roles seen so far and
/// returns the argument it replaces (-1: none).
static llvm::Expected<int64_t>
placeResult(const Checker &c, mlir::func::FuncOp fn, unsigned i,
            const std::string &what, Role role, const TensorSpec &spec,
            Signature &sig, int64_t &goodStepsResult) {
  switch (role) {
  case Role::Loss:
    if (auto err = setUnique(c, sig.loss, i, "results", role))
      return err;
    if (auto err = checkScalar(c, spec, what, role))
      return err;
    break;
  case Role::StepOk:
    if (auto err = setUnique(c, sig.stepOk, i, "results", role))
      return err;
    if (auto err = checkScalar(c, spec, what, role))
      return err;
    break;
  case Role::Grad:
    sig.grads.push_back(i);
    break;
  case Role::LossScale:
    if (auto err = setUnique(c, sig.lossScaleResult, i, "results", role))
      return err;
    if (sig.lossScaleArg < 0)
      return c.error(what + " (loss_scale) has no loss_scale argument to "
                            "replace");
    return sig.lossScaleArg;
  case Role::GoodSteps:
    if (auto err = setUnique(c, goodStepsResult, i, "results", role))
      return err;
    if (sig.goodStepsArg < 0)
      return c.error(what + " (good_steps) has no good_steps argument to "
                            "replace");
    return sig.goodStepsArg;
  case Role::Update:
    return updateTarget(c, fn.getResultAttrDict(i), what, sig);
  default:
    llvm_unreachable("other roles rejected above");
  }
  return -1;
}

/// The results of step `fn`: their roles, types and the arguments they
/// replace, into `sig`.
static llvm::Error analyzeStepResults(const Checker &c, mlir::func::FuncOp fn,
                                      Signature &sig) {
  StringRef resultRoles = "loss, update, loss_scale, good_steps, step_ok, grad";
  llvm::SmallVector<int64_t, 8> updatedBy(sig.args.size(), -1);
  int64_t goodStepsResult = -1;
  for (unsigned i = 0, e = fn.getNumResults(); i < e; ++i) {
    std::string what = ("result " + llvm::Twine(i)).str();
    auto role = roleOf(c, fn.getResultAttrDict(i), what, resultRoles);
    if (!role)
      return role.takeError();
    if (*role == Role::Input || *role == Role::Label || *role == Role::Param ||
        *role == Role::ParamCopy || *role == Role::OptState ||
        *role == Role::Logits)
      return c.error(what + " has amp.role \"" + roleName(*role) + "\", " +
                     (*role == Role::Logits ? "the result role of an eval "
                                              "function"
                                            : "an argument role") +
                     " (step results: " + resultRoles + ")");
    auto spec = specOf(c, fn.getResultTypes()[i], what, *role);
    if (!spec)
      return spec.takeError();
    auto target =
        placeResult(c, fn, i, what, *role, *spec, sig, goodStepsResult);
    if (!target)
      return target.takeError();
    RoleValue value{*role, *spec, *target};
    if (value.target >= 0)
      if (auto err =
              checkReplacement(c, sig, i, what, *spec, value.target, updatedBy))
        return err;
    sig.results.push_back(std::move(value));
  }
  if (sig.loss < 0)
    return c.error("no result has amp.role \"loss\"");
  // A copy that a step does not renew while it updates its param would
  // hand the next step a stale rounding.
  for (int64_t copy : sig.paramCopies) {
    int64_t param = sig.args[copy].target;
    if (updatedBy[param] >= 0 && updatedBy[copy] < 0)
      return c.error("argument " + llvm::Twine(copy) +
                     " (param_copy) is the rounding of param " +
                     llvm::Twine(param) + ", which result " +
                     llvm::Twine(updatedBy[param]) +
                     " updates, but no result updates the copy");
  }
  return llvm::Error::success();
}

llvm::Expected<Signature> amp::run::analyzeStep(mlir::func::FuncOp fn) {
  Checker c{fn.getSymName().str()};
  if (auto err = checkDefinition(c, fn))
    return std::move(err);
  Signature sig;
  sig.name = c.fnName;
  if (auto err = analyzeStepArguments(c, fn, sig))
    return std::move(err);
  if (auto err = analyzeStepResults(c, fn, sig))
    return std::move(err);
  return sig;
}

llvm::Expected<Signature> amp::run::analyzeEval(mlir::func::FuncOp fn,
                                                const Signature &step) {
  Checker c{fn.getSymName().str()};
  if (auto err = checkDefinition(c, fn))
    return std::move(err);
  Signature sig;
  sig.name = c.fnName;
  for (unsigned i = 0, e = fn.getNumArguments(); i < e; ++i) {
    std::string what = ("argument " + llvm::Twine(i)).str();
    auto role = roleOf(c, fn.getArgAttrDict(i), what, "input, param");
    if (!role)
      return role.takeError();
    if (*role != Role::Input && *role != Role::Param)
      return c.error(what + " has amp.role \"" + roleName(*role) +
                     "\"; eval function arguments are input or param");
    auto spec = specOf(c, fn.getArgumentTypes()[i], what, *role);
    if (!spec)
      return spec.takeError();
    if (*role == Role::Input) {
      if (auto err = setUnique(c, sig.input, i, "arguments", *role))
        return std::move(err);
      const TensorSpec &stepInput = step.args[step.input].spec;
      if (spec->shape.size() != stepInput.shape.size() ||
          !llvm::equal(llvm::ArrayRef(spec->shape).drop_front(),
                       llvm::ArrayRef(stepInput.shape).drop_front()))
        return c.error(what + " (input) has type " + spec->str() +
                       ", which does not match the samples of @" + step.name +
                       "'s input " + stepInput.str() +
                       " (only the batch size may differ)");
    } else {
      size_t k = sig.params.size();
      if (k >= step.params.size())
        return c.error("has more params than @" + step.name + " (" +
                       llvm::Twine(step.params.size()) + ")");
      const TensorSpec &stepParam = step.args[step.params[k]].spec;
      if (!(*spec == stepParam))
        return c.error(what + " (param " + llvm::Twine(k) + ") has type " +
                       spec->str() + " but param " + llvm::Twine(k) + " of @" +
                       step.name + " (argument " + llvm::Twine(step.params[k]) +
                       ") has type " + stepParam.str());
      sig.params.push_back(i);
    }
    sig.args.push_back({*role, std::move(*spec), -1});
  }
  if (sig.input < 0)
    return c.error("no argument has amp.role \"input\"");
  if (sig.params.size() != step.params.size())
    return c.error("has " + llvm::Twine(sig.params.size()) + " params but @" +
                   step.name + " has " + llvm::Twine(step.params.size()) +
                   " (they are matched in order)");
  if (fn.getNumResults() != 1)
    return c.error("has " + llvm::Twine(fn.getNumResults()) +
                   " results; an eval function returns only the logits");
  auto role = roleOf(c, fn.getResultAttrDict(0), "result 0", "logits");
  if (!role)
    return role.takeError();
  if (*role != Role::Logits)
    return c.error("result 0 has amp.role \"" + roleName(*role) +
                   "\"; an eval function returns \"logits\"");
  auto spec = specOf(c, fn.getResultTypes()[0], "result 0", *role);
  if (!spec)
    return spec.takeError();
  const TensorSpec &label = step.args[step.label].spec;
  int64_t batch = sig.args[sig.input].spec.shape[0];
  if (spec->shape.size() != 2 || spec->shape[0] != batch ||
      spec->shape[1] != label.shape[1])
    return c.error(
        "result 0 (logits) has type " + spec->str() + "; expected tensor<" +
        llvm::Twine(batch) + "x" + llvm::Twine(label.shape[1]) +
        "xf32> (eval batch x the classes of @" + step.name + "'s label)");
  sig.logits = 0;
  sig.results.push_back({*role, std::move(*spec), -1});
  return sig;
}

void amp::run::writeSignature(const Signature &sig, llvm::raw_ostream &os) {
  auto write = [&](StringRef kind, size_t i, const RoleValue &v) {
    os << kind << " " << i << " " << roleName(v.role) << " "
       << elemName(v.spec.elem) << " ";
    if (v.spec.shape.empty())
      os << "-";
    llvm::interleave(v.spec.shape, os, "x");
    os << " " << v.target << "\n";
  };
  os << "step " << sig.name << "\n";
  for (auto [i, v] : llvm::enumerate(sig.args))
    write("arg", i, v);
  for (auto [i, v] : llvm::enumerate(sig.results))
    write("result", i, v);
}
