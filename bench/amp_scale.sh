#!/usr/bin/env bash
# Scale benchmark of the AMP pipeline: generated MLP training steps of about
# 10k, 100k and 1M ops. For each size, bench/amp_pass_time.sh measures the
# passes of `amp-opt --amp` and upstream `mlir-opt --canonicalize` on the
# same input (--mlir-timing, best of REPEAT interleaved rounds), and
# /usr/bin/time the peak resident memory of one run of each. Prints one
# table: ops, AMP pass time, canonicalize time, their ratio, the growth of
# both times from the size before (linear growth: x10 ops -> <= x11 time),
# and both peaks. Never used as a timed assertion in the test suite.
#
#   bench/amp_scale.sh [LAYERS...]      (default: 198 1998 19998)
#
# Environment: REPEAT (5), and AMP_OPT / MLIR_OPT as in amp_pass_time.sh.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export REPEAT=${REPEAT:-5}
sizes=("$@")
((${#sizes[@]})) || sizes=(198 1998 19998)
if [[ ! -x /usr/bin/time ]]; then
  echo "amp_scale.sh: /usr/bin/time not found (Debian package: time)" >&2
  exit 2
fi

printf '%-9s %-10s %-12s %-8s %-12s %-12s %-12s %-12s\n' ops "amp (s)" \
  "canon (s)" ratio "amp growth" "canon growth" "amp RSS MB" "canon RSS MB"
prev_ops="" prev_amp="" prev_can=""
for layers in "${sizes[@]}"; do
  out=$(KEEP=1 bash "$root/bench/amp_pass_time.sh" "$layers")
  tmp=$(sed -n 's/^keeping //p' <<< "$out")
  ops=$(awk '$1 == "ops:" { print $2 }' <<< "$out")
  amp=$(awk '/amp-opt --amp:/ { print $4 }' <<< "$out")
  can=$(awk '/mlir-opt --canonicalize:/ { print $4 }' <<< "$out")
  AMP_OPT=${AMP_OPT:-$root/build/bin/amp-opt}
  MLIR_OPT=${MLIR_OPT:-/usr/lib/llvm-22/bin/mlir-opt}
  amp_rss=$(/usr/bin/time -f %M "$AMP_OPT" "$tmp/mlp.mlir" --amp -o /dev/null 2>&1 >/dev/null | tail -1)
  can_rss=$(/usr/bin/time -f %M "$MLIR_OPT" "$tmp/mlp.mlir" --canonicalize -o /dev/null 2>&1 >/dev/null | tail -1)
  rm -rf "$tmp"
  growth="-" cgrowth="-"
  if [[ -n $prev_amp ]]; then
    growth=$(awk -v a="$amp" -v p="$prev_amp" -v n="$ops" -v q="$prev_ops" \
      'BEGIN { printf "%.1fx/%.1fx", a / p, n / q }')
    cgrowth=$(awk -v a="$can" -v p="$prev_can" 'BEGIN { printf "%.1fx", a / p }')
  fi
  awk -v n="$ops" -v a="$amp" -v c="$can" -v g="$growth" -v cg="$cgrowth" \
    -v ar="$amp_rss" -v cr="$can_rss" \
    'BEGIN { printf "%-9d %-10.4f %-12.4f %-8.2f %-12s %-12s %-12.0f %-12.0f\n", n, a, c, a / c, g, cg, ar / 1024, cr / 1024 }'
  prev_ops=$ops prev_amp=$amp prev_can=$can
done
echo "amp = the passes of amp-opt --amp; canon = mlir-opt --canonicalize;"
echo "amp growth = AMP time / AMP time of the size before, against the op ratio;"
echo "canon growth = the same for canonicalize"
