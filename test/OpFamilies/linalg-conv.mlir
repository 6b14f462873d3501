// Named linalg convolutions (allow): f16 image and filter, f32 init and
// result, bodies that extend to f32 before multiply-accumulate. Pooling
// between convolutions follows the painting: max (clear) and sum (infer) run
// in f16 between two convolutions.
//
// RUN: amp-opt %s --amp-auto-mixed-precision | FileCheck %s
// RUN: amp-opt %s --amp-auto-mixed-precision --mlir-print-op-generic \
// RUN:   | FileCheck %s --check-prefix=BODY
// RUN: amp-opt %s --amp-auto-mixed-precision --mlir-print-op-generic \
// RUN:   | mlir-opt --verify-each --linalg-generalize-named-ops \
// RUN:   | FileCheck %s --check-prefix=GEN

// CHECK-LABEL: func.func @conv_2d_nhwc_hwcf
// CHECK-SAME:    (%[[I:.*]]: tensor<1x8x8x3xf32>, %[[F:.*]]: tensor<3x3x3x16xf32>, %[[O:.*]]: tensor<1x6x6x16xf32>) -> tensor<1x6x6x16xf32>
// CHECK-DAG:     %[[I16:.*]] = arith.truncf %[[I]] : tensor<1x8x8x3xf32> to tensor<1x8x8x3xf16>
// CHECK-DAG:     %[[F16:.*]] = arith.truncf %[[F]] : tensor<3x3x3x16xf32> to tensor<3x3x3x16xf16>
// CHECK:         %[[R:.*]] = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%[[I16]], %[[F16]] : tensor<1x8x8x3xf16>, tensor<3x3x3x16xf16>) outs(%[[O]] : tensor<1x6x6x16xf32>) -> tensor<1x6x6x16xf32>
// CHECK-NEXT:    return %[[R]] : tensor<1x6x6x16xf32>
// BODY-LABEL: sym_name = "conv_2d_nhwc_hwcf"
// BODY:         "linalg.conv_2d_nhwc_hwcf"
// BODY-NEXT:    ^bb0(%[[X:.*]]: f16, %[[Y:.*]]: f16, %[[ACC:.*]]: f32):
// BODY-NEXT:      %[[XE:.*]] = "arith.extf"(%[[X]]) : (f16) -> f32
// BODY-NEXT:      %[[YE:.*]] = "arith.extf"(%[[Y]]) : (f16) -> f32
// BODY-NEXT:      %[[M:.*]] = "arith.mulf"(%[[XE]], %[[YE]]) <{{.*}}> : (f32, f32) -> f32
// BODY-NEXT:      %[[S:.*]] = "arith.addf"(%[[ACC]], %[[M]]) <{{.*}}> : (f32, f32) -> f32
// BODY-NEXT:      "linalg.yield"(%[[S]]) : (f32) -> ()
// GEN-LABEL: func.func @conv_2d_nhwc_hwcf
// GEN:         linalg.generic
// GEN-SAME:      ins(%{{.*}}, %{{.*}} : tensor<1x8x8x3xf16>, tensor<3x3x3x16xf16>) outs(%{{.*}} : tensor<1x6x6x16xf32>)
// GEN-NEXT:    ^bb0(%{{.*}}: f16, %{{.*}}: f16, %[[ACC:.*]]: f32):
// GEN-NEXT:      arith.extf %{{.*}} : f16 to f32
// GEN-NEXT:      arith.extf %{{.*}} : f16 to f32
// GEN-NEXT:      %[[M:.*]] = arith.mulf %{{.*}}, %{{.*}} : f32
// GEN-NEXT:      arith.addf %[[ACC]], %[[M]] : f32
func.func @conv_2d_nhwc_hwcf(%i: tensor<1x8x8x3xf32>, %f: tensor<3x3x3x16xf32>, %o: tensor<1x6x6x16xf32>) -> tensor<1x6x6x16xf32> {
  %0 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%i, %f : tensor<1x8x8x3xf32>, tensor<3x3x3x16xf32>) outs(%o : tensor<1x6x6x16xf32>) -> tensor<1x6x6x16xf32>
  return %0 : tensor<1x6x6x16xf32>
}

// CHECK-LABEL: func.func @conv_2d_nchw_fchw
// CHECK-SAME:    (%[[I:.*]]: tensor<1x3x8x8xf32>, %[[F:.*]]: tensor<16x3x3x3xf32>, %[[O:.*]]: tensor<1x16x6x6xf32>)
// CHECK-DAG:     %[[I16:.*]] = arith.truncf %[[I]] : tensor<1x3x8x8xf32> to tensor<1x3x8x8xf16>
// CHECK-DAG:     %[[F16:.*]] = arith.truncf %[[F]] : tensor<16x3x3x3xf32> to tensor<16x3x3x3xf16>
// CHECK:         linalg.conv_2d_nchw_fchw {{.*}} ins(%[[I16]], %[[F16]] : tensor<1x3x8x8xf16>, tensor<16x3x3x3xf16>) outs(%[[O]] : tensor<1x16x6x6xf32>) -> tensor<1x16x6x6xf32>
// GEN-LABEL: func.func @conv_2d_nchw_fchw
// GEN:         linalg.generic
// GEN-SAME:      ins(%{{.*}}, %{{.*}} : tensor<1x3x8x8xf16>, tensor<16x3x3x3xf16>) outs(%{{.*}} : tensor<1x16x6x6xf32>)
// GEN-NEXT:    ^bb0(%{{.*}}: f16, %{{.*}}: f16, %[[ACC:.*]]: f32):
// GEN-NEXT:      arith.extf %{{.*}} : f16 to f32
// GEN-NEXT:      arith.extf %{{.*}} : f16 to f32
// GEN-NEXT:      %[[M:.*]] = arith.mulf %{{.*}}, %{{.*}} : f32
// GEN-NEXT:      arith.addf %[[ACC]], %[[M]] : f32
func.func @conv_2d_nchw_fchw(%i: tensor<1x3x8x8xf32>, %f: tensor<16x3x3x3xf32>, %o: tensor<1x16x6x6xf32>) -> tensor<1x16x6x6xf32> {
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%i, %f : tensor<1x3x8x8xf32>, tensor<16x3x3x3xf32>) outs(%o : tensor<1x16x6x6xf32>) -> tensor<1x16x6x6xf32>
  return %0 : tensor<1x16x6x6xf32>
}

// CHECK-LABEL: func.func @conv_1d_nwc_wcf
// CHECK-SAME:    (%[[I:.*]]: tensor<1x8x3xf32>, %[[F:.*]]: tensor<3x3x16xf32>, %[[O:.*]]: tensor<1x6x16xf32>)
// CHECK-DAG:     %[[I16:.*]] = arith.truncf %[[I]] : tensor<1x8x3xf32> to tensor<1x8x3xf16>
// CHECK-DAG:     %[[F16:.*]] = arith.truncf %[[F]] : tensor<3x3x16xf32> to tensor<3x3x16xf16>
// CHECK:         linalg.conv_1d_nwc_wcf {{.*}} ins(%[[I16]], %[[F16]] : tensor<1x8x3xf16>, tensor<3x3x16xf16>) outs(%[[O]] : tensor<1x6x16xf32>) -> tensor<1x6x16xf32>
// GEN-LABEL: func.func @conv_1d_nwc_wcf
// GEN:         linalg.generic
// GEN-SAME:      outs(%{{.*}} : tensor<1x6x16xf32>)
// GEN-NEXT:    ^bb0(%{{.*}}: f16, %{{.*}}: f16, %[[ACC:.*]]: f32):
// GEN-NEXT:      arith.extf %{{.*}} : f16 to f32
// GEN-NEXT:      arith.extf %{{.*}} : f16 to f32
// GEN-NEXT:      %[[M:.*]] = arith.mulf %{{.*}}, %{{.*}} : f32
// GEN-NEXT:      arith.addf %[[ACC]], %[[M]] : f32
func.func @conv_1d_nwc_wcf(%i: tensor<1x8x3xf32>, %f: tensor<3x3x16xf32>, %o: tensor<1x6x16xf32>) -> tensor<1x6x16xf32> {
  %0 = linalg.conv_1d_nwc_wcf {dilations = dense<1> : tensor<1xi64>, strides = dense<1> : tensor<1xi64>}
    ins(%i, %f : tensor<1x8x3xf32>, tensor<3x3x16xf32>) outs(%o : tensor<1x6x16xf32>) -> tensor<1x6x16xf32>
  return %0 : tensor<1x6x16xf32>
}

// CHECK-LABEL: func.func @conv_3d_ndhwc_dhwcf
// CHECK-SAME:    (%[[I:.*]]: tensor<1x4x8x8x3xf32>, %[[F:.*]]: tensor<2x3x3x3x16xf32>, %[[O:.*]]: tensor<1x3x6x6x16xf32>)
// CHECK-DAG:     %[[I16:.*]] = arith.truncf %[[I]] : tensor<1x4x8x8x3xf32> to tensor<1x4x8x8x3xf16>
// CHECK-DAG:     %[[F16:.*]] = arith.truncf %[[F]] : tensor<2x3x3x3x16xf32> to tensor<2x3x3x3x16xf16>
// CHECK:         linalg.conv_3d_ndhwc_dhwcf {{.*}} ins(%[[I16]], %[[F16]] : tensor<1x4x8x8x3xf16>, tensor<2x3x3x3x16xf16>) outs(%[[O]] : tensor<1x3x6x6x16xf32>) -> tensor<1x3x6x6x16xf32>
// GEN-LABEL: func.func @conv_3d_ndhwc_dhwcf
// GEN:         linalg.generic
// GEN-SAME:      outs(%{{.*}} : tensor<1x3x6x6x16xf32>)
// GEN-NEXT:    ^bb0(%{{.*}}: f16, %{{.*}}: f16, %[[ACC:.*]]: f32):
// GEN-NEXT:      arith.extf %{{.*}} : f16 to f32
// GEN-NEXT:      arith.extf %{{.*}} : f16 to f32
// GEN-NEXT:      %[[M:.*]] = arith.mulf %{{.*}}, %{{.*}} : f32
// GEN-NEXT:      arith.addf %[[ACC]], %[[M]] : f32
func.func @conv_3d_ndhwc_dhwcf(%i: tensor<1x4x8x8x3xf32>, %f: tensor<2x3x3x3x16xf32>, %o: tensor<1x3x6x6x16xf32>) -> tensor<1x3x6x6x16xf32> {
  %0 = linalg.conv_3d_ndhwc_dhwcf {dilations = dense<1> : tensor<3xi64>, strides = dense<1> : tensor<3xi64>}
    ins(%i, %f : tensor<1x4x8x8x3xf32>, tensor<2x3x3x3x16xf32>) outs(%o : tensor<1x3x6x6x16xf32>) -> tensor<1x3x6x6x16xf32>
  return %0 : tensor<1x3x6x6x16xf32>
}

// CHECK-LABEL: func.func @depthwise_conv_2d_nhwc_hwc
// CHECK-SAME:    (%[[I:.*]]: tensor<1x8x8x3xf32>, %[[F:.*]]: tensor<3x3x3xf32>, %[[O:.*]]: tensor<1x6x6x3xf32>)
// CHECK-DAG:     %[[I16:.*]] = arith.truncf %[[I]] : tensor<1x8x8x3xf32> to tensor<1x8x8x3xf16>
// CHECK-DAG:     %[[F16:.*]] = arith.truncf %[[F]] : tensor<3x3x3xf32> to tensor<3x3x3xf16>
// CHECK:         linalg.depthwise_conv_2d_nhwc_hwc {{.*}} ins(%[[I16]], %[[F16]] : tensor<1x8x8x3xf16>, tensor<3x3x3xf16>) outs(%[[O]] : tensor<1x6x6x3xf32>) -> tensor<1x6x6x3xf32>
// BODY-LABEL: sym_name = "depthwise_conv_2d_nhwc_hwc"
// BODY:         "linalg.depthwise_conv_2d_nhwc_hwc"
// BODY-NEXT:    ^bb0(%{{.*}}: f16, %{{.*}}: f16, %[[ACC:.*]]: f32):
// BODY-NEXT:      "arith.extf"{{.*}} : (f16) -> f32
// BODY-NEXT:      "arith.extf"{{.*}} : (f16) -> f32
// BODY-NEXT:      %[[M:.*]] = "arith.mulf"{{.*}} : (f32, f32) -> f32
// BODY-NEXT:      "arith.addf"(%[[ACC]], %[[M]]) {{.*}} : (f32, f32) -> f32
// GEN-LABEL: func.func @depthwise_conv_2d_nhwc_hwc
// GEN:         linalg.generic
// GEN-SAME:      outs(%{{.*}} : tensor<1x6x6x3xf32>)
// GEN-NEXT:    ^bb0(%{{.*}}: f16, %{{.*}}: f16, %[[ACC:.*]]: f32):
// GEN-NEXT:      arith.extf %{{.*}} : f16 to f32
// GEN-NEXT:      arith.extf %{{.*}} : f16 to f32
// GEN-NEXT:      %[[M:.*]] = arith.mulf %{{.*}}, %{{.*}} : f32
// GEN-NEXT:      arith.addf %[[ACC]], %[[M]] : f32
func.func @depthwise_conv_2d_nhwc_hwc(%i: tensor<1x8x8x3xf32>, %f: tensor<3x3x3xf32>, %o: tensor<1x6x6x3xf32>) -> tensor<1x6x6x3xf32> {
  %0 = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%i, %f : tensor<1x8x8x3xf32>, tensor<3x3x3xf32>) outs(%o : tensor<1x6x6x3xf32>) -> tensor<1x6x6x3xf32>
  return %0 : tensor<1x6x6x3xf32>
}

// conv -> max pool (clear) -> sum pool (infer) -> conv: the max pool runs in
// f16 (its init is an f16 fill: the -inf of the max pool is 0xFC00); the sum
// pool reads f16 and accumulates into an f32 fill (a sum must not round its
// partial sums to f16), its result is truncated once for the second conv.
// CHECK-LABEL: func.func @pools_between_convs
// CHECK-SAME:    (%[[I:.*]]: tensor<1x8x8x3xf32>, %[[F1:.*]]: tensor<3x3x3x3xf32>, %[[F2:.*]]: tensor<3x3x3x3xf32>)
// CHECK-DAG:     %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG:     %[[NINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK-DAG:     %[[NINF16:.*]] = arith.truncf %[[NINF]] : f32 to f16
// CHECK-DAG:     %[[WIN:.*]] = arith.truncf %{{.*}} : tensor<2x2xf32> to tensor<2x2xf16>
// CHECK:         %[[ACC1:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%{{.*}} : tensor<1x6x6x3xf32>) -> tensor<1x6x6x3xf32>
// CHECK:         %[[C1:.*]] = linalg.conv_2d_nhwc_hwcf {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x8x8x3xf16>, tensor<3x3x3x3xf16>) outs(%[[ACC1]] : tensor<1x6x6x3xf32>) -> tensor<1x6x6x3xf32>
// CHECK:         %[[C1H:.*]] = arith.truncf %[[C1]] : tensor<1x6x6x3xf32> to tensor<1x6x6x3xf16>
// CHECK:         %[[MINIT:.*]] = linalg.fill ins(%[[NINF16]] : f16) outs(%{{.*}} : tensor<1x5x5x3xf16>) -> tensor<1x5x5x3xf16>
// CHECK:         %[[MAX:.*]] = linalg.pooling_nhwc_max {{.*}} ins(%[[C1H]], %[[WIN]] : tensor<1x6x6x3xf16>, tensor<2x2xf16>) outs(%[[MINIT]] : tensor<1x5x5x3xf16>) -> tensor<1x5x5x3xf16>
// CHECK:         %[[SINIT:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%{{.*}} : tensor<1x4x4x3xf32>) -> tensor<1x4x4x3xf32>
// CHECK:         %[[SUM:.*]] = linalg.pooling_nhwc_sum {{.*}} ins(%[[MAX]], %[[WIN]] : tensor<1x5x5x3xf16>, tensor<2x2xf16>) outs(%[[SINIT]] : tensor<1x4x4x3xf32>) -> tensor<1x4x4x3xf32>
// CHECK:         %[[SUM16:.*]] = arith.truncf %[[SUM]] : tensor<1x4x4x3xf32> to tensor<1x4x4x3xf16>
// CHECK:         %[[ACC2:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%{{.*}} : tensor<1x2x2x3xf32>) -> tensor<1x2x2x3xf32>
// CHECK:         %[[C2:.*]] = linalg.conv_2d_nhwc_hwcf {{.*}} ins(%[[SUM16]], %{{.*}} : tensor<1x4x4x3xf16>, tensor<3x3x3x3xf16>) outs(%[[ACC2]] : tensor<1x2x2x3xf32>) -> tensor<1x2x2x3xf32>
// CHECK-NEXT:    return %[[C2]] : tensor<1x2x2x3xf32>
// BODY-LABEL: sym_name = "pools_between_convs"
// BODY:         "linalg.pooling_nhwc_max"
// BODY-NEXT:    ^bb0(%[[X:.*]]: f16, %{{.*}}: f16, %[[ACC:.*]]: f16):
// BODY-NEXT:      %[[M:.*]] = "arith.maximumf"(%[[ACC]], %[[X]]) <{{.*}}> : (f16, f16) -> f16
// BODY-NEXT:      "linalg.yield"(%[[M]]) : (f16) -> ()
// BODY:         "linalg.pooling_nhwc_sum"
// BODY-NEXT:    ^bb0(%[[X:.*]]: f16, %{{.*}}: f16, %[[ACC:.*]]: f32):
// BODY-NEXT:      %[[XE:.*]] = "arith.extf"(%[[X]]) : (f16) -> f32
// BODY-NEXT:      %[[S:.*]] = "arith.addf"(%[[ACC]], %[[XE]]) <{{.*}}> : (f32, f32) -> f32
// BODY-NEXT:      "linalg.yield"(%[[S]]) : (f32) -> ()
func.func @pools_between_convs(%i: tensor<1x8x8x3xf32>, %f: tensor<3x3x3x3xf32>, %f2: tensor<3x3x3x3xf32>) -> tensor<1x2x2x3xf32> {
  %z = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %win = tensor.empty() : tensor<2x2xf32>
  %e0 = tensor.empty() : tensor<1x6x6x3xf32>
  %c0 = linalg.fill ins(%z : f32) outs(%e0 : tensor<1x6x6x3xf32>) -> tensor<1x6x6x3xf32>
  %0 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%i, %f : tensor<1x8x8x3xf32>, tensor<3x3x3x3xf32>) outs(%c0 : tensor<1x6x6x3xf32>) -> tensor<1x6x6x3xf32>
  %e1 = tensor.empty() : tensor<1x5x5x3xf32>
  %m0 = linalg.fill ins(%ninf : f32) outs(%e1 : tensor<1x5x5x3xf32>) -> tensor<1x5x5x3xf32>
  %1 = linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%0, %win : tensor<1x6x6x3xf32>, tensor<2x2xf32>) outs(%m0 : tensor<1x5x5x3xf32>) -> tensor<1x5x5x3xf32>
  %e2 = tensor.empty() : tensor<1x4x4x3xf32>
  %s0 = linalg.fill ins(%z : f32) outs(%e2 : tensor<1x4x4x3xf32>) -> tensor<1x4x4x3xf32>
  %2 = linalg.pooling_nhwc_sum {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%1, %win : tensor<1x5x5x3xf32>, tensor<2x2xf32>) outs(%s0 : tensor<1x4x4x3xf32>) -> tensor<1x4x4x3xf32>
  %e3 = tensor.empty() : tensor<1x2x2x3xf32>
  %c3 = linalg.fill ins(%z : f32) outs(%e3 : tensor<1x2x2x3xf32>) -> tensor<1x2x2x3xf32>
  %3 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%2, %f2 : tensor<1x4x4x3xf32>, tensor<3x3x3x3xf32>) outs(%c3 : tensor<1x2x2x3xf32>) -> tensor<1x2x2x3xf32>
  return %3 : tensor<1x2x2x3xf32>
}

// A max pool after a conv with nothing low downstream is not between allow
// ops: the pool reads the conv's f32 accumulator directly.
// CHECK-LABEL: func.func @pool_after_conv
// CHECK:         %[[C:.*]] = linalg.conv_2d_nhwc_hwcf {{.*}} -> tensor<1x6x6x3xf32>
// CHECK-NOT:     arith.truncf %[[C]]
// CHECK:         linalg.pooling_nhwc_max {{.*}} ins(%[[C]], %{{.*}} : tensor<1x6x6x3xf32>, tensor<2x2xf32>) outs(%{{.*}} : tensor<1x5x5x3xf32>) -> tensor<1x5x5x3xf32>
func.func @pool_after_conv(%i: tensor<1x8x8x3xf32>, %f: tensor<3x3x3x3xf32>, %o: tensor<1x6x6x3xf32>, %m: tensor<1x5x5x3xf32>) -> tensor<1x5x5x3xf32> {
  %win = tensor.empty() : tensor<2x2xf32>
  %0 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%i, %f : tensor<1x8x8x3xf32>, tensor<3x3x3x3xf32>) outs(%o : tensor<1x6x6x3xf32>) -> tensor<1x6x6x3xf32>
  %1 = linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%0, %win : tensor<1x6x6x3xf32>, tensor<2x2xf32>) outs(%m : tensor<1x5x5x3xf32>) -> tensor<1x5x5x3xf32>
  return %1 : tensor<1x5x5x3xf32>
}
