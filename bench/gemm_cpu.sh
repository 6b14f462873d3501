#!/usr/bin/env bash
# amp_rt cpu GEMM (f16 and bf16 inputs, f32 accumulation) vs OpenBLAS
# cblas_sgemm on the same shapes, in one run (bench/gemm_cpu.cpp).
#
#   bench/gemm_cpu.sh [--quick] [--min-time=SECONDS]
#
# OPENBLAS_NUM_THREADS (default: all cores) sets the threads of OpenBLAS and
# of amp_rt's conversion pool alike, so both sides use the same cores.
# AMP_BUILD_DIR selects the build directory (default: build).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${AMP_BUILD_DIR:-build}
bin="$build/bin/amp-bench-gemm-cpu"
if [ ! -x "$bin" ] || [ -f "$build/build.ninja" ]; then
  ninja -C "$build" amp-bench-gemm-cpu >/dev/null
fi
export OPENBLAS_NUM_THREADS=${OPENBLAS_NUM_THREADS:-$(nproc)}
export AMP_RT_BACKEND=cpu
echo "host: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)," \
     "$(nproc) cores visible"
exec "$bin" "$@"
