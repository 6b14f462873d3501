#!/usr/bin/env bash
# The reports of docs/frontends.md: torchvision / torch models exported by
# scripts/torch-to-amp.py, rewritten by `amp-opt --amp` (f16, bf16, and two
# with a policy file), each checked against PyTorch where the doc says so.
# Writes <model>.amp.txt, .report.json, .check.json and .export.json into
# OUT (default build/frontends), and the doc's result tables
# (scripts/frontend-table.py) into OUT/tables.md. Needs the venv of scripts/setup-torch.sh
# (PYTHON, default ~/.venvs/amp-torch/bin/python) and a built amp-opt.
# About 22 minutes on 2 cores.
#
#   scripts/frontend-reports.sh [OUT]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$root/build/frontends}
python=${PYTHON:-$HOME/.venvs/amp-torch/bin/python}
if ! "$python" -c 'import torch' 2>/dev/null; then
  echo "frontend-reports: no torch in $python (run scripts/setup-torch.sh or set PYTHON)" >&2
  exit 1
fi
mkdir -p "$out"
ir=$(mktemp -d)
trap 'rm -rf "$ir"' EXIT
export_model() { # model suffix [torch-to-amp.py options...]
  local model=$1 suffix=$2
  shift 2
  (cd "$root" && "$python" scripts/torch-to-amp.py "$model" --batch 8 \
    -o "$ir/$model-b8$suffix.mlir" --amp --reports "$out" "$@")
}
for m in resnet18 mobilenet_v2 efficientnet_b0 transformer gpt; do
  export_model "$m" "" --check
done
export_model vgg11 ""
for m in resnet18 mobilenet_v2 efficientnet_b0 vgg11 transformer gpt; do
  check=()
  [ "$m" = transformer ] && check=(--check)
  export_model "$m" -bf16 --amp-options='mode=bf16 stats=true' "${check[@]}"
done
export_model efficientnet_b0 -sigmoid --check \
  --amp-options='stats=true policy=examples/policies/sigmoid-exp.yaml'
export_model gpt -gelu --check \
  --amp-options='stats=true policy=examples/policies/gelu-tanh.yaml'
python3 "$root/scripts/frontend-table.py" "$out" > "$out/tables.md"
echo "frontend-reports: wrote $out (the tables of docs/frontends.md: $out/tables.md)"
