#!/usr/bin/env bash
# GEMM: libamp_rt (bf16 -> f32, f32, f16 -> f32) against OpenBLAS
# cblas_sgemm and oneDNN's f32 and bf16 matmuls, side by side in one run
# (bench/gemm_cpu.cpp), plus torch.mm when torch imports.
#
#   bench/gemm_cpu.sh [--quick] [--min-time=S] [--min-rounds=N] [--gap=S]
#                     [--shapes=MxNxK,...]
#
# BENCH_THREADS (default 2), AMP_BUILD_DIR (default build); never inherits
# OPENBLAS_CORETYPE (bench/bench_env.sh). docs/performance.md explains the
# columns and the goals.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/bench_env.sh"
bench_build amp-bench-gemm-cpu
bin="$build/bin/amp-bench-gemm-cpu"
torch_args=()
if bench_have_torch 2> /dev/null; then
  tmp=$(mktemp)
  trap 'rm -f "$tmp"' EXIT
  mapfile -t shapes < <("$bin" --list-shapes "$@")
  bench_run "$torch_python" "$root/bench/torch_bench.py" gemm --threads "$threads" \
    "${shapes[@]}" > "$tmp"
  torch_args=(--torch-results="$tmp")
else
  torch_args=(--torch-note="torch not installed")
fi
bench_run "$bin" "${torch_args[@]}" "$@"
