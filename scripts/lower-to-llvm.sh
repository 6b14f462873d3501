#!/usr/bin/env bash
# Lower a module of upstream func/arith/math/tensor/linalg/scf ops on tensors
# (f32, f16 or bf16, static shapes) to the LLVM dialect, ready for
# mlir-runner. See docs/lowering.md.
#
#   scripts/lower-to-llvm.sh [--lower-to-runtime] [FILE|-] [extra mlir-opt options...] > out.mlir
#
# Reads FILE (default: stdin), writes LLVM-dialect IR to stdout. The
# mlir-opt binary is $MLIR_OPT, else `mlir-opt` on PATH, else
# /usr/lib/llvm-22/bin/mlir-opt, else `mlir-opt-22` on PATH.
#
# --lower-to-runtime runs amp-lower-to-runtime right after bufferization
# (low-precision matmuls and convolutions call libamp_rt; run the result
# with -shared-libs=.../libamp_rt.so, see docs/tensor-cores.md). That pass
# is amp-opt's: the binary is then $AMP_OPT, else `amp-opt` on PATH, else
# build/bin/amp-opt next to this script.
#
# amp-run runs the same passes in-process (kLoweringPipeline in
# tools/amp-run/amp-run.cpp): keep the two in step;
# test/Run/pipeline-in-step.test compares them.
set -euo pipefail

runtime_passes=()
if [[ ${1:-} == --lower-to-runtime ]]; then
  runtime_passes=(--amp-lower-to-runtime)
  shift
  if [[ -n ${AMP_OPT:-} ]]; then
    MLIR_OPT=$AMP_OPT
  elif command -v amp-opt > /dev/null 2>&1; then
    MLIR_OPT=amp-opt
  elif [[ -x $(dirname "$0")/../build/bin/amp-opt ]]; then
    MLIR_OPT=$(dirname "$0")/../build/bin/amp-opt
  else
    echo "lower-to-llvm.sh: --lower-to-runtime needs amp-opt (set AMP_OPT)" >&2
    exit 2
  fi
fi

input=-
if [[ $# -gt 0 ]]; then
  input=$1
  shift
fi

MLIR_OPT=${MLIR_OPT:-}
if [[ -z $MLIR_OPT ]]; then
  if command -v mlir-opt > /dev/null 2>&1; then
    MLIR_OPT=mlir-opt
  elif [[ -x /usr/lib/llvm-22/bin/mlir-opt ]]; then
    MLIR_OPT=/usr/lib/llvm-22/bin/mlir-opt
  elif command -v mlir-opt-22 > /dev/null 2>&1; then
    MLIR_OPT=mlir-opt-22
  else
    echo "lower-to-llvm.sh: mlir-opt not found (set MLIR_OPT)" >&2
    exit 2
  fi
fi

exec "$MLIR_OPT" "$input" "$@" \
  --convert-elementwise-to-linalg \
  --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" \
  "${runtime_passes[@]}" \
  --canonicalize \
  --buffer-deallocation-pipeline \
  --convert-bufferization-to-memref \
  --convert-linalg-to-loops \
  --lower-affine \
  --expand-strided-metadata \
  --convert-scf-to-cf \
  --arith-expand \
  --convert-math-to-llvm \
  --convert-math-to-libm \
  --convert-arith-to-llvm \
  --convert-index-to-llvm \
  --finalize-memref-to-llvm \
  --convert-cf-to-llvm \
  --convert-func-to-llvm \
  --reconcile-unrealized-casts
