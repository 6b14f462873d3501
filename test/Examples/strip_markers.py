#!/usr/bin/env python3
"""Replace the amp markers of a generated training step by their meaning
without loss scaling, textually (what amp-strip-markers does, without
needing the amp dialect):

  %s = amp.grad_seed %loss : T        ->  %s = arith.constant dense<1.0> : T
                                          (a scalar T: arith.constant 1.0)
  %g = amp.param_grad %dw : T         ->  (erased; %g becomes %dw)
  %n = amp.state_update %old, %new : T -> (erased; %n becomes %new)

    strip_markers.py IN [-o OUT] [--counts]

--counts prints `grad_seed N`, `param_grad N`, `state_update N` instead.
Standard library only.
"""

import argparse
import re
import sys

NAME = r"%[\w$.-]+(?:#\d+)?"
SEED = re.compile(r"^(\s*)(%s) = amp\.grad_seed (%s) : (\S.*?)\s*$"
                  % (NAME, NAME))
GRAD = re.compile(r"^\s*(%s) = amp\.param_grad (%s) : .*$" % (NAME, NAME))
UPDATE = re.compile(r"^\s*(%s) = amp\.state_update (%s), (%s) : .*$"
                    % (NAME, NAME, NAME))
TOKEN = re.compile(r"%[\w$.-]+")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("input")
    ap.add_argument("-o", "--output", default="-")
    ap.add_argument("--counts", action="store_true")
    a = ap.parse_args()
    with open(a.input) as f:
        lines = f.read().split("\n")
    alias = {}
    counts = {"grad_seed": 0, "param_grad": 0, "state_update": 0}
    out = []
    for ln in lines:
        m = SEED.match(ln)
        if m:
            counts["grad_seed"] += 1
            ty = m.group(4)
            one = "dense<1.0>" if ty.startswith("tensor<") else "1.0"
            out.append("%s%s = arith.constant %s : %s"
                       % (m.group(1), m.group(2), one, ty))
            continue
        m = GRAD.match(ln)
        if m:
            counts["param_grad"] += 1
            alias[m.group(1)] = m.group(2)
            continue
        m = UPDATE.match(ln)
        if m:
            counts["state_update"] += 1
            alias[m.group(1)] = m.group(3)
            continue
        if "amp." in ln and re.search(r"=\s*amp\.|^\s*amp\.", ln):
            sys.exit("strip_markers.py: unknown amp op: " + ln.strip())
        out.append(ln)

    def resolve(tok):
        seen = set()
        while tok in alias and tok not in seen:
            seen.add(tok)
            tok = alias[tok]
        return tok
    text = "\n".join(TOKEN.sub(lambda m: resolve(m.group(0)), ln)
                     for ln in out)
    if a.counts:
        text = "".join("%s %d\n" % kv for kv in counts.items())
    if a.output == "-":
        sys.stdout.write(text)
    else:
        with open(a.output, "w") as f:
            f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
