//===- OptionEnums.h - The enum-valued options of amp's passes ---*- C++
//-*-===//
//
// The value sets of the passes' and pipelines' enum options, each listed
// once: the TableGen pass options (include/amp/*/Passes.td) and the
// pipelines' options (amp/Pipelines/Pipelines.h) use these types, so a
// wrong value is an option-parse error listing the right ones.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_SUPPORT_OPTIONENUMS_H
#define AMP_SUPPORT_OPTIONENUMS_H

#include "amp/Support/EnumOption.h"

namespace mlir::amp {

/// amp-auto-mixed-precision's and --amp's `mode`: the low type, or `auto`
/// (what pays on `target`, amp/Analysis/TargetPrecision.h).
enum class AmpModeOption { F16, BF16, Auto };

/// `emit`: who compiles the output.
enum class EmitOption { Mlir, Iree };

/// `level`: how far the rewrite goes beyond the allow list.
enum class AmpLevel { Default, TensorCoresOnly, TreatInferAsDeny };

/// `target`: a GPU preset (amp/Analysis/GpuTargets.h) or the CPU.
enum class TargetOption { V100, A100, H100, Cpu };

/// amp-loss-scaling's `mode`.
enum class ScalingMode { Dynamic, Static, None };

/// --amp's `loss-scaling`: amp-loss-scaling's modes, or `auto`.
enum class LossScalingOption { Auto, Dynamic, Static, None };

/// `state`: where the loss-scale state lives.
enum class ScaleStateKind { Args, Globals };

/// amp-report-snapshot's `stage`.
enum class SnapshotStage { Input, Rewritten };

/// --amp-lower-to-llvm's `bf16-conversions`: how f32 <-> bf16 conversions
/// reach machine code.
enum class Bf16ConversionsOption { Auto, Native, Expand };

/// --amp-lower-to-llvm's `low-contractions`: whether the 16-bit inputs of
/// the library's contractions reach it as they are or widened in the IR
/// (amp-widen-runtime-inputs).
enum class LowContractionsOption { Auto, Library, Widen };

template <> struct EnumOptionValues<AmpModeOption> {
  static constexpr EnumOptionValue<AmpModeOption> values[] = {
      {AmpModeOption::F16, "f16", "IEEE half"},
      {AmpModeOption::BF16, "bf16", "bfloat16"},
      {AmpModeOption::Auto, "auto", "what pays on the target"}};
};

template <> struct EnumOptionValues<EmitOption> {
  static constexpr EnumOptionValue<EmitOption> values[] = {
      {EmitOption::Mlir, "mlir", "any MLIR pipeline"},
      {EmitOption::Iree, "iree", "IREE (docs/downstream.md)"}};
};

template <> struct EnumOptionValues<AmpLevel> {
  static constexpr EnumOptionValue<AmpLevel> values[] = {
      {AmpLevel::Default, "default", "TensorFlow's painting"},
      {AmpLevel::TensorCoresOnly, "tensor-cores-only",
       "only allow-list ops run low"},
      {AmpLevel::TreatInferAsDeny, "treat-infer-as-deny",
       "infer-list ops stay f32"}};
};

template <> struct EnumOptionValues<TargetOption> {
  static constexpr EnumOptionValue<TargetOption> values[] = {
      {TargetOption::V100, "v100", "NVIDIA V100"},
      {TargetOption::A100, "a100", "NVIDIA A100"},
      {TargetOption::H100, "h100", "NVIDIA H100"},
      {TargetOption::Cpu, "cpu", "the host CPU, or cpu-features"}};
};

template <> struct EnumOptionValues<ScalingMode> {
  static constexpr EnumOptionValue<ScalingMode> values[] = {
      {ScalingMode::Dynamic, "dynamic", "GradScaler's update rule"},
      {ScalingMode::Static, "static", "a constant scale"},
      {ScalingMode::None, "none", "the markers become identities"}};
};

template <> struct EnumOptionValues<LossScalingOption> {
  static constexpr EnumOptionValue<LossScalingOption> values[] = {
      {LossScalingOption::Dynamic, "dynamic", "GradScaler's update rule"},
      {LossScalingOption::Static, "static", "a constant scale"},
      {LossScalingOption::None, "none", "no scaling"},
      {LossScalingOption::Auto, "auto", "dynamic for f16, none for bf16"}};
};

template <> struct EnumOptionValues<ScaleStateKind> {
  static constexpr EnumOptionValue<ScaleStateKind> values[] = {
      {ScaleStateKind::Args, "args", "extra arguments and results"},
      {ScaleStateKind::Globals, "globals", "ml_program.global"}};
};

template <> struct EnumOptionValues<SnapshotStage> {
  static constexpr EnumOptionValue<SnapshotStage> values[] = {
      {SnapshotStage::Input, "input", "before amp-auto-mixed-precision"},
      {SnapshotStage::Rewritten, "rewritten", "right after it"}};
};

template <> struct EnumOptionValues<Bf16ConversionsOption> {
  static constexpr EnumOptionValue<Bf16ConversionsOption> values[] = {
      {Bf16ConversionsOption::Auto, "auto",
       "expand unless the host CPU has AVX512_BF16"},
      {Bf16ConversionsOption::Native, "native",
       "LLVM's fptrunc: vcvtneps2bf16, or a __truncsfbf2 call per element"},
      {Bf16ConversionsOption::Expand, "expand",
       "integer rounding that vectorizes on any CPU"}};
};

template <> struct EnumOptionValues<LowContractionsOption> {
  static constexpr EnumOptionValue<LowContractionsOption> values[] = {
      {LowContractionsOption::Auto, "auto",
       "widen the 16-bit types the host CPU has no dot products for"},
      {LowContractionsOption::Library, "library",
       "16-bit inputs go to libamp_rt as they are"},
      {LowContractionsOption::Widen, "widen",
       "f16 and bf16 inputs widened to f32 in the IR"}};
};

} // namespace mlir::amp

AMP_ENUM_OPTION(mlir::amp::AmpModeOption)
AMP_ENUM_OPTION(mlir::amp::EmitOption)
AMP_ENUM_OPTION(mlir::amp::AmpLevel)
AMP_ENUM_OPTION(mlir::amp::TargetOption)
AMP_ENUM_OPTION(mlir::amp::ScalingMode)
AMP_ENUM_OPTION(mlir::amp::LossScalingOption)
AMP_ENUM_OPTION(mlir::amp::ScaleStateKind)
AMP_ENUM_OPTION(mlir::amp::SnapshotStage)
AMP_ENUM_OPTION(mlir::amp::Bf16ConversionsOption)
AMP_ENUM_OPTION(mlir::amp::LowContractionsOption)

#endif // AMP_SUPPORT_OPTIONENUMS_H
