// TOSA ops. tosa.matmul takes f16 inputs and zero points and keeps its f32
// result; the convolutions take f16 input, weight, bias and zero points,
// keep acc_type = f32 and produce f16. Element-wise ops between matmuls run
// in f16 (tosa.clamp's bounds become f16), exp and reduce_sum stay f32,
// data movement follows its neighbours.
//
// RUN: amp-opt %s --amp-auto-mixed-precision | FileCheck %s
// RUN: amp-opt %s --amp-auto-mixed-precision=mode=bf16 | FileCheck %s --check-prefix=BF16
// RUN: amp-opt %s --amp-auto-mixed-precision | mlir-opt --verify-each -o /dev/null
// After the amp pipeline (which folds the casts of the constant zero points)
// the retyped TOSA ops lower to linalg: f16 x f16 -> f32 contractions.
// RUN: amp-opt %s --amp | mlir-opt --pass-pipeline='builtin.module(func.func(tosa-optional-decompositions,tosa-to-linalg-named,tosa-to-linalg,tosa-to-arith,tosa-to-tensor))' \
// RUN:   | FileCheck %s --check-prefix=LOWERED
// LOWERED-LABEL: func.func @matmul
// LOWERED:         linalg.batch_matmul ins(%{{.*}}, %{{.*}} : tensor<1x8x16xf16>, tensor<1x16x4xf16>) outs(%{{.*}} : tensor<1x8x4xf32>) -> tensor<1x8x4xf32>
// LOWERED-LABEL: func.func @conv2d
// LOWERED:         linalg.conv_2d_nhwc_fhwc {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x8x8x3xf16>, tensor<16x3x3x3xf16>) outs(%{{.*}} : tensor<1x6x6x16xf32>) -> tensor<1x6x6x16xf32>
// LOWERED-NOT:     tosa.{{(matmul|conv|depthwise|transpose_conv|clamp|add|exp)}}
// No op falls back to f32 with a warning.
// RUN: amp-opt %s --amp-auto-mixed-precision 2>&1 >/dev/null | FileCheck %s --check-prefix=DIAG --allow-empty
// DIAG-NOT: warning

// CHECK-LABEL: func.func @matmul
// CHECK-SAME:    (%[[A:.*]]: tensor<1x8x16xf32>, %[[B:.*]]: tensor<1x16x4xf32>) -> tensor<1x8x4xf32>
// CHECK-DAG:     %[[A16:.*]] = arith.truncf %[[A]] : tensor<1x8x16xf32> to tensor<1x8x16xf16>
// CHECK-DAG:     %[[B16:.*]] = arith.truncf %[[B]] : tensor<1x16x4xf32> to tensor<1x16x4xf16>
// CHECK-DAG:     %[[AZP:.*]] = "tosa.const"() <{values = dense<0.000000e+00> : tensor<1xf32>}> : () -> tensor<1xf32>
// CHECK-DAG:     %[[AZP16:.*]] = arith.truncf %[[AZP]] : tensor<1xf32> to tensor<1xf16>
// CHECK-DAG:     %[[BZP:.*]] = "tosa.const"() <{values = dense<0.000000e+00> : tensor<1xf32>}> : () -> tensor<1xf32>
// CHECK-DAG:     %[[BZP16:.*]] = arith.truncf %[[BZP]] : tensor<1xf32> to tensor<1xf16>
// CHECK:         %[[R:.*]] = tosa.matmul %[[A16]], %[[B16]], %[[AZP16]], %[[BZP16]] : (tensor<1x8x16xf16>, tensor<1x16x4xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<1x8x4xf32>
// CHECK-NEXT:    return %[[R]] : tensor<1x8x4xf32>
// BF16-LABEL: func.func @matmul
// BF16:         tosa.matmul {{.*}} : (tensor<1x8x16xbf16>, tensor<1x16x4xbf16>, tensor<1xbf16>, tensor<1xbf16>) -> tensor<1x8x4xf32>
func.func @matmul(%a: tensor<1x8x16xf32>, %b: tensor<1x16x4xf32>) -> tensor<1x8x4xf32> {
  %azp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %bzp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %0 = tosa.matmul %a, %b, %azp, %bzp : (tensor<1x8x16xf32>, tensor<1x16x4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x4xf32>
  return %0 : tensor<1x8x4xf32>
}

// CHECK-LABEL: func.func @conv2d
// CHECK-SAME:    (%[[I:.*]]: tensor<1x8x8x3xf32>, %[[W:.*]]: tensor<16x3x3x3xf32>, %[[B:.*]]: tensor<16xf32>) -> tensor<1x6x6x16xf32>
// CHECK-DAG:     %[[I16:.*]] = arith.truncf %[[I]] : tensor<1x8x8x3xf32> to tensor<1x8x8x3xf16>
// CHECK-DAG:     %[[W16:.*]] = arith.truncf %[[W]] : tensor<16x3x3x3xf32> to tensor<16x3x3x3xf16>
// CHECK-DAG:     %[[B16:.*]] = arith.truncf %[[B]] : tensor<16xf32> to tensor<16xf16>
// CHECK-DAG:     %[[ZP16:.*]] = arith.truncf %{{.*}} : tensor<1xf32> to tensor<1xf16>
// CHECK:         %[[R:.*]] = tosa.conv2d %[[I16]], %[[W16]], %[[B16]], %[[ZP16]], %[[ZP16]] {acc_type = f32, {{.*}}} : (tensor<1x8x8x3xf16>, tensor<16x3x3x3xf16>, tensor<16xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<1x6x6x16xf16>
// CHECK-NEXT:    %[[R32:.*]] = arith.extf %[[R]] : tensor<1x6x6x16xf16> to tensor<1x6x6x16xf32>
// CHECK-NEXT:    return %[[R32]] : tensor<1x6x6x16xf32>
// BF16-LABEL: func.func @conv2d
// BF16:         tosa.conv2d {{.*}} {acc_type = f32, {{.*}}} : (tensor<1x8x8x3xbf16>, tensor<16x3x3x3xbf16>, tensor<16xbf16>, tensor<1xbf16>, tensor<1xbf16>) -> tensor<1x6x6x16xbf16>
func.func @conv2d(%i: tensor<1x8x8x3xf32>, %w: tensor<16x3x3x3xf32>, %b: tensor<16xf32>) -> tensor<1x6x6x16xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %0 = tosa.conv2d %i, %w, %b, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x8x8x3xf32>, tensor<16x3x3x3xf32>, tensor<16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x6x6x16xf32>
  return %0 : tensor<1x6x6x16xf32>
}

// CHECK-LABEL: func.func @conv3d
// CHECK:         %[[R:.*]] = tosa.conv3d %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {acc_type = f32, {{.*}}} : (tensor<1x4x8x8x3xf16>, tensor<16x2x3x3x3xf16>, tensor<16xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<1x3x6x6x16xf16>
// CHECK-NEXT:    %[[R32:.*]] = arith.extf %[[R]] : tensor<1x3x6x6x16xf16> to tensor<1x3x6x6x16xf32>
// CHECK-NEXT:    return %[[R32]]
func.func @conv3d(%i: tensor<1x4x8x8x3xf32>, %w: tensor<16x2x3x3x3xf32>, %b: tensor<16xf32>) -> tensor<1x3x6x6x16xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %0 = tosa.conv3d %i, %w, %b, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1, 1>, pad = array<i64: 0, 0, 0, 0, 0, 0>, stride = array<i64: 1, 1, 1>} : (tensor<1x4x8x8x3xf32>, tensor<16x2x3x3x3xf32>, tensor<16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x3x6x6x16xf32>
  return %0 : tensor<1x3x6x6x16xf32>
}

// CHECK-LABEL: func.func @depthwise_conv2d
// CHECK:         %[[R:.*]] = tosa.depthwise_conv2d %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {acc_type = f32, {{.*}}} : (tensor<1x8x8x3xf16>, tensor<3x3x3x2xf16>, tensor<6xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<1x6x6x6xf16>
// CHECK-NEXT:    %[[R32:.*]] = arith.extf %[[R]] : tensor<1x6x6x6xf16> to tensor<1x6x6x6xf32>
// CHECK-NEXT:    return %[[R32]]
func.func @depthwise_conv2d(%i: tensor<1x8x8x3xf32>, %w: tensor<3x3x3x2xf32>, %b: tensor<6xf32>) -> tensor<1x6x6x6xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %0 = tosa.depthwise_conv2d %i, %w, %b, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x8x8x3xf32>, tensor<3x3x3x2xf32>, tensor<6xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x6x6x6xf32>
  return %0 : tensor<1x6x6x6xf32>
}

// CHECK-LABEL: func.func @transpose_conv2d
// CHECK-SAME:    (%[[I:.*]]: tensor<1x6x6x3xf32>, %[[W:.*]]: tensor<16x3x3x3xf32>, %[[B:.*]]: tensor<16xf32>) -> tensor<1x8x8x16xf32>
// CHECK-DAG:     %[[I16:.*]] = arith.truncf %[[I]] : tensor<1x6x6x3xf32> to tensor<1x6x6x3xf16>
// CHECK-DAG:     %[[W16:.*]] = arith.truncf %[[W]] : tensor<16x3x3x3xf32> to tensor<16x3x3x3xf16>
// CHECK-DAG:     %[[B16:.*]] = arith.truncf %[[B]] : tensor<16xf32> to tensor<16xf16>
// CHECK-DAG:     %[[IZP16:.*]] = arith.truncf %{{.*}} : tensor<1xf32> to tensor<1xf16>
// CHECK:         %[[R:.*]] = tosa.transpose_conv2d %[[I16]], %[[W16]], %[[B16]], %[[IZP16]], %{{.*}} {acc_type = f32, {{.*}}} : (tensor<1x6x6x3xf16>, tensor<16x3x3x3xf16>, tensor<16xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<1x8x8x16xf16>
// CHECK-NEXT:    %[[R32:.*]] = arith.extf %[[R]] : tensor<1x8x8x16xf16> to tensor<1x8x8x16xf32>
// CHECK-NEXT:    return %[[R32]] : tensor<1x8x8x16xf32>
func.func @transpose_conv2d(%i: tensor<1x6x6x3xf32>, %w: tensor<16x3x3x3xf32>, %b: tensor<16xf32>) -> tensor<1x8x8x16xf32> {
  %izp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %wzp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %0 = tosa.transpose_conv2d %i, %w, %b, %izp, %wzp {acc_type = f32, out_pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x6x6x3xf32>, tensor<16x3x3x3xf32>, tensor<16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x8x16xf32>
  return %0 : tensor<1x8x8x16xf32>
}

// matmul -> clamp -> add -> sub -> mul -> sigmoid -> tanh -> matmul: all
// f16 between the matmuls; the clamp bounds are f16 attributes, mul's i8
// shift is untouched.
// CHECK-LABEL: func.func @elementwise_between_matmuls
// CHECK-SAME:    (%[[A:.*]]: tensor<1x8x8xf32>, %[[B:.*]]: tensor<1x8x8xf32>, %[[C:.*]]: tensor<1x8x8xf32>)
// CHECK-DAG:     %[[C16:.*]] = arith.truncf %[[C]] : tensor<1x8x8xf32> to tensor<1x8x8xf16>
// CHECK-DAG:     %[[SHIFT:.*]] = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
// CHECK:         %[[MM:.*]] = tosa.matmul {{.*}} -> tensor<1x8x8xf32>
// CHECK-NEXT:    %[[MM16:.*]] = arith.truncf %[[MM]] : tensor<1x8x8xf32> to tensor<1x8x8xf16>
// CHECK-NEXT:    %[[CL:.*]] = tosa.clamp %[[MM16]] {max_val = 6.000000e+00 : f16, min_val = 0.000000e+00 : f16} : (tensor<1x8x8xf16>) -> tensor<1x8x8xf16>
// CHECK-NEXT:    %[[ADD:.*]] = tosa.add %[[CL]], %[[C16]] : (tensor<1x8x8xf16>, tensor<1x8x8xf16>) -> tensor<1x8x8xf16>
// CHECK-NEXT:    %[[SUB:.*]] = tosa.sub %[[ADD]], %[[C16]] : (tensor<1x8x8xf16>, tensor<1x8x8xf16>) -> tensor<1x8x8xf16>
// CHECK-NEXT:    %[[MUL:.*]] = tosa.mul %[[SUB]], %[[C16]], %[[SHIFT]] : (tensor<1x8x8xf16>, tensor<1x8x8xf16>, tensor<1xi8>) -> tensor<1x8x8xf16>
// CHECK-NEXT:    %[[SIG:.*]] = tosa.sigmoid %[[MUL]] : (tensor<1x8x8xf16>) -> tensor<1x8x8xf16>
// CHECK-NEXT:    %[[TANH:.*]] = tosa.tanh %[[SIG]] : (tensor<1x8x8xf16>) -> tensor<1x8x8xf16>
// CHECK-NEXT:    %[[R:.*]] = tosa.matmul %[[TANH]], %{{.*}}, %{{.*}}, %{{.*}} : (tensor<1x8x8xf16>, tensor<1x8x8xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<1x8x8xf32>
// CHECK-NEXT:    return %[[R]] : tensor<1x8x8xf32>
// BF16-LABEL: func.func @elementwise_between_matmuls
// BF16:         tosa.clamp %{{.*}} {max_val = 6.000000e+00 : bf16, min_val = 0.000000e+00 : bf16} : (tensor<1x8x8xbf16>) -> tensor<1x8x8xbf16>
// BF16-NEXT:    tosa.add %{{.*}}, %{{.*}} : (tensor<1x8x8xbf16>, tensor<1x8x8xbf16>) -> tensor<1x8x8xbf16>
func.func @elementwise_between_matmuls(%a: tensor<1x8x8xf32>, %b: tensor<1x8x8xf32>, %c: tensor<1x8x8xf32>) -> tensor<1x8x8xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %0 = tosa.matmul %a, %b, %zp, %zp : (tensor<1x8x8xf32>, tensor<1x8x8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x8xf32>
  %1 = tosa.clamp %0 {min_val = 0.0 : f32, max_val = 6.0 : f32} : (tensor<1x8x8xf32>) -> tensor<1x8x8xf32>
  %2 = tosa.add %1, %c : (tensor<1x8x8xf32>, tensor<1x8x8xf32>) -> tensor<1x8x8xf32>
  %3 = tosa.sub %2, %c : (tensor<1x8x8xf32>, tensor<1x8x8xf32>) -> tensor<1x8x8xf32>
  %4 = tosa.mul %3, %c, %shift : (tensor<1x8x8xf32>, tensor<1x8x8xf32>, tensor<1xi8>) -> tensor<1x8x8xf32>
  %5 = tosa.sigmoid %4 : (tensor<1x8x8xf32>) -> tensor<1x8x8xf32>
  %6 = tosa.tanh %5 : (tensor<1x8x8xf32>) -> tensor<1x8x8xf32>
  %7 = tosa.matmul %6, %b, %zp, %zp : (tensor<1x8x8xf32>, tensor<1x8x8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x8xf32>
  return %7 : tensor<1x8x8xf32>
}

// A clamp whose bounds are +-FLT_MAX (an unbounded ReLU-style clamp) still
// runs low: bounds beyond the low type's range saturate to its largest
// finite value (65504 in f16; bf16 cannot hold FLT_MAX either).
// CHECK-LABEL: func.func @clamp_unbounded
// CHECK:         tosa.clamp %{{.*}} {max_val = 6.550400e+04 : f16, min_val = -6.550400e+04 : f16} : (tensor<1x8x8xf16>) -> tensor<1x8x8xf16>
// CHECK-NEXT:    tosa.matmul {{.*}} : (tensor<1x8x8xf16>, tensor<1x8x8xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<1x8x8xf32>
// BF16-LABEL: func.func @clamp_unbounded
// BF16:         tosa.clamp %{{.*}} {max_val = 3.389530e+38 : bf16, min_val = -3.389530e+38 : bf16} : (tensor<1x8x8xbf16>) -> tensor<1x8x8xbf16>
func.func @clamp_unbounded(%a: tensor<1x8x8xf32>, %b: tensor<1x8x8xf32>) -> tensor<1x8x8xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %0 = tosa.matmul %a, %b, %zp, %zp : (tensor<1x8x8xf32>, tensor<1x8x8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x8xf32>
  %1 = tosa.clamp %0 {min_val = -3.40282347E+38 : f32, max_val = 3.40282347E+38 : f32} : (tensor<1x8x8xf32>) -> tensor<1x8x8xf32>
  %2 = tosa.matmul %1, %b, %zp, %zp : (tensor<1x8x8xf32>, tensor<1x8x8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x8xf32>
  return %2 : tensor<1x8x8xf32>
}

// exp and reduce_sum are deny: they read the f32 matmul result, no casts.
// CHECK-LABEL: func.func @deny
// CHECK:         %[[MM:.*]] = tosa.matmul {{.*}} -> tensor<1x8x8xf32>
// CHECK-NEXT:    %[[E:.*]] = tosa.exp %[[MM]] : (tensor<1x8x8xf32>) -> tensor<1x8x8xf32>
// CHECK-NEXT:    %[[S:.*]] = tosa.reduce_sum %[[E]] {axis = 1 : i32} : (tensor<1x8x8xf32>) -> tensor<1x1x8xf32>
// CHECK-NEXT:    return %[[S]] : tensor<1x1x8xf32>
func.func @deny(%a: tensor<1x8x8xf32>, %b: tensor<1x8x8xf32>) -> tensor<1x1x8xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %0 = tosa.matmul %a, %b, %zp, %zp : (tensor<1x8x8xf32>, tensor<1x8x8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x8xf32>
  %1 = tosa.exp %0 : (tensor<1x8x8xf32>) -> tensor<1x8x8xf32>
  %2 = tosa.reduce_sum %1 {axis = 1 : i32} : (tensor<1x8x8xf32>) -> tensor<1x1x8xf32>
  return %2 : tensor<1x1x8xf32>
}

// transpose -> reshape -> slice (clear) between matmuls: f16, the shape
// operands untouched.
// CHECK-LABEL: func.func @data_movement
// CHECK:         %[[MM:.*]] = tosa.matmul {{.*}} -> tensor<1x8x8xf32>
// CHECK-NEXT:    %[[MM16:.*]] = arith.truncf %[[MM]] : tensor<1x8x8xf32> to tensor<1x8x8xf16>
// CHECK-NEXT:    %[[T:.*]] = tosa.transpose %[[MM16]] {perms = array<i32: 0, 2, 1>} : (tensor<1x8x8xf16>) -> tensor<1x8x8xf16>
// CHECK-NEXT:    %[[SH:.*]] = tosa.const_shape
// CHECK-NEXT:    %[[RS:.*]] = tosa.reshape %[[T]], %[[SH]] : (tensor<1x8x8xf16>, !tosa.shape<3>) -> tensor<1x16x4xf16>
// CHECK:         %[[SL:.*]] = tosa.slice %[[RS]], %{{.*}}, %{{.*}} : (tensor<1x16x4xf16>, !tosa.shape<3>, !tosa.shape<3>) -> tensor<1x2x4xf16>
// CHECK-NEXT:    %[[R:.*]] = tosa.matmul %[[SL]], %{{.*}}, %{{.*}}, %{{.*}} : (tensor<1x2x4xf16>, tensor<1x4x16xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<1x2x16xf32>
// CHECK-NEXT:    return %[[R]] : tensor<1x2x16xf32>
func.func @data_movement(%a: tensor<1x8x8xf32>, %b: tensor<1x8x8xf32>, %w: tensor<1x4x16xf32>) -> tensor<1x2x16xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %0 = tosa.matmul %a, %b, %zp, %zp : (tensor<1x8x8xf32>, tensor<1x8x8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x8xf32>
  %1 = tosa.transpose %0 {perms = array<i32: 0, 2, 1>} : (tensor<1x8x8xf32>) -> tensor<1x8x8xf32>
  %s = tosa.const_shape {values = dense<[1, 16, 4]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %2 = tosa.reshape %1, %s : (tensor<1x8x8xf32>, !tosa.shape<3>) -> tensor<1x16x4xf32>
  %st = tosa.const_shape {values = dense<[0, 0, 0]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %sz = tosa.const_shape {values = dense<[1, 2, 4]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %3 = tosa.slice %2, %st, %sz : (tensor<1x16x4xf32>, !tosa.shape<3>, !tosa.shape<3>) -> tensor<1x2x4xf32>
  %4 = tosa.matmul %3, %w, %zp, %zp : (tensor<1x2x4xf32>, tensor<1x4x16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x2x16xf32>
  return %4 : tensor<1x2x16xf32>
}

// conv -> max_pool2d (clear) -> avg_pool2d (infer, acc_type f32 kept, f16
// zero points) -> pad (clear, f16 pad constant) -> conv: f16 throughout.
// CHECK-LABEL: func.func @pools_between_convs
// CHECK:         %[[C1:.*]] = tosa.conv2d {{.*}} -> tensor<1x6x6x4xf16>
// CHECK-NEXT:    %[[MP:.*]] = tosa.max_pool2d %[[C1]] {{.*}} : (tensor<1x6x6x4xf16>) -> tensor<1x5x5x4xf16>
// CHECK-NEXT:    %[[AP:.*]] = tosa.avg_pool2d %[[MP]], %{{.*}}, %{{.*}} {acc_type = f32, {{.*}}} : (tensor<1x5x5x4xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<1x4x4x4xf16>
// CHECK:         %[[PC16:.*]] = arith.truncf %{{.*}} : tensor<1xf32> to tensor<1xf16>
// CHECK-NEXT:    %[[PAD:.*]] = tosa.pad %[[AP]], %{{.*}}, %[[PC16]] : (tensor<1x4x4x4xf16>, !tosa.shape<8>, tensor<1xf16>) -> tensor<1x6x6x4xf16>
// CHECK-NEXT:    %[[C2:.*]] = tosa.conv2d %[[PAD]], {{.*}} : (tensor<1x6x6x4xf16>, tensor<4x3x3x4xf16>, tensor<4xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<1x4x4x4xf16>
// CHECK-NEXT:    %[[R:.*]] = arith.extf %[[C2]] : tensor<1x4x4x4xf16> to tensor<1x4x4x4xf32>
// CHECK-NEXT:    return %[[R]]
func.func @pools_between_convs(%i: tensor<1x8x8x4xf32>, %w: tensor<4x3x3x4xf32>, %b: tensor<4xf32>) -> tensor<1x4x4x4xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %0 = tosa.conv2d %i, %w, %b, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x8x8x4xf32>, tensor<4x3x3x4xf32>, tensor<4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x6x6x4xf32>
  %1 = tosa.max_pool2d %0 {kernel = array<i64: 2, 2>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x6x6x4xf32>) -> tensor<1x5x5x4xf32>
  %2 = tosa.avg_pool2d %1, %zp, %zp {acc_type = f32, kernel = array<i64: 2, 2>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x5x5x4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x4x4xf32>
  %pads = tosa.const_shape {values = dense<[0, 0, 1, 1, 1, 1, 0, 0]> : tensor<8xindex>} : () -> !tosa.shape<8>
  %pc = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %3 = tosa.pad %2, %pads, %pc : (tensor<1x4x4x4xf32>, !tosa.shape<8>, tensor<1xf32>) -> tensor<1x6x6x4xf32>
  %4 = tosa.conv2d %3, %w, %b, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x6x6x4xf32>, tensor<4x3x3x4xf32>, tensor<4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x4x4xf32>
  return %4 : tensor<1x4x4x4xf32>
}
