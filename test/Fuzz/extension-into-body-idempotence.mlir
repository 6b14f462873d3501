// Bug found by the fuzzer (tools/amp-fuzz run --batch, seed 4058304,
// shrunk): a clear linalg.generic reads an f32 extension of a bf16
// argument. The first run painted the generic f32 (its operand is f32), and
// the cast cleanup then moved the extension into the generic's body; the
// second run saw the generic read the bf16 argument itself, painted it low,
// and with keep-public-signatures=false the function's result turned f16.
// Fixed: with the cast cleanup on, amp-auto-mixed-precision moves such
// extensions into the bodies before painting, so both runs paint the same
// program.
//
// RUN: amp-opt %s '--amp-auto-mixed-precision=mode=f16 deny-add=linalg.div infer-remove=linalg.div optimize-casts=true keep-public-signatures=false' -o %t.1.mlir
// RUN: amp-opt %t.1.mlir '--amp-auto-mixed-precision=mode=f16 deny-add=linalg.div infer-remove=linalg.div optimize-casts=true keep-public-signatures=false' -o %t.2.mlir
// RUN: diff %t.1.mlir %t.2.mlir
// RUN: FileCheck %s < %t.1.mlir
// The generic reads the bf16 argument directly and extends it in its body.
// CHECK-LABEL: func.func @h0
// CHECK-SAME:    (%[[A:.+]]: tensor<4x7xbf16>)
// CHECK-NOT:     arith.extf %[[A]]
// CHECK:         linalg.generic {{.*}} ins(%{{.+}}, %[[A]] : tensor<4x7x{{f16|f32}}>, tensor<4x7xbf16>)
// CHECK:         arith.extf %{{.+}} : bf16 to f32

module {
func.func @h0(%a68: tensor<4x7xbf16>) -> tensor<5x10xf32> {
  %v60 = arith.constant dense<0.5> : tensor<4x1xf32>
  %v61 = arith.constant dense<0.5> : tensor<1x7xf32>
  %v64 = arith.constant dense<0.5> : tensor<4x7xf32>
  %v65 = linalg.matmul ins(%v60, %v61 : tensor<4x1xf32>, tensor<1x7xf32>) outs(%v64 : tensor<4x7xf32>) -> tensor<4x7xf32>
  %v66 = tensor.cast %v65 : tensor<4x7xf32> to tensor<?x?xf32>
  %v67 = tensor.cast %v66 : tensor<?x?xf32> to tensor<4x7xf32>
  %v69 = arith.extf %a68 : tensor<4x7xbf16> to tensor<4x7xf32>
  %v70 = arith.constant dense<0.5> : tensor<4x7xf32>
  %v77 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%v67, %v69 : tensor<4x7xf32>, tensor<4x7xf32>) outs(%v70 : tensor<4x7xf32>) {
  ^bb0(%b71: f32, %b72: f32, %b73: f32):
    %x76 = arith.constant 0.0 : f32
    %x75 = arith.cmpf ogt, %b72, %x76 : f32
    %x74 = arith.select %x75, %b72, %b72 : f32
    linalg.yield %x74 : f32
  } -> tensor<4x7xf32>
  %s79 = arith.constant 0.0 : f32
  %v78 = tensor.pad %v77 low[0, 1] high[1, 2] {
  ^bb0(%i80: index, %i81: index):
    tensor.yield %s79 : f32
  } : tensor<4x7xf32> to tensor<5x10xf32>
  return %v78 : tensor<5x10xf32>
}
}
