#!/usr/bin/env python3
"""The result tables of docs/frontends.md from the reports that
scripts/frontend-reports.sh wrote: one row per model, f16 (with the policy
variants) and bf16, in the doc's columns, as Markdown.

    scripts/frontend-table.py [DIR]     (default build/frontends)
"""

import json
import os
import re
import sys

MODELS = [("resnet18", "resnet18"), ("mobilenet_v2", "mobilenet_v2"),
          ("efficientnet_b0", "efficientnet_b0"),
          ("efficientnet_b0", "efficientnet_b0, sigmoid policy", "-sigmoid"),
          ("vgg11", "vgg11"), ("transformer", "transformer"), ("gpt", "gpt"),
          ("gpt", "gpt, GELU policy", "-gelu")]


def total_column(path):
    """The `total` column of an .amp.txt summary, by row name."""
    rows = {}
    with open(path) as f:
        for line in f:
            m = re.match(r"(\S.*?)\s{2,}(\S.*?)\s{2,}(\S.*\S)\s*$", line)
            if m and not line.startswith(("function", "$", " ")):
                rows[m.group(1)] = m.group(3)
    return rows


def weights(path):
    if not os.path.exists(path):
        return ""
    with open(path) as f:
        info = json.load(f)
    count = info.get("weights")
    return f"{count / 1e6:.1f} M" if count else ""


def step(text):
    """'772.09 us -> 276.35 us' -> '772 → 276 µs'; ms kept to 2 decimals."""
    (a, ua), (b, ub) = re.findall(r"([0-9.]+) (us|ms)", text)
    if ua == ub == "us":
        return f"{float(a):.0f} → {float(b):.0f} µs"
    to_ms = lambda v, u: float(v) / (1000 if u == "us" else 1)  # noqa: E731
    return f"{to_ms(a, ua):.2f} → {to_ms(b, ub):.2f} ms"


def saved(total):
    """The report's saved bytes, f32 → AMP, in MiB."""
    s = total["saved_for_backward"]
    return (f"{s['f32']['bytes'] / 2**20:.0f} → "
            f"{s['amp']['bytes'] / 2**20:.0f} MiB")


def row(directory, model, label, suffix, mode):
    base = os.path.join(directory, f"{model}-b8{suffix}")
    path = base + ".amp.txt"
    if not os.path.exists(path):
        return None
    r = total_column(path)
    with open(base + ".report.json") as f:
        report = json.load(f)["total"]
    classes = r["ops allow/infer/clear/deny/unlisted"]
    low, f32, _ = r["ops low/f32/other"].split("/")
    inserted = r["casts inserted"].split()[0]
    removed = r["casts removed"].split()[0]
    left = r["casts in output"]
    share, flops = re.match(r"([0-9.]+)% of (.*)",
                            r["contraction FLOPs low"]).groups()
    speed = r["est. speedup"]
    if mode == "bf16":
        deny = classes.split("/")[3]
        return (f"| {label} | {deny} | {low} / {f32} | {left} | "
                f"{saved(report)} | "
                f"{step(r['est. step time f32 -> amp'])} ({speed}) |")
    total = sum(int(c) for c in classes.split("/"))
    w = "" if suffix else weights(base + ".export.json")
    return (f"| {label} | {w} | {total} ({classes}) | {low} / {f32} | "
            f"{inserted} / {removed} / {left} | {flops}, "
            f"{float(share):.0f}% | "
            f"{saved(report)} | "
            f"{step(r['est. step time f32 -> amp'])} ({speed}) |")


CHECKS = [("resnet18", "resnet18", ""), ("mobilenet_v2", "mobilenet_v2", ""),
          ("efficientnet_b0", "efficientnet_b0", ""),
          ("efficientnet_b0", "efficientnet_b0, `sigmoid-exp.yaml`",
           "-sigmoid"),
          ("transformer", "transformer", ""), ("gpt", "gpt", ""),
          ("gpt", "gpt, `gelu-tanh.yaml`", "-gelu"),
          ("transformer", "transformer, bf16", "-bf16")]


def accuracy_rows(directory):
    """The accuracy table: --check's comparisons against PyTorch f32, and
    PyTorch's autocast (same 16-bit type) next to amp-opt's."""
    print("| model (batch 8) | MLIR f32 vs PyTorch: rel_l2 | AMP vs PyTorch: "
          "rel_l2 | max_rel | top-1 | autocast vs PyTorch: rel_l2 | casts "
          "AMP / autocast (MB) |")
    print("|---|---|---|---|---|---|---|")
    for model, label, suffix in CHECKS:
        path = os.path.join(directory, f"{model}-b8{suffix}.check.json")
        if not os.path.exists(path):
            continue
        with open(path) as f:
            c = json.load(f)
        f32, amp = c["mlir_f32_vs_pytorch"], c["amp_vs_pytorch"]
        auto = c.get("autocast_vs_pytorch")
        casts = ""
        if "amp_casts" in c and "autocast_casts" in c:
            casts = (f"{c['amp_casts']['count']} "
                     f"({c['amp_casts']['bytes'] / 1e6:.1f}) / "
                     f"{c['autocast_casts']['count']} "
                     f"({c['autocast_casts']['bytes'] / 1e6:.1f})")
        print(f"| {label} | {f32['rel_l2_err']:.1e} | {amp['rel_l2_err']:.1e} "
              f"| {amp['max_abs_err_over_max_abs_ref']:.1e} | "
              f"{amp['top1_agreement'] * 100:.1f}% | "
              f"{auto['rel_l2_err']:.1e} | {casts} |" if auto else
              f"| {label} | {f32['rel_l2_err']:.1e} | {amp['rel_l2_err']:.1e} "
              f"| {amp['max_abs_err_over_max_abs_ref']:.1e} | "
              f"{amp['top1_agreement'] * 100:.1f}% | | {casts} |")


def main():
    directory = sys.argv[1] if len(sys.argv) > 1 else "build/frontends"
    print("| model | weights | ops (allow/infer/clear/deny/unlisted) | "
          "low / f32 | casts inserted / removed / left | contraction FLOPs, "
          "low share | saved f32 → AMP | est. step f32 → AMP |")
    print("|---|---|---|---|---|---|---|---|")
    for entry in MODELS:
        model, label = entry[0], entry[1]
        line = row(directory, model, label, entry[2] if len(entry) > 2
                   else "", "f16")
        if line:
            print(line)
    print()
    print("| model | ops deny | low / f32 | casts left | saved f32 → AMP | "
          "est. step f32 → AMP |")
    print("|---|---|---|---|---|---|")
    for entry in MODELS:
        if len(entry) > 2:
            continue
        line = row(directory, entry[0], entry[1], "-bf16", "bf16")
        if line:
            print(line)
    print()
    accuracy_rows(directory)
    return 0


if __name__ == "__main__":
    sys.exit(main())
