// Contraction FLOPs of each op family, and loops with a static trip count.
// RUN: amp-opt %s --amp='report=%t.json' -o /dev/null
// RUN: %PYTHON %S/report_query.py %t.json | FileCheck %s --match-full-lines

// batch_matmul: 2*B*M*N*K = 2*2*4*8*16.
// CHECK-DAG: functions.batch_matmul.contraction_flops.total = 2048
// CHECK-DAG: functions.batch_matmul.contraction_flops.low = 2048
func.func @batch_matmul(%a: tensor<2x4x16xf32>, %b: tensor<2x16x8xf32>, %c: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
  %0 = linalg.batch_matmul ins(%a, %b : tensor<2x4x16xf32>, tensor<2x16x8xf32>) outs(%c : tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  return %0 : tensor<2x4x8xf32>
}

// conv_2d_nhwc_hwcf: 2*N*OH*OW*F*KH*KW*C = 2*1*4*4*8*3*3*2.
// CHECK-DAG: functions.conv.contraction_flops.total = 4608
// CHECK-DAG: functions.conv.contraction_flops.low = 4608
func.func @conv(%i: tensor<1x6x6x2xf32>, %f: tensor<3x3x2x8xf32>, %o: tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32> {
  %0 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%i, %f : tensor<1x6x6x2xf32>, tensor<3x3x2x8xf32>) outs(%o : tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32>
  return %0 : tensor<1x4x4x8xf32>
}

// A max pooling window is not a contraction (it matches linalg's
// convolution interface, but does not multiply).
// CHECK-DAG: functions.pool.contraction_flops.total = 0
// CHECK-DAG: functions.pool.contraction_flops.low_share = 0
func.func @pool(%i: tensor<1x4x4x2xf32>, %w: tensor<2x2xf32>, %o: tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32> {
  %0 = linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%i, %w : tensor<1x4x4x2xf32>, tensor<2x2xf32>) outs(%o : tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  return %0 : tensor<1x2x2x2xf32>
}

// A linalg.generic contraction, from its loop bounds: 2*4*8*16.
// CHECK-DAG: functions.generic.contraction_flops.total = 1024
// CHECK-DAG: functions.generic.contraction_flops.low = 1024
#a = affine_map<(m, n, k) -> (m, k)>
#b = affine_map<(m, n, k) -> (k, n)>
#c = affine_map<(m, n, k) -> (m, n)>
func.func @generic(%x: tensor<4x16xf32>, %y: tensor<16x8xf32>, %z: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %y : tensor<4x16xf32>, tensor<16x8xf32>) outs(%z : tensor<4x8xf32>) {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %m = arith.mulf %p, %q : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// tosa.matmul [N,H,C] x [N,C,W]: 2*N*H*W*C = 2*1*4*8*16.
// CHECK-DAG: functions.tosa_matmul.contraction_flops.total = 1024
// CHECK-DAG: functions.tosa_matmul.contraction_flops.low = 1024
func.func @tosa_matmul(%a: tensor<1x4x16xf32>, %b: tensor<1x16x8xf32>) -> tensor<1x4x8xf32> {
  %azp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %bzp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %0 = tosa.matmul %a, %b, %azp, %bzp : (tensor<1x4x16xf32>, tensor<1x16x8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x8xf32>
  return %0 : tensor<1x4x8xf32>
}

// tosa.conv2d, weights [OC,KH,KW,IC]: 2*N*OH*OW*OC*KH*KW*IC = 2*1*4*4*8*3*3*2.
// CHECK-DAG: functions.tosa_conv.contraction_flops.total = 4608
// CHECK-DAG: functions.tosa_conv.contraction_flops.low = 4608
func.func @tosa_conv(%i: tensor<1x6x6x2xf32>, %w: tensor<8x3x3x2xf32>, %b: tensor<8xf32>) -> tensor<1x4x4x8xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %0 = tosa.conv2d %i, %w, %b, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x6x6x2xf32>, tensor<8x3x3x2xf32>, tensor<8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x4x8xf32>
  return %0 : tensor<1x4x4x8xf32>
}

// A matmul in a loop of 4 static trips counts 4 times: 4*2*8*32*16.
// CHECK-DAG: functions.loop.contraction_flops.total = 32768
// CHECK-DAG: functions.loop.contraction_flops.low = 32768
func.func @loop(%a: tensor<8x16xf32>, %b: tensor<16x32xf32>, %init: tensor<8x32xf32>) -> tensor<8x32xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %init) -> tensor<8x32xf32> {
    %m = linalg.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x32xf32>) outs(%acc : tensor<8x32xf32>) -> tensor<8x32xf32>
    scf.yield %m : tensor<8x32xf32>
  }
  return %r : tensor<8x32xf32>
}

// Dynamic shapes are left out of the estimate, and said so: the matmul and
// the truncf of %a.
// CHECK-DAG: functions.dynamic.estimate.uncosted_ops = 2
// CHECK-DAG: functions.dynamic.contraction_flops.total = 0
func.func @dynamic(%a: tensor<?x16xf32>, %b: tensor<16x32xf32>, %c: tensor<?x32xf32>) -> tensor<?x32xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<?x16xf32>, tensor<16x32xf32>) outs(%c : tensor<?x32xf32>) -> tensor<?x32xf32>
  return %0 : tensor<?x32xf32>
}
