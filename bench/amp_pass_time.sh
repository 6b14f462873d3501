#!/usr/bin/env bash
# Compile-time benchmark of the AMP pipeline on a large generated training
# step (amp-gen-model's MLP, SGD, without markers: about 50 ops per layer): `amp-opt --amp` against `mlir-opt --canonicalize` on the same input,
# both timed with --mlir-timing (best of REPEAT rounds, each round running
# both tools one after the other). Prints the op count,
# both pass times and total times, and their ratios. Never used as a timed
# assertion in the test suite.
#
#   bench/amp_pass_time.sh [LAYERS [WIDTH]]
#
# Environment: LAYERS (200), WIDTH (64), BATCH (32), CLASSES (10),
# INPUTS (64), REPEAT (5), AMP_OPT (default: build/bin/amp-opt, else the
# first build*/bin/amp-opt, else amp-opt on PATH; amp-gen-model is taken
# from the same folder), MLIR_OPT (default:
# mlir-opt on PATH, else /usr/lib/llvm-22/bin/mlir-opt), KEEP=1 keeps the
# generated input in the temporary directory it prints.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
LAYERS=${1:-${LAYERS:-200}}
WIDTH=${2:-${WIDTH:-64}}
BATCH=${BATCH:-32}
CLASSES=${CLASSES:-10}
INPUTS=${INPUTS:-64}
REPEAT=${REPEAT:-5}

source "$root/bench/pass_timing.sh"
find_pass_timing_tools

tmp=$(mktemp -d)
if [[ ${KEEP:-0} == 1 ]]; then
  echo "keeping $tmp"
else
  trap 'rm -rf "$tmp"' EXIT
fi
in=$tmp/mlp.mlir
generate_mlp_step "$LAYERS" "$in"
ops=$(count_ops "$in")

# REPEAT rounds, each running amp-opt then mlir-opt, so that both see the
# same machine (load from other jobs drifts over minutes); the fastest run
# of each by pass time counts.
amp="" canon="" casts="" f16mm=""
for ((r = 0; r < REPEAT; r++)); do
  # (Only the first run's output is kept: printing 1M ops takes seconds.)
  out=/dev/null
  [[ -n $casts ]] || out=$tmp/out.mlir
  keep_best amp "$(timed_once "$out" "$AMP_OPT" "$in" --amp)"
  if [[ -z $casts ]]; then
    casts=$(grep -cE 'arith\.(truncf|extf) .*: tensor<' "$tmp/out.mlir" || true)
    f16mm=$(grep -cE 'linalg\.matmul ins\(.*xf16>, tensor<.*xf16>\)' "$tmp/out.mlir" || true)
  fi
  keep_best canon "$(timed_once /dev/null "$MLIR_OPT" "$in" --canonicalize)"
done

read -r amp_pass amp_total amp_detail <<< "$amp"
read -r can_pass can_total can_detail <<< "$canon"

printf 'input:     amp-gen-model %s\n' "${gen_args[*]}"
printf 'ops:       %s (%s lines)\n' "$ops" "$(wc -l < "$in")"
printf 'amp out:   %s f16 matmuls, %s tensor truncf/extf\n' "$f16mm" "$casts"
printf 'timing:    best of %s runs, wall seconds (--mlir-timing)\n' "$REPEAT"
printf '  amp-opt --amp:           passes %8.4f  total %8.4f   [%s]\n' "$amp_pass" "$amp_total" "$amp_detail"
printf '  mlir-opt --canonicalize: passes %8.4f  total %8.4f   [%s]\n' "$can_pass" "$can_total" "$can_detail"
awk -v ap="$amp_pass" -v cp="$can_pass" -v at="$amp_total" -v ct="$can_total" -v n="$ops" 'BEGIN {
  printf "ratio amp / canonicalize: passes %.2fx  total %.2fx\n", (cp > 0 ? ap / cp : 0), (ct > 0 ? at / ct : 0)
  printf "amp passes per op: %.2f us\n", (n > 0 ? ap / n * 1e6 : 0)
}'
