//===- Passes.td - amp-opt reporting passes ----------------*- tablegen -*-===//
//
// The passes that measure what amp-auto-mixed-precision did (docs/reports.md).
// Nothing in the core (Analysis, Transforms) depends on them.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_REPORTS_PASSES
#define AMP_REPORTS_PASSES

include "mlir/Pass/PassBase.td"

def ReportSnapshotPass : Pass<"amp-report-snapshot", "::mlir::ModuleOp"> {
  let summary = "Record the costs, casts and classes that amp-report-write "
                "compares";
  let description = [{
    Measures every `func.func` (ops by class and precision, casts and their
    bytes, contraction FLOPs, bytes of the values kept for the backward
    pass, roofline times on every GPU preset) and keeps the numbers in a
    module attribute `amp.report.<stage>` until `amp-report-write` compares them
    and removes them. Run it with `stage=input` before
    `amp-auto-mixed-precision{annotate=true}` and with `stage=rewritten`
    right after it; the `amp` pipeline does so when one of its `report`,
    `summary` or `dot` options is set:

    ```
    builtin.module(amp-report-snapshot{stage=input},
                   amp-auto-mixed-precision{annotate=true},
                   amp-report-snapshot{stage=rewritten}, amp-optimize-casts,
                   amp-report-write{report=out.json summary=true})
    ```

    The IR is otherwise unchanged.
  }];
  let options = [
    Option<"stage", "stage", "::mlir::amp::SnapshotStage",
           /*default=*/"::mlir::amp::SnapshotStage::Input",
           "input (before amp-auto-mixed-precision) or rewritten (right "
           "after it)">,
  ];
}

def ReportWritePass : Pass<"amp-report-write", "::mlir::ModuleOp"> {
  let summary = "Report what the AMP rewrite did: JSON, a table, a DOT graph";
  let description = [{
    Compares the module with the snapshots of `amp-report-snapshot` and
    writes, per function and in total: ops by class and by final precision,
    casts inserted by `amp-auto-mixed-precision` and removed by
    `amp-optimize-casts` with their bytes, the share of contraction FLOPs
    running in low precision, the bytes of values kept for the backward
    pass in f32 vs after the rewrite, and a roofline estimate of the step
    time on a GPU preset before vs after (docs/reports.md defines every
    number; docs/amp-report.schema.json the JSON).

    `dot` writes the dataflow graph as Graphviz DOT, ops filled by precision
    with the reason of their painting as tooltip.

    Removes the snapshots and the `amp.decision` attributes: the IR it
    leaves is the IR without reporting.
  }];
  let options = [
    Option<"reportFile", "report", "std::string", /*default=*/"\"\"",
           "Write the JSON report to this file ('-' for stdout)">,
    Option<"summary", "summary", "bool", /*default=*/"false",
           "Print the report as a table to stderr">,
    Option<"target", "target", "::mlir::amp::TargetOption",
           /*default=*/"::mlir::amp::TargetOption::H100",
           "GPU preset of the step-time estimate: v100, a100 or h100">,
    Option<"dotFile", "dot", "std::string", /*default=*/"\"\"",
           "Write the dataflow graph as Graphviz DOT to this file">,
    Option<"dotFunction", "dot-func", "std::string", /*default=*/"\"\"",
           "Only draw this function (default: every function)">,
  ];
}

#endif // AMP_REPORTS_PASSES
