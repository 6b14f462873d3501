// Bug found by the fuzzer (tools/amp-fuzz, seed 30005723 with its batch's
// configuration; shrunk): amp-auto-mixed-precision without its own
// cleanup, then amp-optimize-casts, was not idempotent. The cleanup moves
// the f32 extension of a bf16 value into the body of the linalg.reduce that
// reads it; on the second run the reduce had a bf16 input that the cast
// economy no longer counted, and the painting made its allow-listed init
// fill, and so its accumulator, f16. The economy now costs an extension of
// a 16-bit value as what it becomes after the cleanup (2 bytes read, no
// cast), so both runs decide alike.
//
// RUN: amp-opt %s --amp-auto-mixed-precision='mode=f16 allow-add=linalg.fill clear-remove=linalg.fill' --amp-optimize-casts -o %t.1.mlir
// RUN: amp-opt %t.1.mlir --amp-auto-mixed-precision='mode=f16 allow-add=linalg.fill clear-remove=linalg.fill' --amp-optimize-casts -o %t.2.mlir
// RUN: diff %t.1.mlir %t.2.mlir

func.func @f0() -> tensor<1xf32> {
  %v23 = arith.constant dense<0.5> : tensor<28x1xbf16>
  %v24 = math.tanh %v23 : tensor<28x1xbf16>
  %v25 = arith.extf %v24 : tensor<28x1xbf16> to tensor<28x1xf32>
  %v28 = tensor.empty() : tensor<1xf32>
  %s29 = arith.constant 0.0 : f32
  %v30 = linalg.fill ins(%s29 : f32) outs(%v28 : tensor<1xf32>) -> tensor<1xf32>
  %v31 = linalg.reduce ins(%v25 : tensor<28x1xf32>) outs(%v30 : tensor<1xf32>) dimensions = [0]
    (%b32: f32, %b33: f32) {
      %x34 = arith.maximumf %b32, %b33 : f32
      linalg.yield %x34 : f32
    }
  %v35 = arith.constant dense<0.5> : tensor<1xf32>
  %v42 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%v31, %v31 : tensor<1xf32>, tensor<1xf32>) outs(%v35 : tensor<1xf32>) {
  ^bb0(%b36: f32, %b37: f32, %b38: f32):
    %x39 = arith.addf %b36, %b37 : f32
    %x40 = math.tanh %x39 : f32
    %x41 = arith.addf %x39, %b37 : f32
    linalg.yield %x41 : f32
  } -> tensor<1xf32>
  %v50 = arith.constant dense<0.5> : tensor<1xf32>
  %v59 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%v42, %v42 : tensor<1xf32>, tensor<1xf32>) outs(%v50 : tensor<1xf32>) {
  ^bb0(%b51: f32, %b52: f32, %b53: f32):
    %x55 = arith.negf %b52 : f32
    %x56 = math.exp %x55 : f32
    %x57 = arith.constant 1.0 : f32
    %x58 = arith.addf %x57, %x56 : f32
    %x54 = arith.divf %x57, %x58 : f32
    linalg.yield %x54 : f32
  } -> tensor<1xf32>
  return %v59 : tensor<1xf32>
}

// The decision itself: the max reduction (clear) next to the low fill runs
// low on both runs, reading the 16-bit input in its body.
// RUN: FileCheck %s --input-file=%t.2.mlir
// CHECK: linalg.fill ins(%{{.*}} : f16) outs(%{{.*}} : tensor<1xf16>)
// CHECK: linalg.reduce ins(%{{.*}} : tensor<28x1xf16>) outs(%{{.*}} : tensor<1xf16>)
