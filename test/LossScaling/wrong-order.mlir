// amp-loss-scaling must run after amp-auto-mixed-precision (issue 13): run
// first, its loss scale (65536 by default, an infinity in f16) would flow
// into ops the painting makes low. The AMP pass then fails with an error at
// the first such op, instead of silently truncating the scale.
// RUN: amp-opt %S/Inputs/linear-step.mlir --amp-loss-scaling | not amp-opt --amp-auto-mixed-precision 2>&1 | FileCheck %s
// CHECK: error: amp-auto-mixed-precision: this op would run in low precision on the loss scale of amp-loss-scaling's output (the scale must stay f32: 65536 is an infinity in f16); run amp-loss-scaling after amp-auto-mixed-precision (as --amp does)
// CHECK: note: the loss scale
// CHECK-NOT: see current operation
// A static scale is a constant out of f16's range: the painting keeps it and
// the ops it feeds f32, so that order is not silently wrong either.
// RUN: amp-opt %S/Inputs/linear-step.mlir --amp-loss-scaling=mode=static --amp-auto-mixed-precision | FileCheck %s --check-prefix=STATIC
// STATIC-NOT: arith.truncf %cst
// STATIC: arith.constant 6.553600e+04 : f32
// The right order, and --amp run on its own output, are fine.
// RUN: amp-opt %S/Inputs/linear-step.mlir --amp | amp-opt --amp -o /dev/null
// The scale stays f32 in bf16 mode too (the check is about the order).
// RUN: amp-opt %S/Inputs/linear-step.mlir --amp-loss-scaling | not amp-opt --amp-auto-mixed-precision=mode=bf16 2>&1 | FileCheck %s
