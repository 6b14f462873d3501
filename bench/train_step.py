#!/usr/bin/env python3
"""End-to-end training steps on the CPU: f32 vs AMP bf16 (docs/performance.md).

For each model, amp-gen-model emits the step; the f32 program is the
marker-free one as generated (--no-markers), the bf16 one is
`amp-opt --amp='mode=bf16'` of the marked one. Both run with

    amp-run FILE --fast --data=synthetic:C --synthetic-samples=5*batch --steps=3 \
        --bench-steps=N --eval=none --timing

in interleaved rounds (f32, bf16, f32, bf16, ...); the best of the rounds'
median step times is reported, with the peak memory amp-run prints. Then

    amp-run BF16 --fast --data=synthetic:C --synthetic-samples=5*batch \
        --bench-steps=M --eval=none --bench-against=F32

times both steps in one process, their calls alternated (M = max(N, 20)
pairs): the median of the per-pair ratios ("1-proc") is the speed-up the goal
is checked on, since two separate runs on a shared machine can differ by more
than the goal's margin. The
contraction FLOPs of a step come from `amp-opt --amp-report`
(functions[train_step].contraction_flops.total); divided by the f32 step time
they give the rate the f32 step reaches, compared with the best f32 GEMM rate
that amp-bench-gemm-cpu measures in the same run ("the f32 step is itself
fast": goal within 1.5x, i.e. >= 67%); likewise for the bf16 step against the
best amp-bf16 GEMM rate (no goal: it shows where a missed speed-up goes).

Run through bench/train_step.sh, which sets the threads and unsets
OPENBLAS_CORETYPE. Standard library only (torch optional).
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

MODELS = {
    "mlp-1x2048": ["--model", "mlp", "--layers", "1", "--width", "2048",
                   "--inputs", "2048", "--batch", "512", "--classes", "16"],
    "mlp-2x2048": ["--model", "mlp", "--layers", "2", "--width", "2048",
                   "--inputs", "2048", "--batch", "512", "--classes", "16"],
    "transformer": ["--model", "transformer", "--seq", "128", "--dmodel",
                    "512", "--heads", "8", "--ffn", "2048", "--batch", "8",
                    "--classes", "16"],
    "cnn": ["--model", "cnn", "--image", "32x32", "--channels", "3",
            "--filters", "64,128,256", "--batch", "32", "--classes", "16"],
}
QUICK_MODELS = {
    "mlp-1x256": ["--model", "mlp", "--layers", "1", "--width", "256",
                  "--inputs", "256", "--batch", "64", "--classes", "16"],
    "transformer-small": ["--model", "transformer", "--seq", "16", "--dmodel",
                          "64", "--heads", "4", "--ffn", "128", "--batch",
                          "4", "--classes", "16"],
    "cnn-small": ["--model", "cnn", "--image", "16x16", "--channels", "3",
                  "--filters", "8,16", "--batch", "8", "--classes", "16"],
}
COMMON = ["--optimizer", "momentum"]


def cpu_info():
    info = {"model": "unknown", "family": "?", "bf16": False}
    with open("/proc/cpuinfo") as f:
        for line in f:
            k, _, v = line.partition(":")
            k, v = k.strip(), v.strip()
            if k == "model name" and info["model"] == "unknown":
                info["model"] = v
            elif k == "cpu family" and info["family"] == "?":
                info["family"] = v
            elif k == "flags":
                info["bf16"] = "avx512_bf16" in v.split()
                break
    return info


def load_avg():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def run(cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True, **kw)


TIME_UNITS = {"s": 1e3, "ms": 1.0, "us": 1e-3, "µs": 1e-3, "ns": 1e-6}


def parse_amp_run(out):
    """(median ms/step, peak bytes) from amp-run's output; None if absent."""
    median = None
    for line in out.splitlines():
        if "median" not in line:
            continue
        m = re.search(r"median[^0-9]*([0-9.]+(?:e[-+]?[0-9]+)?)\s*(ms|us|µs|ns|s)\b",
                      line)
        if m:
            median = float(m.group(1)) * TIME_UNITS[m.group(2)]
    peak = None
    m = re.search(r"peak memory (\d+) bytes", out)
    if m:
        peak = int(m.group(1))
    return median, peak


def gemm_rate(build, args):
    """Best f32 and amp-bf16 GEMM rates (GF/s) and where, from
    amp-bench-gemm-cpu."""
    cmd = [os.path.join(build, "bin", "amp-bench-gemm-cpu"),
           "--shapes=" + args.gemm_shapes, "--min-time=0.3"]
    r = run(cmd)
    m = re.search(r"best f32 GEMM rate: ([0-9.]+) GF/s \((.*)\)", r.stdout)
    b = re.search(r"best amp-bf16 GEMM rate: ([0-9.]+) GF/s \((.*)\)", r.stdout)
    if r.returncode or not m:
        sys.exit("train_step: %s failed:\n%s%s" % (" ".join(cmd), r.stdout,
                                                   r.stderr))
    return (float(m.group(1)), m.group(2),
            float(b.group(1)) if b else None, b.group(2) if b else "n/a")


def fmt(x, f="%.1f"):
    return "n/a" if x is None else f % x


def fmt_ratio(x, goal):
    """x as "1.85x"; with a third digit when two would round a miss up to
    the goal or a pass down below it (as amp-bench-gemm-cpu prints them)."""
    if x is None:
        return "n/a"
    two = "%.2fx" % x
    if (x >= goal) != (round(x, 2) >= goal):
        return "%.3fx" % x
    return two


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--build", default=os.environ.get("AMP_BUILD_DIR", "build"))
    p.add_argument("--quick", action="store_true",
                   help="small models, 3 bench steps, one round")
    p.add_argument("--models", help="comma-separated subset of: " +
                   ", ".join(list(MODELS) + list(QUICK_MODELS)))
    p.add_argument("--bench-steps", type=int, default=10)
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--gemm-rate", type=float,
                   help="best f32 GEMM GF/s to compare with (default: measure "
                   "it now with amp-bench-gemm-cpu)")
    p.add_argument("--bf16-gemm-rate", type=float,
                   help="best amp-bf16 GEMM GF/s, with --gemm-rate")
    p.add_argument("--gemm-shapes",
                   default="512x2048x2048,1024x1024x1024,2048x2048x2048")
    p.add_argument("--keep", help="keep the generated programs in this folder")
    venv = os.path.expanduser("~/.venvs/amp-torch/bin/python")
    p.add_argument("--torch-python",
                   default=venv if os.access(venv, os.X_OK) else sys.executable,
                   help="the interpreter PyTorch's columns run in (default: "
                        "the venv of scripts/setup-torch.sh when it exists)")
    p.add_argument("--timeout", type=float, default=1800,
                   help="seconds per amp-run (default 1800)")
    args = p.parse_args()
    build = args.build if os.path.isabs(args.build) else os.path.join(ROOT, args.build)
    amp_opt = os.path.join(build, "bin", "amp-opt")
    amp_run = os.path.join(build, "bin", "amp-run")
    gen = os.path.join(build, "bin", "amp-gen-model")
    models = dict(QUICK_MODELS if args.quick else MODELS)
    if args.models:
        every = dict(MODELS, **QUICK_MODELS)
        try:
            models = {m: every[m] for m in args.models.split(",")}
        except KeyError as e:
            sys.exit("train_step: unknown model %s" % e)
    if args.quick:
        args.bench_steps, args.rounds = min(args.bench_steps, 3), 1

    cpu = cpu_info()
    goal = 1.8 if cpu["bf16"] else 0.95
    print("End-to-end training steps: f32 (as generated) vs amp-opt "
          "--amp='mode=bf16', amp-run --fast")
    print("CPU: %s (cpu family %s), avx512_bf16: %s" %
          (cpu["model"], cpu["family"], "yes" if cpu["bf16"] else "no"))
    print("threads: OPENBLAS_NUM_THREADS=%s OMP_NUM_THREADS=%s "
          "AMP_RT_NUM_THREADS=%s; OPENBLAS_CORETYPE %s" %
          (os.environ.get("OPENBLAS_NUM_THREADS", "<unset>"),
           os.environ.get("OMP_NUM_THREADS", "<unset>"),
           os.environ.get("AMP_RT_NUM_THREADS", "<unset>"),
           os.environ.get("OPENBLAS_CORETYPE", "unset")))
    print("load average at start: %s" % load_avg())
    print("amp-run FILE --fast --data=synthetic:C --synthetic-samples=5*batch "
          "--steps=3 --bench-steps=%d --eval=none; best of %d interleaved "
          "rounds of the median step time; 1-proc: amp-run BF16 ... "
          "--bench-steps=%d --bench-against=F32"
          % (args.bench_steps, args.rounds, max(args.bench_steps, 20)))

    probe = run([amp_run, "--help"])
    if "bench-steps" not in probe.stdout or "fast" not in probe.stdout:
        sys.exit("train_step: %s has no --fast / --bench-steps yet "
                 "(tools/amp-run)" % amp_run)

    if args.gemm_rate:
        rate, where = args.gemm_rate, "given with --gemm-rate"
        brate, bwhere = args.bf16_gemm_rate, "given with --bf16-gemm-rate"
    else:
        rate, where, brate, bwhere = gemm_rate(build, args)
    print("best f32 GEMM rate: %.1f GF/s (%s)" % (rate, where))
    if brate:
        print("best amp-bf16 GEMM rate: %.1f GF/s (%s)" % (brate, bwhere))

    have_torch = run([args.torch_python, os.path.join(ROOT, "bench",
                                                      "torch_bench.py"),
                      "check"]).returncode == 0
    tmp = args.keep or tempfile.mkdtemp(prefix="amp-train-step-")
    os.makedirs(tmp, exist_ok=True)
    rows, notes = [], []
    try:
        for name, margs in models.items():
            classes = margs[margs.index("--classes") + 1]
            # Enough samples for the 3 training steps (80% train split):
            # generating amp-run's default 2048 synthetic samples of the
            # transformer's 65536 features takes seconds per run.
            samples = "--synthetic-samples=%d" % (
                5 * int(margs[margs.index("--batch") + 1]))
            marked = os.path.join(tmp, name + ".mlir")
            files = {"f32": os.path.join(tmp, name + ".f32.mlir"),
                     "bf16": os.path.join(tmp, name + ".bf16.mlir")}
            report = os.path.join(tmp, name + ".report.json")
            for cmd in ([gen] + margs + COMMON + ["-o", marked],
                        [gen] + margs + COMMON +
                        ["--no-markers", "-o", files["f32"]],
                        [amp_opt, marked, "--amp=mode=bf16",
                         "--amp-report=" + report, "-o", files["bf16"]]):
                r = run(cmd)
                if r.returncode:
                    sys.exit("train_step: %s failed:\n%s" % (" ".join(cmd), r.stderr))
            with open(report) as f:
                rep = json.load(f)
            flops = next(fn["contraction_flops"]["total"]
                         for fn in rep["functions"] if fn["name"] == "train_step")
            best = {"f32": None, "bf16": None}
            peak = {"f32": None, "bf16": None}
            for _ in range(args.rounds):
                for v in ("f32", "bf16"):
                    cmd = [amp_run, files[v], "--fast",
                           "--data=synthetic:" + classes, samples, "--steps=3",
                           "--bench-steps=%d" % args.bench_steps, "--eval=none",
                           "--timing"]
                    try:
                        r = run(cmd, timeout=args.timeout)
                    except subprocess.TimeoutExpired:
                        notes.append("%s %s: amp-run took over %d s" %
                                     (name, v, args.timeout))
                        continue
                    ms, pk = parse_amp_run(r.stdout + r.stderr)
                    k = re.search(r"runtime kernels: (.*)", r.stderr)
                    if k and "libamp_rt kernels: " + k.group(1) not in notes:
                        notes.append("libamp_rt kernels: " + k.group(1))
                    if r.returncode or ms is None:
                        notes.append("%s %s: %s exited %d:\n    %s" % (
                            name, v, " ".join(cmd), r.returncode,
                            (r.stdout + r.stderr).strip()[-600:].replace("\n", "\n    ")))
                        continue
                    best[v] = ms if best[v] is None else min(best[v], ms)
                    peak[v] = pk
            # Both steps in one process, alternated: the speed-up that does
            # not depend on how the machine's speed drifts between runs.
            paired = None
            cmd = [amp_run, files["bf16"], "--fast",
                   "--data=synthetic:" + classes, samples,
                   "--bench-steps=%d" % max(args.bench_steps, 20),
                   "--eval=none", "--bench-against=" + files["f32"]]
            try:
                r = run(cmd, timeout=args.timeout)
                m = re.search(r"^speed against .*: median ([0-9.]+)x", r.stdout,
                              re.M)
                if m:
                    paired = float(m.group(1))
                else:
                    notes.append("%s: %s exited %d:\n    %s" % (
                        name, " ".join(cmd), r.returncode,
                        (r.stdout + r.stderr).strip()[-600:].replace("\n", "\n    ")))
            except subprocess.TimeoutExpired:
                notes.append("%s --bench-against: amp-run took over %d s" %
                             (name, args.timeout))
            torch_ms = {"f32": None, "bf16": None}
            if have_torch:
                r = run([args.torch_python,
                         os.path.join(ROOT, "bench", "torch_bench.py"), "step", "--threads", os.environ.get("OMP_NUM_THREADS", "2"),
                         "--bench-steps", str(args.bench_steps),
                         "--rounds", str(args.rounds)] + margs)
                for v in ("f32", "bf16"):
                    m = re.search(r"^%s_ms ([0-9.]+)" % v, r.stdout, re.M)
                    if m:
                        torch_ms[v] = float(m.group(1))
                if r.returncode:
                    notes.append("%s torch: %s" % (name, r.stderr.strip()[-300:]))
            rows.append((name, flops, best, peak, paired, torch_ms))
            print("  measured %s" % name, file=sys.stderr)
    finally:
        if not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)

    print()
    hdr = ("%-18s %7s %9s %9s %8s %8s %-5s %8s %8s %8s %9s %-10s %9s %9s" %
           ("model", "GFLOP", "f32 ms", "bf16 ms", "speed-up", "1-proc", "goal",
            "f32 MiB", "bf16 MiB", "f32 GF/s", "% of GEMM", "goal >=67%",
            "bf16 GF/s", "% of bf16"))
    if have_torch:
        hdr += " %12s %12s" % ("torch f32 ms", "torch bf16 ms")
    print(hdr)
    met = {"speed": [], "rate": []}
    for name, flops, best, peak, paired, tms in rows:
        apart = (best["f32"] / best["bf16"] if best["f32"] and best["bf16"]
                 else None)
        sp = paired if paired is not None else apart
        gfs = flops / (best["f32"] * 1e-3) * 1e-9 if best["f32"] else None
        share = gfs / rate if gfs else None
        sp_goal = "n/a" if sp is None else ("ok" if sp >= goal else "MISS")
        rate_goal = "n/a" if share is None else (
            "ok" if share >= 1 / 1.5 else "MISS")
        if sp is not None:
            met["speed"].append((name, sp, sp >= goal))
        if share is not None:
            met["rate"].append((name, share, share >= 1 / 1.5))
        bgfs = flops / (best["bf16"] * 1e-3) * 1e-9 if best["bf16"] else None
        bshare = bgfs / brate if bgfs and brate else None
        line = ("%-18s %7.2f %9s %9s %8s %8s %-5s %8s %8s %8s %9s %-10s %9s %9s" % (
            name, flops * 1e-9, fmt(best["f32"], "%.2f"), fmt(best["bf16"], "%.2f"),
            fmt_ratio(apart, goal), fmt_ratio(paired, goal), sp_goal,
            fmt(peak["f32"] and peak["f32"] / 2**20),
            fmt(peak["bf16"] and peak["bf16"] / 2**20), fmt(gfs),
            fmt(share and share * 100, "%.0f%%"), rate_goal, fmt(bgfs),
            fmt(bshare and bshare * 100, "%.0f%%")))
        if have_torch:
            line += " %12s %12s" % (fmt(tms["f32"], "%.2f"), fmt(tms["bf16"], "%.2f"))
        print(line)
    print()
    print("speed-up goal (bf16 vs f32 step): >= %.2fx (%s), checked on the "
          "1-proc speed-up (both steps in one process, median of the "
          "per-pair ratios; the best-of-rounds one where it is missing)" %
          (goal, "AVX512_BF16" if cpu["bf16"] else "no AVX512_BF16"))
    for key, what in (("speed", "speed-up >= %.2fx" % goal),
                      ("rate", "f32 contractions within 1.5x of the best f32 GEMM")):
        ok = [n for n, _, good in met[key] if good]
        bad = ["%s %s" % (n, fmt_ratio(v, goal) if key == "speed"
                          else "%.2f%%" % (v * 100))
               for n, v, good in met[key] if not good]
        if not met[key]:
            print("goal %s: n/a (not measured)" % what)
        else:
            print("goal %s: %s (%d of %d models meet it%s)" % (
                what, "met" if not bad else "NOT met", len(ok), len(met[key]),
                "" if not bad else "; missed: %s" % ", ".join(bad)))
    print("torch: %s" % ("eager f32 and autocast bf16, separate processes after "
                         "the amp-run rounds" if have_torch else "torch not installed"))
    print("load average at end: %s" % load_avg())
    if notes:
        print("\nnotes:")
        for n in notes:
            print("  " + n)
    return 0


if __name__ == "__main__":
    sys.exit(main())
