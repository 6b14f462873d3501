# Sourced by bench/amp_pass_time.sh and bench/amp_scale.sh: one timed run
# of a pass pipeline and the best-of-N bookkeeping. Needs $tmp (a scratch
# folder).

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
