#!/usr/bin/env python3
"""Counts ops in MLIR text for the lowering tests.

    count_ops.py REF NEW        prints `OP: n_ref -> n_new` for linalg.generic,
                                linalg.transpose, linalg.matmul, linalg.fill,
                                memref.alloc
    count_ops.py --non-llvm F   prints `non-llvm ops: N`, the op lines of F
                                whose op is not in the llvm dialect (each
                                one is listed first)
    count_ops.py --contractions F
                                prints `runtime calls: N` (calls of amp_rt_*)
                                and `generic contractions: N` (linalg.generic
                                ops with a reduction iterator whose body
                                multiplies and whose two inputs each miss
                                an output dimension the other has: matmul
                                shaped, unlike row-wise dot products)
"""
import re
import sys

OP = re.compile(r"^\s*(?:%[^=]+=\s*)?\"?([a-z_][a-z0-9_]*\.[a-z0-9_.]+)")


def ops(text):
    for line in text.splitlines():
        m = OP.match(line)
        if m:
            yield m.group(1), line


def main():
    args = sys.argv[1:]
    if args[0] == "--non-llvm":
        bad = [l for op, l in ops(open(args[1]).read())
               if not op.startswith("llvm.")]
        for l in bad[:20]:
            print("  " + l.strip()[:160])
        print(f"non-llvm ops: {len(bad)}")
        return 0
    if args[0] == "--contractions":
        text = open(args[1]).read()
        calls = len(re.findall(r"call @amp_rt_", text))
        maps = {name: results for name, results in re.findall(
            r"^(#map\d*) = affine_map<\([^)]*\) -> \(([^)]*)\)>", text, re.M)}
        generics = 0
        for block in re.split(r"(?=linalg\.generic)", text)[1:]:
            head, _, rest = block.partition("^bb0")
            body = rest.split("linalg.yield")[0]
            m = re.search(r"indexing_maps = \[([^\]]*)\]", head)
            if not m or '"reduction"' not in head or "arith.mulf" not in body:
                continue
            dims = [set(re.findall(r"d\d+", maps.get(n.strip(), "")))
                    for n in m.group(1).split(",")]
            if len(dims) != 3:
                continue
            a, b, out = dims
            # A matmul-like contraction: each input misses an output
            # dimension the other one has (m for B, n for A).
            if (out - a) and (out - b) and (out - a) != (out - b):
                generics += 1
        print(f"runtime calls: {calls}")
        print(f"generic contractions: {generics}")
        return 0
    ref, new = (open(a).read() for a in args[:2])
    for name in ["linalg.generic", "linalg.transpose", "linalg.matmul",
                 "linalg.fill", "memref.alloc"]:
        count = lambda t: sum(1 for op, _ in ops(t) if op == name)
        print(f"{name}: {count(ref)} -> {count(new)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
