#!/usr/bin/env bash
# Creates the Python virtual environment of the IREE downstream (issue 15:
# amp-opt's output compiled by iree-compile and run by iree-run-module /
# iree-benchmark-module) and installs the pinned IREE compiler and runtime
# wheels from PyPI. Optional: neither the build nor the tests need it.
#
#   scripts/setup-iree.sh [VENV]      # default: $AMP_IREE_VENV, else ~/.venvs/iree
#
# Then: VENV/bin/iree-compile model.mlir --iree-hal-target-device=local \
#         --iree-hal-local-target-device-backends=llvm-cpu \
#         --iree-llvmcpu-target-cpu=host -o model.vmfb
set -euo pipefail

IREE=3.13.0

venv=${1:-${AMP_IREE_VENV:-$HOME/.venvs/iree}}
python=${PYTHON:-python3}
if ! "$python" -c 'import ensurepip, venv' 2> /dev/null; then
  echo "setup-iree: $python has no venv module (Debian: apt-get install python3-venv)" >&2
  exit 2
fi
if [ ! -x "$venv/bin/python" ]; then
  "$python" -m venv "$venv"
fi
"$venv/bin/pip" install --quiet --disable-pip-version-check \
  "iree-base-compiler==$IREE" "iree-base-runtime==$IREE"
"$venv/bin/iree-compile" --version | head -n 1
echo "setup-iree: IREE $IREE in $venv"
