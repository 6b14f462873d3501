#!/usr/bin/env python3
"""Numerical gradient check of a training step written by amp-gen-model.

    gradcheck.py [options] -- AMP-GEN-MODEL-ARGS...

Runs the --no-markers variant of the step (with its --driver @main) on
deterministic inputs through scripts/lower-to-llvm.sh and mlir-runner, in
two passes:

 1. one step: the loss, w - w' for every parameter and every optimizer
    state before and after. The gradient g of every parameter follows from
    the optimizer (sgd: g = (w - w') / lr; momentum: g = v' - mu v; adam:
    g = (m' - b1 m) / (1 - b1)), and the rest of the optimizer's outputs are
    checked against its formulas (momentum: w - w' = lr v'; adam: v', the
    step count, w - w' = lr_t m' / (sqrt(v') + eps)).
 2. probes: for each parameter, the coordinates with the largest |g| and a
    few random ones; the driver evaluates the loss of the same program at
    w +- eps e_i and prints (L+ - L-) / (2 eps) (computed in the program, so
    no precision is lost in printing), and the difference between the
    forward and the backward one-sided differences. Where that difference
    exceeds the tolerance, a ReLU or max-pool kink lies within eps of w_i
    and the probe is skipped (reported; more than a quarter skipped, or all
    of one parameter's, fails).

Probe i of parameter p passes when

    |fd_i - g_i| <= rtol * |g_i| + atol * max|g of p| + 4 ulp(loss) / eps

where max|g of p| is at least 1e-3 of the largest gradient of the model
(some gradients are zero up to rounding: the key bias of attention) and the
last term is the rounding noise of the difference of two losses.

Prints one line per parameter and a summary (max relative error over the
probes with |g| >= 10% of the parameter's max|g|, and max |fd - g| / max|g|
over all probes). Exits 1 on a failed check, 2 on a tool failure.
Standard library only.
"""

import argparse
import json
import math
import os
import random
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.normpath(os.path.join(HERE, "..", ".."))

HEADER = re.compile(
    r"Unranked Memref base@ = \S+ rank = (\d+) offset = (\d+) "
    r"sizes = \[([^\]]*)\] strides = \[([^\]]*)\] data =")
NUMBER = re.compile(
    r"[-+]?(?:inf|nan|(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)", re.IGNORECASE)


def parse(text):
    headers = list(HEADER.finditer(text))
    blocks = []
    for i, h in enumerate(headers):
        end = headers[i + 1].start() if i + 1 < len(headers) else len(text)
        values = [float(v) for v in NUMBER.findall(text[h.end():end])]
        sizes = [int(s) for s in h.group(3).replace(",", " ").split()]
        n = 1
        for s in sizes:
            n *= s
        if len(values) != n:
            raise ValueError("block %d: %d values for sizes %s"
                             % (i, len(values), sizes))
        blocks.append(values)
    return blocks


def die(msg, code=2):
    print("gradcheck: error: %s" % msg, file=sys.stderr)
    sys.exit(code)


def run(cmd, **kw):
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True, **kw)
    if r.returncode != 0:
        die("%s failed (%d):\n%s" % (" ".join(cmd), r.returncode,
                                     r.stderr[-4000:]))
    return r.stdout


class Runner:
    def __init__(self, a):
        self.a = a
        os.makedirs(a.tmp, exist_ok=True)
        libs = [os.path.join(a.libdir, l) for l in
                ("libmlir_runner_utils.so", "libmlir_c_runner_utils.so")]
        self.libs = ",".join(libs)

    def gen(self, extra, out=None):
        cmd = [self.a.gen] + self.a.gen_args + extra
        if out:
            cmd += ["-o", out]
        return run(cmd)

    def execute(self, extra, tag):
        src = os.path.join(self.a.tmp, tag + ".mlir")
        ll = os.path.join(self.a.tmp, tag + ".ll.mlir")
        self.gen(["--no-markers", "--no-predict", "--driver"] + extra, src)
        with open(ll, "w") as f:
            r = subprocess.run([self.a.lower, src], stdout=f,
                               stderr=subprocess.PIPE,
                               universal_newlines=True)
        if r.returncode != 0:
            die("lowering %s failed:\n%s" % (src, r.stderr[-4000:]))
        out = run([self.a.runner, ll, "-e", "main",
                   "-entry-point-result=void", "-shared-libs=" + self.libs])
        with open(os.path.join(self.a.tmp, tag + ".out.txt"), "w") as f:
            f.write(out)
        return parse(out)


def close(out, ref, rtol, atol):
    """max |out - ref| / (rtol |ref| + atol max|ref|) over a block."""
    scale = max((abs(r) for r in ref), default=0.0)
    worst = 0.0
    for o, r in zip(out, ref):
        if math.isnan(o) or math.isinf(o):
            return float("inf")
        tol = rtol * abs(r) + atol * scale
        err = abs(o - r)
        worst = max(worst, err / tol if tol > 0 else (0.0 if err == 0
                                                      else float("inf")))
    return worst


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--gen", default=os.path.join(SRC, "build", "bin",
                                                  "amp-gen-model"),
                    help="the amp-gen-model binary")
    ap.add_argument("--lower", default=os.path.join(SRC, "scripts",
                                                    "lower-to-llvm.sh"))
    ap.add_argument("--runner", default="mlir-runner")
    ap.add_argument("--libdir", default="/usr/lib/llvm-22/lib")
    ap.add_argument("--tmp", default="gradcheck.tmp",
                    help="directory for the generated files")
    ap.add_argument("--top", type=int, default=2,
                    help="probes per parameter at its largest |g| (2)")
    ap.add_argument("--random", type=int, default=2,
                    help="random probes per parameter (2)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--eps", type=float, default=None,
                    help="finite-difference step (f32: 1e-3, f64: 1e-6)")
    ap.add_argument("--rtol", type=float, default=None,
                    help="relative tolerance (f32: 5e-2, f64: 3e-5)")
    ap.add_argument("--atol", type=float, default=None,
                    help="tolerance as a fraction of the parameter's max|g| "
                         "(f32: 1e-2, f64: 1e-6)")
    ap.add_argument("--opt-tol", type=float, default=None,
                    help="relative tolerance of the optimizer checks "
                         "(f32: 1e-3, f64: 1e-5)")
    ap.add_argument("-v", "--verbose", action="store_true")
    ap.add_argument("gen_args", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    if a.gen_args and a.gen_args[0] == "--":
        a.gen_args = a.gen_args[1:]
    r = Runner(a)
    desc = json.loads(r.gen(["--describe"]))
    f64 = desc["dtype"] == "f64"
    eps = a.eps if a.eps is not None else (1e-6 if f64 else 1e-3)
    rtol = a.rtol if a.rtol is not None else (3e-5 if f64 else 5e-2)
    atol = a.atol if a.atol is not None else (1e-6 if f64 else 1e-2)
    otol = a.opt_tol if a.opt_tol is not None else (1e-5 if f64 else 1e-3)
    params, states, opt = desc["params"], desc["states"], desc["optimizer"]

    # ------------------------------------------------------------ pass 1
    blocks = r.execute(["--eps", repr(eps)], "step")
    nblocks = 1 + len(params) + sum(
        3 if s["kind"] in ("velocity", "m") else 2 for s in states)
    if len(blocks) != nblocks:
        die("expected %d printed blocks, got %d" % (nblocks, len(blocks)))
    loss = blocks[0][0]
    delta = {p["name"]: blocks[1 + i] for i, p in enumerate(params)}
    before, after, gpart = {}, {}, {}
    k = 1 + len(params)
    for s in states:
        before[s["name"]], after[s["name"]] = blocks[k], blocks[k + 1]
        k += 2
        if s["kind"] in ("velocity", "m"):
            gpart[s["name"]] = blocks[k]
            k += 1
    failed = []
    grads = {}
    lr = opt["lr"]
    kind = opt["kind"]
    for p in params:
        n = p["name"]
        if kind == "sgd":
            grads[n] = [d / lr for d in delta[n]]
        elif kind == "momentum":
            mu = opt["momentum"]
            v, v2 = before["v_" + n], after["v_" + n]
            grads[n] = gpart["v_" + n]  # v' - mu v
            q = close(delta[n], [lr * x for x in v2], otol, otol)
            if q > 1:
                failed.append("momentum: w - w' != lr v' for %s (%.3g x tol)"
                              % (n, q))
        else:
            b1, b2, e = opt["beta1"], opt["beta2"], opt["eps"]
            m, m2 = before["m_" + n], after["m_" + n]
            v, v2 = before["v_" + n], after["v_" + n]
            # (m' - b1 m) / (1 - b1)
            g = [x / (1 - b1) for x in gpart["m_" + n]]
            grads[n] = g
            q = close(v2, [b2 * x + (1 - b2) * gg * gg for x, gg in zip(v, g)],
                      otol, otol)
            if q > 1:
                failed.append("adam: v' for %s (%.3g x tol)" % (n, q))
            t2 = after["step"][0]
            if abs(t2 - before["step"][0] - 1) > 1e-6:
                failed.append("adam: step count %g -> %g"
                              % (before["step"][0], t2))
            lrt = lr * math.sqrt(1 - b2 ** t2) / (1 - b1 ** t2)
            exp = [lrt * x / (math.sqrt(y) + e) for x, y in zip(m2, v2)]
            q = close(delta[n], exp, otol * 10, otol)
            if q > 1:
                failed.append("adam: w - w' for %s (%.3g x tol)" % (n, q))
    if not math.isfinite(loss):
        failed.append("loss is %r" % loss)

    # ------------------------------------------------------------ pass 2
    rng = random.Random(a.seed)
    probes = []
    for i, p in enumerate(params):
        g = grads[p["name"]]
        order = sorted(range(len(g)), key=lambda k: -abs(g[k]))
        chosen = order[:a.top]
        rest = [k for k in range(len(g)) if k not in chosen]
        chosen += rng.sample(rest, min(a.random, len(rest)))
        probes += [(i, k) for k in chosen]
    extra = ["--eps", repr(eps)]
    for i, k in probes:
        extra += ["--probe", "%d:%d" % (i, k)]
    blocks2 = r.execute(extra, "probes")
    if len(blocks2) != len(blocks) + 2 or blocks2[0] != blocks[0]:
        die("the probe run does not repeat the step run")
    fd, kink = blocks2[-2], blocks2[-1]

    # ----------------------------------------------------------- compare
    print("gradcheck %s: %s; %s, %s, loss %.6g; %d probes, eps %g"
          % (desc["model"], desc["summary"], desc["dtype"], kind, loss,
             len(probes), eps))
    worst_rel, worst_norm = 0.0, 0.0
    skipped = 0
    zero = []
    gmax = max(max(abs(x) for x in g) for g in grads.values())
    # rounding noise of a difference of two losses, over eps: a few ulps
    ulp = 2.0 ** (math.frexp(abs(loss))[1] - (53 if f64 else 24))
    noise = 4 * ulp / eps
    for i, p in enumerate(params):
        n = p["name"]
        g = grads[n]
        # a floor at 1e-3 of the largest gradient of the model: some
        # gradients are zero up to rounding (the key bias of attention)
        pmax = max(abs(x) for x in g)
        scale = max(pmax, 1e-3 * gmax)
        if pmax < 1e-3 * gmax:
            zero.append(n)
        rows = []
        for (pi, k), f, kk in zip(probes, fd, kink):
            if pi != i:
                continue
            err = abs(f - g[k])
            tol = rtol * abs(g[k]) + atol * scale + noise
            if abs(kk) > rtol * abs(f) + atol * scale + 2 * noise:
                # forward and backward differences disagree: a kink (ReLU,
                # max pool) lies within eps; the central difference is not
                # the derivative there
                skipped += 1
                rows.append((k, g[k], f, "kink"))
                continue
            norm = err / scale if scale > 0 else (0.0 if err == 0 else
                                                   float("inf"))
            if n not in zero:
                worst_norm = max(worst_norm, norm)
            if scale > 0 and abs(g[k]) >= 0.1 * scale:
                worst_rel = max(worst_rel, err / abs(g[k]))
            ok = err <= tol and math.isfinite(f)
            rows.append((k, g[k], f, "" if ok else "FAIL"))
            if not ok:
                failed.append("%s[%d]: gradient %.6g, finite difference "
                              "%.6g" % (n, k, g[k], f))
        if a.verbose or any(st == "FAIL" for *_, st in rows):
            print("  %-8s %-14s max|g| %.3g: %s" % (
                n, "x".join(map(str, p["shape"])), scale, ", ".join(
                    "[%d] %.5g/%.5g%s" % (k, gv, f, " " + st if st else "")
                    for k, gv, f, st in rows)))
        if all(st == "kink" for *_, st in rows):
            failed.append("%s: every probe is at a kink" % n)
    print("max relative error %.3g (probes with |g| >= 10%% of max|g|), "
          "max |fd - g| / max|g| %.3g; %d of %d probes at kinks (skipped)"
          % (worst_rel, worst_norm, skipped, len(probes)))
    if zero:
        print("zero gradient (below 1e-3 of the largest): %s"
              % ", ".join(zero))
    if skipped * 4 > len(probes):
        failed.append("more than a quarter of the probes are at kinks")
    for f in failed:
        print("FAIL: " + f)
    print("FAILED" if failed else "PASSED")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
