// Bug found by the fuzzer (tools/amp-fuzz run --batch, seed 2116420,
// shrunk with `amp-fuzz.py shrink`): plain `amp-opt --amp=mode=bf16` was not
// idempotent. The inner scf.if's else branch is dead (its result is never
// read); its linalg.generic reads the matmul result (unused in its body) and
// an f32 extension of an f16 argument, and follows its operands: f32. The
// cast cleanup then moved that extension into the generic's body, so on the
// second run the generic read the f16 argument directly, followed it low,
// and the matmul result got an arith.truncf to bf16.
// Fixed: with the cast cleanup on, amp-auto-mixed-precision first erases
// every side-effect-free tensor op nobody reads (here the whole dead
// scf.if), so both runs paint the same program.
//
// RUN: amp-opt %s --amp=mode=bf16 -o %t.1.mlir
// RUN: amp-opt %t.1.mlir --amp=mode=bf16 -o %t.2.mlir
// RUN: diff %t.1.mlir %t.2.mlir
// The dead scf.if and its generic are gone; the matmul result (read by the
// live branch) stays f32 and is never truncated.
// RUN: FileCheck %s < %t.2.mlir
// CHECK:     %[[MM:.+]] = linalg.matmul
// CHECK-NOT: arith.truncf %[[MM]]
// CHECK-NOT: linalg.generic
// CHECK:     return

func.func @f0(%a47: tensor<1x1xf32>, %a77: tensor<1xf16>) -> tensor<1x1xf32> {
  %v48 = arith.constant dense<0.5> : tensor<1x1xf32>
  %v51 = arith.constant dense<0.5> : tensor<1x1xf32>
  %v52 = linalg.matmul ins(%a47, %v48 : tensor<1x1xf32>, tensor<1x1xf32>) outs(%v51 : tensor<1x1xf32>) -> tensor<1x1xf32>
  %c53 = arith.constant 18 : index
  %c54 = arith.constant 3 : index
  %s55 = tensor.extract %v52[%c53, %c54] : tensor<1x1xf32>
  %s57 = arith.constant 0.5 : f32
  %s56 = arith.mulf %s55, %s57 : f32
  %v58 = tensor.empty() : tensor<1x1xf32>
  %v59 = linalg.fill ins(%s56 : f32) outs(%v58 : tensor<1x1xf32>) -> tensor<1x1xf32>
  %c60 = arith.constant 0 : index
  %s61 = tensor.extract %v59[%c60, %c60] : tensor<1x1xf32>
  %s62 = arith.constant 0.0 : f32
  %s63 = arith.cmpf ogt, %s61, %s62 : f32
  %v102 = scf.if %s63 -> (tensor<1x1xf32>) {
    %c66 = arith.constant 0 : index
    %s67 = tensor.extract %v51[%c66, %c66] : tensor<1x1xf32>
    %s68 = arith.constant 0.0 : f32
    %s69 = arith.cmpf ogt, %s67, %s68 : f32
    %v96 = scf.if %s69 -> (tensor<1x1xf32>) {
      scf.yield %v52 : tensor<1x1xf32>
    } else {
      %v78 = arith.extf %a77 : tensor<1xf16> to tensor<1xf32>
      %v79 = arith.constant dense<0.5> : tensor<1x1xf32>
      %v84 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%v52, %v78 : tensor<1x1xf32>, tensor<1xf32>) outs(%v79 : tensor<1x1xf32>) {
      ^bb0(%b80: f32, %b81: f32, %b82: f32):
        %x83 = arith.addf %b81, %b81 : f32
        linalg.yield %x83 : f32
      } -> tensor<1x1xf32>
      scf.yield %v84 : tensor<1x1xf32>
    }
    %v98 = arith.constant dense<0.5> : tensor<1x1xf32>
    scf.yield %v98 : tensor<1x1xf32>
  } else {
    %v101 = arith.constant dense<0.5> : tensor<1x1xf32>
    scf.yield %v101 : tensor<1x1xf32>
  }
  return %v102 : tensor<1x1xf32>
}
