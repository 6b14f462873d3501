//===- ReportFlags.cpp - amp-opt's shorthands for report options ----------===//

#include "ReportFlags.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/CommandLine.h"

#include <optional>

using llvm::StringRef;
using llvm::Twine;

// Never parsed (expandReportShorthands() removes them first): they only put
// the shorthands into --help.
static llvm::cl::OptionCategory shorthandCategory(
    "amp report shorthands (options of --amp / --amp-explain)");
static llvm::cl::opt<std::string>
    reportHelp("amp-report", llvm::cl::desc("--amp='report=<file>'"),
               llvm::cl::value_desc("file"), llvm::cl::cat(shorthandCategory));
static llvm::cl::opt<bool> summaryHelp("amp-summary",
                                       llvm::cl::desc("--amp='summary=true'"),
                                       llvm::cl::cat(shorthandCategory));
static llvm::cl::opt<std::string>
    targetHelp("amp-target", llvm::cl::desc("--amp='target=v100|a100|h100'"),
               llvm::cl::value_desc("gpu"), llvm::cl::cat(shorthandCategory));
static llvm::cl::opt<std::string> dotHelp("amp-dot",
                                          llvm::cl::desc("--amp='dot=<file>'"),
                                          llvm::cl::value_desc("file"),
                                          llvm::cl::cat(shorthandCategory));
static llvm::cl::opt<std::string>
    dotFuncHelp("amp-dot-func", llvm::cl::desc("--amp='dot-func=<name>'"),
                llvm::cl::value_desc("name"), llvm::cl::cat(shorthandCategory));

bool mlir::amp::expandReportShorthands(std::vector<std::string> &args,
                                       std::string &error) {
  std::vector<std::string> kept, options;
  std::optional<size_t> pipeline;
  bool positionalOnly = false;
  for (size_t i = 0; i < args.size(); ++i) {
    StringRef arg = args[i];
    StringRef flag = arg;
    if (i == 0 || positionalOnly ||
        !(flag.consume_front("--") || flag.consume_front("-"))) {
      kept.push_back(args[i]);
      continue;
    }
    if (flag.empty()) { // "--": the rest is positional
      positionalOnly = true;
      kept.push_back(args[i]);
      continue;
    }
    auto [name, value] = flag.split('=');
    bool hasValue = flag.contains('=');
    if (name == "amp" || name == "amp-explain") {
      pipeline = kept.size();
      kept.push_back(args[i]);
      continue;
    }
    StringRef option = llvm::StringSwitch<StringRef>(name)
                           .Case("amp-report", "report")
                           .Case("amp-dot", "dot")
                           .Case("amp-dot-func", "dot-func")
                           .Case("amp-target", "target")
                           .Case("amp-summary", "summary")
                           .Default("");
    if (option.empty()) {
      kept.push_back(args[i]);
      continue;
    }
    if (option == "summary") {
      if (hasValue && value != "true" && value != "false") {
        error = "--amp-summary takes no value, or true or false";
        return false;
      }
      options.push_back("summary=" + (hasValue ? value.str() : "true"));
      continue;
    }
    if (value.empty()) {
      StringRef placeholder = option == "target"     ? "v100|a100|h100"
                              : option == "dot-func" ? "function"
                                                     : "file";
      error = (Twine("--") + name + " needs a value: --" + name + "=<" +
               placeholder + ">")
                  .str();
      return false;
    }
    options.push_back((Twine(option) + "=" + value).str());
  }
  if (options.empty())
    return true;
  if (!pipeline) {
    error = "--amp-report, --amp-summary, --amp-dot, --amp-dot-func and "
            "--amp-target are options of the amp pipeline: add --amp (or "
            "--amp-explain), or write amp{report=<file> ...} in "
            "--pass-pipeline";
    return false;
  }
  std::string &flag = kept[*pipeline];
  flag += flag.find('=') == std::string::npos ? "=" : " ";
  for (size_t i = 0; i < options.size(); ++i)
    flag += (i ? " " : "") + options[i];
  args = std::move(kept);
  return true;
}
