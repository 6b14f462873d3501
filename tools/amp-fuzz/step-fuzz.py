#!/usr/bin/env python3
"""step-fuzz: random training steps through every amp-run pipeline.

    step-fuzz.py run    [--count N] [--seed-start S] [--out DIR] [--time-limit T]
    step-fuzz.py config --seed N        # the seed's model and flags
    step-fuzz.py check  --seed N [-v]   # one seed, its logs kept

amp-fuzz.py draws random forward graphs; what it never makes is a training
step: a backward pass, an optimizer update, loss scaling, and the passes
of amp-run's fast pipeline that only training steps meet (rounded params
carried between steps, state updated in place, donated buffers, blocked
convolution chains, transposes folded into contractions). For every seed
this draws an amp-gen-model step (MLP, CNN or transformer block of random,
often odd, sizes; SGD, momentum or Adam; classifier or regression head;
sometimes a loss weight that makes f16 gradients underflow) and random
amp-opt and amp-run options, then trains a few steps with

  f32-ref   the f32 program (marker-free) on the loop pipeline
  f32-fast  the same through --fast (every contraction in libamp_rt)
  amp-ref   the --amp program on the loop pipeline
  amp-rt    the same with --lower-to-runtime --parallel (16-bit
            contractions in libamp_rt, the other loops on OpenMP)
  amp-fast  the same through --fast (random fast-pipeline switches)
  amp-lib   the same with --low-contractions=library (16-bit operands
            reach libamp_rt as they are; bf16 with AMP_RT_CPU_BF16=emulate
            where the CPU is AVX-512 without AVX512_BF16)

and checks:

  crash     a run exits non-zero, by a signal, or times out
  f32       f32-fast's losses differ from f32-ref's beyond f32 rounding
  pipeline  amp-rt's, amp-fast's or amp-lib's losses differ from amp-ref's
            beyond the 16-bit roundings a different summation order can
            flip, or their loss scale / skipped steps differ
  accuracy  amp-ref's first loss (before any update) differs from
            f32-ref's beyond what the 16-bit type explains
  gen       amp-gen-model rejects a configuration drawn as valid, or
            accepts one drawn as invalid, or rejects without a one-line
            error

A failure is saved under OUT/failures/<kind>-s<seed>/ with both programs,
every log and a reproducer. Standard library only; see docs/fuzzing.md.
"""

import argparse
import json
import os
import random
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

from fuzzrun import Campaign, add_run_arguments

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
STEPS = 4

# Tolerances, relative to the reference loss (see docs/fuzzing.md). f32
# pipelines differ only in summation order; 16-bit programs also round
# intermediate values, and a different order flips some of those roundings,
# which training carries forward (hence the growth per step).
F32_RTOL, F32_RTOL_PER_STEP = 1e-4, 2e-4
LOW_RTOL, LOW_RTOL_PER_STEP = 4e-3, 8e-3
FIRST_LOSS_RTOL = {"f16": 1e-2, "bf16": 4e-2, "auto": 4e-2}
ATOL = 1e-5


def cpu_flags():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


# ------------------------------------------------------------ configurations

def conv_image(rng, layers, kernel, valid):
    """H or W for `layers` valid KxK convolutions and the 2x2 pool after
    them: even and >= 2 after the convolutions, unless drawn invalid."""
    out = 2 * rng.randint(1, 4)
    size = out + layers * (kernel - 1)
    return size + (1 if not valid else 0)


def make_config(seed):
    """The seed's amp-gen-model flags, amp-opt flags, amp-run flags, and
    whether amp-gen-model must accept the model."""
    rng = random.Random(seed * 7919 + 3)
    model = rng.choice(["mlp", "mlp", "cnn", "cnn", "transformer"])
    gen = ["--model=" + model]
    valid = True
    if model == "mlp":
        gen += ["--inputs=%d" % rng.randint(1, 80),
                "--layers=%d" % rng.choice([0, 1, 1, 2, 3]),
                "--width=%d" % rng.choice([1, 7, 16, 33, 64, 96])]
        batch = rng.choice([1, 2, 5, 16, 31, 64])
    elif model == "cnn":
        layers = rng.choice([1, 1, 2, 3])
        kernel = rng.choice([1, 3, 3, 5])
        valid = rng.random() > 0.04
        h = conv_image(rng, layers, kernel, valid)
        w = conv_image(rng, layers, kernel, True)
        filters = [rng.choice([1, 3, 8, 16, 17]) for _ in range(layers)]
        gen += ["--channels=%d" % rng.choice([1, 2, 3, 16]),
                "--filters=" + ",".join(map(str, filters)),
                "--image=%dx%d" % (h, w), "--kernel=%d" % kernel]
        batch = rng.choice([1, 2, 3, 8, 16])
    else:
        heads = rng.choice([1, 2, 4])
        gen += ["--heads=%d" % heads,
                "--dmodel=%d" % (heads * rng.choice([1, 4, 8, 16])),
                "--seq=%d" % rng.choice([1, 3, 8, 16]),
                "--ffn=%d" % rng.choice([1, 8, 32, 64])]
        batch = rng.choice([1, 2, 4])
    classes = rng.choice([2, 3, 10, 16])
    gen += ["--batch=%d" % batch, "--classes=%d" % classes]
    if rng.random() < 0.25:
        gen.append("--head=regression")
    optimizer = rng.choice(["sgd", "momentum", "adam"])
    gen.append("--optimizer=" + optimizer)
    # A loss weight is cancelled by dividing the learning rate, which Adam's
    # normalized update would not do (amp-gen-model refuses it).
    if optimizer != "adam" and rng.random() < 0.2:
        gen.append("--loss-weight=%s" % rng.choice(["1e-6", "1e-3", "64"]))

    mode = rng.choice(["f16", "f16", "bf16"])
    opts = ["mode=" + mode]
    # What pays on this CPU (f32, f16 storage or bf16), judged by the
    # loosest tolerance; drawn apart, so that the other draws of a seed
    # stay those of the first campaigns.
    if random.Random(seed * 7919 + 5).random() < 0.1:
        mode, opts = "auto", ["mode=auto"]
    if rng.random() < 0.25:
        opts.append("cast-economy=false")
    r = rng.random()
    if r < 0.2:
        opts.append("loss-scaling=static init-scale=%s" %
                    rng.choice(["1", "128", "65536"]))
    elif r < 0.35:
        opts.append("loss-scaling=dynamic init-scale=%s" %
                    rng.choice(["2", "1024", "1e9"]))
    elif r < 0.45:
        opts.append("loss-scaling=none")
    amp = ["--amp=" + " ".join(opts)]

    fast = []
    if rng.random() < 0.2:
        fast.append("--block-convs=false")
    if rng.random() < 0.2:
        fast.append("--carry-rounded-params=false")
    if rng.random() < 0.2:
        fast.append("--donate-state=false")
    if rng.random() < 0.3:
        fast.append("--loop-threads=%d" % rng.choice([1, 3]))
    data = ["--data=synthetic:%d" % classes, "--synthetic-samples=%d" %
            max(4 * batch, 40), "--seed=%d" % seed]
    return {"seed": seed, "model": model, "mode": mode, "valid": valid,
            "gen": gen, "amp": amp, "fast": fast, "data": data}


# ------------------------------------------------------------------ running

class Case:
    def __init__(self, cfg, tmp, args, avx512):
        self.cfg, self.tmp, self.timeout = cfg, tmp, args.timeout
        self.bin, self.runtime_lib = args.bin, args.runtime_lib
        self.inject = args.inject_difference
        self.avx512, self.verbose = avx512, args.verbose
        self.cmds = []
        # The largest |difference| / tolerance of each comparison.
        self.margins = {}

    def tool(self, name):
        return os.path.join(self.bin, name)

    def path(self, name):
        return os.path.join(self.tmp, name)

    def run(self, tag, cmd, env=None):
        full_env = dict(os.environ)
        full_env.pop("OPENBLAS_CORETYPE", None)
        full_env.update(env or {})
        shown = " ".join("%s=%s" % kv for kv in (env or {}).items())
        self.cmds.append((tag, (shown + " " if shown else "") +
                          " ".join(shlex.quote(c) for c in cmd)))
        if self.verbose:
            print("  $", self.cmds[-1][1], file=sys.stderr)
        try:
            p = subprocess.run(cmd, capture_output=True, text=True,
                               timeout=self.timeout, env=full_env)
            rc, out, err = p.returncode, p.stdout, p.stderr
        except subprocess.TimeoutExpired:
            rc, out, err = "timeout", "", "time-out after %ss\n" % self.timeout
        with open(self.path(tag + ".log"), "w") as f:
            f.write(out)
        with open(self.path(tag + ".err"), "w") as f:
            f.write(err)
        return rc, out, err

    def train(self, tag, program, extra, env=None):
        cmd = [self.tool("amp-run"), program, "--steps=%d" % STEPS,
               "--eval=none"] + self.cfg["data"] + extra
        if self.runtime_lib and ("--fast" in extra or
                                 "--lower-to-runtime" in extra):
            cmd.append("--runtime-lib=" + self.runtime_lib)
        if tag == self.inject:
            # The negative control: this run's second batch differs.
            cmd += ["--poison-steps=2", "--poison-value=1000"]
        rc, out, err = self.run(tag, cmd, env)
        if rc != 0:
            return None, "%s: exit %s: %s" % (tag, rc, last_line(err))
        return read_steps(out), None


def last_line(text):
    lines = [l for l in text.strip().splitlines() if l.strip()]
    return lines[-1][:300] if lines else "(no output)"


def read_steps(text):
    """[(loss, scale, skipped)] of the `step N loss X [scale S skipped B]`
    lines, in step order."""
    steps = []
    for line in text.splitlines():
        m = re.match(r"step (\d+) loss (\S+)(?: scale (\S+) skipped (\S+))?",
                     line)
        if m:
            steps.append((float(m.group(2)), m.group(3), m.group(4)))
    return steps


def loss_mismatch(case, ref, out, rtol, per_step, what):
    """Why `out`'s steps do not match `ref`'s, or None; records the
    closest any step came to the tolerance in case.margins[what]."""
    if len(ref) != len(out):
        return "%s: %d step lines against %d" % (what, len(out), len(ref))
    for i, ((a, sa, ka), (b, sb, kb)) in enumerate(zip(ref, out)):
        if (sa, ka) != (sb, kb):
            return ("%s: step %d: scale %s skipped %s against %s / %s" %
                    (what, i + 1, sb, kb, sa, ka))
        if a != a or b != b:
            if (a != a) != (b != b):
                return "%s: step %d: loss %r against %r" % (what, i + 1, b, a)
            continue
        tol = ATOL + (rtol + per_step * i) * abs(a)
        case.margins[what] = max(case.margins.get(what, 0.0),
                                 abs(a - b) / tol)
        if abs(a - b) > tol:
            return ("%s: step %d: loss %.7g against %.7g (rel %.2e, "
                    "tolerance %.2e)" % (what, i + 1, b, a,
                                         abs(a - b) / max(abs(a), 1e-30),
                                         tol / max(abs(a), 1e-30)))
    return None


def check_case(cfg, tmp, args, avx512):
    """(kind, message, case) of the first failed check, or (None, summary,
    case)."""
    c = Case(cfg, tmp, args, avx512)
    gen = c.tool("amp-gen-model")
    rc, _, err = c.run("gen", [gen] + cfg["gen"] + ["-o", c.path("step.mlir")])
    if not cfg["valid"]:
        if rc in (1, 2) and re.match(r"amp-gen-model: error: .+\n\Z", err):
            return None, "rejected as expected", c
        return "gen", "invalid model: exit %s: %s" % (rc, last_line(err)), c
    if rc != 0:
        return "gen", "exit %s: %s" % (rc, last_line(err)), c
    rc, _, err = c.run("gen-f32", [gen] + cfg["gen"] +
                       ["--no-markers", "-o", c.path("f32.mlir")])
    if rc != 0:
        return "gen", "--no-markers: exit %s: %s" % (rc, last_line(err)), c
    rc, _, err = c.run("amp-opt", [c.tool("amp-opt"),
                                   c.path("step.mlir")] + cfg["amp"] +
                       ["-o", c.path("amp.mlir")])
    if rc != 0:
        return "crash", "amp-opt: exit %s: %s" % (rc, last_line(err)), c

    f32_ref, e = c.train("f32-ref", c.path("f32.mlir"), [])
    if e:
        return "crash", e, c
    if any(l != l for l, _, _ in f32_ref):
        return "f32", "f32-ref: a NaN loss", c
    f32_fast, e = c.train("f32-fast", c.path("f32.mlir"), ["--fast"])
    if e:
        return "crash", e, c
    e = loss_mismatch(c, f32_ref, f32_fast, F32_RTOL, F32_RTOL_PER_STEP,
                      "f32-fast")
    if e:
        return "f32", e, c

    amp_ref, e = c.train("amp-ref", c.path("amp.mlir"), [])
    if e:
        return "crash", e, c
    first, ref_first = amp_ref[0][0], f32_ref[0][0]
    rtol = FIRST_LOSS_RTOL[cfg["mode"]]
    tol = ATOL + rtol * abs(ref_first)
    c.margins["first-loss"] = abs(first - ref_first) / tol
    if not abs(first - ref_first) <= tol:
        return ("accuracy", "amp-ref: first loss %.7g against f32's %.7g" %
                (first, ref_first), c)
    variants = [("amp-rt", ["--lower-to-runtime", "--parallel"], None),
                ("amp-fast", ["--fast"] + cfg["fast"], None),
                ("amp-lib", ["--fast", "--low-contractions=library"] +
                 cfg["fast"],
                 {"AMP_RT_CPU_BF16": "emulate"} if avx512 else None)]
    for tag, extra, env in variants:
        out, e = c.train(tag, c.path("amp.mlir"), extra, env)
        if e:
            return "crash", e, c
        e = loss_mismatch(c, amp_ref, out, LOW_RTOL, LOW_RTOL_PER_STEP, tag)
        if e:
            return "pipeline", e, c
    return None, "ok", c


def save_failure(outdir, cfg, kind, msg, case):
    d = os.path.join(outdir, "failures", "%s-s%d" % (kind, cfg["seed"]))
    if os.path.exists(d):
        shutil.rmtree(d)
    shutil.copytree(case.tmp, d)
    with open(os.path.join(d, "config.json"), "w") as f:
        json.dump(cfg, f, indent=1)
    with open(os.path.join(d, "repro.sh"), "w") as f:
        f.write("# %s: %s\n" % (kind, msg))
        for tag, cmd in case.cmds:
            f.write("%s  # %s\n" % (cmd.replace(case.tmp, "."), tag))
    return d


# ----------------------------------------------------------------- commands

def cmd_run(args):
    avx512 = "avx512f" in cpu_flags()
    os.makedirs(args.out, exist_ok=True)

    def check(seed, tmp):
        cfg = make_config(seed)
        kind, msg, case = check_case(cfg, tmp, args, avx512)
        if kind:
            where = save_failure(args.out, cfg, kind, msg, case)
            print("FAIL seed %d %s: %s (%s)" % (seed, kind, msg, where),
                  flush=True)
        elif args.verbose:
            print("seed %d %s %s: %s" % (seed, cfg["model"], cfg["mode"],
                                         msg), flush=True)
        return kind, msg, case.margins

    campaign = Campaign("step-fuzz", args).run(check)
    campaign.summary()
    return campaign.exit_code()


def cmd_config(args):
    print(json.dumps(make_config(args.seed), indent=1))
    return 0


def cmd_check(args):
    cfg = make_config(args.seed)
    tmp = tempfile.mkdtemp(prefix="step-fuzz-")
    kind, msg, case = check_case(cfg, tmp, args, "avx512f" in cpu_flags())
    print("%s: %s (files in %s)" % (kind or "pass", msg, tmp))
    print("difference / tolerance: " + ", ".join(
        "%s %.2f" % kv for kv in sorted(case.margins.items())))
    return 1 if kind else 0


def default_bin():
    # lit sets AMP_OPT to the amp-opt of the build under test.
    if os.environ.get("AMP_OPT"):
        return os.path.dirname(os.path.realpath(os.environ["AMP_OPT"]))
    found = shutil.which("amp-run")
    if found:
        return os.path.dirname(os.path.realpath(found))
    return os.path.join(ROOT, "build", "bin")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    run = sub.add_parser("run")
    add_run_arguments(run, "step-fuzz-out")
    for p in (run, sub.add_parser("check"), sub.add_parser("config")):
        p.add_argument("-v", "--verbose", action="store_true")
        p.add_argument("--timeout", type=float, default=300)
        p.add_argument("--bin", default=default_bin(),
                       help="where amp-gen-model, amp-opt and amp-run are "
                       "(default: $AMP_OPT's folder, amp-run's on PATH, "
                       "else build/bin)")
        p.add_argument("--inject-difference", default="",
                       choices=["", "f32-fast", "amp-rt", "amp-fast",
                                "amp-lib"],
                       help="negative control: give this run a different "
                       "second batch, which its check must report")
        p.add_argument("--runtime-lib", default="",
                       help="libamp_rt for --fast (default: amp-run's own)")
        if p is not run:
            p.add_argument("--seed", type=int, required=True)
    args = ap.parse_args()
    return {"run": cmd_run, "check": cmd_check, "config": cmd_config}[
        args.cmd](args)


if __name__ == "__main__":
    sys.exit(main())
