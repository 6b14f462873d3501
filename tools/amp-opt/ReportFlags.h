//===- ReportFlags.h - amp-opt's shorthands for report options --*- C++ -*-===//
//
// `amp-opt --amp --amp-report=r.json --amp-summary` is `amp-opt
// --amp='report=r.json summary=true'`: the shorthands --amp-report=<file>,
// --amp-summary, --amp-dot=<file>, --amp-dot-func=<name> and
// --amp-target=<gpu> become options of the --amp / --amp-explain flag
// before MLIR parses the command line.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_TOOLS_AMPOPT_REPORTFLAGS_H
#define AMP_TOOLS_AMPOPT_REPORTFLAGS_H

#include <string>
#include <vector>

namespace mlir::amp {

/// Moves the shorthands of `args` (argv, program name first) into the last
/// --amp / --amp-explain flag. Returns false with `error` set if a
/// shorthand lacks its value or there is no such flag.
bool expandReportShorthands(std::vector<std::string> &args, std::string &error);

} // namespace mlir::amp

#endif // AMP_TOOLS_AMPOPT_REPORTFLAGS_H
