#!/usr/bin/env bash
# Training steps compiled ahead of time, for machines that have libamp_rt
# but not MLIR / LLVM (the GPU machine): docs/performance.md, "End-to-end
# steps on the cuda backend".
#
#   bench/step_aot.sh build DIR [MODEL...]   one executable per model and
#       precision (f32, bf16, f16) in DIR, with the libraries they load in
#       DIR/lib (libamp_rt, its cuda backend, LLVM's libomp); oneDNN and
#       OpenBLAS must be found on the target machine (the lent GPU machine
#       has neither: bench/device_bundle.sh packs them with these). The loops are split
#       into STEP_AOT_LOOP_THREADS chunks (amp-run --loop-threads; default:
#       this machine's hardware threads): set it to the target's thread count;
#       STEP_AOT_LOW_CONTRACTIONS (default library) is amp-run's
#       --low-contractions
#   bench/step_aot.sh run DIR [BACKEND...]    each executable on each
#       backend (default: cpu cuda), side by side; STEP_AOT_STEPS timed
#       steps (default 20) after STEP_AOT_WARMUP (default 3)
#
# Models: mlp-1x2048, transformer, cnn (bench/train_step.py's), and
# resnet18 (torchvision's, batch 8: bench/resnet18_forward.py --train's
# step through the torch export path; needs scripts/setup-torch.sh; its
# PyTorch initial values go to DIR/resnet18.params.f32, which `run` passes
# as --init-params when it is there). Each program
# goes through `amp-opt --amp` (f16, bf16) or stays f32, then
# `amp-run --fast --dump-object` (the fast lowering; the object is compiled
# for this machine's CPU, so run it on one with the same instruction-set
# extensions or more) and is linked with bench/step_aot.cpp.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/bench_env.sh"

model_args() {
  case $1 in
  mlp-1x2048) echo --model mlp --layers 1 --width 2048 --inputs 2048 \
    --batch 512 --classes 16 ;;
  transformer) echo --model transformer --seq 128 --dmodel 512 --heads 8 \
    --ffn 2048 --batch 8 --classes 16 ;;
  cnn) echo --model cnn --image 32x32 --channels 3 --filters 64,128,256 \
    --batch 32 --classes 16 ;;
  *) echo "step_aot: unknown model $1" >&2; exit 2 ;;
  esac
}

# Writes $2/$1-{f32,bf16,f16}.mlir and $2/params.f32 for a torchvision model.
export_torchvision() {
  python3 "$root/bench/resnet18_forward.py" --build "$build" --model "$1" \
    --train --f16 --export-only --keep "$2" > /dev/null
  local mode
  for mode in f32 bf16 f16; do
    [[ -f $2/$1.$mode.mlir ]] || {
      echo "step_aot: no $1 export (scripts/setup-torch.sh)" >&2; return 1; }
    mv "$2/$1.$mode.mlir" "$2/$1-$mode.mlir"
  done
}

# Compiles one program ($1: IR, $2: step function) into the executable $3,
# linked against the libraries in $(dirname $3)/lib ($4: a scratch folder;
# the rest: amp-run's data options, a data set the step's batch and labels
# fit).
link_step() {
  local in=$1 step=$2 exe=$3 tmp=$4 obj lib
  shift 4
  lib=$(dirname "$exe")/lib
  obj=$tmp/$(basename "$exe").o
  "$build/bin/amp-run" "$in" --fast --step="$step" --print-signature \
    > "$exe.sig"
  # The object runs on the GPU machine, cuda backend included: the 16-bit
  # contraction inputs stay 16-bit (amp-run's --low-contractions=auto would
  # widen bf16 ones when this machine has no AVX512_BF16).
  bench_run "$build/bin/amp-run" "$in" --fast --step="$step" --eval=none \
    --loop-threads="${STEP_AOT_LOOP_THREADS:-0}" \
    --low-contractions="${STEP_AOT_LOW_CONTRACTIONS:-library}" "$@" \
    --steps=1 --quiet \
    --dump-object="$obj" > /dev/null
  c++ -O2 -std=c++17 -I"$root/runtime/include" \
    -DAMP_STEP_ENTRY="_mlir__mlir_ciface_$step" "$root/bench/step_aot.cpp" \
    "$obj" -no-pie -L"$lib" -l:libamp_rt.so -l:libomp.so.5 \
    -Wl,-rpath,'$ORIGIN/lib' -o "$exe"
  echo "built $exe"
}

build_all() {
  local out=$1; shift
  local models=("$@")
  [[ ${#models[@]} -gt 0 ]] || models=(mlp-1x2048 transformer cnn)
  bench_build amp-gen-model amp-opt amp-run
  if [[ -f $build/build.ninja ]]; then
    ninja -C "$build" amp_rt > /dev/null
    ninja -C "$build" -t targets all | grep -q '^amp_rt_cuda:' &&
      ninja -C "$build" amp_rt_cuda > /dev/null
  fi
  mkdir -p "$out/lib"
  cp -L "$build/lib/libamp_rt.so" "$out/lib/"
  [[ -f $build/lib/libamp_rt_cuda.so ]] && cp -L "$build/lib/libamp_rt_cuda.so" "$out/lib/"
  cp -L /usr/lib/llvm-22/lib/libomp.so.5 "$out/lib/"
  local tmp; tmp=$(mktemp -d); trap 'rm -rf "$tmp"' RETURN
  local m mode
  for m in "${models[@]}"; do
    if [[ $m == resnet18 ]]; then
      export_torchvision "$m" "$tmp/$m"
      cp "$tmp/$m/params.f32" "$out/$m.params.f32"
      for mode in f32 bf16 f16; do
        link_step "$tmp/$m/$m-$mode.mlir" bench_train_step "$out/$m-$mode" \
          "$tmp" --data=synthetic:1000 --synthetic-samples=16
      done
      continue
    fi
    # shellcheck disable=SC2046
    "$build/bin/amp-gen-model" $(model_args "$m") --optimizer momentum \
      > "$tmp/$m.mlir"
    # shellcheck disable=SC2046
    "$build/bin/amp-gen-model" $(model_args "$m") --optimizer momentum \
      --no-markers > "$tmp/$m-f32.mlir"
    for mode in f32 bf16 f16; do
      local in=$tmp/$m-f32.mlir name=$m-$mode
      if [[ $mode != f32 ]]; then
        "$build/bin/amp-opt" "$tmp/$m.mlir" --amp="mode=$mode" \
          -o "$tmp/$name.mlir"
        in=$tmp/$name.mlir
      fi
      link_step "$in" train_step "$out/$name" "$tmp" --data=synthetic:16
    done
  done
}

run_all() {
  local dir=$1; shift
  local backends=("$@")
  [[ ${#backends[@]} -gt 0 ]] || backends=(cpu cuda)
  echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), threads $OMP_NUM_THREADS"
  command -v nvidia-smi > /dev/null &&
    echo "GPU: $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)"
  local exe b init
  for exe in "$dir"/*.sig; do
    exe=${exe%.sig}
    init=()
    [[ -f ${exe%-*}.params.f32 ]] && init=(--init-params="${exe%-*}.params.f32")
    for b in "${backends[@]}"; do
      printf '%-22s %-5s ' "$(basename "$exe")" "$b"
      AMP_RT_BACKEND=$b AMP_RT_CUDA_LIBRARY=$dir/lib/libamp_rt_cuda.so \
        bench_run "$exe" "$exe.sig" --steps="${STEP_AOT_STEPS:-20}" \
          --warmup="${STEP_AOT_WARMUP:-3}" "${init[@]}" 2>&1 |
          tr '\n' ' ' || true
        echo
    done
    # Correctness of the other backends: one step against the cpu one.
    for b in "${backends[@]}"; do
      [[ $b != cpu ]] || continue
      printf '%-22s %-5s ' "$(basename "$exe")" "=cpu?"
      AMP_RT_CUDA_LIBRARY=$dir/lib/libamp_rt_cuda.so \
        bench_run "$exe" "$exe.sig" --compare=cpu,$b "${init[@]}" 2>&1 |
          tail -1 || true
    done
  done
}

case ${1:-} in
build) shift; build_all "$@" ;;
run) shift; run_all "$@" ;;
*) echo "usage: $0 build DIR [MODEL...] | run DIR [BACKEND...]" >&2; exit 2 ;;
esac
