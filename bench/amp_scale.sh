#!/usr/bin/env bash
# Scale benchmark of the AMP pipeline: generated MLP training steps of about
# 10k, 100k and 1M ops (bench/amp_pass_time.sh's inputs). It times the
# passes of `amp-opt --amp` and upstream `mlir-opt --canonicalize` on each
# (--mlir-timing, best of REPEAT rounds, each round running every size with
# both tools, so that the growth compares sizes timed side by side), and
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

source "$root/bench/pass_timing.sh"
find_pass_timing_tools
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The inputs: amp_pass_time.sh's generated MLP steps.
ops=() amp=() can=() amp_rounds=() can_rounds=()
for i in "${!sizes[@]}"; do
  generate_mlp_step "${sizes[i]}" "$tmp/in$i.mlir"
  ops[i]=$(count_ops "$tmp/in$i.mlir")
  amp[i]="" can[i]="" amp_rounds[i]="" can_rounds[i]=""
done

# Every round times every size with both tools, so that a size's time and
# the next size's come from the same minute of a machine whose speed
# drifts; the growth is the best time's ratio and the median of the rounds'
# own ratios.
for ((r = 0; r < REPEAT; r++)); do
  for i in "${!sizes[@]}"; do
    line=$(timed_once /dev/null "$AMP_OPT" "$tmp/in$i.mlir" --amp)
    keep_best "amp[$i]" "$line"
    amp_rounds[i]+="${line%% *} "
    line=$(timed_once /dev/null "$MLIR_OPT" "$tmp/in$i.mlir" --canonicalize)
    keep_best "can[$i]" "$line"
    can_rounds[i]+="${line%% *} "
  done
done

# The median over rounds of (time of size i) / (time of size i - 1).
median_growth() {
  paste -d' ' <(tr ' ' '\n' <<< "$1" | sed '/^$/d') \
    <(tr ' ' '\n' <<< "$2" | sed '/^$/d') |
    awk '{ print $1 / $2 }' | sort -g |
    awk '{ g[NR] = $1 } END {
      printf "%.1fx", NR % 2 ? g[(NR + 1) / 2] : (g[NR / 2] + g[NR / 2 + 1]) / 2 }'
}

printf '%-9s %-10s %-12s %-8s %-18s %-18s %-12s %-12s\n' ops "amp (s)" \
  "canon (s)" ratio "amp growth" "canon growth" "amp RSS MB" "canon RSS MB"
for i in "${!sizes[@]}"; do
  a=${amp[i]%% *} c=${can[i]%% *}
  amp_rss=$(/usr/bin/time -f %M "$AMP_OPT" "$tmp/in$i.mlir" --amp -o /dev/null 2>&1 >/dev/null | tail -1)
  can_rss=$(/usr/bin/time -f %M "$MLIR_OPT" "$tmp/in$i.mlir" --canonicalize -o /dev/null 2>&1 >/dev/null | tail -1)
  growth="-" cgrowth="-"
  if ((i > 0)); then
    j=$((i - 1))
    growth=$(awk -v a="$a" -v p="${amp[j]%% *}" -v n="${ops[i]}" -v q="${ops[j]}" \
      'BEGIN { printf "%.1fx/%.1fx", a / p, n / q }')
    growth+=" ($(median_growth "${amp_rounds[i]}" "${amp_rounds[j]}"))"
    cgrowth=$(awk -v a="$c" -v p="${can[j]%% *}" 'BEGIN { printf "%.1fx", a / p }')
    cgrowth+=" ($(median_growth "${can_rounds[i]}" "${can_rounds[j]}"))"
  fi
  awk -v n="${ops[i]}" -v a="$a" -v c="$c" -v g="$growth" -v cg="$cgrowth" \
    -v ar="$amp_rss" -v cr="$can_rss" \
    'BEGIN { printf "%-9d %-10.4f %-12.4f %-8.2f %-18s %-18s %-12.0f %-12.0f\n", n, a, c, a / c, g, cg, ar / 1024, cr / 1024 }'
done
echo "amp = the passes of amp-opt --amp; canon = mlir-opt --canonicalize; best of $REPEAT rounds,"
echo "each round timing every size with both tools; amp growth = AMP time / AMP time"
echo "of the size before (best times), against the op ratio, then in parentheses the"
echo "median of the rounds' own ratios; canon growth = the same for canonicalize"
