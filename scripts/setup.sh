#!/usr/bin/env bash
# Installs what amp-opt needs on Debian (idempotent): MLIR/LLVM 22, CMake,
# Ninja, GoogleTest, zlib (amp-run reads digits.csv.gz), python3-sklearn
# (it ships the 8x8 digits that the amp-run training tests use), oneDNN (the
# native bf16 kernels of libamp_rt's cpu backend), OpenBLAS (its f32
# baseline and fallback) and LLVM's OpenMP runtime (libomp: the loops that
# amp-run --fast splits over the cores, and oneDNN's threads with them).
# Runs apt-get only when something is missing.
set -euo pipefail

packages=(libmlir-22-dev mlir-22-tools llvm-22-dev llvm-22-tools cmake
          ninja-build g++ libgtest-dev python3 zlib1g-dev python3-sklearn
          libopenblas-dev libdnnl-dev libomp-22-dev)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
    missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}"
fi
