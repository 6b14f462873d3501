#!/usr/bin/env python3
"""Pass time of `amp-opt --amp` against `mlir-opt --canonicalize` on real
models exported from PyTorch (scripts/torch-to-amp.py), forward graphs and
training steps. Both are timed with --mlir-timing; the AMP figure is the sum
of the passes of --amp, the verification after each pass included (as
canonicalize's). Issue 14's goal: AMP <= 1.0x canonicalize.

A module of a few hundred ops passes in about a millisecond, below what
--mlir-timing resolves (0.1 ms), so each export is replicated COPIES times
into one module (its functions renamed): both tools then work on the same
COPIES independent functions, and the times are reported per copy.

    bench/amp_pass_time_models.sh [--models=resnet18,vgg16:train,...]
        [--copies=10] [--repeat=7] [--keep=DIR] [--baseline=OTHER_AMP_OPT]
        [--instructions]

--instructions counts the instructions inside PassManager::run with
valgrind's callgrind instead (one run each, one thread): deterministic,
where the timed ratio of a module of a few hundred ops moves by +-20%
between runs on a shared machine.

A model name is any of `torch-to-amp.py --list`; `:train` exports its
training step (forward + backward, --train). Needs torch (the venv of
scripts/setup-torch.sh); without it, says so and exits 0.
"""

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_MODELS = ("resnet18,resnet50,vgg16,densenet121,mobilenet_v2,"
                  "transformer,encoder-layer,resnet18:train,vgg16:train,"
                  "transformer:train")


def find_tool(env, candidates):
    value = os.environ.get(env)
    if value:
        return value
    for candidate in candidates:
        path = shutil.which(candidate) if "/" not in candidate else candidate
        if path and os.path.exists(path):
            return path
    sys.exit(f"amp_pass_time_models: no {env} (set {env})")


def export(model, train, out, python):
    cmd = [python, os.path.join(ROOT, "scripts", "torch-to-amp.py"), model,
           "--batch", "2", "-o", out]
    if train:
        cmd.append("--train")
    if model not in ("transformer", "encoder-layer", "gpt", "mlp"):
        # The ops and their count do not depend on the image size; VGG's
        # backward needs 224 (its adaptive pooling must divide evenly).
        cmd += ["--image-size", "224" if model.startswith("vgg") else "64"]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(proc.stderr.strip().splitlines()[-1]
                           if proc.stderr.strip() else "export failed")


def replicate(text, copies):
    """The module's top-level functions `copies` times, each copy's symbols
    renamed; the attribute aliases before `module` are kept once."""
    head, sep, body = text.partition("module {")
    if not sep:
        raise RuntimeError("no `module {` in the export")
    body = body.rstrip()
    if not body.endswith("}"):
        raise RuntimeError("unexpected end of module")
    body = body[:-1]
    symbols = set(re.findall(r"func\.func (?:private )?@([\w$.]+)", body))
    if not symbols:
        raise RuntimeError("no function in the export")
    pattern = re.compile(r"@(" + "|".join(map(re.escape, symbols)) + r")\b")
    parts = [head, "module {"]
    for copy in range(copies):
        parts.append(pattern.sub(lambda m: f"@{m.group(1)}_c{copy}", body))
    parts.append("}\n")
    return "".join(parts)


def count_ops(mlir_opt, path):
    proc = subprocess.run([mlir_opt, path, "--print-op-stats", "-o",
                           os.devnull], capture_output=True, text=True)
    total = 0
    for line in proc.stderr.splitlines():
        name, _, count = line.rpartition(",")
        if name.strip() and count.strip().isdigit():
            total += int(count)
    return total


def pass_seconds(cmd):
    """Sum of the pass lines of one --mlir-timing list report."""
    proc = subprocess.run(cmd + ["--mlir-timing",
                                 "--mlir-timing-display=list", "-o",
                                 os.devnull], capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)}: "
                           + (proc.stderr.strip().splitlines() or ["?"])[-1])
    total = 0.0
    for line in proc.stderr.splitlines():
        # The wall time is the last "t (p%)" column (a threaded run also
        # prints the user time before it).
        m = re.match(r"\s*(?:[0-9.]+ \(\s*[0-9.]+%\)\s+)?"
                     r"([0-9.]+) \(\s*[0-9.]+%\)\s+(.*\S)\s*$", line)
        if not m:
            continue
        name = m.group(2)
        if name in ("root", "Parser", "Output", "Rest", "Total") or \
                "Pipeline" in name:
            continue
        total += float(m.group(1))
    return total


def instructions(cmd):
    """Instructions executed inside PassManager::run (every pass and the
    verification after it; not parsing or printing), one thread, by
    callgrind: deterministic, where the timed ratio of a small module moves
    by +-20% between runs."""
    proc = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
         "--toggle-collect=mlir::PassManager::run*"] + cmd +
        ["--mlir-disable-threading", "-o", os.devnull],
        capture_output=True, text=True)
    m = re.search(r"I\s+refs:\s+([0-9,]+)", proc.stderr)
    if proc.returncode != 0 or not m:
        raise RuntimeError(f"{' '.join(cmd)} under callgrind: "
                           + (proc.stderr.strip().splitlines() or ["?"])[-1])
    return int(m.group(1).replace(",", ""))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--models", default=DEFAULT_MODELS)
    p.add_argument("--copies", type=int, default=10)
    p.add_argument("--repeat", type=int, default=7)
    p.add_argument("--baseline", metavar="AMP_OPT",
                   help="another amp-opt build, run interleaved with the "
                        "others (a before/after of a change)")
    p.add_argument("--instructions", action="store_true",
                   help="count instructions with valgrind's callgrind "
                        "instead of timing (one run each, one thread)")
    p.add_argument("--keep", metavar="DIR",
                   help="export into DIR and keep the files (reused when "
                        "present)")
    args = p.parse_args()

    amp_opt = find_tool("AMP_OPT", [os.path.join(ROOT, os.environ.get(
        "AMP_BUILD_DIR", "build"), "bin", "amp-opt"), "amp-opt"])
    mlir_opt = find_tool("MLIR_OPT", ["mlir-opt-22",
                                      "/usr/lib/llvm-22/bin/mlir-opt",
                                      "mlir-opt"])
    work = args.keep or tempfile.mkdtemp(prefix="amp-pass-time-")
    os.makedirs(work, exist_ok=True)
    specs = args.models.split(",")
    exported = all(os.path.exists(os.path.join(
        work, m.partition(":")[0] + ("-train" if m.endswith(":train") else "")
        + ".mlir")) for m in specs)
    if not exported:
        try:
            import torch  # noqa: F401
        except ImportError:
            print("amp_pass_time_models: torch not installed "
                  "(scripts/setup-torch.sh); nothing measured")
            return 0
    cpu = "?"
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    if args.instructions:
        if not shutil.which("valgrind"):
            print("amp_pass_time_models: --instructions needs valgrind")
            return 2
        print(f"# amp-opt --amp vs mlir-opt --canonicalize, instructions in "
              f"PassManager::run per copy (callgrind, one thread); "
              f"{args.copies} copies per module")
        print(f"{'model':<22} {'ops':>6} {'amp':>11} {'canon':>11} "
              f"{'ratio':>9}")
    else:
        print(f"# amp-opt --amp vs mlir-opt --canonicalize, pass time per "
              f"copy (best and median of {args.repeat}, interleaved); "
              f"{args.copies} copies per module; CPU: {cpu}; load: "
              f"{os.getloadavg()[0]:.2f}")
        if args.baseline:
            print(f"# baseline: {args.baseline}")
        print(f"{'model':<22} {'ops':>6} {'amp ms':>13} {'canon ms':>13} "
              f"{'ratio':>13}" + (f" {'baseline ms':>13} {'ratio':>13}"
                                  if args.baseline else ""))
    ratios = []
    for spec in specs:
        model, _, mode = spec.partition(":")
        train = mode == "train"
        name = model + ("-train" if train else "")
        single = os.path.join(work, name + ".mlir")
        many = os.path.join(work, name + f".x{args.copies}.mlir")
        try:
            if not os.path.exists(single):
                export(model, train, single, sys.executable)
            with open(single) as f:
                text = f.read()
            with open(many, "w") as f:
                f.write(replicate(text, args.copies))
            ops = count_ops(mlir_opt, single)
            if args.instructions:
                amp_i = instructions([amp_opt, many, "--amp"]) / args.copies
                canon_i = instructions([mlir_opt, many, "--canonicalize"]) \
                    / args.copies
                ratios.append((amp_i / canon_i, name))
                print(f"{name:<22} {ops:>6} {amp_i / 1e6:>9.2f} M "
                      f"{canon_i / 1e6:>9.2f} M {amp_i / canon_i:>9.2f}")
                continue
            times = {"amp": [], "canon": [], "baseline": []}
            for _ in range(args.repeat):
                times["amp"].append(pass_seconds([amp_opt, many, "--amp"]))
                times["canon"].append(pass_seconds(
                    [mlir_opt, many, "--canonicalize"]))
                if args.baseline:
                    times["baseline"].append(
                        pass_seconds([args.baseline, many, "--amp"]))
        except RuntimeError as e:
            print(f"{name:<22} skipped: {e}")
            continue

        def per_copy(key):
            return (min(times[key]) / args.copies * 1e3,
                    statistics.median(times[key]) / args.copies * 1e3)

        def pair(a, b):
            return f"{a:6.3f}/{b:6.3f}"

        amp, canon = per_copy("amp"), per_copy("canon")
        ratio = amp[0] / canon[0] if canon[0] > 0 else float("nan")
        ratios.append((ratio, name))
        line = (f"{name:<22} {ops:>6} {pair(*amp)} {pair(*canon)} "
                f"{pair(ratio, amp[1] / canon[1]):>13}")
        if args.baseline:
            base = per_copy("baseline")
            line += f" {pair(*base)} {pair(base[0] / canon[0], base[1] / canon[1]):>13}"
        print(line)
    if ratios:
        worst = max(ratios)
        met = sum(1 for r, _ in ratios if r <= 1.0)
        how = ("instructions" if args.instructions
               else f"best of {args.repeat}")
        print(f"goal amp <= 1.00x canonicalize ({how}): "
              f"{met} of {len(ratios)} models; worst {worst[0]:.2f}x "
              f"({worst[1]})")
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
