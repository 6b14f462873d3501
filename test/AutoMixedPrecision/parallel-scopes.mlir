// Functions are painted in scopes, in parallel: a private function called only
// directly is painted (and specialised) together with every function that
// calls it; any other function on its own. The output, the remarks and their
// order, and the statistics do not depend on the threads.
// RUN: amp-opt %s --amp-auto-mixed-precision > %t.parallel.mlir
// RUN: amp-opt %s --amp-auto-mixed-precision --mlir-disable-threading > %t.serial.mlir
// RUN: diff %t.parallel.mlir %t.serial.mlir
// RUN: FileCheck %s < %t.parallel.mlir
// RUN: amp-opt %s --amp-auto-mixed-precision='explain=true stats=true' -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARKS
// RUN: amp-opt %s --amp-auto-mixed-precision='explain=true stats=true' --mlir-disable-threading -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARKS

// @shared is called by @left and @right: one scope, one specialisation that
// both calls agree with.
// CHECK-LABEL: func.func private @shared(%{{.*}}: tensor<32x32xf16>) -> tensor<32x32xf16>
// CHECK:         arith.maximumf %{{.*}}, %{{.*}} : tensor<32x32xf16>
// CHECK-LABEL: func.func @left
// CHECK:         %[[L:.*]] = linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<32x32xf16>, tensor<32x32xf16>) outs(%{{.*}} : tensor<32x32xf32>)
// CHECK:         %[[LT:.*]] = arith.truncf %[[L]] : tensor<32x32xf32> to tensor<32x32xf16>
// CHECK:         call @shared(%[[LT]]) : (tensor<32x32xf16>) -> tensor<32x32xf16>
// CHECK-LABEL: func.func @alone
// CHECK:         math.exp %{{.*}} : tensor<32x32xf32>
// CHECK-LABEL: func.func @right
// CHECK:         call @shared(%{{.*}}) : (tensor<32x32xf16>) -> tensor<32x32xf16>
// CHECK-LABEL: func.func @other
// CHECK:         linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<32x32xf16>, tensor<32x32xf16>) outs(%{{.*}} : tensor<32x32xf32>)

// Remarks come in module order of the scopes' first functions: @shared's
// scope (@shared, @left, @right) first, then @alone, then @other.
// REMARKS:      parallel-scopes.mlir:68:{{[0-9]+}}: remark: amp: carried value low
// REMARKS:      parallel-scopes.mlir:47:{{[0-9]+}}: remark: amp: carried value low
// REMARKS:      parallel-scopes.mlir:48:{{[0-9]+}}: remark: amp: low: clear
// REMARKS:      parallel-scopes.mlir:54:{{[0-9]+}}: remark: amp: low: allow
// REMARKS:      parallel-scopes.mlir:56:{{[0-9]+}}: remark: amp: low: allow
// REMARKS:      parallel-scopes.mlir:67:{{[0-9]+}}: remark: amp: low: allow
// REMARKS:      parallel-scopes.mlir:69:{{[0-9]+}}: remark: amp: low: allow
// REMARKS:      parallel-scopes.mlir:61:{{[0-9]+}}: remark: amp: f32: deny
// REMARKS:      parallel-scopes.mlir:75:{{[0-9]+}}: remark: amp: low: allow
// REMARKS:      amp-auto-mixed-precision statistics:
// REMARKS-NEXT:   6 ops-converted
// REMARKS-NEXT:   1 ops-kept-f32
// REMARKS-NEXT:   8 casts-inserted
// REMARKS-NEXT:   0 roundings-read-wide
// REMARKS-NEXT:   2 carried-values-low

// A loss of order or a race would show as a remark out of place or a count
// off; a wrong scope (@left and @right apart) as calls that disagree.
func.func private @shared(%x: tensor<32x32xf32>) -> tensor<32x32xf32> {
  %y = arith.maximumf %x, %x : tensor<32x32xf32>
  return %y : tensor<32x32xf32>
}

func.func @left(%a: tensor<32x32xf32>, %b: tensor<32x32xf32>) -> tensor<32x32xf32> {
  %e = tensor.empty() : tensor<32x32xf32>
  %m = linalg.matmul ins(%a, %b : tensor<32x32xf32>, tensor<32x32xf32>) outs(%e : tensor<32x32xf32>) -> tensor<32x32xf32>
  %s = func.call @shared(%m) : (tensor<32x32xf32>) -> tensor<32x32xf32>
  %r = linalg.matmul ins(%s, %b : tensor<32x32xf32>, tensor<32x32xf32>) outs(%e : tensor<32x32xf32>) -> tensor<32x32xf32>
  return %r : tensor<32x32xf32>
}

func.func @alone(%a: tensor<32x32xf32>) -> tensor<32x32xf32> {
  %r = math.exp %a : tensor<32x32xf32>
  return %r : tensor<32x32xf32>
}

func.func @right(%a: tensor<32x32xf32>, %b: tensor<32x32xf32>) -> tensor<32x32xf32> {
  %e = tensor.empty() : tensor<32x32xf32>
  %m = linalg.matmul ins(%a, %b : tensor<32x32xf32>, tensor<32x32xf32>) outs(%e : tensor<32x32xf32>) -> tensor<32x32xf32>
  %s = func.call @shared(%m) : (tensor<32x32xf32>) -> tensor<32x32xf32>
  %r = linalg.matmul ins(%s, %b : tensor<32x32xf32>, tensor<32x32xf32>) outs(%e : tensor<32x32xf32>) -> tensor<32x32xf32>
  return %r : tensor<32x32xf32>
}

func.func @other(%a: tensor<32x32xf32>, %b: tensor<32x32xf32>) -> tensor<32x32xf32> {
  %e = tensor.empty() : tensor<32x32xf32>
  %m = linalg.matmul ins(%a, %b : tensor<32x32xf32>, tensor<32x32xf32>) outs(%e : tensor<32x32xf32>) -> tensor<32x32xf32>
  return %m : tensor<32x32xf32>
}
