// The painting visits every function, whatever dialect defines it (any
// FunctionOpInterface op: here ml_program.func, whose terminator is
// ml_program.return), not only func.func: its contractions run low as in a
// func.func. Before, the body of an ml_program.func was silently left f32.
//
// RUN: amp-opt %s --amp | FileCheck %s
// RUN: amp-opt %s --amp-auto-mixed-precision='keep-public-signatures=false' | FileCheck %s --check-prefix=SPEC
// RUN: amp-opt %s --amp | amp-opt --amp | FileCheck %s

// CHECK-LABEL: ml_program.func @mlp
// CHECK-SAME:    (%[[X:.*]]: tensor<8x16xf32>, %[[W:.*]]: tensor<16x4xf32>) -> tensor<8x4xf32>
// CHECK-DAG:     %[[W16:.*]] = arith.truncf %[[W]] : tensor<16x4xf32> to tensor<16x4xf16>
// CHECK-DAG:     %[[X16:.*]] = arith.truncf %[[X]] : tensor<8x16xf32> to tensor<8x16xf16>
// CHECK:         %[[MM:.*]] = linalg.matmul ins(%[[X16]], %[[W16]] : tensor<8x16xf16>, tensor<16x4xf16>) outs(%{{.*}} : tensor<8x4xf32>)
// CHECK:         %[[R:.*]] = linalg.generic {{.*}} ins(%[[MM]] : tensor<8x4xf32>) outs(%{{.*}} : tensor<8x4xf16>)
// CHECK:         %[[MM2:.*]] = linalg.matmul ins(%[[R]], %{{.*}} : tensor<8x4xf16>, tensor<4x4xf16>) outs(%{{.*}} : tensor<8x4xf32>)
// CHECK:         ml_program.return %[[MM2]] : tensor<8x4xf32>

// With public signatures open to specialisation (nothing calls @mlp), the
// function takes its weights in f16 and returns through ml_program.return.
// SPEC-LABEL:  ml_program.func @mlp
// SPEC-SAME:     (%{{.*}}: tensor<8x16xf16>, %{{.*}}: tensor<16x4xf16>) -> tensor<8x4xf32>
// SPEC-NOT:      arith.truncf %arg
// SPEC:          ml_program.return %{{.*}} : tensor<8x4xf32>
#id = affine_map<(d0, d1) -> (d0, d1)>
ml_program.func @mlp(%x: tensor<8x16xf32>, %w: tensor<16x4xf32>) -> tensor<8x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x4xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<8x4xf32>) -> tensor<8x4xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<8x16xf32>, tensor<16x4xf32>) outs(%z : tensor<8x4xf32>) -> tensor<8x4xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
    ins(%mm : tensor<8x4xf32>) outs(%e : tensor<8x4xf32>) {
  ^bb0(%v: f32, %o: f32):
    %m = arith.maximumf %v, %zero : f32
    linalg.yield %m : f32
  } -> tensor<8x4xf32>
  %w2 = arith.constant dense<0.5> : tensor<4x4xf32>
  %mm2 = linalg.matmul ins(%r, %w2 : tensor<8x4xf32>, tensor<4x4xf32>) outs(%z : tensor<8x4xf32>) -> tensor<8x4xf32>
  ml_program.return %mm2 : tensor<8x4xf32>
}
