//===- PrecisionPolicyTest.cpp - Unit tests of the AMP policy -------------===//

#include "amp/Analysis/PrecisionPolicy.h"

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

TEST(PrecisionPolicy, ParsesOptions) {
  EXPECT_EQ(parseAmpMode("bf16"), AmpMode::BF16);
  EXPECT_EQ(parseAmpMode("fp16"), std::nullopt);
  EXPECT_EQ(parseAmpLevel("tensor-cores-only"), AmpLevel::TensorCoresOnly);
  EXPECT_EQ(parseAmpLevel("all"), std::nullopt);
}

} // namespace
