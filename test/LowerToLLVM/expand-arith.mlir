// amp-expand-arith expands what convert-arith-to-llvm cannot lower (integer
// ceil / floor divisions) and leaves float min / max whole, so that they
// become llvm.intr.maximum / minimum and LLVM's vectorizer sees a max
// reduction. Upstream arith-expand turns them into compare / select.

// RUN: amp-opt %s --amp-expand-arith | FileCheck %s
// RUN: amp-opt %s --arith-expand | FileCheck %s --check-prefix=UPSTREAM
// RUN: amp-opt %s --amp-expand-arith --convert-arith-to-llvm \
// RUN:   | FileCheck %s --check-prefix=LLVM

// CHECK-LABEL: func.func @ops
// CHECK-NOT:     arith.ceildivsi
// CHECK-NOT:     arith.floordivsi
// CHECK:         arith.maximumf %{{.+}}, %{{.+}} : f32
// CHECK:         arith.minimumf %{{.+}}, %{{.+}} : f32
// CHECK:         arith.maxnumf %{{.+}}, %{{.+}} : f32
// UPSTREAM-LABEL: func.func @ops
// UPSTREAM-NOT:   arith.maximumf
// UPSTREAM:       arith.cmpf
// LLVM-LABEL:    func.func @ops
// LLVM:          llvm.intr.maximum
// LLVM:          llvm.intr.minimum
// LLVM:          llvm.intr.maxnum
// LLVM-NOT:      arith.
func.func @ops(%a: i32, %b: i32, %x: f32, %y: f32) -> (i32, i32, f32, f32, f32) {
  %c = arith.ceildivsi %a, %b : i32
  %f = arith.floordivsi %a, %b : i32
  %m = arith.maximumf %x, %y : f32
  %n = arith.minimumf %x, %y : f32
  %o = arith.maxnumf %x, %y : f32
  return %c, %f, %m, %n, %o : i32, i32, f32, f32, f32
}
