//===- RetypePaintedOpsTest.cpp - populateRetypePaintedOpsPatterns --------===//
//
// The rewrite of amp-auto-mixed-precision used as another compiler would:
// plans filled by hand instead of by the painting, the patterns run by
// walkAndApplyPatterns. Checks each of the ways an op is retyped and that an
// op which does not accept the low type is left exactly as it was.
//
//===----------------------------------------------------------------------===//

#include "amp/Transforms/RetypePaintedOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"
#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::amp;

namespace {

constexpr const char *kModule = R"mlir(
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @f(%x: tensor<4x8xf32>, %w: tensor<8x2xf32>, %o: tensor<4x2xf32>) {
  %sum = arith.addf %x, %x : tensor<4x8xf32>
  %exp = linalg.generic {indexing_maps = [#id, #id],
                         iterator_types = ["parallel", "parallel"]}
      ins(%sum : tensor<4x8xf32>) outs(%x : tensor<4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %e = math.exp %in : f32
    linalg.yield %e : f32
  } -> tensor<4x8xf32>
  %mm = linalg.matmul ins(%exp, %w : tensor<4x8xf32>, tensor<8x2xf32>)
                      outs(%o : tensor<4x2xf32>) -> tensor<4x2xf32>
  %zero = arith.constant 0.0 : f32
  %pad = tensor.pad %exp low[1, 0] high[1, 0] {
  ^bb0(%i: index, %j: index):
    tensor.yield %zero : f32
  } : tensor<4x8xf32> to tensor<6x8xf32>
  %bits = arith.bitcast %x : tensor<4x8xf32> to tensor<4x8xi32>
  return
}
)mlir";

Type bf16Of(Type type) {
  auto tensor = cast<RankedTensorType>(type);
  return RankedTensorType::get(tensor.getShape(),
                               BFloat16Type::get(type.getContext()));
}

TEST(RetypePaintedOpsPatterns, EachKindOfOpUnderTheWalkDriver) {
  DialectRegistry registry;
  registry.insert<arith::ArithDialect, func::FuncDialect, linalg::LinalgDialect,
                  math::MathDialect, tensor::TensorDialect>();
  MLIRContext context(registry);
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(kModule, &context);
  ASSERT_TRUE(module);

  RetypeState state;
  state.lowType = BFloat16Type::get(&context);
  // Every float tensor operand and result low, except the matmul's f32
  // accumulator, as the painting would plan them.
  Operation *bitcast = nullptr;
  module->walk([&](Operation *op) {
    if (!isa<arith::AddFOp, linalg::GenericOp, linalg::MatmulOp, tensor::PadOp,
             arith::BitcastOp>(op) ||
        !isa<func::FuncOp>(op->getParentOp()))
      return;
    if (isa<arith::BitcastOp>(op))
      bitcast = op;
    RetypeState::Plan &plan = state.plans[op];
    for (OpOperand &operand : op->getOpOperands()) {
      Type type = operand.get().getType();
      bool low =
          isa<RankedTensorType>(type) &&
          !(isa<linalg::MatmulOp>(op) && operand.getOperandNumber() == 2);
      plan.operandTypes.push_back(low ? bf16Of(type) : type);
    }
    for (Type type : op->getResultTypes())
      plan.resultTypes.push_back(
          isa<linalg::MatmulOp, arith::BitcastOp>(op) ? type : bf16Of(type));
  });
  ASSERT_EQ(state.plans.size(), 5u);

  RewritePatternSet patterns(&context);
  populateRetypePaintedOpsPatterns(patterns, state);
  walkAndApplyPatterns(*module, std::move(patterns));

  // Every plan consumed; four ops retyped, the bitcast kept (a bf16 operand
  // has another width than its i32 result).
  EXPECT_TRUE(state.plans.empty());
  EXPECT_EQ(state.retyped.size(), 4u);
  ASSERT_EQ(state.keptF32.size(), 1u);
  EXPECT_EQ(state.keptF32.front(), bitcast);
  EXPECT_TRUE(bitcast->getOperand(0).getType() ==
              RankedTensorType::get({4, 8}, Float32Type::get(&context)));
  // addf, generic and pad made their results low; the matmul's stays f32.
  EXPECT_EQ(state.retypedValues.size(), 3u);

  auto func = *module->getOps<func::FuncOp>().begin();
  auto add = *func.getOps<arith::AddFOp>().begin();
  EXPECT_TRUE(add.getType() == bf16Of(add.getLhs().getType()));

  // The explicit body still computes in f32 between an extf and a truncf.
  auto generic = *func.getOps<linalg::GenericOp>().begin();
  Block &body = generic.getRegion().front();
  EXPECT_TRUE(body.getArgument(0).getType().isBF16());
  EXPECT_TRUE(isa<arith::ExtFOp>(body.front()));
  Value yielded = body.getTerminator()->getOperand(0);
  EXPECT_TRUE(yielded.getDefiningOp<arith::TruncFOp>());
  EXPECT_TRUE(yielded.getType().isBF16());

  // The named op's body is rebuilt: bf16 inputs extended to its f32
  // accumulator.
  auto matmul = *func.getOps<linalg::MatmulOp>().begin();
  Block &mmBody = matmul->getRegion(0).front();
  EXPECT_TRUE(mmBody.getArgument(0).getType().isBF16());
  EXPECT_TRUE(mmBody.getArgument(2).getType().isF32());
  EXPECT_TRUE(getElementTypeOrSelf(matmul.getResult(0).getType()).isF32());

  // The pad (a region yielding its element) was retyped in place, its
  // region truncating the f32 padding value.
  auto pad = *func.getOps<tensor::PadOp>().begin();
  EXPECT_TRUE(pad.getResultType().getElementType().isBF16());
  Value padValue = pad.getRegion().front().getTerminator()->getOperand(0);
  EXPECT_TRUE(padValue.getDefiningOp<arith::TruncFOp>());
}

// A pad whose trial fails (a plan whose result shape does not match the
// padding) is left as it was: no truncation left in its region.
TEST(RetypePaintedOpsPatterns, FailedTrialOfARegionOpIsUndone) {
  DialectRegistry registry;
  registry
      .insert<arith::ArithDialect, func::FuncDialect, tensor::TensorDialect>();
  MLIRContext context(registry);
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(R"mlir(
func.func @f(%x: tensor<4x8xf32>) -> tensor<6x8xf32> {
  %zero = arith.constant 0.0 : f32
  %pad = tensor.pad %x low[1, 0] high[1, 0] {
  ^bb0(%i: index, %j: index):
    tensor.yield %zero : f32
  } : tensor<4x8xf32> to tensor<6x8xf32>
  return %pad : tensor<6x8xf32>
}
)mlir",
                                                             &context);
  ASSERT_TRUE(module);
  auto func = *module->getOps<func::FuncOp>().begin();
  auto pad = *func.getOps<tensor::PadOp>().begin();
  std::string before;
  llvm::raw_string_ostream(before) << *module;

  RetypeState state;
  state.lowType = BFloat16Type::get(&context);
  RetypeState::Plan &plan = state.plans[pad];
  plan.operandTypes.push_back(bf16Of(pad.getSource().getType()));
  plan.resultTypes.push_back(
      RankedTensorType::get({7, 8}, BFloat16Type::get(&context)));

  RewritePatternSet patterns(&context);
  populateRetypePaintedOpsPatterns(patterns, state);
  walkAndApplyPatterns(*module, std::move(patterns));

  EXPECT_TRUE(state.plans.empty());
  EXPECT_TRUE(state.retyped.empty());
  ASSERT_EQ(state.keptF32.size(), 1u);
  EXPECT_EQ(state.keptF32.front(), pad.getOperation());
  std::string after;
  llvm::raw_string_ostream(after) << *module;
  EXPECT_EQ(before, after);
  EXPECT_TRUE(succeeded(verify(*module)));
}

} // namespace
