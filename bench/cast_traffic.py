#!/usr/bin/env python3
"""Casts and accuracy of amp-opt's output next to PyTorch's autocast, on the
same exported models, weights and input (docs/cast-economy.md).

For each model and mode, runs

    scripts/torch-to-amp.py MODEL --batch B --amp --amp-options=mode=M --check

in the torch venv's interpreter (scripts/setup-torch.sh), which exports the
model, runs amp-opt, runs the f32 export and the AMP program on the CPU and
PyTorch's f32 and autocast (same 16-bit type) on the same call, and counts
the casts of both: amp-opt's tensor-level arith.truncf / arith.extf and
autocast's float conversions (aten._to_copy), each with the bytes it reads
and writes per call. amp-opt's count also says how many of its casts round a
contraction's f32 accumulator: PyTorch has no separate cast there (its bf16
matmul writes bf16). Whether amp-opt's own lowering does the same is
checked, not assumed: the AMP program is lowered with
`amp-opt --amp-lower-to-llvm=fast=true` and the libamp_rt calls that store a
16-bit result (the rounding folded into the library's store, as PyTorch's
kernel does it) are counted (`in kernel`). Only when every such rounding is
folded is its traffic left out of the comparison (`ok, ep. in kernel`).

Goals (issue 15): cast traffic at most autocast's, with every contraction
low, and bf16 rel. L2 against PyTorch f32 <= 4.5e-3 on resnet18 b4 and
<= 1.0e-3 on the encoder layer.

Skips cleanly (exit 0) without the torch venv.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
from train_step import cpu_info  # noqa: E402

MODELS = {
    # name: (torch-to-amp.py arguments, bf16 rel. L2 goal)
    "resnet18": (["resnet18", "--batch", "4"], 4.5e-3),
    "encoder-layer": (["encoder-layer", "--batch", "2", "--seq-len", "128"],
                      1.0e-3),
    "mlp": (["mlp", "--batch", "512"], None),
}


# A libamp_rt entry point whose inputs and output are both 16-bit: the
# library accumulates in f32 and rounds the result as it stores it.
LIBRARY_ROUNDING = re.compile(
    r"call @amp_rt_\w+_(bf16|f16)_\1(?:_overwrite)?\(")


def library_roundings(amp_opt, amp_path):
    """How many contraction results the fast lowering of `amp_path` stores in
    16 bits from the library call itself (amp-lower-to-runtime's
    rounding-into-runtime-call fold)."""
    p = subprocess.run([amp_opt, amp_path, "--amp-lower-to-llvm=fast=true",
                        "--mlir-print-ir-after=amp-lower-to-runtime",
                        "-o", os.devnull], capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"cast_traffic: lowering {amp_path} failed:\n"
                 f"{p.stderr[-2000:]}")
    return len(LIBRARY_ROUNDING.findall(p.stderr))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", default="resnet18,encoder-layer")
    ap.add_argument("--modes", default="bf16,f16")
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--torch-python",
                    default=os.path.expanduser("~/.venvs/amp-torch/bin/python"))
    ap.add_argument("--keep", metavar="DIR",
                    help="keep the exports and results in DIR")
    args = ap.parse_args()

    if not os.path.exists(args.torch_python):
        print(f"cast_traffic: skipped: no torch venv ({args.torch_python}; "
              "run scripts/setup-torch.sh)")
        return 0
    amp_opt = os.path.join(args.build, "bin", "amp-opt")
    if not os.path.exists(amp_opt):
        sys.exit(f"cast_traffic: {amp_opt} not built")
    work = args.keep or tempfile.mkdtemp(prefix="cast-traffic-")
    os.makedirs(work, exist_ok=True)

    cpu = cpu_info()
    print(f"# CPU: {cpu['model']} (cpu family {cpu['family']}, avx512_bf16: "
          f"{'yes' if cpu['bf16'] else 'no'}); amp-opt {amp_opt}")
    header = (f"{'model':14} {'mode':5} {'amp casts':>9} {'amp MB':>7} "
              f"{'epilog MB':>9} {'in kernel':>9} {'torch casts':>11} "
              f"{'torch MB':>8} {'traffic':>18} {'amp L2':>9} {'torch L2':>9} "
              f"{'L2 goal':>9}")
    print(header)
    rows = []
    for model in args.models.split(","):
        if model not in MODELS:
            sys.exit(f"cast_traffic: unknown model '{model}' "
                     f"(known: {', '.join(MODELS)})")
        margs, goal = MODELS[model]
        for mode in args.modes.split(","):
            out = os.path.join(work, f"{model}-{mode}.mlir")
            cmd = [args.torch_python, os.path.join(ROOT, "scripts",
                                                   "torch-to-amp.py"),
                   *margs, "-o", out, "--amp", "--amp-opt", amp_opt,
                   f"--amp-options=mode={mode}", "--check"]
            p = subprocess.run(cmd, capture_output=True, text=True)
            if p.returncode != 0:
                sys.exit(f"cast_traffic: {' '.join(cmd)} failed:\n"
                         f"{p.stdout[-2000:]}{p.stderr[-2000:]}")
            r = json.load(open(out[:-5] + ".check.json"))
            a, t = r["amp_casts"], r["autocast_casts"]
            l2 = r["amp_vs_pytorch"]["rel_l2_err"]
            tl2 = r["autocast_vs_pytorch"]["rel_l2_err"]
            # Traffic against autocast's: all of amp-opt's casts, and without
            # the roundings of contraction results when the lowering folds
            # every one of them into the library's store (as PyTorch's
            # kernels round theirs).
            in_kernel = library_roundings(amp_opt, out[:-5] + ".amp.mlir")
            all_in_kernel = in_kernel >= a["epilogue_count"]
            ok_all = a["bytes"] <= t["bytes"]
            ok_ex = a["bytes"] - a["epilogue_bytes"] <= t["bytes"]
            traffic = ("ok" if ok_all else
                       "ok, ep. in kernel" if ok_ex and all_in_kernel else
                       "MISS")
            l2_goal = goal if mode == "bf16" else None
            l2_note = "" if l2_goal is None else (
                f"{l2_goal:.1e} " + ("ok" if l2 <= l2_goal else "MISS"))
            kernel = f"{min(in_kernel, a['epilogue_count'])}/" \
                     f"{a['epilogue_count']}"
            print(f"{model:14} {mode:5} {a['count']:9} "
                  f"{a['bytes'] / 1e6:7.2f} {a['epilogue_bytes'] / 1e6:9.2f} "
                  f"{kernel:>9} {t['count']:11} {t['bytes'] / 1e6:8.2f} "
                  f"{traffic:>18} {l2:9.2e} {tl2:9.2e} {l2_note:>9}",
                  flush=True)
            r["epilogues_in_kernel"] = min(in_kernel, a["epilogue_count"])
            rows.append(r)
    print("\namp MB: bytes read + written by amp-opt's tensor casts per call; "
          "epilog MB: the part that rounds a matmul's / convolution's f32 "
          "result; in kernel: how many of those roundings amp-opt's fast "
          "lowering folds into the library call's store; torch: PyTorch autocast's casts (aten._to_copy) on the "
          "same call, autograd on; L2: relative L2 error against PyTorch f32")
    if not args.keep:
        print(f"(work files in {work})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
