//===- ReadRoundingsWideTest.cpp - populateReadRoundingsWidePatterns ------===//
//
// The cast-economy patterns used as another compiler would, after its own
// mixed-precision rewrite, under the greedy driver: a rounding that only
// elementwise readers extend back goes, one that a contraction reads stays,
// and a chain of low elementwise ops rounds once, at its end.
//
//===----------------------------------------------------------------------===//

#include "amp/Transforms/ReadRoundingsWide.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::amp;

namespace {

constexpr const char *kModule = R"mlir(
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @f(%a: tensor<4x8xbf16>, %w: tensor<8x8xbf16>, %o: tensor<4x8xf32>,
             %e: tensor<4x8xbf16>) -> (tensor<4x8xbf16>, tensor<4x8xf32>) {
  %mm = linalg.matmul ins(%a, %w : tensor<4x8xbf16>, tensor<8x8xbf16>)
                      outs(%o : tensor<4x8xf32>) -> tensor<4x8xf32>
  %low = arith.truncf %mm : tensor<4x8xf32> to tensor<4x8xbf16>
  %relu = linalg.generic {indexing_maps = [#id, #id],
                          iterator_types = ["parallel", "parallel"]}
      ins(%low : tensor<4x8xbf16>) outs(%e : tensor<4x8xbf16>) {
  ^bb0(%in: bf16, %out: bf16):
    %x = arith.extf %in : bf16 to f32
    %zero = arith.constant 0.0 : f32
    %r = arith.maximumf %x, %zero : f32
    %t = arith.truncf %r : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<4x8xbf16>
  %low2 = arith.truncf %mm : tensor<4x8xf32> to tensor<4x8xbf16>
  %mm2 = linalg.matmul ins(%low2, %w : tensor<4x8xbf16>, tensor<8x8xbf16>)
                       outs(%o : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %relu, %mm2 : tensor<4x8xbf16>, tensor<4x8xf32>
}
)mlir";

/// Parses a module and applies the patterns to it greedily, as another
/// compiler would after its own mixed-precision rewrite.
class ReadRoundingsWidePatterns : public ::testing::Test {
protected:
  ReadRoundingsWidePatterns() {
    context.loadDialect<arith::ArithDialect, func::FuncDialect,
                        linalg::LinalgDialect, tensor::TensorDialect>();
  }

  /// The rewritten module; null if it does not parse, the driver fails or
  /// the result does not verify.
  OwningOpRef<ModuleOp> rewrite(const char *source) {
    OwningOpRef<ModuleOp> module =
        parseSourceString<ModuleOp>(source, &context);
    if (!module)
      return nullptr;
    RewritePatternSet patterns(&context);
    populateReadRoundingsWidePatterns(patterns);
    if (failed(applyPatternsGreedily(*module, std::move(patterns))) ||
        failed(verify(*module)))
      return nullptr;
    return module;
  }

  MLIRContext context;
};

TEST_F(ReadRoundingsWidePatterns, ElementwiseReadersTakeTheWideValue) {
  OwningOpRef<ModuleOp> module = rewrite(kModule);
  ASSERT_TRUE(module);

  SmallVector<linalg::MatmulOp> matmuls;
  module->walk([&](linalg::MatmulOp op) { matmuls.push_back(op); });
  ASSERT_EQ(matmuls.size(), 2u);
  Value mm = matmuls[0].getResult(0);
  linalg::GenericOp relu;
  module->walk([&](linalg::GenericOp op) { relu = op; });
  ASSERT_TRUE(relu);
  // The relu reads the f32 accumulator, with no extension left in its body.
  EXPECT_EQ(relu.getDpsInputs()[0], mm);
  EXPECT_TRUE(relu.getBody()->getArgument(0).getType().isF32());
  int extensions = 0;
  relu.getBody()->walk([&](arith::ExtFOp) { ++extensions; });
  EXPECT_EQ(extensions, 0);
  // The second matmul still reads bf16, through the one rounding left.
  auto secondInput = matmuls[1].getDpsInputs()[0];
  auto rounding = secondInput.getDefiningOp<arith::TruncFOp>();
  ASSERT_TRUE(rounding);
  EXPECT_EQ(rounding.getIn(), mm);
  int roundings = 0;
  module->walk([&](arith::TruncFOp op) {
    if (isa<RankedTensorType>(op.getType()))
      ++roundings;
  });
  EXPECT_EQ(roundings, 1);
}

constexpr const char *kChain = R"mlir(
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
func.func @f(%x: tensor<4x8xf32>, %m: tensor<8xf32>, %s: tensor<8xf32>,
             %w: tensor<8x8xbf16>, %o: tensor<4x8xf32>,
             %e: tensor<4x8xbf16>) -> tensor<4x8xf32> {
  %sub = linalg.generic {indexing_maps = [#id, #row, #id],
                         iterator_types = ["parallel", "parallel"]}
      ins(%x, %m : tensor<4x8xf32>, tensor<8xf32>) outs(%e : tensor<4x8xbf16>) {
  ^bb0(%in: f32, %mean: f32, %out: bf16):
    %d = arith.subf %in, %mean : f32
    %t = arith.truncf %d : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<4x8xbf16>
  %mul = linalg.generic {indexing_maps = [#id, #row, #id],
                         iterator_types = ["parallel", "parallel"]}
      ins(%sub, %s : tensor<4x8xbf16>, tensor<8xf32>) outs(%e : tensor<4x8xbf16>) {
  ^bb0(%in: bf16, %scale: f32, %out: bf16):
    %v = arith.extf %in : bf16 to f32
    %p = arith.mulf %v, %scale : f32
    %t = arith.truncf %p : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<4x8xbf16>
  %mm = linalg.matmul ins(%mul, %w : tensor<4x8xbf16>, tensor<8x8xbf16>)
                      outs(%o : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %mm : tensor<4x8xf32>
}
)mlir";

TEST_F(ReadRoundingsWidePatterns, ElementwiseChainRoundsOnce) {
  OwningOpRef<ModuleOp> module = rewrite(kChain);
  ASSERT_TRUE(module);

  SmallVector<linalg::GenericOp> generics;
  module->walk([&](linalg::GenericOp op) { generics.push_back(op); });
  ASSERT_EQ(generics.size(), 2u);
  linalg::GenericOp sub = generics[0], mul = generics[1];
  // The subtraction yields f32, which the multiplication reads as it is.
  auto subType = cast<RankedTensorType>(sub.getResult(0).getType());
  EXPECT_TRUE(subType.getElementType().isF32());
  EXPECT_EQ(mul.getDpsInputs()[0], sub.getResult(0));
  int subRoundings = 0, mulExtensions = 0;
  sub.getBody()->walk([&](arith::TruncFOp) { ++subRoundings; });
  mul.getBody()->walk([&](arith::ExtFOp) { ++mulExtensions; });
  EXPECT_EQ(subRoundings, 0);
  EXPECT_EQ(mulExtensions, 0);
  // The multiplication, read by the matmul, still rounds its result.
  auto mulType = cast<RankedTensorType>(mul.getResult(0).getType());
  EXPECT_TRUE(mulType.getElementType().isBF16());
  auto yield = cast<linalg::YieldOp>(mul.getBody()->getTerminator());
  EXPECT_TRUE(yield.getOperand(0).getDefiningOp<arith::TruncFOp>());
}

} // namespace
