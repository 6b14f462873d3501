// Bug found by the fuzzer (tools/amp-fuzz, seed 2302915 with the
// configuration of its batch, 2302750; shrunk): amp-auto-mixed-precision
// without the cast cleanup was not idempotent. The first run paints the
// unused allow-listed linalg.sub low and truncates the f32 generic it reads;
// on the second run that sub has no f32 operand left, so it counted as dead,
// and so did the truncf and the generic before it. With the generic dead the
// loop-carried matvec result (%4 below) lost its only f32 reader and was
// painted low. Allow ops now count as live whatever their types.
//
// RUN: amp-opt %s --amp-auto-mixed-precision='mode=f16 allow-add=linalg.sub infer-remove=linalg.sub' -o %t.1.mlir
// RUN: amp-opt %t.1.mlir --amp-auto-mixed-precision='mode=f16 allow-add=linalg.sub infer-remove=linalg.sub' -o %t.2.mlir
// RUN: diff %t.1.mlir %t.2.mlir
// RUN: FileCheck %s --input-file %t.2.mlir
//
// CHECK: %[[MV:.*]] = linalg.matvec {{.*}} -> tensor<1xf32>
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[MV]]) -> (tensor<1xf32>)
// CHECK: linalg.sub {{.*}} -> tensor<1xf16>

func.func @f0(%a3: tensor<1x1xf32>, %a4: tensor<1xf32>, %a71: tensor<1xf32>) -> tensor<1xf32> {
  %v7 = arith.constant dense<0.5> : tensor<1xf32>
  %v8 = linalg.matvec ins(%a3, %a4 : tensor<1x1xf32>, tensor<1xf32>) outs(%v7 : tensor<1xf32>) -> tensor<1xf32>
  %c13 = arith.constant 0 : index
  %c14 = arith.constant 1 : index
  %c15 = arith.constant 1 : index
  %v24 = scf.for %i16 = %c13 to %c14 step %c15 iter_args(%acc17 = %v8) -> (tensor<1xf32>) {
    scf.yield %acc17 : tensor<1xf32>
  }
  %v27 = arith.constant dense<0.5> : tensor<1xf32>
  %v40 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%v24, %v24 : tensor<1xf32>, tensor<1xf32>) outs(%v27 : tensor<1xf32>) {
  ^bb0(%b28: f32, %b29: f32, %b30: f32):
    %x31 = arith.mulf %b30, %b28 : f32
    %x33 = arith.negf %b30 : f32
    %x34 = math.exp %x33 : f32
    %x35 = arith.constant 1.0 : f32
    %x36 = arith.addf %x35, %x34 : f32
    %x32 = arith.divf %x35, %x36 : f32
    %x37 = arith.mulf %b28, %b29 : f32
    %x39 = math.absf %x31 : f32
    %x38 = math.sqrt %x39 : f32
    linalg.yield %x38 : f32
  } -> tensor<1xf32>
  %c55 = arith.constant 0 : index
  %c56 = arith.constant 2 : index
  %c57 = arith.constant 1 : index
  %v79 = scf.for %i58 = %c55 to %c56 step %c57 iter_args(%acc59 = %a4) -> (tensor<1xf32>) {
    %v72 = arith.constant dense<0.5> : tensor<1xf32>
    %v73 = linalg.sub ins(%v40, %a71 : tensor<1xf32>, tensor<1xf32>) outs(%v72 : tensor<1xf32>) -> tensor<1xf32>
    scf.yield %acc59 : tensor<1xf32>
  }
  %c87 = arith.constant 0 : index
  %c88 = arith.constant 1 : index
  %c89 = arith.constant 1 : index
  %v95 = scf.for %i90 = %c87 to %c88 step %c89 iter_args(%acc91 = %v8) -> (tensor<1xf32>) {
    scf.yield %acc91 : tensor<1xf32>
  }
  return %v95 : tensor<1xf32>
}
