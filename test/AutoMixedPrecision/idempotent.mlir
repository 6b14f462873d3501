// The rewrite is idempotent (issue 13): a second run over its own output
// changes nothing, with or without the cast cleanup, for plain functions and
// for a training step (whose loss scale the second run leaves f32), and with
// the Tensor Core padding after it.
// RUN: amp-opt %s --amp -o %t.amp1
// RUN: amp-opt %t.amp1 --amp -o %t.amp2
// RUN: diff %t.amp1 %t.amp2
// RUN: amp-opt %s --amp-auto-mixed-precision -o %t.raw1
// RUN: amp-opt %t.raw1 --amp-auto-mixed-precision -o %t.raw2
// RUN: diff %t.raw1 %t.raw2
// RUN: amp-opt %s --amp='mode=bf16' --amp-pad-for-tensor-cores -o %t.pad1
// RUN: amp-opt %t.pad1 --amp='mode=bf16' --amp-pad-for-tensor-cores -o %t.pad2
// RUN: diff %t.pad1 %t.pad2
// RUN: amp-opt %S/../LossScaling/Inputs/linear-step.mlir --amp -o %t.step1
// RUN: amp-opt %t.step1 --amp -o %t.step2
// RUN: diff %t.step1 %t.step2
// And the output of the first run is what FileCheck expects of the second.
// RUN: amp-opt %s --amp | amp-opt --amp | FileCheck %s

// CHECK-LABEL: func.func @mlp
// CHECK:         linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<30x70xf16>, tensor<70x50xf16>) outs(%{{.*}} : tensor<30x50xf32>)
// CHECK:         scf.for
// CHECK:           linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<30x50xf16>, tensor<50x50xf16>) outs(%{{.*}} : tensor<30x50xf32>)
// CHECK:         math.exp %{{.*}} : tensor<30x50xf32>
func.func @mlp(%x: tensor<30x70xf32>, %w: tensor<70x50xf32>, %v: tensor<50x50xf32>) -> tensor<30x50xf32> {
  %zero = arith.constant 0.0 : f32
  %half = arith.constant dense<0.5> : tensor<30x50xf32>
  %e = tensor.empty() : tensor<30x50xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<30x50xf32>) -> tensor<30x50xf32>
  %h = linalg.matmul ins(%x, %w : tensor<30x70xf32>, tensor<70x50xf32>) outs(%acc : tensor<30x50xf32>) -> tensor<30x50xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %r = scf.for %i = %c0 to %c3 step %c1 iter_args(%cur = %h) -> (tensor<30x50xf32>) {
    %s = arith.mulf %cur, %half : tensor<30x50xf32>
    %m = linalg.matmul ins(%s, %v : tensor<30x50xf32>, tensor<50x50xf32>) outs(%acc : tensor<30x50xf32>) -> tensor<30x50xf32>
    scf.yield %m : tensor<30x50xf32>
  }
  %out = math.exp %r : tensor<30x50xf32>
  return %out : tensor<30x50xf32>
}
