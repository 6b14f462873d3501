#!/usr/bin/env python3
"""amp-opt's output compiled and run by IREE (llvm-cpu), next to IREE's
f32 build and IREE's own bf16 demotion of the same model (docs/downstream.md).

Each model is exported with scripts/torch-to-amp.py (weights as
arguments, eval mode, random weights), then compiled by iree-compile for
the host CPU in these variants:

    f32          the export as it is
    demote       the export with IREE's --iree-global-opt-demote-contraction-
                 inputs-type=bf16 --iree-global-opt-demote-contraction-inputs-
                 operations=all
    amp-f16      amp-opt --amp
    amp-bf16     amp-opt --amp='mode=bf16'
    amp-iree     amp-opt --amp='mode=bf16 emit=iree' (mode=auto on a CPU
                 without AVX512_BF16, where bf16 has no instruction)

with IREE's data-tiling flags (--iree-opt-data-tiling
--iree-llvmcpu-enable-ukernels=all, the ones that give bf16 matmuls their
fast path) and, with --tiling=both, also without them. Every variant runs
with iree-benchmark-module on BENCH_THREADS threads (default 2), inputs
splat values of each argument's type (an argument amp-opt marked
amp.rounded_from is passed already rounded: the caller rounds weights once,
not per call). Rounds are interleaved; each cell is the best round's median.
The table names the CPU; the tensor-level casts left in each amp-opt
output are counted with the bytes they move per call. Each variant also
runs once on the call that torch-to-amp.py --dump-call wrote (random
weights and input, seed 0; rounded arguments rounded to nearest even, as
the caller would), and its result's relative L2 error against PyTorch's
f32 result is reported next to PyTorch autocast bf16's.

Skips cleanly (exit 0) without IREE (scripts/setup-iree.sh) or without the
torch venv (scripts/setup-torch.sh) used for the export.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
from train_step import cpu_info, fmt_ratio, load_avg  # noqa: E402

# CPUs --emulate-cpu compiles for, with the LLVM features amp-opt's
# mode=auto then decides from. sapphirerapids (AVX512_BF16, AMX) is the
# lent GPU machine's host CPU: compiled here with --compile-only, run there.
EMULATED_CPUS = {
    "haswell": "avx2,f16c,fma",
    "sapphirerapids": "avx512f,avx512bw,avx512vl,avx512bf16,amx-bf16,f16c,fma",
}

# What --compile-only leaves next to the modules: runs every variant in
# interleaved rounds with iree-benchmark-module (copied alongside) and
# prints each one's best median and its ratio to f32 and to the demotion.
# Shell and awk, not this script: the machine it is for may have no Python
# (median_ms() and the table below are the same reading in Python).
RUN_SCRIPT = r"""#!/usr/bin/env bash
# Written by bench/iree_downstream.py --compile-only (docs/downstream.md):
#   bash run.sh   (BENCH_THREADS, default 2; ROUNDS, default 3)
here=$(cd "$(dirname "$0")" && pwd)
threads=${BENCH_THREADS:-2} rounds=${ROUNDS:-3}
echo "# CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')" \
  "(avx512_bf16: $(grep -q avx512_bf16 /proc/cpuinfo && echo yes || echo no));" \
  "$threads threads; %(header)s"
results=$(mktemp)
for ((r = 0; r < rounds; r++)); do
  while read -r model tiling variant vmfb inputs; do
    out=$("$here/iree-benchmark-module" --module="$here/$vmfb" \
      --function=forward --device=local-task \
      --task_topology_max_group_count="$threads" $inputs \
      --benchmark_repetitions=5 --benchmark_min_warmup_time=0.3 2>&1)
    ms=$(awk '/real_time_median/ { v = $2; u = $3 }
      END { if (u == "us") v /= 1000; if (u == "s") v *= 1000; print v + 0 }' \
      <<< "$out")
    echo "$model $tiling $variant $ms" >> "$results"
  done < "$here/variants.txt"
done
sort -k1,1 -k2,2 -k3,3 -k4,4g "$results" | awk '
  !(($1, $2, $3) in best) { best[$1, $2, $3] = $4; order[n++] = $1 " " $2 " " $3 }
  END {
    printf "%%-14s %%-6s %%-9s %%9s %%7s %%9s\n", "model", "tiling", "variant", "ms", "vs f32", "vs demote"
    for (i = 0; i < n; i++) {
      split(order[i], k, " "); ms = best[k[1], k[2], k[3]]
      f = best[k[1], k[2], "f32"]; d = best[k[1], k[2], "demote"]
      printf "%%-14s %%-6s %%-9s %%9.2f %%6.2fx %%8.2fx\n", k[1], k[2], k[3], ms,
        (ms > 0 ? f / ms : 0), (ms > 0 ? d / ms : 0)
    }
  }'
rm -f "$results"
"""

MODELS = {
    # name: torch-to-amp.py arguments
    "mlp": ["mlp", "--batch", "512"],
    "encoder-layer": ["encoder-layer", "--batch", "2", "--seq-len", "128"],
    "resnet18": ["resnet18", "--batch", "8"],
}
TILING = ["--iree-opt-data-tiling", "--iree-llvmcpu-enable-ukernels=all"]
DEMOTE = ["--iree-global-opt-demote-contraction-inputs-type=bf16",
          "--iree-global-opt-demote-contraction-inputs-operations=all"]
BYTES = {"f32": 4, "f16": 2, "bf16": 2}

# Run by the torch interpreter (numpy and torch): `round SRC DST TYPE`
# writes SRC's f32 values rounded to nearest even as raw f16 / bf16;
# `compare OUT REF` prints the relative L2 error of OUT against REF.
TORCH_HELPER = r"""
import sys, numpy as np, torch
if sys.argv[1] == "round":
    t = torch.from_numpy(np.fromfile(sys.argv[2], dtype=np.float32))
    dtype = {"bf16": torch.bfloat16, "f16": torch.float16}[sys.argv[4]]
    t.to(dtype).view(torch.int16).numpy().tofile(sys.argv[3])
else:
    out = np.fromfile(sys.argv[2], dtype=np.float32).astype(np.float64)
    ref = np.fromfile(sys.argv[3], dtype=np.float32).astype(np.float64)
    print(np.linalg.norm(out - ref) / np.linalg.norm(ref))
"""


def run(cmd, timeout=None, **kw):
    try:
        p = subprocess.run(cmd, capture_output=True, text=True,
                           timeout=timeout, **kw)
    except subprocess.TimeoutExpired:
        sys.exit(f"iree_downstream: {' '.join(cmd[:3])} ... did not finish "
                 f"in {timeout} s")
    if p.returncode != 0:
        sys.exit(f"iree_downstream: {' '.join(cmd[:3])} ... failed:\n"
                 f"{p.stderr[-3000:]}")
    return p.stdout


def forward_inputs(path):
    """--input flags for @forward: a splat of each argument's type."""
    src = open(path).read()
    m = re.search(r"func\.func @forward\((.*?)\)\s*->", src, re.S)
    if not m:
        sys.exit(f"iree_downstream: no @forward in {path}")
    specs = re.findall(r"%\w+: tensor<([^>]*)>", m.group(1))
    return [f"--input={t}=0.01" for t in specs]


def count_casts(path):
    """Tensor-level arith.truncf / arith.extf ops and the bytes they move
    (read + write) per call."""
    n, moved = 0, 0
    for m in re.finditer(r"arith\.(?:truncf|extf) %\S+ : tensor<([^>]*)> to "
                         r"tensor<([^>]*)>", open(path).read()):
        (src, dst) = m.groups()
        dims = src.split("x")[:-1]
        elems = 1
        for d in dims:
            elems *= int(d)
        n += 1
        moved += elems * (BYTES[src.split("x")[-1]] + BYTES[dst.split("x")[-1]])
    return n, moved


def call_inputs(path, call_dir, torch_python):
    """--input flags for @forward reading the dumped call's arguments
    (torch-to-amp.py --dump-call); arguments amp-opt made 16-bit
    (amp.rounded_from) get the rounded copy their caller would pass."""
    src = open(path).read()
    m = re.search(r"func\.func @forward\((.*?)\)\s*->", src, re.S)
    flags = []
    for i, t in enumerate(re.findall(r"%\w+: tensor<([^>]*)>", m.group(1))):
        arg = os.path.join(call_dir, f"arg{i}.bin")
        element = t.split("x")[-1]
        if element in ("bf16", "f16"):
            rounded = os.path.join(call_dir, f"arg{i}.{element}.bin")
            if not os.path.exists(rounded):
                run([torch_python, "-c", TORCH_HELPER, "round", arg, rounded,
                     element])
            arg = rounded
        flags.append(f"--input={t}=@{arg}")
    return flags


def rel_l2(torch_python, out, ref):
    return float(run([torch_python, "-c", TORCH_HELPER, "compare", out,
                      ref]).strip())


def median_ms(out):
    # One repetition prints no aggregates, only the run itself.
    m = re.search(r"real_time_median\s+([\d.]+) (ms|us|s)\b", out) or \
        re.search(r"real_time\s+([\d.]+) (ms|us|s)\b", out)
    if not m:
        sys.exit("iree_downstream: no median in iree-benchmark-module's "
                 "output:\n" + out[-2000:])
    v = float(m.group(1))
    return v * {"ms": 1.0, "us": 1e-3, "s": 1e3}[m.group(2)]


# Issue 15's goals for amp-opt's emit=iree output (amp-iree) with data
# tiling: (model, variant it is compared with, least ratio); "demote" is
# IREE's own bf16 demotion, "never below" it on every model.
GOALS_BF16 = [("mlp", "f32", 1.9), ("mlp", "demote", 1.1),
              ("encoder-layer", "f32", 1.5), ("resnet18", "f32", 1.0),
              ("mlp", "demote", 1.0), ("encoder-layer", "demote", 1.0),
              ("resnet18", "demote", 1.0)]
# Without AVX512_BF16 (mode=auto target=cpu): f16 storage pays on the MLP,
# and resnet18 is never slower.
GOALS_AVX2 = [("mlp", "f32", 1.05), ("resnet18", "f32", 1.0)]


def print_goals(rows, has_bf16):
    """One line per goal of the models measured, from the data-tiled rows."""
    best = {(r[0], r[2]): min(r[6]) for r in rows if r[1]}
    for model, base, least in GOALS_BF16 if has_bf16 else GOALS_AVX2:
        if (model, "amp-iree") not in best:
            continue
        ratio = best[(model, base)] / best[(model, "amp-iree")]
        print(f"goal {model} amp-iree >= {least:.2f}x {base}: "
              f"{'met' if ratio >= least else 'NOT met'} "
              f"({fmt_ratio(ratio, least)})")


def write_runner(folder, rows, bench, header):
    """--compile-only: the variants' list, run.sh and iree-benchmark-module
    in `folder`, next to the modules."""
    with open(os.path.join(folder, "variants.txt"), "w") as f:
        for model, tiled, variant, path, vmfb, _, _ in rows:
            f.write(f"{model} {'on' if tiled else 'off'} {variant} "
                    f"{os.path.basename(vmfb)} "
                    f"{' '.join(forward_inputs(path))}\n")
    with open(os.path.join(folder, "run.sh"), "w") as f:
        f.write(RUN_SCRIPT % {"header": header})
    os.chmod(os.path.join(folder, "run.sh"), 0o755)
    # The pip package's launcher is a Python script; the binary it runs is
    # the runtime's own, with no dependency beyond the C and C++ runtimes.
    binary = os.path.join(os.path.dirname(os.path.dirname(bench)), "lib")
    found = [os.path.join(root, "iree-benchmark-module")
             for root, _, files in os.walk(binary)
             if "iree-benchmark-module" in files and "_runtime_libs" in root
             and "tracy" not in root]
    if not found:
        sys.exit("iree_downstream: iree-benchmark-module's binary not found "
                 f"under {binary}")
    shutil.copy(found[0], os.path.join(folder, "iree-benchmark-module"))
    print(f"compiled {len(rows)} variants into {folder}: bash "
          f"{os.path.join(folder, 'run.sh')}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", default="mlp,encoder-layer,resnet18")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--repetitions", type=int, default=5)
    ap.add_argument("--tiling", choices=["on", "off", "both"], default="on")
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--iree-bin",
                    default=os.path.expanduser("~/.venvs/iree/bin"))
    ap.add_argument("--torch-python", default=os.path.expanduser(
        "~/.venvs/amp-torch/bin/python"))
    ap.add_argument("--keep", help="keep the .mlir and .vmfb files here")
    ap.add_argument("--emulate-cpu", metavar="NAME",
                    help="compile for this LLVM CPU instead of the host "
                         "(e.g. haswell: AVX2 + F16C, no AVX-512, no bf16 "
                         "arithmetic) and give amp-opt its features: how an "
                         "AVX2-only machine behaves, measured on this one")
    ap.add_argument("--compile-only", metavar="DIR",
                    help="compile the variants into DIR with a run.sh and "
                         "iree-benchmark-module, and run nothing: for a "
                         "machine without IREE's compiler or torch (with "
                         "--emulate-cpu=sapphirerapids: the GPU machine)")
    args = ap.parse_args()

    compile_ = os.path.join(args.iree_bin, "iree-compile")
    bench = os.path.join(args.iree_bin, "iree-benchmark-module")
    if not (os.access(compile_, os.X_OK) and os.access(bench, os.X_OK)):
        print(f"skipped: IREE not found in {args.iree_bin} "
              "(scripts/setup-iree.sh installs it)")
        return
    if not os.access(args.torch_python, os.X_OK):
        print(f"skipped: no torch interpreter at {args.torch_python} "
              "(scripts/setup-torch.sh)")
        return
    amp_opt = os.path.join(args.build, "bin", "amp-opt")
    threads = os.environ.get("BENCH_THREADS", "2")
    has_bf16 = "avx512_bf16" in open("/proc/cpuinfo").read()
    iree_mode = "mode=bf16" if has_bf16 else "mode=auto"
    target_cpu = "host"
    if args.emulate_cpu:
        if args.emulate_cpu not in EMULATED_CPUS:
            sys.exit(f"iree_downstream: --emulate-cpu: unknown CPU "
                     f"{args.emulate_cpu} (expected "
                     f"{', '.join(EMULATED_CPUS)})")
        target_cpu = args.emulate_cpu
        iree_mode = ("mode=auto cpu-features="
                     + EMULATED_CPUS[args.emulate_cpu])
    work = args.compile_only or args.keep or \
        tempfile.mkdtemp(prefix="iree-downstream-")
    os.makedirs(work, exist_ok=True)
    tilings = {"on": [True], "off": [False], "both": [True, False]}[
        args.tiling]

    rows = []  # (model, tiling, variant, file, vmfb, casts)
    for model in args.models.split(","):
        if model not in MODELS:
            sys.exit(f"iree_downstream: unknown model {model} "
                     f"(expected {', '.join(MODELS)})")
        src = os.path.join(work, f"{model}.mlir")
        if not os.path.exists(src):
            run([args.torch_python, os.path.join(ROOT, "scripts",
                                                 "torch-to-amp.py"),
                 *MODELS[model], "-o", src, "--dump-call",
                 os.path.join(work, f"{model}.call")])
        sources = {"f32": (src, []), "demote": (src, DEMOTE)}
        for variant, opts in [("amp-f16", "--amp"),
                              ("amp-bf16", "--amp=mode=bf16"),
                              ("amp-iree", f"--amp={iree_mode} emit=iree")]:
            out = os.path.join(work, f"{model}.{variant}.mlir")
            run([amp_opt, src, opts, "-o", out])
            sources[variant] = (out, [])
        for tiled in tilings:
            for variant, (path, extra) in sources.items():
                vmfb = os.path.join(
                    work, f"{model}.{variant}.{'dt' if tiled else 'plain'}"
                    ".vmfb")
                # From stdin: iree-compile 3.13 took seconds on one file
                # name and never finished on another of the same content
                # (an encoder layer with data tiling, 2026-11-26).
                with open(path) as source:
                    run([compile_, "--iree-hal-target-device=local",
                         "--iree-hal-local-target-device-backends=llvm-cpu",
                         f"--iree-llvmcpu-target-cpu={target_cpu}",
                         *(TILING if tiled else []), *extra, "-", "-o", vmfb],
                        timeout=600, stdin=source)
                casts = count_casts(path) if variant.startswith("amp") \
                    else None
                rows.append([model, tiled, variant, path, vmfb, casts, []])

    version = re.search(r"compiler version (\S+)",
                        run([compile_, "--version"]))
    if args.compile_only:
        write_runner(args.compile_only, rows, bench,
                     f"IREE {version.group(1) if version else '?'}; "
                     f"compiled for {target_cpu}; amp-iree is "
                     f"--amp='{iree_mode} emit=iree'")
        return
    cpu = cpu_info()
    print(f"# CPU: {cpu['model']} (cpu family {cpu['family']}, "
          f"avx512_bf16: {'yes' if cpu['bf16'] else 'no'}); {threads} "
          f"threads; IREE {version.group(1) if version else '?'}; "
          f"compiled for {target_cpu}; "
          f"amp-iree is --amp='{iree_mode} emit=iree'; load before: "
          f"{load_avg()}")
    for _ in range(args.rounds):
        for row in rows:
            out = run([bench, f"--module={row[4]}", "--function=forward",
                       "--device=local-task",
                       f"--task_topology_max_group_count={threads}",
                       *forward_inputs(row[3]),
                       f"--benchmark_repetitions={args.repetitions}",
                       "--benchmark_min_warmup_time=0.3"])
            row[6].append(median_ms(out))

    # Accuracy: each variant run once on the dumped call, against PyTorch's
    # f32 result; PyTorch's autocast bf16 for comparison.
    for row in rows:
        model = row[0]
        call = os.path.join(work, f"{model}.call")
        out = row[4] + ".out.bin"
        run([os.path.join(args.iree_bin, "iree-run-module"),
             f"--module={row[4]}", "--function=forward",
             "--device=local-task",
             *call_inputs(row[3], call, args.torch_python),
             f"--output=@{out}"])
        row.append(rel_l2(args.torch_python, out,
                          os.path.join(call, "ref.bin")))
    autocast = {m: rel_l2(args.torch_python,
                          os.path.join(work, f"{m}.call", "autocast.bin"),
                          os.path.join(work, f"{m}.call", "ref.bin"))
                for m in dict.fromkeys(r[0] for r in rows)}

    print(f"{'model':14} {'tiling':6} {'variant':9} {'ms':>9} {'vs f32':>7} "
          f"{'vs demote':>9} {'casts':>5} {'cast MB':>8} {'rel L2':>9}")
    for model in dict.fromkeys(r[0] for r in rows):
        for tiled in tilings:
            group = [r for r in rows if r[0] == model and r[1] == tiled]
            best = {r[2]: min(r[6]) for r in group}
            for r in group:
                casts = r[5]
                print(f"{model:14} {'on' if tiled else 'off':6} {r[2]:9} "
                      f"{best[r[2]]:9.2f} {best['f32'] / best[r[2]]:6.2f}x "
                      f"{best['demote'] / best[r[2]]:8.2f}x "
                      f"{casts[0] if casts else '':>5} "
                      f"{'%.1f' % (casts[1] / 1e6) if casts else '':>8} "
                      f"{r[7]:9.2e}")
        print(f"{model:14} {'':6} {'autocast':9} {'(PyTorch bf16)':>36} "
              f"{'':>14} {autocast[model]:9.2e}")
    print(f"# load after: {load_avg()}")
    if True in tilings:
        print_goals(rows, has_bf16 and not args.emulate_cpu)
    if not args.keep:
        shutil.rmtree(work)


if __name__ == "__main__":
    main()
