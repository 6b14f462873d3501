#!/usr/bin/env python3
"""Compare two mlir-runner outputs made of printMemrefF32 blocks.

    compare_outputs.py REF.txt OUT.txt [--rtol R] [--atol A] [--atol-scale S]
                       [--max-mismatch-fraction F] [--require-different]

REF is the f32 program's output, OUT the AMP program's. Both must hold the
same number of `Unranked Memref ... data = [...]` blocks with the same sizes.
Element k of block b passes when

    |out - ref| <= atol + atol_scale * max|ref of block b| + rtol * |ref|

(NaN or inf anywhere fails). --max-mismatch-fraction lets up to that
fraction of a block's finite elements miss the tolerance (a ReLU whose input
is near 0 may switch off in low precision: the gradients of that unit then
differ by far more than rounding; default 0). --atol-scale makes the absolute tolerance
relative to the block's magnitude, which is what accumulated f16 rounding
error scales with. --require-different fails when the two outputs are
bit-for-bit equal, i.e. when the low-precision program did not actually run.

Prints per block and overall: the max abs error, the max rel error (over
elements with |ref| >= 1% of the block's max|ref|, where it means something)
and the max abs error normalized by max|ref|. Exits 1 on mismatch, 2 on
malformed input. Standard library only.
"""

import argparse
import math
import re
import sys

HEADER = re.compile(
    r"Unranked Memref base@ = \S+ rank = (\d+) offset = (\d+) "
    r"sizes = \[([^\]]*)\] strides = \[([^\]]*)\] data =")
NUMBER = re.compile(
    r"[-+]?(?:inf|nan|(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)", re.IGNORECASE)


def parse(path):
    """Return a list of (sizes, values) for each printMemref block."""
    with open(path) as f:
        text = f.read()
    headers = list(HEADER.finditer(text))
    blocks = []
    for i, h in enumerate(headers):
        end = headers[i + 1].start() if i + 1 < len(headers) else len(text)
        body = text[h.end():end]
        sizes = [int(s) for s in h.group(3).replace(",", " ").split()]
        values = [float(v) for v in NUMBER.findall(body)]
        count = 1
        for s in sizes:
            count *= s
        if len(values) != count:
            raise ValueError("%s: block %d has %d values, sizes %s need %d"
                             % (path, i, len(values), sizes, count))
        blocks.append((sizes, values))
    return blocks


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("ref")
    ap.add_argument("out")
    ap.add_argument("--rtol", type=float, default=1e-2)
    ap.add_argument("--atol", type=float, default=1e-3)
    ap.add_argument("--atol-scale", type=float, default=0.0)
    ap.add_argument("--max-mismatch-fraction", type=float, default=0.0)
    ap.add_argument("--require-different", action="store_true")
    ap.add_argument("--max-report", type=int, default=10)
    args = ap.parse_args()

    try:
        ref = parse(args.ref)
        out = parse(args.out)
    except (OSError, ValueError) as e:
        print("error: %s" % e, file=sys.stderr)
        return 2
    if not ref:
        print("error: %s holds no printMemref output" % args.ref,
              file=sys.stderr)
        return 2
    if len(ref) != len(out):
        print("error: %d blocks in %s, %d in %s"
              % (len(ref), args.ref, len(out), args.out), file=sys.stderr)
        return 1

    failures = 0
    all_abs = all_rel = all_norm = 0.0
    identical = True
    for b, ((rs, rv), (os_, ov)) in enumerate(zip(ref, out)):
        if rs != os_:
            print("block %d: sizes %s vs %s" % (b, rs, os_))
            failures += 1
            continue
        scale = max((abs(v) for v in rv if math.isfinite(v)), default=0.0)
        tol_abs = args.atol + args.atol_scale * scale
        max_abs = max_rel = 0.0
        bad = nonfinite = 0
        for k, (r, o) in enumerate(zip(rv, ov)):
            if r != o:
                identical = False
            if not (math.isfinite(r) and math.isfinite(o)):
                ok = False
                nonfinite += 1
                err = rel = math.inf
            else:
                err = abs(o - r)
                rel = err / abs(r) if r != 0 else (0.0 if err == 0 else math.inf)
                ok = err <= tol_abs + args.rtol * abs(r)
            max_abs = max(max_abs, err)
            # Relative error is only meaningful away from zero.
            if abs(r) >= 0.01 * scale:
                max_rel = max(max_rel, rel)
            if not ok:
                if bad < args.max_report:
                    print("block %d element %d: ref %g out %g |diff| %g > %g"
                          % (b, k, r, o, err, tol_abs + args.rtol * abs(r)))
                bad += 1
        norm = max_abs / scale if scale > 0 else (0.0 if max_abs == 0
                                                  else math.inf)
        all_abs = max(all_abs, max_abs)
        all_rel = max(all_rel, max_rel)
        all_norm = max(all_norm, norm)
        allowed = bad <= args.max_mismatch_fraction * len(rv) and not nonfinite
        print("block %d sizes %s: max|ref| %g max abs err %.3e max rel err "
              "%.3e normalized %.3e%s"
              % (b, rs, scale, max_abs, max_rel, norm,
                 ("  %d elements off, within --max-mismatch-fraction" % bad
                  if allowed else "  MISMATCH (%d elements)" % bad)
                 if bad else ""))
        failures += 0 if allowed else bad

    print("overall: %d blocks, max abs err %.3e, max rel err %.3e, "
          "normalized %.3e" % (len(ref), all_abs, all_rel, all_norm))
    if failures:
        print("FAIL: %d mismatches (rtol %g, atol %g, atol-scale %g)"
              % (failures, args.rtol, args.atol, args.atol_scale))
        return 1
    if args.require_different and identical:
        print("FAIL: outputs are identical (--require-different)")
        return 1
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
