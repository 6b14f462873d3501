# Sourced by bench/amp_pass_time.sh and bench/amp_scale.sh: the tools, the
# generated inputs, one timed run of a pass pipeline and the best-of-N
# bookkeeping. timed_once needs $tmp (a scratch folder).

# AMP_OPT (default: build/bin/amp-opt, else the first build*/bin/amp-opt,
# else amp-opt on PATH) and MLIR_OPT (default: mlir-opt on PATH, else
# /usr/lib/llvm-22/bin/mlir-opt); exits 2 when one is missing.
find_pass_timing_tools() {
  if [[ -z ${AMP_OPT:-} ]]; then
    local c
    for c in "$root/build/bin/amp-opt" "$root"/build*/bin/amp-opt; do
      if [[ -x $c ]]; then AMP_OPT=$c; break; fi
    done
    AMP_OPT=${AMP_OPT:-$(command -v amp-opt || true)}
  fi
  if [[ -z ${MLIR_OPT:-} ]]; then
    MLIR_OPT=$(command -v mlir-opt || true)
    [[ -n $MLIR_OPT ]] || MLIR_OPT=/usr/lib/llvm-22/bin/mlir-opt
  fi
  local tool
  for tool in "$AMP_OPT" "$MLIR_OPT"; do
    if [[ -z $tool || ! -x $tool ]]; then
      echo "$(basename "$0"): tool not found: '${tool}' (build amp-opt or set AMP_OPT / MLIR_OPT)" >&2
      exit 2
    fi
  done
}

# The generated input of $1 layers into the file $2: amp-gen-model's MLP
# training step (WIDTH 64, BATCH 32, CLASSES 10, INPUTS 64 unless set),
# without markers; its arguments are left in gen_args.
generate_mlp_step() {
  gen_args=(--model mlp --layers "$1" --width "${WIDTH:-64}"
    --batch "${BATCH:-32}" --classes "${CLASSES:-10}" --inputs "${INPUTS:-64}"
    --no-markers --no-predict)
  "$(dirname "$AMP_OPT")/amp-gen-model" "${gen_args[@]}" -o "$2"
}

# The total op count of the file $1 (print-op-stats lists `name , count`).
count_ops() {
  "$MLIR_OPT" "$1" --print-op-stats -o /dev/null 2>&1 |
    awk -F, 'NF == 2 && $2 ~ /^ *[0-9]+ *$/ { n += $2 } END { print n + 0 }'
}

# One timed run of a command writing its output to $1: prints "<pass
# seconds> <total seconds> <per-pass breakdown>" from its --mlir-timing
# report.
timed_once() {
  local out=$1
  shift
  "$@" --mlir-timing --mlir-timing-display=list -o "$out" 2> "$tmp/timing.txt"
  awk '
    /\(.*%\)/ {
      # The wall time is the last "t (p%)" column (a threaded run also
      # prints the user time before it).
      name = $0
      sub(/^.*%\)[ \t]*/, "", name)
      t = $0
      sub(/[ \t]*\([ 0-9.]*%\)[ \t]*[^%]*$/, "", t)
      sub(/^.*[ \t]/, "", t)
      if (name == "Total") total = t
      else if (name == "root" || name == "Parser" || name == "Output" ||
               name == "Rest" || name ~ /Pipeline/) next
      else { pass += t; detail = detail sprintf("%s %.4fs, ", name, t) }
    }
    END { sub(/, $/, "", detail); printf "%.4f %.4f %s\n", pass, total, detail }
  ' "$tmp/timing.txt"
}

# Keeps the line of $2 in the variable named $1 if its pass time is lower.
keep_best() {
  local -n best=$1
  if [[ -z $best ]] || awk -v a="${2%% *}" -v b="${best%% *}" 'BEGIN { exit !(a < b) }'; then
    best=$2
  fi
}
