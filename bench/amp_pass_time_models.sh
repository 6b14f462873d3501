#!/usr/bin/env bash
# Pass time of amp-opt --amp vs mlir-opt --canonicalize on models exported
# from PyTorch (bench/amp_pass_time_models.py; docs/compile-time.md). Uses the
# torch venv of scripts/setup-torch.sh when present.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
python=python3
[[ -x $HOME/.venvs/amp-torch/bin/python ]] && python=$HOME/.venvs/amp-torch/bin/python
if [[ -f $root/${AMP_BUILD_DIR:-build}/build.ninja ]]; then
  ninja -C "$root/${AMP_BUILD_DIR:-build}" amp-opt > /dev/null
fi
exec "$python" "$root/bench/amp_pass_time_models.py" "$@"
