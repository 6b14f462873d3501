#!/usr/bin/env python3
"""torch-fuzz: random PyTorch models through the export path, amp-opt and
the CPU, against PyTorch f32 and PyTorch's autocast.

    torch-fuzz.py run    [--count N] [--seed-start S] [--out DIR] [--time-limit T]
    torch-fuzz.py config --seed N        # the seed's model, mode and pipeline
    torch-fuzz.py check  --seed N        # one seed, its files kept

amp-fuzz.py and step-fuzz.py draw IR; what real users feed amp-opt is a
PyTorch model exported by scripts/torch-to-amp.py. For every seed this
draws a model (torch_models.py: a CNN of convolutions -- strided, dilated,
depthwise --, batch norms, activations, pools and residual blocks; a
sequence model of encoder layers, written-out attention with or without a
causal mask, residual MLPs and layer norms; or an MLP with layer / batch
norms and a softmax head), a mode (f16 or bf16) and a --check pipeline
(reference loops or amp-run's fast one), exports it at batch size 1-64,
runs `amp-opt --amp`, compiles and runs the f32 export and the AMP program
on PyTorch's input and weights, and checks:

  crash     the export, amp-opt, the compile or a run dies, or amp-opt
            rejects the export
  f32       the f32 export differs from PyTorch f32 (rel. L2 > 1e-4): an
            export or lowering bug, no precision involved
  finite    the AMP result has an Inf or NaN where PyTorch f32's and
            autocast's have none
  accuracy  the AMP result's rel. L2 against PyTorch f32 exceeds twice
            autocast's (in the same 16-bit type; for a forward, or the
            error that rounding the weights and inputs alone causes, if
            larger: rounding_sensitivity) plus a floor (4e-3 bf16, 5e-4
            f16): amp-opt must be about as accurate as autocast on any
            model, not just on the benchmarked ones

A model torch.export or torch-mlir cannot export is counted ("export
refused", with the reason), not a failure. The summary also counts the
seeds whose amp-opt casts move more bytes than autocast's. A failure is
saved under OUT/failures/<kind>-s<seed>/ with the model description, the
MLIR files and the logs. The driver uses the standard library; each seed
runs in the torch venv (scripts/setup-torch.sh). See docs/fuzzing.md.
"""

import argparse
import json
import math
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile

from fuzzrun import Campaign, add_run_arguments

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
FLOOR = {"bf16": 4e-3, "f16": 5e-4}


def make_config(seed):
    """What a seed runs. The model comes from torch_models.draw(seed) (in
    the child, which has torch); mode and pipeline from their own rng, so
    that a change of the model drawing keeps them."""
    rng = random.Random(seed * 7919 + 1)
    cfg = {"seed": seed, "mode": rng.choice(["bf16", "f16"]),
           "pipeline": rng.choice(["reference", "fast"])}
    # A third of the seeds export the training step (forward + backward,
    # batch norm on batch statistics) instead of the forward.
    cfg["train"] = rng.random() < 0.35
    return cfg


def default_torch_python():
    venv = os.environ.get("AMP_TORCH_VENV",
                          os.path.expanduser("~/.venvs/amp-torch"))
    return os.path.join(venv, "bin", "python")


def default_amp_opt():
    if os.environ.get("AMP_OPT"):
        return os.environ["AMP_OPT"]
    return os.path.join(ROOT, "build", "bin", "amp-opt")


# ------------------------------------------------------------------- child

def run_one(args):
    """In the torch venv: draw, export, amp-opt, check; writes
    DIR/result.json. Any exception is the parent's to classify."""
    import traceback
    sys.path.insert(0, HERE)
    sys.path.insert(0, os.path.join(ROOT, "scripts"))
    import importlib.util
    import torch_models
    spec_ = importlib.util.spec_from_file_location(
        "torch_to_amp_main", os.path.join(ROOT, "scripts", "torch-to-amp.py"))
    t2a = importlib.util.module_from_spec(spec_)
    spec_.loader.exec_module(t2a)

    # scripts/lower-to-llvm.sh lowers with $AMP_OPT, and the fast
    # pipeline links the libamp_rt beside it (../lib).
    os.environ["AMP_OPT"] = os.path.abspath(args.amp_opt)
    cfg = make_config(args.seed)
    spec = torch_models.draw(args.seed)
    result = {"config": cfg, "model": spec, "stage": "build"}
    path = os.path.join(args.dir, "result.json")

    def write(**kw):
        result.update(kw)
        with open(path, "w") as f:
            json.dump(result, f, indent=1)

    write()
    model, inputs = torch_models.build(spec)
    out = os.path.join(args.dir, "model.mlir")
    sys.argv = ["torch-to-amp.py", "mlp", "--amp", "--check", "-o", out,
                "--amp-opt", args.amp_opt,
                "--amp-options=mode=%s" % cfg["mode"],
                "--check-pipeline", cfg["pipeline"],
                "--batch", str(spec["input"][0])]
    if cfg["train"]:
        # The cross-entropy of one output is 0 whatever the weights: a
        # regression head trains on the squared error.
        sys.argv += ["--train", "--loss",
                     "mse" if torch_models.outputs(spec) == 1
                     else "cross-entropy"]
    targs = t2a.parse_args()
    if cfg["train"]:
        model.train()
    targs.model = "fuzz-s%d" % args.seed
    files = t2a.Outputs(targs)
    write(stage="export")
    try:
        described, call_args = t2a.export_model(targs, files, model, inputs)
    except Exception as e:  # torch.export / torch-mlir refusing the model
        write(stage="export-refused",
              reason=(type(e).__name__ + ": " + str(e)).splitlines()[0][:300],
              trace=traceback.format_exc()[-2000:])
        return 0
    write(stage="amp-opt")
    t2a.run_amp_opt(targs, files)  # exits non-zero when amp-opt fails
    write(stage="check")
    if args.inject_difference:
        inject_difference(args.inject_difference)
    if cfg["train"]:
        t2a.check_training_step(targs, model, inputs, call_args, described,
                                files.out, files.base + ".amp.mlir",
                                files.base)
    else:
        t2a.check(targs, model, inputs, call_args, files.out,
                  files.base + ".amp.mlir", files.base)
    with open(files.base + ".check.json") as f:
        check = json.load(f)
    if cfg["train"]:
        check["loss_sensitivity"] = loss_rounding_sensitivity(
            targs, model, inputs, call_args, described, cfg["mode"])
    else:
        check["sensitivity"] = rounding_sensitivity(model, inputs,
                                                    cfg["mode"])
        if math.prod(check["output_shape"]) <= SMALL_RESULT:
            check["draws"] = resampled_errors(
                targs, model, spec, call_args, len(inputs),
                files.base + ".amp.mlir")
    write(stage="done", check=check)
    return 0


# A forward whose result has this few numbers is compared on more inputs:
# one number's error is one draw of how the roundings fall, and on an
# ill-conditioned model (a scalar head over cancelling terms) autocast's and
# amp-opt's errors on one input both range over two orders of magnitude
# (seed 2015: 0.003-0.45 and 0.014-1.2 over 20 inputs, medians 0.09 and
# 0.07), so a single draw fails an equally accurate program.
SMALL_RESULT = 8
EXTRA_DRAWS = 8


def resampled_errors(targs, model, spec, call_args, num_inputs, amp_path):
    """The AMP program's and autocast's rel. L2 against PyTorch f32 on
    EXTRA_DRAWS more inputs drawn like the seed's (same shape, scale or
    vocabulary), the weights unchanged: {"amp": [...], "autocast": [...]}."""
    import torch
    from torch_to_amp import checks
    gen = torch.Generator().manual_seed(spec["seed"] + 1)

    def draw(x):
        if "vocab" in spec:
            return torch.randint(0, spec["vocab"], x.shape, generator=gen)
        return torch.randn(x.shape, generator=gen) * spec["input_scale"]

    def rel_l2(out, ref):
        return float((out.double() - ref.double()).norm()
                     / (ref.double().norm() or 1.0))

    draws = [[draw(x) for x in call_args[:num_inputs]]
             for _ in range(EXTRA_DRAWS)]
    with torch.no_grad():
        refs = [model(*d) for d in draws]
        # Autocast in the type amp-opt chose, as the check does.
        with torch.autocast("cpu", dtype=torch.bfloat16
                            if checks.low_type_of(amp_path) == "bf16"
                            else torch.float16):
            autos = [model(*d).float() for d in draws]
    with checks.check_work_dir(targs) as work:
        runs = checks.compile_and_run(
            targs, work, (("amp", amp_path),),
            lambda lib: [checks.call_shared_library(
                lib, targs.func_name, d + list(call_args[num_inputs:]), r)
                for d, r in zip(draws, refs)])
    return {"amp": [rel_l2(o, r) for o, r in zip(runs["amp"], refs)],
            "autocast": [rel_l2(a, r) for a, r in zip(autos, refs)]}


# Unit roundoff of the 16-bit types (half the spacing of numbers at 1).
UNIT_ROUNDOFF = {"bf16": 2.0 ** -8, "f16": 2.0 ** -11}


def rounding_sensitivity(model, inputs, mode, draws=4):
    """The rel. L2 (RMS over a few draws) of PyTorch's f32 result when
    every parameter and float input is multiplied by 1 + d, d uniform in
    +-u (u: the 16-bit type's unit roundoff): the error that rounding the
    weights and inputs once costs, which any mixed-precision program pays.
    Where the result cancels (a linear layer's w * h + b much smaller than
    its terms), this is large, and which of two equally accurate programs
    is closer to f32 is down to how their fixed roundings happen to fall."""
    import copy
    import torch
    u = UNIT_ROUNDOFF[mode]
    gen = torch.Generator().manual_seed(0)

    def jitter(t):
        noise = torch.rand(t.shape, generator=gen, dtype=t.dtype)
        return t * (1 + (2 * noise - 1) * u)

    with torch.no_grad():
        ref = model(*inputs).float()
        total = 0.0
        for _ in range(draws):
            jittered = copy.deepcopy(model)
            for param in jittered.parameters():
                param.copy_(jitter(param))
            args = [jitter(a) if a.is_floating_point() else a
                    for a in inputs]
            out = jittered(*args).float()
            total += float(((out - ref).norm() / ref.norm()) ** 2)
    return (total / draws) ** 0.5


def loss_rounding_sensitivity(targs, model, inputs, call_args, described,
                              mode, draws=4):
    """rounding_sensitivity() of a training step's loss: the RMS over a
    few draws of the absolute change of PyTorch's f32 loss when every
    parameter and float input (not the target) is multiplied by 1 + d, d
    uniform in +-u. A loss that cancels (a small cross-entropy of large
    logits) moves by about this much in any mixed-precision program, and
    which of two is closer to f32 is then down to how their roundings fall
    (torch-fuzz seed 1729, where autocast's extra rounding of the logits
    and bias happened to cancel its error)."""
    import torch
    from torch_to_amp import checks
    from torch_to_amp.export import uses_mse
    u = UNIT_ROUNDOFF[mode]
    gen = torch.Generator().manual_seed(0)
    mse = uses_mse(targs)
    refs, num_buffers = checks.reference_training_step(
        model, mse, call_args, described, len(inputs))
    ref = float(refs[num_buffers])
    total = 0.0
    for _ in range(draws):
        jittered = []
        for a, d in zip(call_args, described):
            if d["role"] not in ("param", "input") or \
                    not a.is_floating_point():
                jittered.append(a)
                continue
            noise = torch.rand(a.shape, generator=gen, dtype=a.dtype)
            jittered.append(a * (1 + (2 * noise - 1) * u))
        outs, _ = checks.reference_training_step(
            model, mse, jittered, described, len(inputs))
        total += (float(outs[num_buffers]) - ref) ** 2
    return (total / draws) ** 0.5


def inject_difference(which):
    """Negative control: adds 1% of noise to the f32 export's or the AMP
    program's results (the check runs f32 first, then AMP, then the AMP
    program on the extra inputs of resampled_errors), which its check must
    report."""
    import torch
    import torch_to_amp.checks as checks
    calls = []
    g = torch.Generator().manual_seed(0)

    def noisy(out):
        return out + 0.01 * out.abs().mean() * torch.randn(
            out.shape, generator=g, dtype=out.dtype)

    def perturbed(call):
        def run(*args):
            out = call(*args)
            calls.append(out)
            if ("f32" if len(calls) == 1 else "amp") != which:
                return out
            # A forward's result, or every result of a training step.
            return [noisy(o) for o in out] if isinstance(out, (list, tuple)) \
                else noisy(out)
        return run

    checks.call_shared_library = perturbed(checks.call_shared_library)
    checks.call_training_step = perturbed(checks.call_training_step)


# ------------------------------------------------------------------ parent

def overflow_verdict(amp, auto, what):
    """(kind or None, message) when either 16-bit run is not finite: a
    failure only where autocast's is; None when both are finite."""
    if not amp["finite"]:
        if auto["finite"]:
            return ("finite", "the AMP %s has Inf / NaN; autocast's has none"
                    % what)
        return (None, "both 16-bit %ss overflow" % what)
    if not auto["finite"]:
        return (None, "autocast overflows, amp-opt does not")
    return None


def evaluate_training_step(cfg, c):
    """evaluate() of a training step: the loss, the gradients (their
    median rel. L2 for accuracy: a near-zero gradient's relative error says
    little) and the updated batch-norm statistics."""
    f32 = c["mlir_f32_vs_pytorch"]
    amp, auto = c["amp_vs_pytorch"], c["autocast_vs_pytorch"]
    scale = max(1.0, abs(f32["loss_ref"]))
    margins = {"f32": max(f32["grad_rel_l2_max"] / 1e-3,
                          f32["buffer_rel_l2_max"] / 1e-4,
                          f32["loss_abs_err"] / (1e-5 * scale))}
    if not f32["finite"] or margins["f32"] > 1:
        return ("f32", "the f32 step against autograd: loss error %.3g, "
                "gradients' rel. L2 up to %.3g, statistics' %.3g" % (
                    f32["loss_abs_err"], f32["grad_rel_l2_max"],
                    f32["buffer_rel_l2_max"]), margins)
    verdict = overflow_verdict(amp, auto, "step")
    if verdict:
        return verdict + (margins,)
    floor = FLOOR[cfg["mode"]]
    # Against autocast, or against what rounding the weights and inputs
    # alone moves the loss by (loss_rounding_sensitivity).
    loss_bound = 2 * max(auto["loss_abs_err"],
                         c.get("loss_sensitivity", 0.0)) + floor * scale
    grad_bound = 2 * auto["grad_rel_l2_median"] + 2 * floor
    margins["accuracy"] = max(amp["loss_abs_err"] / loss_bound,
                              amp["grad_rel_l2_median"] / grad_bound)
    if margins["accuracy"] > 1:
        return ("accuracy", "loss error %.3g (autocast %.3g, rounding "
                "sensitivity %.3g), gradients' median rel. L2 %.3g "
                "(autocast %.3g)" % (
                    amp["loss_abs_err"], auto["loss_abs_err"],
                    c.get("loss_sensitivity", 0.0),
                    amp["grad_rel_l2_median"], auto["grad_rel_l2_median"]),
                margins)
    return (None, "ok", margins)


def evaluate(cfg, result):
    """(kind or None, message, margins) of a child's result."""
    c = result["check"]
    if c.get("train"):
        return evaluate_training_step(cfg, c)
    f32 = c["mlir_f32_vs_pytorch"]
    amp, auto = c["amp_vs_pytorch"], c["autocast_vs_pytorch"]
    margins = {"f32": f32["rel_l2_err"] / 1e-4}
    if not f32["finite"] or f32["rel_l2_err"] > 1e-4:
        return ("f32", "the f32 export against PyTorch: rel. L2 %.3g"
                % f32["rel_l2_err"], margins)
    verdict = overflow_verdict(amp, auto, "result")
    if verdict:
        return verdict + (margins,)
    # Against autocast, or against what rounding the weights and inputs
    # alone costs where the result is ill-conditioned (rounding_sensitivity).
    # A result of a few numbers: the medians over the seed's input and the
    # extra draws (resampled_errors).
    amp_err, auto_err, over = amp["rel_l2_err"], auto["rel_l2_err"], ""
    if "draws" in c:
        amp_err = statistics.median([amp_err] + c["draws"]["amp"])
        auto_err = statistics.median([auto_err] + c["draws"]["autocast"])
        over = ", medians of %d inputs" % (1 + len(c["draws"]["amp"]))
    sensitivity = c.get("sensitivity", 0.0)
    bound = 2 * max(auto_err, sensitivity) + FLOOR[cfg["mode"]]
    margins["accuracy"] = amp_err / bound
    if amp_err > bound:
        return ("accuracy", "rel. L2 %.3g against autocast's %.3g and the "
                "rounding sensitivity %.3g (bound %.3g%s)" % (
                    amp_err, auto_err, sensitivity, bound, over), margins)
    return (None, "ok", margins)


def check_seed(cfg, tmp, args):
    """Runs one seed's child; returns (kind or None, message, result)."""
    cmd = [args.torch_python, os.path.abspath(__file__), "one",
           "--seed", str(cfg["seed"]), "--dir", tmp,
           "--amp-opt", args.amp_opt]
    if args.inject_difference:
        cmd += ["--inject-difference", args.inject_difference]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True,
                           timeout=args.timeout)
        log, code = p.stdout + p.stderr, p.returncode
    except subprocess.TimeoutExpired as e:
        log, code = ((e.stdout or b"").decode(errors="replace")
                     if isinstance(e.stdout, bytes) else (e.stdout or "")), None
    with open(os.path.join(tmp, "log.txt"), "w") as f:
        f.write(log)
    try:
        with open(os.path.join(tmp, "result.json")) as f:
            result = json.load(f)
    except (OSError, ValueError):
        result = {"stage": "start"}
    stage = result.get("stage")
    if code is None:
        return "crash", "timed out at stage %s" % stage, result, {}
    if stage == "export-refused":
        # torch-mlir's exception says only that its pipeline failed; the
        # diagnostic is in the log.
        errors = [l.split("error: ", 1)[1] for l in log.splitlines()
                  if "error: " in l]
        if errors and result.get("reason", "").startswith("TorchMlir"):
            result["reason"] = "torch-mlir: " + errors[0]
        return None, "export refused", result, {}
    if code != 0 or stage != "done":
        tail = [l for l in log.strip().splitlines() if l.strip()][-1:] or ["?"]
        return ("crash", "stage %s, exit %s: %s" % (stage, code, tail[0][:200]),
                result, {})
    kind, msg, margins = evaluate(cfg, result)
    return kind, msg, result, margins


def save_failure(outdir, cfg, kind, msg, tmp):
    d = os.path.join(outdir, "failures", "%s-s%d" % (kind, cfg["seed"]))
    if os.path.exists(d):
        shutil.rmtree(d)
    shutil.copytree(tmp, d)
    with open(os.path.join(d, "repro.sh"), "w") as f:
        f.write("# %s: %s\n%s %s check --seed %d\n" % (
            kind, msg, sys.executable, os.path.abspath(__file__),
            cfg["seed"]))
    return d


def error_ratio(result):
    """amp-opt's error over autocast's on a passing seed: the forward's
    rel. L2, a training step's median gradient rel. L2 (None where
    autocast's is 0 or the seed has no check)."""
    c = result.get("check")
    if not c:
        return None
    key = "grad_rel_l2_median" if c.get("train") else "rel_l2_err"
    amp, auto = c["amp_vs_pytorch"][key], c["autocast_vs_pytorch"][key]
    return amp / auto if auto > 0 else None


def cmd_run(args):
    refusals, ratios = {}, {"bf16": [], "f16": []}
    more_bytes = [0, 0, 0]  # seeds compared, amp > autocast, w/o epilogues
    os.makedirs(args.out, exist_ok=True)

    def check(seed, tmp):
        cfg = make_config(seed)
        kind, msg, result, margins = check_seed(cfg, tmp, args)
        if msg == "export refused":
            reason = result.get("reason", "?")[:120]
            refusals[reason] = refusals.get(reason, 0) + 1
        c = result.get("check", {})
        if "amp_casts" in c:
            a, t = c["amp_casts"], c["autocast_casts"]
            more_bytes[0] += 1
            more_bytes[1] += a["bytes"] > t["bytes"]
            more_bytes[2] += a["bytes"] - a["epilogue_bytes"] > t["bytes"]
        ratio = error_ratio(result) if not kind else None
        if ratio is not None:
            ratios[cfg["mode"]].append(ratio)
        if kind:
            where = save_failure(args.out, cfg, kind, msg, tmp)
            print("FAIL seed %d %s: %s (%s)" % (seed, kind, msg, where),
                  flush=True)
        elif args.verbose:
            print("seed %d %s%s %s %s: %s" % (
                seed, result.get("model", {}).get("family"),
                " step" if cfg["train"] else "", cfg["mode"],
                cfg["pipeline"], msg), flush=True)
        return kind, msg, margins

    campaign = Campaign("torch-fuzz", args).run(check)
    campaign.summary()
    print("casts moving more bytes than autocast's: %d of %d seeds "
          "(%d without the roundings of contraction results)" %
          (more_bytes[1], more_bytes[0], more_bytes[2]))
    # How amp-opt's error compares with autocast's over the passing seeds.
    for mode, rs in sorted(ratios.items()):
        if rs:
            rs.sort()
            print("%s error / autocast's: median %.2f, 90th percentile %.2f, "
                  "worst %.2f; at most autocast's on %d of %d seeds" % (
                      mode, rs[len(rs) // 2], rs[-(-9 * len(rs) // 10) - 1],
                      rs[-1], sum(r <= 1 for r in rs), len(rs)))
    for reason, n in sorted(refusals.items(), key=lambda kv: -kv[1]):
        print("  export refused %d: %s" % (n, reason))
    return campaign.exit_code()


def cmd_config(args):
    cfg = make_config(args.seed)
    p = subprocess.run([args.torch_python, "-c",
                        "import json,sys; sys.path[:0] = [%r, %r]; "
                        "import torch_models; print(json.dumps("
                        "torch_models.draw(%d), indent=1))"
                        % (HERE, os.path.join(ROOT, "scripts"), args.seed)],
                       capture_output=True, text=True)
    print(json.dumps(cfg, indent=1))
    sys.stdout.write(p.stdout or p.stderr)
    return p.returncode


def cmd_check(args):
    cfg = make_config(args.seed)
    tmp = tempfile.mkdtemp(prefix="torch-fuzz-")
    kind, msg, _, margins = check_seed(cfg, tmp, args)
    print("%s: %s (files in %s)" % (kind or "pass", msg, tmp))
    print("difference / tolerance: " + ", ".join(
        "%s %.2f" % kv for kv in sorted(margins.items())))
    return 1 if kind else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    run = sub.add_parser("run")
    add_run_arguments(run, "torch-fuzz-out")
    one = sub.add_parser("one", help="(internal) one seed, in the torch venv")
    one.add_argument("--dir", required=True)
    for p in (run, one, sub.add_parser("check"), sub.add_parser("config")):
        p.add_argument("-v", "--verbose", action="store_true")
        p.add_argument("--timeout", type=float, default=300)
        p.add_argument("--amp-opt", default=default_amp_opt(),
                       help="the amp-opt under test (default: $AMP_OPT, "
                       "else build/bin/amp-opt)")
        p.add_argument("--torch-python", default=default_torch_python(),
                       help="the torch venv's python (default: "
                       "$AMP_TORCH_VENV/bin/python or ~/.venvs/amp-torch)")
        p.add_argument("--inject-difference", choices=["", "f32", "amp"],
                       default="", help="negative control: 1%% noise on "
                       "this program's result, which its check must report")
        if p is not run:
            p.add_argument("--seed", type=int, required=True)
    args = ap.parse_args()
    if args.cmd != "one" and not os.path.exists(args.torch_python):
        sys.exit("torch-fuzz: no torch venv at %s (scripts/setup-torch.sh)"
                 % args.torch_python)
    return {"run": cmd_run, "one": run_one, "check": cmd_check,
            "config": cmd_config}[args.cmd](args)


if __name__ == "__main__":
    sys.exit(main())
