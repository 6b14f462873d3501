#!/usr/bin/env python3
"""Compares the per-step losses of two amp-run logs of the same training run.

    compare_losses.py REF_LOG LOG [--rtol R] [--rtol-per-step G] [--atol A]
                      [--min-steps N] [--max-accuracy-diff D]

Reads the `step N loss X` lines of both logs. Fails unless both have the
same steps (at least N of them) and, at every step,

    |loss - ref| <= atol + (rtol + G * (step - 1)) * |ref|

(G defaults to 0). G lets a tolerance grow along the run: when a step
stores activations in f16, a different f32 summation order flips the
rounding of a few elements now and then, and training carries those
one-ulp differences forward, so they grow with the number of steps.

and, when both logs have a `test accuracy` line, the accuracies differ by
at most D. Prints the largest absolute and relative differences (and the
step where each occurs) so the test documents the measured agreement.
"""
import argparse
import math
import re
import sys


def read_log(path):
    losses, accuracy = {}, None
    with open(path) as f:
        for line in f:
            m = re.match(r"step (\d+) loss (\S+)", line)
            if m:
                losses[int(m.group(1))] = float(m.group(2))
            m = re.match(r"test accuracy (\S+)$", line.strip())
            if m:
                accuracy = float(m.group(1))
    return losses, accuracy


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("ref")
    ap.add_argument("log")
    ap.add_argument("--rtol", type=float, default=1e-3)
    ap.add_argument("--rtol-per-step", type=float, default=0.0)
    ap.add_argument("--atol", type=float, default=1e-5)
    ap.add_argument("--min-steps", type=int, default=2)
    ap.add_argument("--max-accuracy-diff", type=float, default=0.0)
    args = ap.parse_args()
    ref, ref_acc = read_log(args.ref)
    out, out_acc = read_log(args.log)
    if sorted(ref) != sorted(out):
        print(f"FAIL: different steps: {len(ref)} in {args.ref}, "
              f"{len(out)} in {args.log}")
        return 1
    if len(ref) < args.min_steps:
        print(f"FAIL: {len(ref)} step lines, need at least {args.min_steps}")
        return 1
    worst_abs, worst_abs_step = 0.0, None
    worst_rel, worst_rel_step = 0.0, None
    bad = []
    for step in sorted(ref):
        a, b = ref[step], out[step]
        if not (math.isfinite(a) and math.isfinite(b)):
            bad.append((step, a, b))
            continue
        diff = abs(b - a)
        rel = diff / abs(a) if a != 0 else (0.0 if diff == 0 else math.inf)
        if diff > worst_abs or worst_abs_step is None:
            worst_abs, worst_abs_step = diff, step
        if rel > worst_rel or worst_rel_step is None:
            worst_rel, worst_rel_step = rel, step
        rtol = args.rtol + args.rtol_per_step * (step - 1)
        if diff > args.atol + rtol * abs(a):
            bad.append((step, a, b))
    msg = (f"{len(ref)} steps; max abs diff {worst_abs:.3g} (step "
           f"{worst_abs_step}), max rel diff {worst_rel:.3g} (step "
           f"{worst_rel_step}); rtol {args.rtol:g}, atol {args.atol:g}")
    if args.rtol_per_step:
        msg += f", rtol per step {args.rtol_per_step:g}"
    ok = not bad
    if ref_acc is not None and out_acc is not None:
        acc_diff = abs(out_acc - ref_acc)
        msg += (f"; accuracy {ref_acc:.4f} vs {out_acc:.4f} "
                f"(max diff {args.max_accuracy_diff:g})")
        ok = ok and acc_diff <= args.max_accuracy_diff + 1e-12
    if bad:
        step, a, b = bad[0]
        msg += f"; {len(bad)} steps out of tolerance, first: step {step} " \
               f"{a} vs {b}"
    print(("OK: " if ok else "FAIL: ") + msg)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
