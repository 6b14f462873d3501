#!/usr/bin/env bash
# Every CPU benchmark of docs/performance.md and docs/downstream.md in one
# run, for one column of their tables: the CPU named first, then the GEMMs,
# the convolutions, the training steps, the resnet18 and mobilenet_v2
# forwards, resnet18's training step and IREE, each
# output kept in OUT, and the goal lines of all of them at the end.
#
#   bench/cpu_column.sh [--quick] [--only=gemm,conv,steps,resnet18,mobilenet,resnet18-train,iree] [OUT]
#
# OUT defaults to build/cpu-column/<cpu family>-<UTC time>. --quick runs
# the short variants (to check the setup, not for figures). The resnet18
# forward and the training steps' PyTorch columns need the torch venv
# (scripts/setup-torch.sh), IREE its own (scripts/setup-iree.sh); a
# benchmark whose prerequisites are missing is skipped with a line saying
# so. Nothing else may run on the machine meanwhile (about 50 minutes on a
# 2-core Zen 4; the figures are ratios measured side by side, but a busy
# machine moves them). BENCH_THREADS and AMP_BUILD_DIR as for each
# benchmark (bench/bench_env.sh).
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/bench_env.sh"

quick=()
only=gemm,conv,steps,resnet18,mobilenet,resnet18-train,iree
out=
for arg in "$@"; do
  case $arg in
  --quick) quick=(--quick) ;;
  --only=*) only=${arg#--only=} ;;
  -*) echo "cpu_column: unknown option $arg" >&2; exit 2 ;;
  *) out=$arg ;;
  esac
done
for name in ${only//,/ }; do
  case $name in
  gemm | conv | steps | resnet18 | mobilenet | resnet18-train | iree) ;;
  *) echo "cpu_column: unknown benchmark '$name' in --only" \
       "(expected gemm, conv, steps, resnet18, mobilenet, resnet18-train, iree)" >&2; exit 2 ;;
  esac
done

cpuinfo() { grep -m1 "^$1" /proc/cpuinfo | sed 's/.*: //'; }
family=$(cpuinfo 'cpu family')
out=${out:-$build/cpu-column/family$family-$(date -u +%Y%m%dT%H%MZ)}
mkdir -p "$out"
torch_venv=$HOME/.venvs/amp-torch

{
  echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo "cpu: $(cpuinfo 'model name') (cpu family $family, model $(cpuinfo model))"
  for flag in avx512_bf16 amx_bf16 avx512_fp16 avx512f avx2 f16c; do
    grep -qw "$flag" /proc/cpuinfo && echo "  has $flag" || echo "  no $flag"
  done
  echo "cores: $(nproc); threads used: $threads"
  echo "commit: $(git -C "$root" rev-parse --short HEAD 2> /dev/null || echo ?)"
  echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
} | tee "$out/cpu.txt"

# run NAME COMMAND...: the benchmark's output to OUT/NAME.txt and the
# screen, with its time and exit status.
run() {
  local name=$1 start=$SECONDS rc
  shift
  echo
  echo "== $name: $*"
  "$@" 2>&1 | tee "$out/$name.txt"
  rc=${PIPESTATUS[0]}
  echo "== $name: exit $rc after $((SECONDS - start)) s" | tee -a "$out/$name.txt"
}
skip() {
  echo
  echo "== $1: skipped ($2)" | tee "$out/$1.txt"
}
wanted() { [[ ,$only, == *,$1,* ]]; }
have_torch() { [[ -x $torch_venv/bin/python3 ]]; }

if wanted gemm; then
  # The venv first on PATH gives the torch.mm columns.
  if have_torch; then
    PATH=$torch_venv/bin:$PATH run gemm "$root/bench/gemm_cpu.sh" "${quick[@]}"
  else
    run gemm "$root/bench/gemm_cpu.sh" "${quick[@]}"
  fi
fi
wanted conv && run conv "$root/bench/conv_cpu.sh" "${quick[@]}"
if wanted steps; then
  # The venv first on PATH makes `python3` the one with torch, for the
  # PyTorch columns; without it the steps still run.
  if have_torch; then
    PATH=$torch_venv/bin:$PATH run steps "$root/bench/train_step.sh" \
      "${quick[@]}" --rounds=3
  else
    run steps "$root/bench/train_step.sh" "${quick[@]}" --rounds=3
  fi
fi
if wanted resnet18; then
  if have_torch; then
    run resnet18 "$root/bench/resnet18_forward.sh" --f16
  else
    skip resnet18 "no torch venv: scripts/setup-torch.sh"
  fi
fi
if wanted mobilenet; then
  if have_torch; then
    run mobilenet "$root/bench/resnet18_forward.sh" --model=mobilenet_v2
  else
    skip mobilenet "no torch venv: scripts/setup-torch.sh"
  fi
fi
if wanted resnet18-train; then
  if have_torch; then
    if [[ ${#quick[@]} -gt 0 ]]; then
      run resnet18-train "$root/bench/resnet18_forward.sh" --train --rounds=1 \
        --bench-steps=2
    else
      run resnet18-train "$root/bench/resnet18_forward.sh" --train
    fi
  else
    skip resnet18-train "no torch venv: scripts/setup-torch.sh"
  fi
fi
if wanted iree; then
  if ! have_torch; then
    skip iree "no torch venv: scripts/setup-torch.sh"
  elif [[ ! -x $HOME/.venvs/iree/bin/iree-compile ]]; then
    skip iree "no IREE: scripts/setup-iree.sh"
  elif grep -qw avx512_bf16 /proc/cpuinfo; then
    run iree "$root/bench/iree_downstream.sh" --rounds=3
  else
    # The AVX2 goals are those of mode=auto target=cpu (docs/downstream.md).
    run iree "$root/bench/iree_downstream.sh" --rounds=3 --tiling=on
  fi
fi

echo
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$out/cpu.txt"
echo "== goals (each benchmark's own summary lines), outputs in $out"
grep -H -E '^goal |^  N[CH][HW][CW] .* network:' "$out"/*.txt | sed "s|$out/||"
