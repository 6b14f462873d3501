//===- EnumOption.h - Typed enum pass options --------------------*- C++
//-*-===//
//
// Pass options whose value is a C++ enum, declared in TableGen with the enum
// as the option's type (`Option<"mode", "mode", "::mlir::amp::AmpModeOption",
// ...>`), so a wrong value is rejected when the option string is parsed, not
// when the pass starts.
//
// Each enum lists its values once, in an EnumOptionValues<T> specialization;
// AMP_ENUM_OPTION(T) makes llvm::cl parse T from those names. The parser is
// ours rather than llvm::cl::parser<T> with cl::values because the generic
// one rejects a value with "Cannot find option named 'x'!", which names
// neither the option's values nor what was wrong; this one says
// "unknown mode 'x' (expected f16, bf16 or auto)". It keeps the shape of
// llvm::cl::parser<T> (a generic_parser_base with a `Values` table), which
// MLIR's pass options need to print a value back into a pipeline string.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_SUPPORT_ENUMOPTION_H
#define AMP_SUPPORT_ENUMOPTION_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/CommandLine.h"

#include <optional>
#include <string>

namespace mlir::amp {

/// One value of an enum option: the enum value, its name in option strings
/// and its line in --help.
template <typename T> struct EnumOptionValue {
  T value;
  const char *name;
  const char *help;
};

/// Specialized for each enum option type with a static `values` array, in
/// the order error messages list them.
template <typename T> struct EnumOptionValues;

template <typename T> ArrayRef<EnumOptionValue<T>> getEnumOptionValues() {
  return EnumOptionValues<T>::values;
}

/// The option-string name of `value`.
template <typename T> StringRef stringifyEnumOption(T value) {
  for (const EnumOptionValue<T> &entry : getEnumOptionValues<T>())
    if (entry.value == value)
      return entry.name;
  return "?";
}

/// The value named `name`, if any.
template <typename T> std::optional<T> symbolizeEnumOption(StringRef name) {
  for (const EnumOptionValue<T> &entry : getEnumOptionValues<T>())
    if (name == entry.name)
      return entry.value;
  return std::nullopt;
}

/// "a, b or c", for error messages.
template <typename T> std::string listEnumOption() {
  ArrayRef<EnumOptionValue<T>> values = getEnumOptionValues<T>();
  std::string list;
  for (auto [i, entry] : llvm::enumerate(values)) {
    if (i)
      list += i + 1 == values.size() ? " or " : ", ";
    list += entry.name;
  }
  return list;
}

/// llvm::cl's parser of an enum option (see the file comment).
template <typename T>
class EnumOptionParser : public llvm::cl::generic_parser_base {
protected:
  struct OptionInfo : public GenericOptionInfo {
    OptionInfo(StringRef name, T value, StringRef help)
        : GenericOptionInfo(name, help), V(value) {}
    llvm::cl::OptionValue<T> V;
  };
  // The name MLIR's GenericOptionParser reads to print a value.
  SmallVector<OptionInfo, 4> Values;

public:
  using parser_data_type = T;

  EnumOptionParser(llvm::cl::Option &owner) : generic_parser_base(owner) {}

  /// Called by the option once it is constructed.
  void initialize() {
    for (const EnumOptionValue<T> &entry : getEnumOptionValues<T>()) {
      Values.emplace_back(entry.name, entry.value, entry.help);
      AddLiteralOption(Owner, entry.name);
    }
  }

  unsigned getNumOptions() const override { return Values.size(); }
  StringRef getOption(unsigned n) const override { return Values[n].Name; }
  StringRef getDescription(unsigned n) const override {
    return Values[n].HelpStr;
  }
  const llvm::cl::GenericOptionValue &
  getOptionValue(unsigned n) const override {
    return Values[n].V;
  }

  /// Returns true on error, as llvm::cl parsers do.
  bool parse(llvm::cl::Option &option, StringRef, StringRef arg, T &value) {
    if (std::optional<T> parsed = symbolizeEnumOption<T>(arg)) {
      value = *parsed;
      return false;
    }
    return option.error("unknown " + option.ArgStr + " '" + arg +
                        "' (expected " + listEnumOption<T>() + ")");
  }
};

} // namespace mlir::amp

/// Makes llvm::cl (and so MLIR's pass options) parse the enum `T` by the
/// names of EnumOptionValues<T>. At global scope, after the specialization
/// of EnumOptionValues<T> and before any option of type T.
#define AMP_ENUM_OPTION(T)                                                     \
  template <>                                                                  \
  class llvm::cl::parser<T> : public ::mlir::amp::EnumOptionParser<T> {        \
  public:                                                                      \
    using ::mlir::amp::EnumOptionParser<T>::EnumOptionParser;                  \
  };

#endif // AMP_SUPPORT_ENUMOPTION_H
