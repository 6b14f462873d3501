#!/usr/bin/env bash
# Everything the GPU machine's checks need, in one folder of the working
# tree that the device tool carries (docs/performance.md, "On a lent GPU
# machine"). That machine is bare: no MLIR, no LLVM, no oneDNN, no OpenBLAS
# (2026-11-28: every program failed to load libdnnl.so.2), and a session
# gets about 15 minutes of it, so nothing may be left to fix there.
#
#   bench/device_bundle.sh [DIR] [MODEL...]
#
# DIR (default build/device, ignored by git) gets:
#   bin/      AMPRuntimeUnitTests, amp-bench-gpu, amp-bench-gemm-cpu,
#             amp-bench-conv-cpu
#   aot/      bench/step_aot.sh's executables for MODEL... (default:
#             mlp-1x2048 transformer cnn; resnet18 with the torch venv),
#             their loops split for STEP_AOT_LOOP_THREADS (default 16, the
#             GPU machine's cores); resnet18's PyTorch initial values are
#             dropped (46.8 MB: too much to carry)
#   deps.tar.xz  the shared libraries those programs load that are not
#             glibc's, the C++ runtime's or CUDA's (oneDNN, OpenBLAS and
#             theirs: ~80 MB, ~12 MB compressed)
#   iree/     with IREE and the torch venv here: bench/iree_downstream.py's
#             variants of DEVICE_IREE_MODELS (default mlp,encoder-layer,
#             resnet18) compiled for sapphirerapids (the GPU machine's
#             AVX512_BF16 + AMX host), with iree-benchmark-module and a run.sh
#   run.sh    unpacks deps.tar.xz and runs the checks, writing each one's
#             output under $OUT (the device tool's result folder):
#             bash DIR/run.sh [unit] [gpu] [gemm] [conv] [aot] [iree]
#             (default: unit gpu gemm aot iree, at most ~570 s in all, under
#             the tool's 600 s per command)
#
# Carry the whole folder: run(command="bash build/device/run.sh",
# carry=["build/device"]). It must stay under the tool's 64 MiB.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/bench_env.sh"
out=${1:-build/device}
[[ $# -gt 0 ]] && shift
[[ $out = /* ]] || out="$root/$out"
bins=(AMPRuntimeUnitTests amp-bench-gpu amp-bench-gemm-cpu amp-bench-conv-cpu)
bench_build "${bins[@]}"

if [[ -e $out && ! -f $out/run.sh ]]; then
  echo "device_bundle: $out exists and is not a bundle; not replacing it" >&2
  exit 2
fi
rm -rf "$out"
mkdir -p "$out/bin"
for b in "${bins[@]}"; do cp -L "$build/bin/$b" "$out/bin/"; done
STEP_AOT_LOOP_THREADS=${STEP_AOT_LOOP_THREADS:-16} \
  "$root/bench/step_aot.sh" build "$out/aot" "$@"
rm -f "$out"/aot/*.params.f32
# The bins find libamp_rt next to them, like the AOT executables do.
cp -L "$build"/lib/libamp_rt*.so "$out/bin/"

# Every library the programs resolve here that the GPU machine may lack.
# CUDA's own (cuBLAS, cuDNN: hundreds of MB) are not carried: the GPU
# machines had CUDA 13's libraries on 2026-11-26/27; without them the cuda
# checks fail with libamp_rt_cuda's load error, the others still run.
deps=$(mktemp -d)
trap 'rm -rf "$deps"' EXIT
ldd "$out"/bin/* "$out"/aot/*-f32 "$out"/aot/lib/*.so 2> /dev/null |
  awk '$2 == "=>" && $3 ~ /^\// {print $3}' | sort -u |
  grep -v -E '/(libc|libm|libdl|libpthread|librt|libstdc\+\+|libgcc_s|ld-linux[^/]*)\.so|/cuda|libamp_rt|libcu' |
  while read -r lib; do cp -L "$lib" "$deps/"; done
tar cJf "$out/deps.tar.xz" -C "$deps" .

if [[ -x $HOME/.venvs/iree/bin/iree-compile &&
  -x $HOME/.venvs/amp-torch/bin/python ]]; then
  python3 "$root/bench/iree_downstream.py" --build="$build" \
    --emulate-cpu=sapphirerapids --compile-only="$out/iree" \
    --models="${DEVICE_IREE_MODELS:-mlp,encoder-layer,resnet18}"
  # Only the modules travel: the exports and the dumped calls stay here.
  rm -rf "$out"/iree/*.mlir "$out"/iree/*.call "$out"/iree/*.json
else
  echo "device_bundle: no IREE or torch venv here (scripts/setup-iree.sh," \
    "scripts/setup-torch.sh): no iree check"
fi

cat > "$out/run.sh" << 'EOF'
#!/usr/bin/env bash
# Written by bench/device_bundle.sh: the GPU machine's checks.
here=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-$here/out}
mkdir -p "$here/deps" "$OUT"
tar xJf "$here/deps.tar.xz" -C "$here/deps"
export LD_LIBRARY_PATH=$here/bin:$here/deps${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
checks=("$@")
[[ ${#checks[@]} -gt 0 ]] || checks=(unit gpu gemm aot iree)
{
  date -u
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm \
    --format=csv,noheader 2>&1
  grep -m1 'model name' /proc/cpuinfo; grep -m1 'cpu family' /proc/cpuinfo
  echo "flags: $(grep -m1 -o -w -E 'avx512_bf16|amx_bf16|avx512_fp16' \
    /proc/cpuinfo | sort -u | tr '\n' ' ')cores: $(nproc)"
} > "$OUT/machine.txt"
cat "$OUT/machine.txt"
# A CPU benchmark on 2 threads pinned to 2 cores, with bench_env.sh's
# settings (copied into the bundle with step_aot.sh).
two() { (BENCH_THREADS=2 && source "$here/bench_env.sh" &&
  bench_run taskset -c 0,1 "$@"); }
for c in "${checks[@]}"; do
  echo "== $c"
  case $c in
  unit) timeout 90 "$here/bin/AMPRuntimeUnitTests" --gtest_brief=1 ;;
  gpu) timeout 90 "$here/bin/amp-bench-gpu" --quick ;;
  gemm) two timeout 60 "$here/bin/amp-bench-gemm-cpu" --quick \
    --torch-note="no torch on this machine" ;;
  conv) two timeout 120 "$here/bin/amp-bench-conv-cpu" --quick ;;
  aot) STEP_AOT_STEPS=${STEP_AOT_STEPS:-10} STEP_AOT_WARMUP=${STEP_AOT_WARMUP:-2} \
    BENCH_THREADS=$(nproc) timeout 180 "$here/step_aot.sh" run "$here/aot" cpu cuda ;;
  iree) if [[ -x $here/iree/run.sh ]]; then
      BENCH_THREADS=2 ROUNDS=${ROUNDS:-2} timeout 150 taskset -c 0,1 \
        bash "$here/iree/run.sh"
    else echo "skipped: no iree folder in the bundle"; fi ;;
  *) echo "run.sh: unknown check $c (unit gpu gemm conv aot iree)" ;;
  esac > "$OUT/$c.txt" 2>&1
  echo "rc=$?" >> "$OUT/$c.txt"
  tail -40 "$OUT/$c.txt"
done
EOF
chmod +x "$out/run.sh"
# run.sh's aot check needs step_aot.sh, and it and run.sh bench_env.sh.
cp "$root/bench/step_aot.sh" "$root/bench/bench_env.sh" "$out/"
size=$(du -sm "$out" | cut -f1)
echo "bundle $out: ${size} MiB (the device tool carries 64 MiB)"
[[ $size -lt 64 ]] || { echo "device_bundle: too large to carry" >&2; exit 1; }
