#!/usr/bin/env python3
"""An independent reference of the dynamic loss-scale rule, checked against
an amp-run log (every step printed, with `scale`, `skipped` and
`nonfinite-grads`).

    grad_scaler_reference.py LOG --init-scale S [--growth-factor G]
        [--backoff-factor B] [--growth-interval N] [--min-scale m]
        [--max-scale M] [--expect EVENT ...]

The rule is written here from docs/loss-scaling.md (PyTorch GradScaler's
`_amp_update_scale_` plus min/max clamps), in f32 like the IR:

    overflow: S' = max(S * B, m), counter' = 0
    else:     n = counter + 1
              n >= N: S2 = S * G; S' = min(S2, M) if S2 finite else S;
                      counter' = 0
              else:   S' = S, counter' = n

Overflow is decided here, not read from the step: a step overflowed iff
one of the gradients it returned (amp.role "grad", unscaled) has a
non-finite element. Fails unless, at every step, `skipped` agrees with that
and the scale the step ran with equals the reference's, and the final scale
too. --expect growth|backoff|min-clamp|max-clamp|inf-growth requires the
trace to exercise that case.
"""
import argparse
import math
import re
import struct
import sys


def f32(x):
    """Rounds a Python float to the nearest f32 (inf on overflow)."""
    if math.isinf(x) or math.isnan(x):
        return x
    try:
        return struct.unpack("f", struct.pack("f", x))[0]
    except OverflowError:
        return math.copysign(math.inf, x)


STEP = re.compile(r"^step (\d+) loss \S+ scale (\S+) skipped (yes|no) "
                  r"zero-grads \S+ nonfinite-grads (\d+)")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("log")
    ap.add_argument("--init-scale", type=float, required=True)
    ap.add_argument("--growth-factor", type=float, default=2.0)
    ap.add_argument("--backoff-factor", type=float, default=0.5)
    ap.add_argument("--growth-interval", type=int, default=2000)
    ap.add_argument("--min-scale", type=float, default=1.0)
    ap.add_argument("--max-scale", type=float, default=16777216.0)
    ap.add_argument("--expect", action="append", default=[],
                    choices=["growth", "backoff", "min-clamp", "max-clamp",
                             "inf-growth"])
    a = ap.parse_args()
    G, B = f32(a.growth_factor), f32(a.backoff_factor)
    lo, hi = f32(a.min_scale), f32(a.max_scale)

    rows, final = [], None
    for line in open(a.log):
        m = STEP.match(line)
        if m:
            rows.append((int(m.group(1)), float(m.group(2)),
                         m.group(3) == "yes", int(m.group(4))))
        m = re.match(r"^final scale (\S+)$", line.strip())
        if m:
            final = float(m.group(1))
    if not rows or final is None:
        print("FAIL: no step lines with scale/skipped/nonfinite-grads, or no "
              "final scale (run amp-run with --print-every=1 on a step that "
              "returns its gradients)")
        return 1
    if [r[0] for r in rows] != list(range(1, len(rows) + 1)):
        print("FAIL: the log must print every step (--print-every=1)")
        return 1

    scale, counter = f32(a.init_scale), 0
    seen = set()
    errors = []
    for step, got, skipped, nonfinite in rows:
        if not math.isclose(got, scale, rel_tol=1e-6):
            errors.append("step %d ran with scale %.9g, reference %.9g"
                          % (step, got, scale))
        overflow = nonfinite > 0
        if skipped != overflow:
            errors.append("step %d: skipped %s but %d non-finite gradient "
                          "elements" % (step, "yes" if skipped else "no",
                                        nonfinite))
        if overflow:
            seen.add("backoff")
            backed = f32(scale * B)
            if backed < lo:
                seen.add("min-clamp")
            scale, counter = max(backed, lo), 0
        else:
            n = counter + 1
            if n >= a.growth_interval:
                grown = f32(scale * G)
                if math.isinf(grown):
                    seen.add("inf-growth")
                else:
                    seen.add("growth")
                    if grown > hi:
                        seen.add("max-clamp")
                    scale = min(grown, hi)
                counter = 0
            else:
                counter = n
    if not math.isclose(final, scale, rel_tol=1e-6):
        errors.append("final scale %.9g, reference %.9g" % (final, scale))
    for e in a.expect:
        if e not in seen:
            errors.append("the trace never exercised %s" % e)
    skipped = sum(r[2] for r in rows)
    if errors:
        print("FAIL: " + "; ".join(errors[:5]) +
              (" (and %d more)" % (len(errors) - 5) if len(errors) > 5
               else ""))
        return 1
    print("OK: %d steps, %d skipped, scales agree; exercised %s"
          % (len(rows), skipped, ", ".join(sorted(seen))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
