// --amp='dot=<file>' draws the dataflow graph: ops filled by precision,
// the painting's reason as tooltip, casts as their own nodes, edges
// labelled with the types they carry.
// RUN: amp-opt %s --amp='dot=%t.dot' -o /dev/null
// RUN: FileCheck %s < %t.dot
// RUN: amp-opt %s --amp='dot=%t.loop.dot dot-func=loop' -o /dev/null
// RUN: FileCheck %s --check-prefix=LOOP < %t.loop.dot

// CHECK: digraph amp {
// CHECK:   subgraph cluster_legend {
// CHECK-DAG:     legend_0 [label="low precision (f16 / bf16)", fillcolor="#a6dba0"];
// CHECK-DAG:     legend_1 [label="f32", fillcolor="#92c5de"];
// CHECK-DAG:     legend_2 [label="cast (truncf / extf)", fillcolor="#fdb863"];
// CHECK-DAG:     legend_3 [label="unlisted (never converted)", fillcolor="#d9d9d9"];
// CHECK-DAG:     legend_4 [label="no float values", fillcolor="#ffffff"];
// CHECK:     label="@graph";
// CHECK-DAG:     [[A:n[0-9]+]] [label="%arg0", tooltip="argument: tensor<4x8xf32>", fillcolor="#92c5de", shape=ellipse];
// CHECK-DAG:     [[CA:n[0-9]+]] [label="arith.truncf\nline {{[0-9]+}}\nf32 -> f16", tooltip="arith.truncf: cast tensor<4x8xf32> -> tensor<4x8xf16>, 64 bytes", fillcolor="#fdb863"];
// CHECK-DAG:     [[MM:n[0-9]+]] [label="linalg.matmul\nline 44", tooltip="linalg.matmul: allow (allow list (default)): low-precision inputs, f32 accumulation", fillcolor="#a6dba0"];
// CHECK-DAG:     [[EXP:n[0-9]+]] [label="math.exp\nline 45", tooltip="math.exp: deny (deny list (default))", fillcolor="#92c5de"];
// CHECK-DAG:     [[ADD:n[0-9]+]] [label="arith.addf\nline 46", tooltip="arith.addf: infer: fed by math.exp at loc(\"{{.*}}dot.mlir\":45:{{[0-9]+}}) through infer/clear ops, kept f32", fillcolor="#92c5de"];
// CHECK-DAG:     [[ATANH:n[0-9]+]] [label="math.atanh\nline 47", tooltip="math.atanh: unlisted (not on any list): kept f32", fillcolor="#d9d9d9"];
// CHECK-DAG:     [[RET:n[0-9]+]] [label="return", tooltip="function results", fillcolor="#ffffff", shape=house];
// CHECK-DAG:   [[A]] -> [[CA]] [color="#2166ac", label="tensor<4x8xf32>"];
// CHECK-DAG:   [[CA]] -> [[MM]] [color="#1b7837", label="tensor<4x8xf16>"];
// CHECK-DAG:   [[MM]] -> [[EXP]] [color="#2166ac", label="tensor<4x4xf32>"];
// CHECK-DAG:   [[EXP]] -> [[ADD]] [color="#2166ac", label="tensor<4x4xf32>"];
// CHECK-DAG:   [[ADD]] -> [[ATANH]] [color="#2166ac", label="tensor<4x4xf32>"];
// CHECK-DAG:   [[ATANH]] -> [[RET]] [color="#2166ac", label="tensor<4x4xf32>"];
// CHECK: }

// Only @loop; an scf.for is a cluster around its node, yields go back to it.
// LOOP-NOT: label="@graph";
// LOOP:     label="@loop";
// LOOP:     subgraph cluster_{{[0-9]+}} {
// LOOP-NEXT:  label="scf.for";
// LOOP-NEXT:  [[FOR:n[0-9]+]] [label="scf.for\nline 55", tooltip="scf.for: its body is in this cluster; the values it carries take the precision of their producers and users", fillcolor="#92c5de", shape=octagon];
// LOOP-NEXT:  [[BODY:n[0-9]+]] [label="linalg.matmul\nline 56", {{.*}}, fillcolor="#a6dba0"];
// LOOP-DAG:   [[FOR]] -> [[BODY]] [color="#2166ac", label="tensor<8x32xf32>"];
// LOOP-DAG:   [[BODY]] -> [[FOR]] [color="#2166ac", label="yield"];
// LOOP-NOT: label="@graph";

func.func @graph(%a: tensor<4x8xf32>, %b: tensor<8x4xf32>, %c: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x4xf32>) outs(%c : tensor<4x4xf32>) -> tensor<4x4xf32>
  %1 = math.exp %0 : tensor<4x4xf32>
  %2 = arith.addf %1, %1 : tensor<4x4xf32>
  %3 = math.atanh %2 : tensor<4x4xf32>
  return %3 : tensor<4x4xf32>
}

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
