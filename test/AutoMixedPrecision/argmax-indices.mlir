// RUN: amp-opt %s --amp-auto-mixed-precision | FileCheck %s
// RUN: amp-opt %s --amp-auto-mixed-precision='explain=true' -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN

// torch-mlir's max pool with indices (a training step's forward): the
// pooled maximum, and a generic whose body reads each input element from
// the captured input and compares it for equality with the maximum. The
// pool's output also feeds a matmul (low), which floods the pool low:
// then the f16-rounded maximum equals no f32 input element, every index
// stays -1 and every gradient upstream of the pool is zero (torch-fuzz seed
// 1676). The comparing generic is deny and the pool stays f32; the cast
// goes after it, before the matmul.

// CHECK-LABEL: func.func @pool_indices(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<1x2x4x4xf32>
// CHECK: %[[POOL:.*]] = linalg.pooling_nchw_max {{.*}} ins(%[[X]], %{{.*}} : tensor<1x2x4x4xf32>, tensor<2x2xf32>) outs(%{{.*}} : tensor<1x2x2x2xf32>)
// CHECK: %[[POOL16:.*]] = arith.truncf %[[POOL]] : tensor<1x2x2x2xf32> to tensor<1x2x2x2xf16>
// CHECK: %[[IDX:.*]] = linalg.generic {{.*}} ins(%[[POOL]], %{{.*}} : tensor<1x2x2x2xf32>, tensor<2x2xi64>)
// CHECK: tensor.extract %[[X]]
// CHECK-SAME: tensor<1x2x4x4xf32>
// CHECK: arith.cmpf oeq, %{{.*}}, %{{.*}} : f32
// CHECK: %[[FLAT:.*]] = tensor.collapse_shape %[[POOL16]]
// CHECK: linalg.matmul ins(%[[FLAT]], %{{.*}} : tensor<1x8xf16>, tensor<8x4xf16>)
#pool = affine_map<(n, c, h, w, kh, kw) -> (n, c, h, w)>
#win = affine_map<(n, c, h, w, kh, kw) -> (kh, kw)>
func.func @pool_indices(%x: tensor<1x2x4x4xf32>, %w: tensor<8x4xf32>) -> (tensor<1x2x2x2xi64>, tensor<1x4xf32>) {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %none = arith.constant -1 : i64
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %e = tensor.empty() : tensor<1x2x2x2xf32>
  %init = linalg.fill ins(%ninf : f32) outs(%e : tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %window = tensor.empty() : tensor<2x2xf32>
  // EXPLAIN: argmax-indices.mlir:[[@LINE+1]]:{{[0-9]+}}: remark: amp: f32: clear: compared for equality by linalg.generic at {{.*}} with values it reads unrounded, kept f32
  %max = linalg.pooling_nchw_max {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>} ins(%x, %window : tensor<1x2x4x4xf32>, tensor<2x2xf32>) outs(%init : tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %ie = tensor.empty() : tensor<1x2x2x2xi64>
  %iinit = linalg.fill ins(%none : i64) outs(%ie : tensor<1x2x2x2xi64>) -> tensor<1x2x2x2xi64>
  %iwin = tensor.empty() : tensor<2x2xi64>
  // EXPLAIN: argmax-indices.mlir:[[@LINE+1]]:{{[0-9]+}}: remark: amp: f32: deny (linalg.generic: compares a captured tensor's elements for equality (argmax positions))
  %idx = linalg.generic {indexing_maps = [#pool, #win, #pool], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%max, %iwin : tensor<1x2x2x2xf32>, tensor<2x2xi64>) outs(%iinit : tensor<1x2x2x2xi64>) {
  ^bb0(%m: f32, %unused: i64, %out: i64):
    %ch = linalg.index 1 : index
    %oh = linalg.index 2 : index
    %kh = linalg.index 4 : index
    %ow = linalg.index 3 : index
    %kw = linalg.index 5 : index
    %h0 = arith.muli %oh, %c2 : index
    %h = arith.addi %h0, %kh : index
    %w0 = arith.muli %ow, %c2 : index
    %ww = arith.addi %w0, %kw : index
    %v = tensor.extract %x[%c0, %ch, %h, %ww] : tensor<1x2x4x4xf32>
    %hit = arith.cmpf oeq, %v, %m : f32
    %row = arith.muli %h, %c4 : index
    %pos = arith.addi %row, %ww : index
    %pos64 = arith.index_cast %pos : index to i64
    %cand = arith.select %hit, %pos64, %out : i64
    %unset = arith.cmpi eq, %out, %none : i64
    %r = arith.select %unset, %cand, %out : i64
    linalg.yield %r : i64
  } -> tensor<1x2x2x2xi64>
  %flat = tensor.collapse_shape %max [[0], [1, 2, 3]] : tensor<1x2x2x2xf32> into tensor<1x8xf32>
  %oe = tensor.empty() : tensor<1x4xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%oe : tensor<1x4xf32>) -> tensor<1x4xf32>
  %y = linalg.matmul ins(%flat, %w : tensor<1x8xf32>, tensor<8x4xf32>) outs(%acc : tensor<1x4xf32>) -> tensor<1x4xf32>
  return %idx, %y : tensor<1x2x2x2xi64>, tensor<1x4xf32>
}
