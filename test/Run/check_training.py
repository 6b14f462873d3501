#!/usr/bin/env python3
"""Checks an amp-run log: the loss decreased and the test accuracy is high.

    check_training.py LOG [--max-loss-ratio R] [--min-accuracy A]
                      [--reference REF_LOG --max-accuracy-drop D]
                      [--reference REF_LOG --max-accuracy-gap D]

Fails unless last loss < R * first loss (the `step N loss X` lines),
`test accuracy A'` has A' > A, and A' >= (accuracy of REF_LOG) - D
(--max-accuracy-drop) or |A' - accuracy of REF_LOG| <= D
(--max-accuracy-gap).
Prints what it read.
"""
import argparse
import re
import sys


def read_log(path):
    losses, accuracy = [], None
    for line in open(path):
        m = re.match(r"step (\d+) loss (\S+)", line)
        if m:
            losses.append((int(m.group(1)), float(m.group(2))))
        m = re.match(r"test accuracy (\S+)$", line.strip())
        if m:
            accuracy = float(m.group(1))
    return losses, accuracy


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("log")
    ap.add_argument("--max-loss-ratio", type=float, default=0.5)
    ap.add_argument("--min-accuracy", type=float, default=None)
    ap.add_argument("--reference", default=None)
    ap.add_argument("--max-accuracy-drop", type=float, default=0.0)
    ap.add_argument("--max-accuracy-gap", type=float, default=None)
    args = ap.parse_args()
    losses, accuracy = read_log(args.log)
    if len(losses) < 2:
        print(f"FAIL: {len(losses)} step lines, need the first and the last")
        return 1
    (s0, first), (s1, last) = losses[0], losses[-1]
    ok = last < args.max_loss_ratio * first
    msg = (f"loss step {s0} {first:.5f} -> step {s1} {last:.5f} "
           f"(ratio {last / first:.3f}, max {args.max_loss_ratio})")
    if args.min_accuracy is not None:
        if accuracy is None:
            print(f"FAIL: no test accuracy line; {msg}")
            return 1
        ok = ok and accuracy > args.min_accuracy
        msg += f"; accuracy {accuracy:.4f} (min {args.min_accuracy})"
    if args.reference:
        _, ref = read_log(args.reference)
        if ref is None or accuracy is None:
            print(f"FAIL: no test accuracy to compare; {msg}")
            return 1
        if args.max_accuracy_gap is not None:
            ok = ok and abs(accuracy - ref) <= args.max_accuracy_gap + 1e-9
            msg += (f"; reference accuracy {ref:.4f} "
                    f"(max gap {args.max_accuracy_gap})")
        else:
            ok = ok and accuracy >= ref - args.max_accuracy_drop
            msg += (f"; reference accuracy {ref:.4f} "
                    f"(max drop {args.max_accuracy_drop})")
    print(("OK: " if ok else "FAIL: ") + msg)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
