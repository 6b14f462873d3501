// RUN: amp-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(amp-update-state-in-place))' | FileCheck %s

// amp-update-state-in-place: a result with amp.updates = N computed by an
// all-parallel generic that does not read that result's init gets argument
// N as its init; the generic's reads of the argument become reads of the
// init (upstream's erase-unnecessary-inputs patterns), and the argument is
// marked donated and writable.

#id = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @momentum
// CHECK-SAME: %[[W:[a-z0-9]+]]: tensor<64x32xf32> {amp.donated, amp.role = "param", bufferization.writable = true}
// CHECK-SAME: %[[G:[a-z0-9]+]]: tensor<64x32xf32> {amp.role = "grad"}
// CHECK-SAME: %[[M:[a-z0-9]+]]: tensor<64x32xf32> {amp.donated, amp.role = "opt_state", bufferization.writable = true}
func.func @momentum(%w: tensor<64x32xf32> {amp.role = "param"},
                    %g: tensor<64x32xf32> {amp.role = "grad"},
                    %m: tensor<64x32xf32> {amp.role = "opt_state"})
    -> (tensor<64x32xf32> {amp.role = "update", amp.updates = 0 : i64},
        tensor<64x32xf32> {amp.role = "update", amp.updates = 2 : i64}) {
  %mu = arith.constant 0.9 : f32
  %lr = arith.constant 0.01 : f32
  %e0 = tensor.empty() : tensor<64x32xf32>
  %e1 = tensor.empty() : tensor<64x32xf32>
  // CHECK: %[[U:.+]]:2 = linalg.generic
  // CHECK-SAME: ins(%[[G]] : tensor<64x32xf32>) outs(%[[M]], %[[W]] : tensor<64x32xf32>, tensor<64x32xf32>)
  // CHECK-NEXT: ^bb0(%[[GI:.+]]: f32, %[[MO:.+]]: f32, %[[WO:.+]]: f32):
  // CHECK-NEXT:   %[[MM:.+]] = arith.mulf %[[MO]]
  // CHECK-NEXT:   %[[NM:.+]] = arith.addf %[[MM]], %[[GI]]
  // CHECK-NEXT:   %[[ST:.+]] = arith.mulf %[[NM]]
  // CHECK-NEXT:   %[[NW:.+]] = arith.subf %[[WO]], %[[ST]]
  // CHECK-NEXT:   linalg.yield %[[NM]], %[[NW]]
  %u:2 = linalg.generic {indexing_maps = [#id, #id, #id, #id, #id],
                         iterator_types = ["parallel", "parallel"]}
      ins(%w, %m, %g : tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>)
      outs(%e0, %e1 : tensor<64x32xf32>, tensor<64x32xf32>) {
  ^bb0(%wi: f32, %mi: f32, %gi: f32, %o0: f32, %o1: f32):
    %a = arith.mulf %mi, %mu : f32
    %nm = arith.addf %a, %gi : f32
    %s = arith.mulf %nm, %lr : f32
    %nw = arith.subf %wi, %s : f32
    linalg.yield %nm, %nw : f32, f32
  } -> (tensor<64x32xf32>, tensor<64x32xf32>)
  // CHECK: return %[[U]]#1, %[[U]]#0
  return %u#1, %u#0 : tensor<64x32xf32>, tensor<64x32xf32>
}

// -----

// A read of the old value after the update (here the returned sum): the
// argument stays read-only and the update keeps its fresh buffer.
#id = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @read_after
// CHECK-NOT: amp.donated
// CHECK: outs(%{{.+}} : tensor<16xf32>)
// CHECK-NOT: outs(%arg0
func.func @read_after(%w: tensor<16xf32>, %g: tensor<16xf32>)
    -> (tensor<16xf32> {amp.updates = 0 : i64}, tensor<16xf32>) {
  %e = tensor.empty() : tensor<16xf32>
  %u = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%w, %g : tensor<16xf32>, tensor<16xf32>) outs(%e : tensor<16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.subf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<16xf32>
  %e2 = tensor.empty() : tensor<16xf32>
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%w, %u : tensor<16xf32>, tensor<16xf32>) outs(%e2 : tensor<16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<16xf32>
  return %u, %r : tensor<16xf32>, tensor<16xf32>
}

// -----

// The update reads the argument at another element (a transpose): writing
// in place would clobber elements still to be read.
// CHECK-LABEL: func.func @transposed_read
// CHECK-NOT: amp.donated
// CHECK: outs(%{{.+}} : tensor<8x8xf32>)
func.func @transposed_read(%w: tensor<8x8xf32>)
    -> (tensor<8x8xf32> {amp.updates = 0 : i64}) {
  %e = tensor.empty() : tensor<8x8xf32>
  %u = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>,
                                        affine_map<(d0, d1) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%w : tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<8x8xf32>
  return %u : tensor<8x8xf32>
}

// -----

// The init is read by the payload (an accumulation into %acc), so it is
// not free to replace; a reduction is not elementwise either.
#id = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @init_read
// CHECK-NOT: amp.donated
// CHECK: ins(%arg0, %arg1 : tensor<16xf32>, tensor<16xf32>) outs(%arg2 : tensor<16xf32>)
func.func @init_read(%w: tensor<16xf32>, %g: tensor<16xf32>, %acc: tensor<16xf32>)
    -> (tensor<16xf32> {amp.updates = 0 : i64}) {
  %u = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%w, %g : tensor<16xf32>, tensor<16xf32>) outs(%acc : tensor<16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.subf %a, %b : f32
    %t = arith.addf %s, %o : f32
    linalg.yield %t : f32
  } -> tensor<16xf32>
  return %u : tensor<16xf32>
}

// -----

// Not a generic (the param is returned as it is), a result without
// amp.updates, and amp.updates naming an argument of another type: all
// left alone.
#id = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @others
// CHECK-NOT: amp.donated
// CHECK: return %arg0, %[[X:.+]], %[[Y:.+]] :
func.func @others(%w: tensor<16xf32>, %v: tensor<16xf32>, %h: tensor<8xf32>)
    -> (tensor<16xf32> {amp.updates = 0 : i64}, tensor<16xf32>,
        tensor<16xf32> {amp.updates = 2 : i64}) {
  %e = tensor.empty() : tensor<16xf32>
  %u = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%v : tensor<16xf32>) outs(%e : tensor<16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.negf %a : f32
    linalg.yield %s : f32
  } -> tensor<16xf32>
  %e2 = tensor.empty() : tensor<16xf32>
  %x = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%v : tensor<16xf32>) outs(%e2 : tensor<16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %a : f32
    linalg.yield %s : f32
  } -> tensor<16xf32>
  return %w, %u, %x : tensor<16xf32>, tensor<16xf32>, tensor<16xf32>
}
