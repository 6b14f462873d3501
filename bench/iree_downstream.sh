#!/usr/bin/env bash
# amp-opt's output through IREE (llvm-cpu) vs IREE f32 and IREE's own bf16
# demotion, on an MLP, a transformer encoder layer and resnet18
# (bench/iree_downstream.py, docs/downstream.md). Needs IREE
# (scripts/setup-iree.sh) and the torch venv (scripts/setup-torch.sh) for
# the export; without them it prints why and exits 0.
#
#   bench/iree_downstream.sh [--models=mlp,encoder-layer,resnet18]
#                            [--rounds=3] [--tiling=on|off|both] [--keep=DIR]
#                            [--emulate-cpu=haswell]
#
# BENCH_THREADS (default 2), AMP_BUILD_DIR (default build).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/bench_env.sh"
bench_build amp-opt
bench_run python3 "$root/bench/iree_downstream.py" --build="$build" "$@"
