#!/usr/bin/env python3
"""Checks the f16 underflow experiment: three amp-run logs of one training
step whose gradients are tiny (amp-gen-model --loss-weight, --emit-grads,
printed at the same steps): f32, AMP-f16 without loss scaling and AMP-f16
with dynamic loss scaling.

    check_underflow.py F32_LOG NOSCALE_LOG SCALED_LOG [--min-flushed F]
        [--max-flushed-scaled F] [--stall-ratio R] [--max-loss-gap G]

At step 1 all three runs have the same weights and batch, so the share of
gradient elements that are zero in a run but not in f32 is the share that
f16 flushed to zero. Fails unless:
  * without scaling that share is >= F (--min-flushed) and the loss stalls
    (last loss >= R * first loss);
  * with dynamic scaling it is <= --max-flushed-scaled and the loss follows
    f32's at every printed step within G (absolute);
  * f32 learns (last loss < half the first).
Prints the shares and the loss curves' largest gap.
"""
import argparse
import re
import sys


def read(path):
    steps, mean = {}, None
    for line in open(path):
        m = re.match(r"^step (\d+) loss (\S+) .*zero-grads (\S+) ", line)
        if m:
            steps[int(m.group(1))] = (float(m.group(2)), float(m.group(3)))
        m = re.match(r"^zero gradient share (\S+)", line)
        if m:
            mean = float(m.group(1))
    if 1 not in steps or mean is None:
        sys.exit("FAIL: %s has no step 1 line with zero-grads or no zero "
                 "gradient share line" % path)
    return steps, mean


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("f32")
    ap.add_argument("noscale")
    ap.add_argument("scaled")
    ap.add_argument("--min-flushed", type=float, default=0.5)
    ap.add_argument("--max-flushed-scaled", type=float, default=0.01)
    ap.add_argument("--stall-ratio", type=float, default=0.9)
    ap.add_argument("--max-loss-gap", type=float, default=0.02)
    a = ap.parse_args()
    ref, ref_mean = read(a.f32)
    raw, raw_mean = read(a.noscale)
    dyn, dyn_mean = read(a.scaled)
    if sorted(ref) != sorted(raw) or sorted(ref) != sorted(dyn):
        print("FAIL: the logs print different steps")
        return 1
    last = max(ref)
    flushed_raw = raw[1][1] - ref[1][1]
    flushed_dyn = dyn[1][1] - ref[1][1]
    gap = max(abs(dyn[s][0] - ref[s][0]) for s in ref)
    print("step 1 zero gradients: f32 %.4f, f16 no scaling %.4f, f16 dynamic "
          "%.4f" % (ref[1][1], raw[1][1], dyn[1][1]))
    print("flushed to zero by f16: no scaling %.4f, dynamic %.4f"
          % (flushed_raw, flushed_dyn))
    print("mean zero share over the run: f32 %.4f, no scaling %.4f, dynamic "
          "%.4f" % (ref_mean, raw_mean, dyn_mean))
    print("loss step 1 -> %d: f32 %.5f -> %.5f, no scaling %.5f -> %.5f, "
          "dynamic %.5f -> %.5f; largest |dynamic - f32| %.5f"
          % (last, ref[1][0], ref[last][0], raw[1][0], raw[last][0],
             dyn[1][0], dyn[last][0], gap))
    fails = []
    if not ref[last][0] < 0.5 * ref[1][0]:
        fails.append("f32 does not learn")
    if not flushed_raw >= a.min_flushed:
        fails.append("f16 without scaling flushed %.4f < %.4f"
                     % (flushed_raw, a.min_flushed))
    if not raw[last][0] >= a.stall_ratio * raw[1][0]:
        fails.append("f16 without scaling did not stall")
    if not flushed_dyn <= a.max_flushed_scaled:
        fails.append("f16 with dynamic scaling flushed %.4f > %.4f"
                     % (flushed_dyn, a.max_flushed_scaled))
    if not gap <= a.max_loss_gap:
        fails.append("dynamic scaling is %.5f away from the f32 loss (max "
                     "%.5f)" % (gap, a.max_loss_gap))
    print("FAIL: " + "; ".join(fails) if fails else "OK")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
