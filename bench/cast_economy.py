#!/usr/bin/env python3
"""Cast economy: casts and cast bytes under TensorFlow-style painting vs
amp-opt's placement, from the JSON report of `amp-opt --amp` (docs/reports.md).

    bench/cast_economy.py [--amp-opt PATH] [--mode f16|bf16] [MODEL.mlir ...]

Without models it uses the generated training steps of build/examples/ and three larger
steps made by amp-gen-model. For each model it prints the casts
(count / bytes, bytes = elements x result element size) of:

  tf        TensorFlow's painting (cast-economy=false), casts as inserted:
            one per value and target type at the colour borders;
  tf+clean  the same painting after amp-optimize-casts (exact folds, CSE,
            constant folding, hoisting);
  amp-opt   amp-opt's default: cast-economy (clear regions kept f32 where
            their border casts would move more bytes) + the cleanup;

and the low-precision op count of each painting. Never a test.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GENERATED = [
    ("mlp 3x512, batch 256", ["--model", "mlp", "--layers", "3", "--width",
                              "512", "--batch", "256", "--optimizer",
                              "momentum"]),
    ("cnn 3 conv layers", ["--model", "cnn", "--image", "16x16", "--filters",
                           "16,32,32", "--kernel", "3", "--optimizer", "sgd"]),
    ("transformer seq 32 d 64", ["--model", "transformer", "--seq", "32",
                                 "--dmodel", "64", "--heads", "4", "--ffn",
                                 "256", "--optimizer", "adam"]),
]


def report(amp_opt, path, options):
    out = subprocess.run([amp_opt, path, "--amp=report=- " + options, "-o",
                          os.devnull], check=True, capture_output=True,
                         text=True).stdout
    total = json.loads(out)["total"]
    return total["casts"], total["ops"]["by_precision"]["low"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("models", nargs="*")
    ap.add_argument("--amp-opt", default=os.path.join(ROOT, "build", "bin",
                                                      "amp-opt"))
    ap.add_argument("--mode", default="f16", choices=["f16", "bf16"])
    a = ap.parse_args()
    models = [(os.path.relpath(m, ROOT) if m.startswith(ROOT) else m, m)
              for m in a.models]
    tmp = tempfile.mkdtemp()
    if not models:
        build = os.path.dirname(os.path.dirname(a.amp_opt))
        examples = os.path.join(build, "examples")
        for name in sorted(os.listdir(examples)):
            if name.endswith("_step.mlir"):
                models.append(("examples/" + name,
                               os.path.join(examples, name)))
        for label, args in GENERATED:
            path = os.path.join(tmp, label.split()[0] + ".mlir")
            subprocess.run([os.path.join(build, "bin", "amp-gen-model")] +
                           args + ["-o", path], check=True)
            models.append(("amp-gen-model " + label, path))

    def cell(c):
        return "%d / %.1f KiB" % (c["count"], c["bytes"] / 1024)

    rows = []
    sums = {"tf": [0, 0], "clean": [0, 0], "amp": [0, 0]}
    for label, path in models:
        mode = "mode=" + a.mode
        tf_casts, tf_low = report(a.amp_opt, path, mode + " cast-economy=false")
        amp_casts, amp_low = report(a.amp_opt, path, mode)
        tf = tf_casts["inserted"]
        clean, best = tf_casts["output"], amp_casts["output"]
        for key, c in (("tf", tf), ("clean", clean), ("amp", best)):
            sums[key][0] += c["count"]
            sums[key][1] += c["bytes"]
        saved = 1 - best["bytes"] / tf["bytes"] if tf["bytes"] else 0.0
        rows.append((label, cell(tf), cell(clean), cell(best),
                     "%d / %d" % (tf_low, amp_low), "%.0f%%" % (100 * saved)))
    head = ("model", "tf", "tf+clean", "amp-opt", "low ops tf / amp-opt",
            "bytes saved")
    widths = [max(len(r[i]) for r in rows + [head]) for i in range(6)]
    for r in [head] + rows:
        print("  ".join(x.ljust(w) for x, w in zip(r, widths)).rstrip())
    tot = {k: {"count": v[0], "bytes": v[1]} for k, v in sums.items()}
    saved = 1 - tot["amp"]["bytes"] / tot["tf"]["bytes"] if tot["tf"]["bytes"] else 0
    print("total: tf %s, tf+clean %s, amp-opt %s (%.0f%% fewer cast bytes "
          "than tf)" % (cell(tot["tf"]), cell(tot["clean"]), cell(tot["amp"]),
                        100 * saved))
    return 0


if __name__ == "__main__":
    sys.exit(main())
