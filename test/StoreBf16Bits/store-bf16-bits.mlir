// amp-store-bf16-bits: a stored bf16 vector that a bitcast made from an i16
// vector is stored as the i16 vector (LLVM scalarizes a stored <N x bfloat>
// on x86 without AVX512_BF16). Anything else is left alone.
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

// Left alone: an f16 vector (F16C stores it whole), a bf16 vector that is
// not a bitcast, a bitcast of a vector of other integers, a scalar.
// CHECK-LABEL: llvm.func @others
// CHECK:         llvm.store %{{.*}} : vector<16xf16>, !llvm.ptr
// CHECK:         llvm.store %{{.*}} : vector<16xbf16>, !llvm.ptr
// CHECK:         llvm.store %{{.*}} : vector<8xbf16>, !llvm.ptr
// CHECK:         llvm.store %{{.*}} : bf16, !llvm.ptr
llvm.func @others(%h: vector<16xi16>, %v: vector<16xbf16>, %w: vector<4xi32>,
                  %s: i16, %p: !llvm.ptr) {
  %f = llvm.bitcast %h : vector<16xi16> to vector<16xf16>
  llvm.store %f, %p : vector<16xf16>, !llvm.ptr
  llvm.store %v, %p : vector<16xbf16>, !llvm.ptr
  %x = llvm.bitcast %w : vector<4xi32> to vector<8xbf16>
  llvm.store %x, %p : vector<8xbf16>, !llvm.ptr
  %y = llvm.bitcast %s : i16 to bf16
  llvm.store %y, %p : bf16, !llvm.ptr
  llvm.return
}
