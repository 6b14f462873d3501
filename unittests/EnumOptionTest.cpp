//===- EnumOptionTest.cpp - Unit tests of the enum pass options -----------===//

#include "amp/Support/OptionEnums.h"

#include "mlir/Pass/PassOptions.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::amp;

namespace {

/// Every value has one name, and the name gives the value back.
template <typename T> void expectRoundTrip() {
  llvm::StringSet<> names;
  for (const EnumOptionValue<T> &entry : getEnumOptionValues<T>()) {
    EXPECT_TRUE(names.insert(entry.name).second) << entry.name;
    EXPECT_EQ(stringifyEnumOption(entry.value), entry.name);
    EXPECT_EQ(symbolizeEnumOption<T>(entry.name), entry.value);
  }
}

TEST(EnumOption, NamesRoundTrip) {
  expectRoundTrip<AmpModeOption>();
  expectRoundTrip<EmitOption>();
  expectRoundTrip<AmpLevel>();
  expectRoundTrip<TargetOption>();
  expectRoundTrip<ScalingMode>();
  expectRoundTrip<LossScalingOption>();
  expectRoundTrip<ScaleStateKind>();
  expectRoundTrip<SnapshotStage>();
}

TEST(EnumOption, UnknownNames) {
  EXPECT_EQ(symbolizeEnumOption<AmpModeOption>("fp16"), std::nullopt);
  EXPECT_EQ(symbolizeEnumOption<AmpModeOption>("BF16"), std::nullopt);
  EXPECT_EQ(symbolizeEnumOption<AmpLevel>(""), std::nullopt);
  EXPECT_EQ(listEnumOption<AmpModeOption>(), "f16, bf16 or auto");
  EXPECT_EQ(listEnumOption<EmitOption>(), "mlir or iree");
}

struct TestOptions : public PassPipelineOptions<TestOptions> {
  Option<AmpModeOption> mode{*this, "mode", llvm::cl::desc("mode"),
                             llvm::cl::init(AmpModeOption::F16)};
  Option<AmpLevel> level{*this, "level", llvm::cl::desc("level"),
                         llvm::cl::init(AmpLevel::Default)};
};

TEST(EnumOption, ParsesPassOptions) {
  TestOptions options;
  std::string errors;
  llvm::raw_string_ostream os(errors);
  ASSERT_TRUE(succeeded(
      options.parseFromString("mode=bf16 level=treat-infer-as-deny", os)));
  EXPECT_EQ(options.mode, AmpModeOption::BF16);
  EXPECT_EQ(options.level, AmpLevel::TreatInferAsDeny);
  EXPECT_TRUE(options.mode.hasValue());

  // Printed back as a pipeline string, by name.
  std::string printed;
  llvm::raw_string_ostream printedOs(printed);
  options.print(printedOs);
  EXPECT_NE(printed.find("mode=bf16"), std::string::npos) << printed;
  EXPECT_NE(printed.find("level=treat-infer-as-deny"), std::string::npos)
      << printed;
}

TEST(EnumOption, RejectsUnknownValues) {
  TestOptions options;
  std::string errors;
  llvm::raw_string_ostream os(errors);
  EXPECT_TRUE(failed(options.parseFromString("mode=fp8", os)));
  EXPECT_TRUE(failed(options.parseFromString("level=All", os)));
  EXPECT_EQ(options.mode, AmpModeOption::F16);
}

} // namespace
