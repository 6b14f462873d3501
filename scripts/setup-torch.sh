#!/usr/bin/env bash
# Creates the Python virtual environment of the PyTorch frontend
# (scripts/torch-to-amp.py, docs/frontends.md) and installs the pinned
# torch, torchvision and torch-mlir wheels from PyPI. Optional: neither the
# build nor the tests need it.
#
#   scripts/setup-torch.sh [VENV]     # default: $AMP_TORCH_VENV, else ~/.venvs/amp-torch
#
# Then: VENV/bin/python scripts/torch-to-amp.py resnet18 --amp
#
# torch-mlir's PyPI wheels are built for CPython 3.11 (and 3.10); set
# PYTHON to pick the interpreter (default: python3). torch's PyPI wheel for
# Linux x86-64 is the CUDA build and pulls in the NVIDIA libraries
# (about 6 GB in all); PyPI has no CPU-only torch wheel, and a CUDA torch
# without them does not import. Nothing here needs a GPU.
set -euo pipefail

# torch-mlir 20261001 pins no torch version: torch 2.14.1 is the newest
# release that a torchvision on PyPI is built for (torchvision 0.29.x).
TORCH=2.14.1
TORCHVISION=0.29.2
TORCH_MLIR=20261001

venv=${1:-${AMP_TORCH_VENV:-$HOME/.venvs/amp-torch}}
python=${PYTHON:-python3}

version=$("$python" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
case $version in
  3.10 | 3.11) ;;
  *)
    echo "setup-torch: $python is Python $version; torch-mlir $TORCH_MLIR has" \
      "wheels for 3.10 and 3.11 only (set PYTHON=python3.11)" >&2
    exit 2
    ;;
esac
if ! "$python" -c 'import ensurepip, venv' 2> /dev/null; then
  echo "setup-torch: $python has no venv module (Debian: apt-get install python3-venv)" >&2
  exit 2
fi

if [[ ! -x $venv/bin/python ]]; then
  echo "setup-torch: creating $venv"
  "$python" -m venv "$venv"
fi
"$venv/bin/python" -m pip install --quiet --upgrade pip
"$venv/bin/python" -m pip install --quiet \
  "torch==$TORCH" "torchvision==$TORCHVISION" "torch-mlir==$TORCH_MLIR"
"$venv/bin/python" -c '
import importlib.metadata as m
print("setup-torch: " + ", ".join(
    p + " " + m.version(p) for p in ("torch", "torchvision", "torch-mlir")))'
echo "setup-torch: run $venv/bin/python scripts/torch-to-amp.py --help"
