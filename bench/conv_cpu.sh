#!/usr/bin/env bash
# Convolutions: libamp_rt's conv2d (forward, backward data, backward filter;
# bf16 and f32 inputs) against oneDNN's on resnet18's layers (or
# mobilenet_v2's depthwise ones), NHWC and NCHW, side by side in one run
# (bench/conv_cpu.cpp).
#
#   bench/conv_cpu.sh [--quick] [--batch=N]
#                     [--layouts=nhwc|nchw|nchw16c|both|all]
#                     [--layers=resnet18|mobilenet_v2]
#                     [--min-time=S] [--min-rounds=N] [--gap=S]
#
# BENCH_THREADS (default 2), AMP_BUILD_DIR (default build); never inherits
# OPENBLAS_CORETYPE (bench/bench_env.sh). See docs/performance.md.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/bench_env.sh"
bench_build amp-bench-conv-cpu
bench_run "$build/bin/amp-bench-conv-cpu" "$@"
