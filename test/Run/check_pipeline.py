#!/usr/bin/env python3
"""Checks that scripts/lower-to-llvm.sh and `amp-run --print-pipeline` run
the same passes, in the same order, with the same options.

    check_pipeline.py SCRIPT PIPELINE_FILE [--lower-to-runtime]

SCRIPT is lower-to-llvm.sh (its `--pass[=options]` lines after `exec`);
PIPELINE_FILE holds amp-run's `builtin.module(a,b{opts},...)`. The script's
`"${runtime_passes[@]}"` line stands for nothing, or with
--lower-to-runtime for the passes of its `runtime_passes=(--a --b)`.
"""
import re
import sys


def script_passes(text, lower_to_runtime=False):
    runtime = []
    if lower_to_runtime:
        m = re.search(r"runtime_passes=\(([^)]+)\)", text)
        if not m:
            sys.exit("the script sets no runtime_passes=(...)")
        runtime = [p[2:] for p in m.group(1).split()]
    body = text[text.index('exec "$MLIR_OPT"'):]
    passes = []
    for line in body.splitlines()[1:]:
        line = line.strip().rstrip("\\").strip()
        if line == '"${runtime_passes[@]}"':
            passes.extend(runtime)
            continue
        if not line.startswith("--"):
            continue
        m = re.fullmatch(r'--([\w-]+)(?:="(.*)"|=(\S+))?', line)
        if not m:
            sys.exit(f"cannot parse script line: {line}")
        name, quoted, plain = m.groups()
        opts = quoted if quoted is not None else plain
        passes.append(f"{name}{{{opts}}}" if opts else name)
    return passes


def pipeline_passes(text):
    text = text.strip()
    if not (text.startswith("builtin.module(") and text.endswith(")")):
        sys.exit(f"unexpected pipeline: {text}")
    inner = text[len("builtin.module("):-1]
    passes, depth, cur = [], 0, ""
    for ch in inner:
        if ch in "{(":
            depth += 1
        elif ch in "})":
            depth -= 1
        if ch == "," and depth == 0:
            passes.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        passes.append(cur.strip())
    return passes


def main():
    script = script_passes(open(sys.argv[1]).read(),
                           "--lower-to-runtime" in sys.argv[3:])
    amp_run = pipeline_passes(open(sys.argv[2]).read())
    if script == amp_run:
        print(f"in step: {len(script)} passes")
        return 0
    print("lower-to-llvm.sh and amp-run differ:")
    for i in range(max(len(script), len(amp_run))):
        a = script[i] if i < len(script) else "-"
        b = amp_run[i] if i < len(amp_run) else "-"
        print(f"  {i:2d} {'==' if a == b else '!='} script: {a}  amp-run: {b}")
    return 1


if __name__ == "__main__":
    sys.exit(main())
