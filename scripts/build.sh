#!/usr/bin/env bash
# Configures and builds amp-opt in ${AMP_BUILD_DIR:-build} (Release, Ninja,
# linked against libMLIR.so).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${AMP_BUILD_DIR:-build}
if [ ! -f "$build/build.ninja" ]; then
  cmake -G Ninja -S . -B "$build" -DCMAKE_BUILD_TYPE=Release \
    -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir
fi
ninja -C "$build" -j"$(nproc)"
