//===- LowerToRuntimePatternsTest.cpp - populateLowerToRuntimePatterns ----===//
//
// The rewrite of amp-lower-to-runtime used as another compiler would: its
// patterns added to a set and run by the greedy driver, not by the pass.
//
//===----------------------------------------------------------------------===//

#include "amp/Conversion/AmpToRuntime/AmpToRuntime.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::amp;

namespace {

constexpr const char *kModule = R"mlir(
func.func @f(%a: memref<8x16xbf16>, %b: memref<16x4xbf16>,
             %c: memref<8x4xf32>, %x: memref<8x16xf32>,
             %y: memref<16x4xf32>) {
  linalg.matmul ins(%a, %b : memref<8x16xbf16>, memref<16x4xbf16>)
                outs(%c : memref<8x4xf32>)
  linalg.matmul ins(%x, %y : memref<8x16xf32>, memref<16x4xf32>)
                outs(%c : memref<8x4xf32>)
  return
}
)mlir";

struct Lowered {
  unsigned runtimeCalls = 0, matmulsLeft = 0;
  LowerToRuntimeCounts counts;
};

Lowered lower(bool includeF32) {
  DialectRegistry registry;
  registry.insert<arith::ArithDialect, func::FuncDialect, linalg::LinalgDialect,
                  memref::MemRefDialect>();
  MLIRContext context(registry);
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(kModule, &context);
  EXPECT_TRUE(module);
  Lowered result;
  if (!module)
    return result;
  RewritePatternSet patterns(&context);
  populateLowerToRuntimePatterns(patterns, {includeF32, /*explain=*/false},
                                 &result.counts);
  EXPECT_TRUE(succeeded(applyPatternsGreedily(*module, std::move(patterns))));
  module->walk([&](func::CallOp call) {
    if (call.getCallee().starts_with("amp_rt_matmul_"))
      ++result.runtimeCalls;
  });
  module->walk([&](linalg::MatmulOp) { ++result.matmulsLeft; });
  // One declaration per entry point, with the C interface.
  module->walk([&](func::FuncOp fn) {
    if (fn.isDeclaration()) {
      EXPECT_TRUE(fn.getSymName().starts_with("amp_rt_matmul_"));
      EXPECT_TRUE(fn->hasAttr("llvm.emit_c_interface"));
    }
  });
  return result;
}

TEST(LowerToRuntimePatterns, Bf16MatmulBecomesACallUnderTheGreedyDriver) {
  Lowered r = lower(/*includeF32=*/false);
  EXPECT_EQ(r.runtimeCalls, 1u);
  EXPECT_EQ(r.matmulsLeft, 1u); // the f32 one
  EXPECT_EQ(r.counts.lowered, 1u);
  EXPECT_EQ(r.counts.nameConflicts, 0u);
}

TEST(LowerToRuntimePatterns, IncludeF32LowersBoth) {
  Lowered r = lower(/*includeF32=*/true);
  EXPECT_EQ(r.runtimeCalls, 2u);
  EXPECT_EQ(r.matmulsLeft, 0u);
  EXPECT_EQ(r.counts.lowered, 2u);
}

} // namespace
