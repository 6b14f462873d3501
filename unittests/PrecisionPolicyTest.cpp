//===- PrecisionPolicyTest.cpp - Unit tests of the AMP policy -------------===//

#include "amp/Analysis/PrecisionPolicy.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::amp;

namespace {

std::string writeTemp(StringRef suffix, StringRef text) {
  SmallString<128> path;
  int fd;
  EXPECT_FALSE(
      llvm::sys::fs::createTemporaryFile("amp-policy", suffix, fd, path));
  llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
  os << text;
  return path.str().str();
}

TEST(PrecisionPolicy, DefaultListsF16) {
  PrecisionPolicy policy(AmpMode::F16);
  EXPECT_EQ(policy.lookup("linalg.matmul"), PrecisionClass::Allow);
  EXPECT_EQ(policy.lookup("arith.addf"), PrecisionClass::Infer);
  EXPECT_EQ(policy.lookup("tensor.extract_slice"), PrecisionClass::Clear);
  EXPECT_EQ(policy.lookup("math.exp"), PrecisionClass::Deny);
  EXPECT_EQ(policy.lookup("tosa.reduce_sum"), PrecisionClass::Deny);
  EXPECT_EQ(policy.lookup("func.call"), std::nullopt);
}

TEST(PrecisionPolicy, SumsAreInferInBF16) {
  PrecisionPolicy policy(AmpMode::BF16);
  EXPECT_EQ(policy.lookup("tosa.reduce_sum"), PrecisionClass::Infer);
  EXPECT_EQ(policy.lookup("linalg.generic:sum-reduction"),
            PrecisionClass::Infer);
  EXPECT_EQ(policy.lookup("math.exp"), PrecisionClass::Deny);
}

TEST(PrecisionPolicy, WildcardsMatchPrefixAndSuffix) {
  PrecisionPolicy policy(AmpMode::F16);
  EXPECT_EQ(policy.lookup("linalg.conv_2d_nchw_fchw"), PrecisionClass::Allow);
  EXPECT_EQ(policy.lookup("linalg.depthwise_conv_2d_nhwc_hwc"),
            PrecisionClass::Allow);
  EXPECT_EQ(policy.lookup("linalg.pooling_nhwc_sum"), PrecisionClass::Infer);
  EXPECT_EQ(policy.lookup("linalg.pooling_nchw_max"), PrecisionClass::Clear);
  EXPECT_EQ(policy.lookup("linalg.conv"), std::nullopt);
}

TEST(PrecisionPolicy, LongestWildcardWins) {
  PrecisionPolicy policy(AmpMode::F16);
  policy.addTo(PrecisionClass::Deny, {"linalg.conv_3d*"}, "deny-add");
  EXPECT_EQ(policy.lookup("linalg.conv_3d_ndhwc_dhwcf"), PrecisionClass::Deny);
  EXPECT_EQ(policy.lookup("linalg.conv_2d_nhwc_hwcf"), PrecisionClass::Allow);
}

TEST(PrecisionPolicy, AddWithoutRemoveConflicts) {
  PrecisionPolicy policy(AmpMode::F16);
  policy.addTo(PrecisionClass::Allow, {"math.exp"}, "allow-add");
  std::string error;
  EXPECT_TRUE(failed(policy.verifyNoConflicts(error)));
  EXPECT_NE(error.find("'math.exp' is on more than one list"),
            std::string::npos);
  EXPECT_NE(error.find("allow (allow-add)"), std::string::npos);
}

TEST(PrecisionPolicy, RemoveThenAddMovesAnOp) {
  PrecisionPolicy policy(AmpMode::F16);
  policy.removeFrom(PrecisionClass::Deny, {"math.exp"});
  policy.addTo(PrecisionClass::Infer, {"math.exp"}, "infer-add");
  std::string error;
  EXPECT_TRUE(succeeded(policy.verifyNoConflicts(error))) << error;
  std::string source;
  EXPECT_EQ(policy.lookup("math.exp", &source), PrecisionClass::Infer);
  EXPECT_EQ(source, "infer-add");
}

TEST(PrecisionPolicy, TreatInferAsDeny) {
  PrecisionPolicy policy(AmpMode::F16);
  policy.treatInferAsDeny();
  EXPECT_EQ(policy.lookup("arith.addf"), PrecisionClass::Deny);
  EXPECT_EQ(policy.lookup("linalg.matmul"), PrecisionClass::Allow);
}

// classify() remembers the class of an op name; edits after a
// classification must still take effect, and linalg ops on no list are
// classified by their own body, not by an earlier op of the same name.
TEST(PrecisionPolicy, ClassifyCachesNamesButSeesEditsAndBodies) {
  MLIRContext ctx;
  ctx.loadDialect<func::FuncDialect, arith::ArithDialect, linalg::LinalgDialect,
                  math::MathDialect>();
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(R"mlir(
    #id = affine_map<(i) -> (i)>
    func.func @f(%a: tensor<4xf32>, %b: tensor<4x4xf32>) -> tensor<4xf32> {
      %0 = arith.addf %a, %a : tensor<4xf32>
      %1 = linalg.matmul ins(%b, %b : tensor<4x4xf32>, tensor<4x4xf32>)
             outs(%b : tensor<4x4xf32>) -> tensor<4x4xf32>
      %2 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
             ins(%0 : tensor<4xf32>) outs(%a : tensor<4xf32>) {
      ^bb0(%x: f32, %o: f32):
        %e = math.exp %x : f32
        linalg.yield %e : f32
      } -> tensor<4xf32>
      %3 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
             ins(%2 : tensor<4xf32>) outs(%a : tensor<4xf32>) {
      ^bb0(%x: f32, %o: f32):
        %t = math.tanh %x : f32
        linalg.yield %t : f32
      } -> tensor<4xf32>
      return %3 : tensor<4xf32>
    })mlir",
                                                             &ctx);
  ASSERT_TRUE(module);
  SmallVector<Operation *> ops;
  module->walk([&](Operation *op) {
    if (isa_and_nonnull<func::FuncOp>(op->getParentOp()) &&
        !op->hasTrait<OpTrait::IsTerminator>())
      ops.push_back(op);
  });
  ASSERT_EQ(ops.size(), 4u);
  Operation *addf = ops[0], *matmul = ops[1], *exp = ops[2], *tanh = ops[3];

  PrecisionPolicy policy(AmpMode::F16);
  EXPECT_EQ(policy.classify(addf).cls, PrecisionClass::Infer);
  EXPECT_EQ(policy.classify(matmul).cls, PrecisionClass::Allow);
  EXPECT_EQ(policy.classify(exp).cls, PrecisionClass::Deny);
  EXPECT_EQ(policy.classify(tanh).cls, PrecisionClass::Infer);
  EXPECT_EQ(policy.classify(exp).reason,
            "linalg.generic:elementwise, strictest body op math.exp is deny");

  policy.removeFrom(PrecisionClass::Infer, {"arith.addf"});
  policy.addTo(PrecisionClass::Deny, {"arith.addf"}, "deny-add");
  policy.removeFrom(PrecisionClass::Allow, {"linalg.matmul"});
  EXPECT_EQ(policy.classify(addf).cls, PrecisionClass::Deny);
  EXPECT_EQ(policy.classify(addf).reason, "deny list (deny-add)");
  EXPECT_EQ(policy.classify(matmul).cls, PrecisionClass::Unlisted);

  policy.treatInferAsDeny();
  EXPECT_EQ(policy.classify(tanh).cls, PrecisionClass::Deny);
}

TEST(PrecisionPolicy, LoadsYamlAndJson) {
  for (StringRef text :
       {StringRef("allow: [math.exp]\nunlisted:\n  - arith.addf\n"),
        StringRef(
            "{\"allow\": [\"math.exp\"], \"unlisted\": [\"arith.addf\"]}")}) {
    PrecisionPolicy policy(AmpMode::F16);
    std::string error;
    std::string path = writeTemp("yaml", text);
    ASSERT_TRUE(succeeded(policy.loadFile(path, error))) << error;
    EXPECT_EQ(policy.lookup("math.exp"), PrecisionClass::Allow);
    EXPECT_EQ(policy.lookup("arith.addf"), PrecisionClass::Unlisted);
    EXPECT_TRUE(succeeded(policy.verifyNoConflicts(error))) << error;
    llvm::sys::fs::remove(path);
  }
}

TEST(PrecisionPolicy, FileErrorsCarryPositions) {
  struct Case {
    const char *text;
    const char *message;
  } cases[] = {
      {"allow: [a.b]\ndeny: [a.b]\n",
       ":2:8: error: op 'a.b' is listed as both"},
      {"often: [a.b]\n", ":1:1: error: unknown class 'often'"},
      {"allow: a.b\n", "expected a list of op names for 'allow'"},
      {"- a\n- b\n", "policy file must be a mapping"},
      {"allow: [a.b\n", "error:"},
  };
  for (const Case &c : cases) {
    PrecisionPolicy policy(AmpMode::F16);
    std::string error;
    std::string path = writeTemp("yaml", c.text);
    EXPECT_TRUE(failed(policy.loadFile(path, error))) << c.text;
    EXPECT_NE(error.find(c.message), std::string::npos)
        << "for " << c.text << " got: " << error;
    llvm::sys::fs::remove(path);
  }
}

TEST(PrecisionPolicy, MissingFile) {
  PrecisionPolicy policy(AmpMode::F16);
  std::string error;
  EXPECT_TRUE(failed(policy.loadFile("/nonexistent/amp.yaml", error)));
  EXPECT_NE(error.find("cannot read policy file"), std::string::npos);
}

TEST(PrecisionPolicy, ChecksUserKeys) {
  DialectRegistry registry;
  registry.insert<arith::ArithDialect, linalg::LinalgDialect>();
  MLIRContext ctx(registry);
  EXPECT_FALSE(checkPolicyKey(&ctx, "linalg.matmul"));
  EXPECT_FALSE(checkPolicyKey(&ctx, "linalg.conv_*"));
  EXPECT_FALSE(checkPolicyKey(&ctx, "linalg.generic:sum-reduction"));
  std::optional<PolicyKeyProblem> typo = checkPolicyKey(&ctx, "linalg.matmull");
  ASSERT_TRUE(typo);
  EXPECT_FALSE(typo->warning);
  EXPECT_NE(typo->message.find("did you mean 'linalg.matmul'?"),
            std::string::npos);
  std::optional<PolicyKeyProblem> pattern =
      checkPolicyKey(&ctx, "linalg.generic:sums");
  ASSERT_TRUE(pattern);
  EXPECT_FALSE(pattern->warning);
  std::optional<PolicyKeyProblem> dialect = checkPolicyKey(&ctx, "my.gemm");
  ASSERT_TRUE(dialect);
  EXPECT_TRUE(dialect->warning);
  EXPECT_TRUE(checkPolicyKey(&ctx, "linalg.nothing_*"));
}

} // namespace
