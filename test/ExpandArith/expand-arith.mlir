// amp-expand-arith expands what convert-arith-to-llvm cannot lower (integer
// ceil / floor divisions) and leaves f32 / f64 float min / max whole, so that
// they become llvm.intr.maximum / minimum and LLVM's vectorizer sees a max
// reduction. Upstream arith-expand turns them into compare / select; so does
// amp-expand-arith on f16 / bf16, where x86 scalarizes the intrinsics.

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

// CHECK-LABEL: func.func @low
// CHECK-NOT:     arith.maximumf
// CHECK-NOT:     arith.minimumf
// CHECK:         arith.cmpf
// CHECK:         arith.maximumf %{{.+}}, %{{.+}} : vector<16xf32>
// LLVM-LABEL:    func.func @low
// LLVM-NOT:      llvm.intr.maximum{{.*}}bf16
// LLVM-NOT:      llvm.intr.minimum{{.*}}f16
// LLVM:          llvm.intr.maximum{{.*}}vector<16xf32>
func.func @low(%x: bf16, %y: bf16, %a: vector<8xf16>, %b: vector<8xf16>,
               %u: vector<16xf32>, %v: vector<16xf32>)
    -> (bf16, vector<8xf16>, vector<16xf32>) {
  %m = arith.maximumf %x, %y : bf16
  %n = arith.minimumf %a, %b : vector<8xf16>
  %w = arith.maximumf %u, %v : vector<16xf32>
  return %m, %n, %w : bf16, vector<8xf16>, vector<16xf32>
}

// include-bf16: f32 <-> bf16 conversions (scalar and vector) become integer
// ops as with upstream arith-expand{include-bf16}; without it they stay.
// RUN: amp-opt %s --amp-expand-arith=include-bf16 | FileCheck %s --check-prefix=BF16
// BF16-LABEL: func.func @conversions
// BF16-NOT:     arith.truncf
// BF16-NOT:     arith.extf
// BF16:         arith.bitcast %{{.+}} : f32 to i32
// BF16:         arith.shrui
// BF16:         arith.bitcast %{{.+}} : vector<16xf32> to vector<16xi32>
// BF16:         arith.addi %{{.+}} : vector<16xi32>
// BF16:         arith.trunci %{{.+}} : vector<16xi32> to vector<16xi16>
// CHECK-LABEL: func.func @conversions
// CHECK:         arith.truncf %{{.+}} : f32 to bf16
// CHECK:         arith.truncf %{{.+}} : vector<16xf32> to vector<16xbf16>
// CHECK:         arith.extf %{{.+}} : vector<16xbf16> to vector<16xf32>
func.func @conversions(%x: f32, %v: vector<16xf32>, %w: vector<16xbf16>)
    -> (bf16, vector<16xbf16>, vector<16xf32>) {
  %a = arith.truncf %x : f32 to bf16
  %b = arith.truncf %v : vector<16xf32> to vector<16xbf16>
  %c = arith.extf %w : vector<16xbf16> to vector<16xf32>
  return %a, %b, %c : bf16, vector<16xbf16>, vector<16xf32>
}

// include-bf16: the rounding of a value that is a bf16 value already (a max,
// min, negation, absolute value, select or sign copy of widened bf16 values
// and exact constants, as in a ReLU or a max-pool computed in f32) is the
// high half alone: no round-to-nearest-even, no NaN select. Anything else
// (here an add, or a max with an inexact constant) keeps the rounding.
// BF16-LABEL: func.func @exact_roundings
// BF16:         %[[MIN:.+]] = arith.minimumf
// BF16-NEXT:    %[[BITS:.+]] = arith.bitcast %[[MIN]] : vector<16xf32> to vector<16xi32>
// BF16-NOT:     arith.select
// BF16:         %[[HIGH:.+]] = arith.shrui %[[BITS]], %{{.+}} : vector<16xi32>
// BF16-NEXT:    arith.trunci %[[HIGH]] : vector<16xi32> to vector<16xi16>
// BF16-NOT:     arith.cmpf
// BF16:         %[[PICK:.+]] = arith.select %arg3
// BF16-NEXT:    %[[PBITS:.+]] = arith.bitcast %[[PICK]] : f32 to i32
// BF16-NOT:     arith.select
// BF16:         arith.shrui %[[PBITS]]
// BF16-NEXT:    arith.trunci
// BF16:         arith.cmpf une
// BF16:         arith.select
// BF16:         arith.cmpf une
// BF16:         arith.select
// BF16:         return
func.func @exact_roundings(%a: vector<16xbf16>, %b: vector<16xbf16>,
                           %s: bf16, %c: i1)
    -> (vector<16xbf16>, bf16, vector<16xbf16>, bf16) {
  %x = arith.extf %a : vector<16xbf16> to vector<16xf32>
  %y = arith.extf %b : vector<16xbf16> to vector<16xf32>
  %zero = arith.constant dense<0.0> : vector<16xf32>
  %relu = arith.maximumf %x, %zero : vector<16xf32>
  %pool = arith.minimumf %relu, %y : vector<16xf32>
  %m = arith.truncf %pool : vector<16xf32> to vector<16xbf16>
  %w = arith.extf %s : bf16 to f32
  %neg = arith.negf %w : f32
  %abs = math.absf %w : f32
  %pick = arith.select %c, %neg, %abs : f32
  %n = arith.truncf %pick : f32 to bf16
  %sum = arith.addf %x, %y : vector<16xf32>
  %r = arith.truncf %sum : vector<16xf32> to vector<16xbf16>
  %tenth = arith.constant 0.1 : f32
  %clip = arith.maximumf %w, %tenth : f32
  %q = arith.truncf %clip : f32 to bf16
  return %m, %n, %r, %q : vector<16xbf16>, bf16, vector<16xbf16>, bf16
}
