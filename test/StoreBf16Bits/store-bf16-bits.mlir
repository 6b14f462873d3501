// amp-store-bf16-bits: stored bf16 values whose i16 bits are at hand (a
// bitcast from i16, a constant) are stored as those bits (LLVM scalarizes a
// stored <N x bfloat> on x86 without AVX512_BF16). Anything else is left
// alone.
// RUN: amp-opt %s --amp-store-bf16-bits | FileCheck %s

// CHECK-LABEL: llvm.func @rounded
// CHECK-SAME:    (%[[BITS:.*]]: vector<16xi16>, %[[P:.*]]: !llvm.ptr)
// CHECK-NOT:     llvm.bitcast
// CHECK:         llvm.store %[[BITS]], %[[P]] {alignment = 2 : i64} : vector<16xi16>, !llvm.ptr
// CHECK-NEXT:    llvm.return
llvm.func @rounded(%bits: vector<16xi16>, %p: !llvm.ptr) {
  %b = llvm.bitcast %bits : vector<16xi16> to vector<16xbf16>
  llvm.store %b, %p {alignment = 2 : i64} : vector<16xbf16>, !llvm.ptr
  llvm.return
}

// The bitcast has another use: it stays for that one.
// CHECK-LABEL: llvm.func @also_returned
// CHECK-SAME:    (%[[BITS:.*]]: vector<8xi16>, %[[P:.*]]: !llvm.ptr)
// CHECK:         %[[B:.*]] = llvm.bitcast %[[BITS]] : vector<8xi16> to vector<8xbf16>
// CHECK:         llvm.store %[[BITS]], %[[P]] : vector<8xi16>, !llvm.ptr
// CHECK:         llvm.return %[[B]]
llvm.func @also_returned(%bits: vector<8xi16>, %p: !llvm.ptr) -> vector<8xbf16> {
  %b = llvm.bitcast %bits : vector<8xi16> to vector<8xbf16>
  llvm.store %b, %p : vector<8xbf16>, !llvm.ptr
  llvm.return %b : vector<8xbf16>
}

// Scalars too (LLVM's loop vectorizer makes <N x bfloat> stores of them),
// and constants, scalar and vector, as their bits: -inf is 0xFF80 (-128),
// 1.0 0x3F80 (16256).
// CHECK-LABEL: llvm.func @scalars_and_constants
// CHECK-SAME:    (%[[S:.*]]: i16, %[[P:.*]]: !llvm.ptr)
// CHECK-NOT:     bf16
// CHECK:         llvm.store %[[S]], %[[P]] : i16, !llvm.ptr
// CHECK:         %[[NEG:.*]] = llvm.mlir.constant(-128 : i16) : i16
// CHECK-NEXT:    llvm.store %[[NEG]], %[[P]] : i16, !llvm.ptr
// CHECK:         %[[ONES:.*]] = llvm.mlir.constant(dense<16256> : vector<8xi16>) : vector<8xi16>
// CHECK-NEXT:    llvm.store %[[ONES]], %[[P]] : vector<8xi16>, !llvm.ptr
// CHECK-NOT:     bf16
// CHECK:         llvm.return
llvm.func @scalars_and_constants(%s: i16, %p: !llvm.ptr) {
  %y = llvm.bitcast %s : i16 to bf16
  llvm.store %y, %p : bf16, !llvm.ptr
  %inf = llvm.mlir.constant(0xFF80 : bf16) : bf16
  llvm.store %inf, %p : bf16, !llvm.ptr
  %one = llvm.mlir.constant(dense<1.0> : vector<8xbf16>) : vector<8xbf16>
  llvm.store %one, %p : vector<8xbf16>, !llvm.ptr
  llvm.return
}

// Left alone: an f16 vector (F16C stores it whole), a bf16 vector that is
// neither a bitcast nor a constant, a bitcast of a vector of other
// integers.
// CHECK-LABEL: llvm.func @others
// CHECK:         llvm.store %{{.*}} : vector<16xf16>, !llvm.ptr
// CHECK:         llvm.store %{{.*}} : vector<16xbf16>, !llvm.ptr
// CHECK:         llvm.store %{{.*}} : vector<8xbf16>, !llvm.ptr
llvm.func @others(%h: vector<16xi16>, %v: vector<16xbf16>, %w: vector<4xi32>,
                  %p: !llvm.ptr) {
  %f = llvm.bitcast %h : vector<16xi16> to vector<16xf16>
  llvm.store %f, %p : vector<16xf16>, !llvm.ptr
  llvm.store %v, %p : vector<16xbf16>, !llvm.ptr
  %x = llvm.bitcast %w : vector<4xi32> to vector<8xbf16>
  llvm.store %x, %p : vector<8xbf16>, !llvm.ptr
  llvm.return
}
