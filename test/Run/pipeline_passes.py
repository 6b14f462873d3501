#!/usr/bin/env python3
"""Prints the passes of a textual pass pipeline, one per line.

    pipeline_passes.py [--names] [FILE]

FILE (default stdin) holds `builtin.module(a,b{opts},...)`, as
`amp-run --print-pipeline` prints it, or the indented form of
`amp-opt --dump-pass-pipeline` (its "Pass Manager with N passes:" line is
skipped). Each pass is printed as `name{options}` with the options' spacing
normalized, or with --names as its bare name, so that two spellings of one
pipeline compare equal with diff and FileCheck can check the order. A nested
pipeline prints as `anchor(pass,...)`, its passes normalized the same way.
"""
import re
import sys


def passes(text):
    text = "".join(line for line in text.splitlines()
                   if not line.startswith("Pass Manager with"))
    text = re.sub(r"\s+", " ", text).strip()
    if not (text.startswith("builtin.module(") and text.endswith(")")):
        sys.exit(f"unexpected pipeline: {text[:200]}")
    return split(text[len("builtin.module("):-1])


def split(inner):
    out, depth, cur = [], 0, ""
    for ch in inner:
        if ch in "{(":
            depth += 1
        elif ch in "})":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def normalize(p):
    nested = re.fullmatch(r"([\w.-]+)\s*\((.*)\)", p)
    if nested:
        anchor, inner = nested.groups()
        names, fulls = zip(*(normalize(q) for q in split(inner))) if inner.strip() else ((), ())
        return (f"{anchor}({','.join(names)})", f"{anchor}({','.join(fulls)})")
    m = re.fullmatch(r"([\w.-]+)(?:\{(.*)\})?", p)
    if not m:
        sys.exit(f"cannot parse pass: {p}")
    name, opts = m.groups()
    opts = " ".join((opts or "").split())
    return name, (f"{name}{{{opts}}}" if opts else name)


def main():
    args = [a for a in sys.argv[1:] if a != "--names"]
    text = open(args[0]).read() if args else sys.stdin.read()
    for p in passes(text):
        name, full = normalize(p)
        print(name if "--names" in sys.argv[1:] else full)
    return 0


if __name__ == "__main__":
    sys.exit(main())
