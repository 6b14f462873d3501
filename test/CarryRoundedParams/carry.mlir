// RUN: amp-opt %s --split-input-file --amp-carry-rounded-params | FileCheck %s

// A weight the step rounds and updates: the rounding becomes an argument, the
// rounding of the new value a result that updates it. The bias, read in f32,
// and the input, which is not a param, keep their roundings.

// CHECK-LABEL: func.func @step
// CHECK-SAME:    %[[X:[a-z0-9]+]]: tensor<4x8xf32> {amp.role = "input"}
// CHECK-SAME:    %[[W:[a-z0-9]+]]: tensor<8x2xf32> {amp.role = "param"}
// CHECK-SAME:    %[[B:[a-z0-9]+]]: tensor<2xf32> {amp.role = "param"}
// CHECK-SAME:    %[[C:[a-z0-9]+]]: tensor<8x2xbf16> {amp.copy_of = 1 : i64, amp.role = "param_copy"})
// CHECK-SAME:    -> (tensor<f32> {amp.role = "loss"}, tensor<8x2xf32> {amp.role = "update", amp.updates = 1 : i64}, tensor<2xf32> {amp.role = "update", amp.updates = 2 : i64}, tensor<8x2xbf16> {amp.role = "update", amp.updates = 3 : i64})
// CHECK:         %[[XL:.+]] = arith.truncf %[[X]] : tensor<4x8xf32> to tensor<4x8xbf16>
// CHECK-NOT:     arith.truncf %[[W]]
// CHECK:         linalg.matmul ins(%[[XL]], %[[C]] : tensor<4x8xbf16>, tensor<8x2xbf16>)
// CHECK:         %[[NEW:.+]] = arith.subf %[[W]]
// CHECK:         %[[NEXT:.+]] = arith.truncf %[[NEW]] : tensor<8x2xf32> to tensor<8x2xbf16>
// CHECK:         return %{{.+}}, %[[NEW]], %{{.+}}, %[[NEXT]] :
func.func @step(%x: tensor<4x8xf32> {amp.role = "input"},
                %w: tensor<8x2xf32> {amp.role = "param"},
                %b: tensor<2xf32> {amp.role = "param"})
    -> (tensor<f32> {amp.role = "loss"},
        tensor<8x2xf32> {amp.role = "update", amp.updates = 1 : i64},
        tensor<2xf32> {amp.role = "update", amp.updates = 2 : i64}) {
  %xl = arith.truncf %x : tensor<4x8xf32> to tensor<4x8xbf16>
  %wl = arith.truncf %w : tensor<8x2xf32> to tensor<8x2xbf16>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x2xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<4x2xf32>) -> tensor<4x2xf32>
  %y = linalg.matmul ins(%xl, %wl : tensor<4x8xbf16>, tensor<8x2xbf16>) outs(%acc : tensor<4x2xf32>) -> tensor<4x2xf32>
  %s = tensor.empty() : tensor<f32>
  %l0 = linalg.fill ins(%zero : f32) outs(%s : tensor<f32>) -> tensor<f32>
  %loss = linalg.reduce ins(%y : tensor<4x2xf32>) outs(%l0 : tensor<f32>) dimensions = [0, 1]
    (%in: f32, %out: f32) {
      %a = arith.addf %in, %out : f32
      linalg.yield %a : f32
    }
  %step = arith.constant dense<0.01> : tensor<8x2xf32>
  %wn = arith.subf %w, %step : tensor<8x2xf32>
  %bstep = arith.constant dense<0.01> : tensor<2xf32>
  %bn = arith.subf %b, %bstep : tensor<2xf32>
  return %loss, %wn, %bn : tensor<f32>, tensor<8x2xf32>, tensor<2xf32>
}

// -----

// Two roundings to bf16 (one inside an scf.if) share one copy; a rounding to
// f16 gets its own.

// CHECK-LABEL: func.func @two_types
// CHECK-SAME:    %[[W:[a-z0-9]+]]: tensor<8xf32> {amp.role = "param"}
// CHECK-SAME:    %[[P:[a-z0-9]+]]: i1
// CHECK-SAME:    %[[CB:[a-z0-9]+]]: tensor<8xbf16> {amp.copy_of = 0 : i64, amp.role = "param_copy"}
// CHECK-SAME:    %[[CH:[a-z0-9]+]]: tensor<8xf16> {amp.copy_of = 0 : i64, amp.role = "param_copy"})
// CHECK-SAME:    tensor<8xbf16> {amp.role = "update", amp.updates = 2 : i64}, tensor<8xf16> {amp.role = "update", amp.updates = 3 : i64})
// CHECK-NOT:     arith.truncf %[[W]]
// CHECK:         scf.if %[[P]]
// CHECK-NEXT:      scf.yield %[[CB]]
// CHECK:         %[[NB:.+]] = arith.truncf %[[W]] : tensor<8xf32> to tensor<8xbf16>
// CHECK:         %[[NH:.+]] = arith.truncf %[[W]] : tensor<8xf32> to tensor<8xf16>
// CHECK:         return %{{.+}}, %[[W]], %{{.+}}, %{{.+}}, %[[NB]], %[[NH]] :
func.func @two_types(%w: tensor<8xf32> {amp.role = "param"}, %p: i1)
    -> (tensor<f32> {amp.role = "loss"},
        tensor<8xf32> {amp.role = "update", amp.updates = 0 : i64},
        tensor<8xbf16>, tensor<8xf16>) {
  %a = arith.truncf %w : tensor<8xf32> to tensor<8xbf16>
  %b = scf.if %p -> tensor<8xbf16> {
    %c = arith.truncf %w : tensor<8xf32> to tensor<8xbf16>
    scf.yield %c : tensor<8xbf16>
  } else {
    scf.yield %a : tensor<8xbf16>
  }
  %h = arith.truncf %w : tensor<8xf32> to tensor<8xf16>
  %zero = arith.constant dense<0.0> : tensor<f32>
  return %zero, %w, %b, %h : tensor<f32>, tensor<8xf32>, tensor<8xbf16>, tensor<8xf16>
}

// -----

// Nothing to carry: a param the function does not update (an evaluation
// function), a rounding with an explicit rounding mode, a function that is
// called (its callers would need the copy too), and a param read in f32 only.

// CHECK-LABEL: func.func @eval
// CHECK-SAME:    (%[[W:.+]]: tensor<8xf32> {amp.role = "param"}) -> tensor<8xbf16>
// CHECK:         arith.truncf %[[W]]
func.func @eval(%w: tensor<8xf32> {amp.role = "param"}) -> tensor<8xbf16> {
  %a = arith.truncf %w : tensor<8xf32> to tensor<8xbf16>
  return %a : tensor<8xbf16>
}

// CHECK-LABEL: func.func @rounding_mode
// CHECK-SAME:    (%[[W:.+]]: tensor<8xf32> {amp.role = "param"}) -> (tensor<8xf32> {{.*}}, tensor<8xbf16>)
// CHECK:         arith.truncf %[[W]] to_nearest_away
func.func @rounding_mode(%w: tensor<8xf32> {amp.role = "param"})
    -> (tensor<8xf32> {amp.role = "update", amp.updates = 0 : i64}, tensor<8xbf16>) {
  %a = arith.truncf %w to_nearest_away : tensor<8xf32> to tensor<8xbf16>
  return %w, %a : tensor<8xf32>, tensor<8xbf16>
}

// CHECK-LABEL: func.func private @callee
// CHECK-SAME:    (%[[W:.+]]: tensor<8xf32> {amp.role = "param"}) -> (tensor<8xf32> {{.*}}, tensor<8xbf16>)
// CHECK:         arith.truncf %[[W]]
func.func private @callee(%w: tensor<8xf32> {amp.role = "param"})
    -> (tensor<8xf32> {amp.role = "update", amp.updates = 0 : i64}, tensor<8xbf16>) {
  %a = arith.truncf %w : tensor<8xf32> to tensor<8xbf16>
  return %w, %a : tensor<8xf32>, tensor<8xbf16>
}
func.func @caller(%w: tensor<8xf32>) -> tensor<8xbf16> {
  %n, %a = func.call @callee(%w) : (tensor<8xf32>) -> (tensor<8xf32>, tensor<8xbf16>)
  return %a : tensor<8xbf16>
}

// CHECK-LABEL: func.func @f32_only
// CHECK-SAME:    (%{{.+}}: tensor<8xf32> {amp.role = "param"}) -> (tensor<8xf32> {amp.role = "update", amp.updates = 0 : i64})
func.func @f32_only(%w: tensor<8xf32> {amp.role = "param"})
    -> (tensor<8xf32> {amp.role = "update", amp.updates = 0 : i64}) {
  %n = arith.addf %w, %w : tensor<8xf32>
  return %n : tensor<8xf32>
}

// -----

// A param returned unchanged: its copy's update is the rounding of the
// argument itself, and a second run of the pass adds nothing.
// RUN: amp-opt %s --split-input-file --amp-carry-rounded-params \
// RUN:   --amp-carry-rounded-params | FileCheck %s --check-prefix=TWICE

// TWICE-LABEL: func.func @frozen
// TWICE-SAME:    (%[[W:.+]]: tensor<8xf32> {amp.role = "param"}, %[[C:.+]]: tensor<8xbf16> {amp.copy_of = 0 : i64, amp.role = "param_copy"})
// TWICE-SAME:    -> (tensor<8xbf16>, tensor<8xf32> {amp.role = "update", amp.updates = 0 : i64}, tensor<8xbf16> {amp.role = "update", amp.updates = 1 : i64})
// TWICE:         %[[N:.+]] = arith.truncf %[[W]]
// TWICE-NEXT:    return %[[C]], %[[W]], %[[N]] :
func.func @frozen(%w: tensor<8xf32> {amp.role = "param"})
    -> (tensor<8xbf16>, tensor<8xf32> {amp.role = "update", amp.updates = 0 : i64}) {
  %a = arith.truncf %w : tensor<8xf32> to tensor<8xbf16>
  return %a, %w : tensor<8xbf16>, tensor<8xf32>
}
