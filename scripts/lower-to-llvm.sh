#!/usr/bin/env bash
# Lower a module of upstream func/arith/math/tensor/linalg/scf ops on tensors
# (f32, f16 or bf16, static shapes) to the LLVM dialect, ready for
# mlir-runner. See docs/lowering.md.
#
#   scripts/lower-to-llvm.sh [--lower-to-runtime|--fast] [--parallel] \
#       [--donate-state] [--low-contractions=auto|library|widen] [FILE|-]
#       [extra amp-opt options...] > out.mlir
#
# Reads FILE (default: stdin), writes LLVM-dialect IR to stdout. The passes
# are amp-opt's `amp-lower-to-llvm` pipeline (buildAmpLowerToLLVMPipeline in
# lib/Pipelines/LoweringPipeline.cpp), the one amp-run runs in-process:
#
#   (no flag)           the reference pipeline: every linalg op -> loops
#   --lower-to-runtime  amp-lower-to-llvm{runtime=true}: f16 / bf16 matmuls
#                       and convolutions call libamp_rt (run the result with
#                       -shared-libs=.../libamp_rt.so, docs/tensor-cores.md)
#   --fast              amp-lower-to-llvm{fast=true}: elementwise fusion,
#                       every matmul and convolution (f32 too) in libamp_rt
#   --parallel          adds parallel=true: loops on all cores (OpenMP; run
#                       the result with -shared-libs=.../libomp.so first)
#   --donate-state      adds donate-state=true: a training step writes its
#                       new params and optimizer state over its arguments
#                       (amp-run --fast does; docs/lowering.md)
#   --low-contractions=X  adds low-contractions=X: with --fast, whether the
#                       f16 / bf16 inputs of the library's contractions are
#                       widened in the generated code (docs/lowering.md)
#
# The amp-opt binary is $AMP_OPT, else `amp-opt` on PATH, else
# build/bin/amp-opt next to this script. Extra options go to amp-opt
# before the pipeline (e.g. --mlir-print-ir-after-failure).
set -euo pipefail

options=()
while [[ $# -gt 0 ]]; do
  case $1 in
    --lower-to-runtime) options+=(runtime=true) ;;
    --fast) options+=(fast=true) ;;
    --parallel) options+=(parallel=true) ;;
    --donate-state) options+=(donate-state=true) ;;
    --low-contractions=*) options+=("low-contractions=${1#*=}") ;;
    *) break ;;
  esac
  shift
done

input=-
if [[ $# -gt 0 ]]; then
  input=$1
  shift
fi

if [[ -n ${AMP_OPT:-} ]]; then
  amp_opt=$AMP_OPT
  if ! command -v "$amp_opt" > /dev/null 2>&1; then
    echo "lower-to-llvm.sh: AMP_OPT=$AMP_OPT is not an executable" >&2
    exit 2
  fi
elif command -v amp-opt > /dev/null 2>&1; then
  amp_opt=amp-opt
elif [[ -x $(dirname "$0")/../build/bin/amp-opt ]]; then
  amp_opt=$(dirname "$0")/../build/bin/amp-opt
else
  echo "lower-to-llvm.sh: amp-opt not found (build it, or set AMP_OPT)" >&2
  exit 2
fi

pipeline=--amp-lower-to-llvm
if [[ ${#options[@]} -gt 0 ]]; then
  pipeline="--amp-lower-to-llvm=${options[*]}"
fi
exec "$amp_opt" "$input" "$@" "$pipeline"
