// The example policy files (examples/policies/, used by
// scripts/frontend-reports.sh and docs/frontends.md) load, and move their op
// from the deny list to the infer list.
// RUN: amp-opt %s --amp-auto-mixed-precision='policy=%amp_src/examples/policies/sigmoid-exp.yaml print-policy=true' -o /dev/null 2>&1 | FileCheck %s
// RUN: amp-opt %s --amp-auto-mixed-precision='policy=%amp_src/examples/policies/gelu-tanh.yaml print-policy=true' -o /dev/null 2>&1 | FileCheck %s --check-prefix=GELU

// CHECK: infer:
// CHECK: - "math.exp"
// CHECK: deny:
// CHECK-NOT: "math.exp"
// CHECK: - "math.fpowi"

// GELU: infer:
// GELU: - "math.fpowi"
// GELU: deny:
// GELU-NOT: "math.fpowi"

func.func @f() {
  return
}
