# Sourced by bench/*.sh: the settings every CPU benchmark runs with
# (docs/performance.md).
#
#  - BENCH_THREADS (default 2) threads for OpenBLAS, oneDNN's OpenMP and
#    libamp_rt's own pool alike;
#  - OPENBLAS_CORETYPE is never inherited: the programs run under
#    `env -u OPENBLAS_CORETYPE`, so OpenBLAS picks its kernels for the CPU
#    it runs on (a value left over from another machine class would force
#    e.g. Haswell kernels on a Zen 4);
#  - AMP_BUILD_DIR (default build) is the build directory; bench_build
#    (re)builds the named targets there when it is a ninja build;
#  - PyTorch's columns run in $torch_python (below).
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${AMP_BUILD_DIR:-build}
[[ $build = /* ]] || build="$root/$build"
threads=${BENCH_THREADS:-2}
export OPENBLAS_NUM_THREADS=$threads OMP_NUM_THREADS=$threads
export AMP_RT_NUM_THREADS=$threads AMP_RT_BACKEND=cpu
# Run a command without OPENBLAS_CORETYPE.
bench_run() { env -u OPENBLAS_CORETYPE "$@"; }
bench_build() {
  if [[ -f $build/build.ninja ]]; then
    ninja -C "$build" "$@" > /dev/null
  fi
  local t
  for t in "$@"; do
    if [[ ! -x $build/bin/$t ]]; then
      echo "$(basename "$0"): $build/bin/$t not found (set AMP_BUILD_DIR)" >&2
      exit 2
    fi
  done
}
# The interpreter PyTorch's columns run in: AMP_TORCH_PYTHON, else the venv
# of scripts/setup-torch.sh when it exists, else python3.
torch_python=${AMP_TORCH_PYTHON:-$HOME/.venvs/amp-torch/bin/python}
[[ -x $torch_python ]] || torch_python=python3
# True when torch imports; else prints "torch not installed" to stderr.
bench_have_torch() {
  bench_run "$torch_python" "$root/bench/torch_bench.py" check > /dev/null
}
