// RUN: amp-opt %s --split-input-file --amp-fuse-elementwise | FileCheck %s

// amp-fuse-elementwise computes the element a gather (a tensor.extract in
// a linalg body) reads from an elementwise producer, through the layout
// ops between them, instead of materializing the producer's tensor:
// torch-mlir's max-pool indices read the stem's padded activation that way,
// widened to f32 and unblocked (27 MB per resnet18 step).

// CHECK-LABEL: func.func @widened_unblocked_gather
// CHECK-SAME: (%[[X:.+]]: tensor<2x1x4x4x16xbf16>, %[[M:.+]]: tensor<2x16x2x2xf32>)
// CHECK-NOT: tensor<2x1x4x4x16xf32>
// CHECK-NOT: tensor.collapse_shape
// CHECK: linalg.generic
// CHECK: %[[C:.+]] = linalg.index 1
// CHECK-DAG: %[[CB:.+]] = arith.divui %[[C]], %c16
// CHECK-DAG: %[[CI:.+]] = arith.remui %[[C]], %c16
// CHECK: %[[E:.+]] = tensor.extract %[[X]][%{{.+}}, %[[CB]], %{{.+}}, %{{.+}}, %[[CI]]] : tensor<2x1x4x4x16xbf16>
// CHECK: %[[W:.+]] = arith.extf %[[E]] : bf16 to f32
// CHECK: arith.cmpf oeq, %[[W]]
#id5 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @widened_unblocked_gather(%x: tensor<2x1x4x4x16xbf16>, %m: tensor<2x16x2x2xf32>)
    -> tensor<2x16x2x2xi1> {
  %e = tensor.empty() : tensor<2x1x4x4x16xf32>
  %w = linalg.generic {indexing_maps = [#id5, #id5],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]}
      ins(%x : tensor<2x1x4x4x16xbf16>) outs(%e : tensor<2x1x4x4x16xf32>) {
  ^bb0(%in: bf16, %out: f32):
    %1 = arith.extf %in : bf16 to f32
    linalg.yield %1 : f32
  } -> tensor<2x1x4x4x16xf32>
  %te = tensor.empty() : tensor<2x1x16x4x4xf32>
  %t = linalg.transpose ins(%w : tensor<2x1x4x4x16xf32>) outs(%te : tensor<2x1x16x4x4xf32>)
      permutation = [0, 1, 4, 2, 3]
  %c = tensor.collapse_shape %t [[0], [1, 2], [3], [4]] : tensor<2x1x16x4x4xf32> into tensor<2x16x4x4xf32>
  %s = tensor.extract_slice %c[0, 0, 1, 1] [2, 16, 2, 2] [1, 1, 2, 1] : tensor<2x16x4x4xf32> to tensor<2x16x2x2xf32>
  %o = tensor.empty() : tensor<2x16x2x2xi1>
  %r = linalg.generic {indexing_maps = [#id4, #id4],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%m : tensor<2x16x2x2xf32>) outs(%o : tensor<2x16x2x2xi1>) {
  ^bb0(%max: f32, %out: i1):
    %n = linalg.index 0 : index
    %ch = linalg.index 1 : index
    %h = linalg.index 2 : index
    %v = linalg.index 3 : index
    %x0 = tensor.extract %s[%n, %ch, %h, %v] : tensor<2x16x2x2xf32>
    %eq = arith.cmpf oeq, %x0, %max : f32
    linalg.yield %eq : i1
  } -> tensor<2x16x2x2xi1>
  return %r : tensor<2x16x2x2xi1>
}

// -----

// A slice's offsets and strides are applied to the index.
// CHECK-LABEL: func.func @strided_slice
// CHECK: %[[I2:.+]] = arith.muli %arg1, %c2
// CHECK: %[[I1:.+]] = arith.addi %[[I2]], %c1
// CHECK: tensor.extract %arg0[%[[I1]]] : tensor<8xf32>
func.func @strided_slice(%x: tensor<8xf32>, %i: index) -> f32 {
  %s = tensor.extract_slice %x[1] [3] [2] : tensor<8xf32> to tensor<3xf32>
  %v = tensor.extract %s[%i] : tensor<3xf32>
  return %v : f32
}

// -----

// Left alone when the producer's tensor is read otherwise too (it exists
// anyway, and the extract would recompute it), and for producers that read
// their init.
// CHECK-LABEL: func.func @also_read
// CHECK: %[[W:.+]] = linalg.generic
// CHECK: tensor.extract %[[W]]
// CHECK: return {{.*}}%[[W]]
#id = affine_map<(d0) -> (d0)>
func.func @also_read(%x: tensor<8xbf16>, %i: index) -> (f32, tensor<8xf32>) {
  %e = tensor.empty() : tensor<8xf32>
  %w = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<8xbf16>) outs(%e : tensor<8xf32>) {
  ^bb0(%in: bf16, %out: f32):
    %1 = arith.extf %in : bf16 to f32
    linalg.yield %1 : f32
  } -> tensor<8xf32>
  %v = tensor.extract %w[%i] : tensor<8xf32>
  return %v, %w : f32, tensor<8xf32>
}

// CHECK-LABEL: func.func @reads_init
// CHECK: %[[A:.+]] = linalg.generic
// CHECK: tensor.extract %[[A]]
func.func @reads_init(%x: tensor<8xf32>, %y: tensor<8xf32>, %i: index) -> f32 {
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<8xf32>) outs(%y : tensor<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %1 = arith.addf %in, %out : f32
    linalg.yield %1 : f32
  } -> tensor<8xf32>
  %v = tensor.extract %a[%i] : tensor<8xf32>
  return %v : f32
}
