// Dynamic dimensions to pad are left alone with a remark (the batch
// dimension may be dynamic: it is never padded). Bad options fail with a
// message and a non-zero exit.
// RUN: amp-opt %s --split-input-file --verify-diagnostics \
// RUN:   --amp-pad-for-tensor-cores | FileCheck %s

// RUN: not amp-opt %s --amp-pad-for-tensor-cores='multiple=0' 2>&1 \
// RUN:   | FileCheck %s --check-prefix=ZERO
// ZERO: error: amp-pad-for-tensor-cores: multiple and int8-multiple must be >= 1 (got multiple=0, int8-multiple=16)
// RUN: not amp-opt %s --amp-pad-for-tensor-cores='multiple=-8' 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NEG
// NEG: error: amp-pad-for-tensor-cores: multiple and int8-multiple must be >= 1 (got multiple=-8, int8-multiple=16)
// RUN: not amp-opt %s --amp-pad-for-tensor-cores='int8-multiple=0' 2>&1 \
// RUN:   | FileCheck %s --check-prefix=INT8
// INT8: error: amp-pad-for-tensor-cores: multiple and int8-multiple must be >= 1 (got multiple=8, int8-multiple=0)
// RUN: not amp-opt %s --amp-pad-for-tensor-cores='max-flop-growth=-0.5' 2>&1 \
// RUN:   | FileCheck %s --check-prefix=GROWTH
// GROWTH: error: amp-pad-for-tensor-cores: max-flop-growth must be a finite number >= 0 (got -0.5)
// RUN: not amp-opt %s --amp-pad-for-tensor-cores='multiple=eight' 2>&1 \
// RUN:   | FileCheck %s --check-prefix=PARSE
// PARSE: for the --multiple option: 'eight' value invalid
// RUN: not amp-opt %s --amp-pad-for-tensor-cores='multiples=8' 2>&1 \
// RUN:   | FileCheck %s --check-prefix=UNKNOWN
// UNKNOWN: no such option multiples

// CHECK-LABEL: func.func @dynamic_m
// CHECK-NOT:     tensor.pad
// CHECK:         linalg.matmul ins(%{{.+}}, %{{.+}} : tensor<?x70xf16>, tensor<70x50xf16>) outs(%{{.+}} : tensor<?x50xf32>)
func.func @dynamic_m(%a: tensor<?x70xf16>, %b: tensor<70x50xf16>, %c: tensor<?x50xf32>) -> tensor<?x50xf32> {
  // expected-remark @below {{amp-pad-for-tensor-cores: not padded: dimension M is dynamic}}
  %r = linalg.matmul ins(%a, %b : tensor<?x70xf16>, tensor<70x50xf16>)
                     outs(%c : tensor<?x50xf32>) -> tensor<?x50xf32>
  return %r : tensor<?x50xf32>
}

// -----

// CHECK-LABEL: func.func @dynamic_k
// CHECK-NOT:     tensor.pad
// CHECK:         linalg.matmul
func.func @dynamic_k(%a: tensor<30x?xf16>, %b: tensor<?x50xf16>, %c: tensor<30x50xf32>) -> tensor<30x50xf32> {
  // expected-remark @below {{amp-pad-for-tensor-cores: not padded: dimension K is dynamic}}
  %r = linalg.matmul ins(%a, %b : tensor<30x?xf16>, tensor<?x50xf16>)
                     outs(%c : tensor<30x50xf32>) -> tensor<30x50xf32>
  return %r : tensor<30x50xf32>
}

// -----

// CHECK-LABEL: func.func @dynamic_channels
// CHECK-NOT:     tensor.pad
// CHECK:         linalg.conv_2d_nchw_fchw
func.func @dynamic_channels(%i: tensor<1x?x10x10xf16>, %f: tensor<60x?x3x3xf16>, %o: tensor<1x60x8x8xf32>) -> tensor<1x60x8x8xf32> {
  // expected-remark @below {{amp-pad-for-tensor-cores: not padded: dimension C is dynamic}}
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
         ins(%i, %f : tensor<1x?x10x10xf16>, tensor<60x?x3x3xf16>)
         outs(%o : tensor<1x60x8x8xf32>) -> tensor<1x60x8x8xf32>
  return %r : tensor<1x60x8x8xf32>
}

// -----

// A dynamic batch dimension is not one to pad: this aligned op gets no
// remark.
// CHECK-LABEL: func.func @dynamic_batch_aligned
// CHECK-NOT:     tensor.pad
// CHECK:         linalg.batch_matmul
func.func @dynamic_batch_aligned(%a: tensor<?x32x64xf16>, %b: tensor<?x64x16xf16>, %c: tensor<?x32x16xf32>) -> tensor<?x32x16xf32> {
  %r = linalg.batch_matmul ins(%a, %b : tensor<?x32x64xf16>, tensor<?x64x16xf16>)
                           outs(%c : tensor<?x32x16xf32>) -> tensor<?x32x16xf32>
  return %r : tensor<?x32x16xf32>
}
