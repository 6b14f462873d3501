#!/usr/bin/env bash
# resnet18 forward through the fast lowering pipeline: f32 vs
# `amp-opt --amp='mode=bf16'` (and f16 with --f16), both `amp-run --fast`,
# next to PyTorch eager f32 and autocast bf16 (bench/resnet18_forward.py).
# Needs the torch venv of scripts/setup-torch.sh for the export.
#
#   bench/resnet18_forward.sh [--model=resnet18] [--batch=8] [--rounds=3]
#                             [--bench-steps=10] [--f16] [--torch-python=PY]
#                             [--keep=DIR]
#
# --model=mobilenet_v2 (any torchvision classifier) times that model instead.
#
# BENCH_THREADS (default 2), AMP_BUILD_DIR (default build); never inherits
# OPENBLAS_CORETYPE (bench/bench_env.sh). See docs/performance.md.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/bench_env.sh"
bench_build amp-opt amp-run
bench_run python3 "$root/bench/resnet18_forward.py" --build="$build" "$@"
