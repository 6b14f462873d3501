#!/usr/bin/env python3
"""amp-fuzz: random graphs through amp-opt, "never invalid, never silently wrong".

    amp-fuzz.py run   [--count N] [--seed-start S] [--out DIR] [--exec-every K] ...
    amp-fuzz.py gen   --seed N [--exec]          # the module of seed N
    amp-fuzz.py config --seed N [--index K]      # its configuration (flags)
    amp-fuzz.py check FILE --flags FLAGS [--exec]  # run the checks on a file
    amp-fuzz.py shrink --seed N [--index K] [--kind KIND] [-o OUT]
    amp-fuzz.py files PATH...                    # existing .mlir files (upstream tests)

For every seed, `run` generates a module (irgen.py) and a random
configuration (amp-opt flags), and checks:

  crash         exit code >= 128 / signal, "PLEASE submit a bug report",
                "Stack dump", or a time-out
  no-location   non-zero exit without an `error:` diagnostic that has a
                location (option errors `<unknown>:0: error: <pass>: ...`
                of option checking are accepted)
  invalid       the output does not verify (re-parsed with --verify-each)
  rerun-error   the output verifies, but the same flags fail on it
  idempotence   the same flags on the output change it
  exec          (1 seed in --exec-every) the f32 module and the output,
                lowered to LLVM and run by mlir-runner, differ beyond
                f16/bf16 tolerance, or the output does not lower/run

Every failure is saved under OUT/failures/<kind>-s<seed>-c<index>/ with
the input, the flags, stderr and a one-line reproducer; with --shrink it
is reduced there to reduced.mlir. The exit status is 1 if any check failed.
Standard library only; see docs/fuzzing.md.
"""

import argparse
import collections
import json
import os
import re
import shlex
import sys
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import irmain  # noqa: E402
from checks import (FAST_LOWERING, KINDS, KNOWN_BUG_NAMES,  # noqa: E402
                    KNOWN_BUGS, LLVM_BIN, LLVM_LIB, LOC_ERROR, ROOT, Runner,
                    check, crash_signature, crashed, first_error,
                    normalize_msg)
from fuzzconfig import (config_mode, gen_module,  # noqa: E402
                        is_executable_seed, make_config)
from shrink import shrink  # noqa: E402


# ---------------------------------------------------------------- commands

def save_failure(outdir, seed, index, flags, text, r, executable):
    d = os.path.join(outdir, "failures", "%s-s%d-c%d" % (r["status"], seed, index))
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "input.mlir"), "w") as f:
        f.write(text)
    if r.get("output"):
        with open(os.path.join(d, "output.mlir"), "w") as f:
            f.write(r["output"])
    with open(os.path.join(d, "stderr.txt"), "w") as f:
        f.write(r.get("stderr", ""))
    for k in ("ref_out", "amp_out"):
        if r.get(k):
            with open(os.path.join(d, k + ".txt"), "w") as f:
                f.write(r[k])
    info = {"seed": seed, "index": index, "flags": flags, "kind": r["status"],
            "message": r["message"], "executable": executable,
            "repro": "amp-opt input.mlir " + " ".join(shlex.quote(x) for x in flags)}
    with open(os.path.join(d, "failure.json"), "w") as f:
        json.dump(info, f, indent=1)
    return d


BATCH_ID = re.compile(r"amp_fuzz\.id = (\d+)")


def batch_check(runner, texts, flags):
    """The crash / invalid / idempotence checks of `check` on many modules at
    once: one amp-opt process per step, over a file of modules split by
    `// -----` (--split-input-file), each module tagged with an
    `amp_fuzz.id` attribute that the output keeps. Returns {index: "ok"}
    for the modules that passed both runs unchanged; every other module
    (an error, a crash, a changed second run) is left out, for `check` to
    redo alone, so a batch never hides or invents a failure."""
    chunks = []
    for i, text in enumerate(texts):
        if not text.startswith("module {"):
            return {}
        chunks.append("module attributes {amp_fuzz.id = %d : i64} {" % i +
                      text[len("module {"):])
    comb = runner.path("batch.mlir")
    out1 = runner.path("batch1.mlir")
    out2 = runner.path("batch2.mlir")
    with open(comb, "w") as f:
        f.write("\n// -----\n".join(chunks))

    def outputs(path):
        if not os.path.exists(path):
            return {}
        with open(path) as f:
            parts = f.read().split("// -----")
        by_id = {}
        for part in parts:
            m = BATCH_ID.search(part)
            if m:
                by_id[int(m.group(1))] = part.strip()
        return by_id

    for path in (out1, out2):
        if os.path.exists(path):
            os.unlink(path)
    rc, _, err = runner.run([runner.opt, comb, "--split-input-file"] + flags +
                            ["--verify-each=0", "-o", out1])
    if crashed(rc, err):
        return {}
    first = outputs(out1)
    if not first:
        return {}
    rc2, _, err2 = runner.run([runner.opt, out1, "--split-input-file"] +
                              flags + ["-o", out2])
    if crashed(rc2, err2) or rc2 != 0:
        return {}
    second = outputs(out2)
    return {i: "ok" for i, text in first.items() if second.get(i) == text}


def cmd_run(args):
    runner = Runner(args)
    counts = collections.Counter()
    rejected_msgs = collections.Counter()
    failures = []
    seen = {}
    t0 = time.time()
    outdir = args.out
    if outdir:
        os.makedirs(outdir, exist_ok=True)
    last_report = t0
    try:
        passed = {}  # (seed, index) -> True: passed in a batch
        for seed in range(args.seed_start, args.seed_start + args.count):
            if args.time_limit and time.time() - t0 > args.time_limit:
                break
            # --batch=B: seeds B-aligned share the configuration of their
            # first seed and are checked together first (batch_check).
            if args.batch > 1 and (seed - args.seed_start) % args.batch == 0:
                group = [s for s in range(seed, min(
                    seed + args.batch, args.seed_start + args.count))
                    if not is_executable_seed(s, args.exec_every)]
                bflags, _ = make_config(seed, 0, args.opt_binary)
                texts = [gen_module(s, False).render() for s in group]
                ok = batch_check(runner, texts, bflags)
                passed = {group[i]: bflags for i in ok}
                counts["batch-passed"] += len(ok)
            if seed in passed:
                counts["graphs"] += 1
                counts["configs"] += 1
                continue
            executable = is_executable_seed(seed, args.exec_every)
            mod = gen_module(seed, executable)
            text = mod.render()
            counts["graphs"] += 1
            if executable:
                runner.main_text = irmain.main_for(mod)
            for index in range(args.configs_per_graph):
                if args.batch > 1:
                    if index > 0:
                        break
                    flags, expect = make_config(
                        seed - (seed - args.seed_start) % args.batch, 0,
                        args.opt_binary)
                    counts["configs"] += 1
                else:
                    flags, expect = make_config(seed, index, args.opt_binary)
                    counts["configs"] += 1
                r = check(runner, text, flags, expect, executable,
                          config_mode(flags))
                st = r["status"]
                if r.get("known_bug"):
                    counts["known-bug"] += 1
                if st == "ok":
                    if executable:
                        if r.get("exec_skipped"):
                            counts["exec-inconclusive"] += 1
                            if args.verbose:
                                print("seed %d: exec skipped: %s" % (
                                    seed, r["exec_skipped"]))
                        else:
                            counts["executed"] += 1
                    continue
                if st == "rejected":
                    counts["rejected-with-diagnostic"] += 1
                    if r.get("option_error"):
                        counts["rejected-option-error"] += 1
                        if not r.get("expected"):
                            counts["option-error-unexpected"] += 1
                    rejected_msgs[normalize_msg(r["message"])] += 1
                    continue
                counts[st] += 1
                sig = (st, normalize_msg(r["message"]))
                line = "FAIL %s seed=%d config=%d: %s\n  flags: %s" % (
                    st, seed, index, r["message"],
                    " ".join(shlex.quote(x) for x in flags))
                print(line, flush=True)
                if outdir:
                    d = save_failure(outdir, seed, index, flags, text, r,
                                     executable)
                    print("  saved: %s" % d, flush=True)
                    if args.shrink and sig not in seen:
                        red = shrink(runner, gen_module(seed, executable),
                                     flags, expect, executable,
                                     config_mode(flags), st, r["message"],
                                     budget=args.shrink_budget)
                        with open(os.path.join(d, "reduced.mlir"), "w") as f:
                            f.write(red)
                        print("  reduced: %s" % os.path.join(d, "reduced.mlir"),
                              flush=True)
                seen.setdefault(sig, (seed, index))
                failures.append((seed, index, st, r["message"]))
            if args.progress and time.time() - last_report > args.progress:
                last_report = time.time()
                print("... %d graphs, %.0f s" % (counts["graphs"],
                                                 time.time() - t0), flush=True)
    finally:
        runner.cleanup()
    el = time.time() - t0
    print("amp-fuzz: seeds %d..%d, %.1f s" % (
        args.seed_start, args.seed_start + counts["graphs"] - 1, el))
    for k in ["graphs", "configs", "crash", "invalid", "idempotence",
              "rerun-error", "exec", "no-location", "rejected-with-diagnostic",
              "rejected-option-error", "option-error-unexpected", "executed",
              "exec-inconclusive", "known-bug", "batch-passed"]:
        label = {"crash": "crashes", "invalid": "invalid outputs",
                 "idempotence": "non-idempotent results",
                 "exec": "execution mismatches",
                 "no-location": "errors without location"}.get(k, k)
        print("  %-28s %d" % (label + ":", counts[k]))
    if rejected_msgs and args.verbose:
        print("rejected with a diagnostic (distinct messages):")
        for m, c in rejected_msgs.most_common(20):
            print("  %5d  %s" % (c, m))
    if seen:
        print("distinct failures:")
        for (st, m), (s, i) in seen.items():
            print("  %s seed=%d config=%d: %s" % (st, s, i, m))
    if args.summary_json:
        with open(args.summary_json, "w") as f:
            json.dump({"counts": counts, "rejected": rejected_msgs,
                       "failures": failures, "seconds": el}, f, indent=1)
    nfail = sum(counts[k] for k in KINDS)
    return 1 if nfail else 0


def parse_only_error(runner, path, split=False):
    """The first error of amp-opt only parsing and verifying `path` (no
    pass), or None if it is valid."""
    rc, _, err = runner.run([runner.opt, path] +
                            (["--split-input-file"] if split else []) +
                            ["-o", os.devnull])
    return first_error(err) if rc != 0 else None


def classify_file_run(runner, path, flags, split=False):
    """amp-opt FLAGS on an existing file: ("accepted" | "crash" |
    "located-errors" | "invalid-input-unlocated" | "no-location", message).
    An input that MLIR's own verifier rejects without a location (the ops a
    named op's builder puts in its region have none) is not amp-opt's."""
    rc, _, err = runner.run([runner.opt, path] +
                            (["--split-input-file"] if split else []) +
                            flags + ["-o", os.devnull])
    if rc == 0:
        return "accepted", ""
    if crashed(rc, err):
        return "crash", crash_signature(rc, err)
    if LOC_ERROR.search(err):
        return "located-errors", first_error(err)
    if parse_only_error(runner, path, split) == first_error(err):
        return "invalid-input-unlocated", first_error(err)
    return "no-location", first_error(err)


UPSTREAM_CONFIGS = [
    ["--amp"],
    ["--amp=mode=bf16"],
    ["--amp-auto-mixed-precision=mode=bf16 optimize-casts=true"],
    ["--amp-pad-for-tensor-cores", "--amp"],
]


def cmd_files(args):
    """Existing .mlir files (e.g. upstream MLIR's own lit tests) through
    amp-opt under a few configurations, one amp-opt per file and
    configuration with --split-input-file: no crash, and every failure a
    located diagnostic. A crashing file is split and each of its pieces run
    alone, to name the piece."""
    runner = Runner(args)
    files = []
    for path in args.paths:
        if os.path.isdir(path):
            for d, _, names in os.walk(path):
                files += [os.path.join(d, n) for n in names
                          if n.endswith(".mlir")]
        else:
            files.append(path)
    files.sort()
    counts = collections.Counter()
    bad = []
    t0 = time.time()
    try:
        for f in files:
            with open(f, encoding="utf-8", errors="replace") as fh:
                pieces = re.split(r"^// -----\s*$", fh.read(), flags=re.M)
            counts["files"] += 1
            counts["pieces"] += len(pieces)
            for flags in UPSTREAM_CONFIGS:
                counts["runs"] += 1
                # Every piece alone (--pieces), or only to name the piece
                # that crashes the whole file.
                kind, msg = classify_file_run(runner, f, flags, split=True)
                counts["runs-" + kind] += 1
                if kind == "no-location":
                    counts[kind] += 1
                    bad.append((kind, f, None, flags, msg))
                if not args.pieces and kind != "crash":
                    continue
                for i, piece in enumerate(pieces):
                    one = runner.path("piece.mlir")
                    with open(one, "w") as fh:
                        fh.write(piece)
                    kind, msg = classify_file_run(runner, one, flags)
                    counts["pieces-" + kind] += 1
                    if kind in ("crash", "no-location"):
                        counts[kind] += 1
                        bad.append((kind, f, i, flags, msg))
    finally:
        runner.cleanup()
    print("amp-fuzz files: %d files, %d pieces, %d amp-opt runs, %.1f s" % (
        counts["files"], counts["pieces"], counts["runs"], time.time() - t0))
    for k in ["runs-accepted", "runs-located-errors",
              "runs-invalid-input-unlocated", "crash", "no-location"] + (
                  ["pieces-accepted", "pieces-located-errors",
                   "pieces-invalid-input-unlocated"] if args.pieces else []):
        label = {"crash": "crashing pieces",
                 "no-location": "errors without location"}.get(k, k)
        print("  %-28s %d" % (label + ":", counts[k]))
    for kind, f, i, flags, msg in bad:
        print("FAIL %s %s%s %s: %s" % (kind, f, "" if i is None else
                                       " piece %d" % i, " ".join(flags), msg))
    return 1 if bad else 0


def cmd_gen(args):
    mod = gen_module(args.seed, args.exec)
    text = mod.render()
    if args.with_main:
        text = irmain.with_main(text, irmain.main_for(mod))
    sys.stdout.write(text)
    return 0


def cmd_config(args):
    flags, expect = make_config(args.seed, args.index, args.opt_binary)
    print(" ".join(shlex.quote(x) for x in flags))
    return 0


def cmd_check(args):
    runner = Runner(args)
    try:
        with open(args.file) as f:
            text = f.read()
        flags = shlex.split(args.flags)
        if args.exec:
            runner.main_text = open(args.main).read() if args.main else ""
        r = check(runner, text, flags, False, args.exec, config_mode(flags))
        print("%s: %s" % (r["status"], r["message"]))
        if args.verbose:
            print(r.get("stderr", ""))
        return 0 if r["status"] in ("ok", "rejected") else 1
    finally:
        runner.cleanup()


def cmd_shrink(args):
    runner = Runner(args)
    try:
        executable = args.exec or is_executable_seed(args.seed, args.exec_every)
        mod = gen_module(args.seed, executable)
        if executable:
            runner.main_text = irmain.main_for(mod)
        flags, expect = make_config(args.seed, args.index, args.opt_binary)
        if args.flags is not None:
            flags = shlex.split(args.flags)
        mode = config_mode(flags)
        r = check(runner, mod.render(), flags, expect, executable, mode)
        if r["status"] in ("ok", "rejected"):
            print("seed %d config %d does not fail (%s)" % (
                args.seed, args.index, r["status"]))
            return 1
        print("%s: %s" % (r["status"], r["message"]))
        text = shrink(runner, mod, flags, expect, executable, mode, r["status"],
                      r["message"], budget=args.shrink_budget)
        if args.output:
            with open(args.output, "w") as f:
                f.write(text)
        else:
            sys.stdout.write(text)
        print("repro: amp-opt FILE %s" % " ".join(shlex.quote(x) for x in flags),
              file=sys.stderr)
        return 0
    finally:
        runner.cleanup()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)

    def tools(p):
        p.add_argument("--opt-binary",
                       default=os.path.join(ROOT, "build", "bin", "amp-opt"))
        p.add_argument("--mlir-opt", default=os.path.join(LLVM_BIN, "mlir-opt"))
        p.add_argument("--mlir-runner",
                       default=os.path.join(LLVM_BIN, "mlir-runner"))
        p.add_argument("--shared-libs", default=",".join(
            os.path.join(LLVM_LIB, l) for l in (
                "libmlir_c_runner_utils.so", "libmlir_runner_utils.so")))
        p.add_argument("--timeout", type=float, default=60)
        p.add_argument("--lowering",
                       choices=["reference"] + sorted(FAST_LOWERING),
                       default="reference",
                       help="how the AMP program is lowered for --exec "
                       "checks: the loop pipeline, amp-run's fast one "
                       "(libamp_rt of this build), or the fast one with the "
                       "16-bit contractions sent to libamp_rt as they are "
                       "(AMP_RT_CPU_BF16=emulate then runs its native bf16 "
                       "path on AVX-512 CPUs without AVX512_BF16)")
        p.add_argument("--exec-every", type=int, default=50)
        p.add_argument("--shrink-budget", type=int, default=400)
        p.add_argument("-v", "--verbose", action="store_true")
        p.add_argument("--known-bug", action="append", default=[],
                       choices=sorted(KNOWN_BUG_NAMES),
                       help="do not count this known bug as a failure")

    p = sub.add_parser("run")
    tools(p)
    p.add_argument("--count", type=int, default=200)
    p.add_argument("--seed-start", type=int, default=1)
    p.add_argument("--configs-per-graph", type=int, default=1)
    p.add_argument("--batch", type=int, default=0,
                   help="check B graphs per amp-opt process first (one "
                   "configuration per batch; what does not pass there is "
                   "checked alone); for runs of millions")
    p.add_argument("--out", default=None, help="save failures here")
    p.add_argument("--shrink", action="store_true")
    p.add_argument("--time-limit", type=float, default=0)
    p.add_argument("--progress", type=float, default=0,
                   help="print progress every this many seconds")
    p.add_argument("--summary-json", default=None)
    p.set_defaults(fn=cmd_run)

    p = sub.add_parser("files", help="run existing .mlir files (upstream "
                       "MLIR's tests) through amp-opt")
    tools(p)
    p.add_argument("paths", nargs="+", help=".mlir files or folders")
    p.add_argument("--pieces", action="store_true",
                   help="also run every piece alone and count how many "
                   "amp-opt accepts (pieces x configurations)")
    p.set_defaults(fn=cmd_files)

    p = sub.add_parser("gen")
    p.add_argument("--seed", type=int, required=True)
    p.add_argument("--exec", action="store_true",
                   help="an executable graph (no declarations)")
    p.add_argument("--with-main", action="store_true")
    p.set_defaults(fn=cmd_gen)

    p = sub.add_parser("config")
    tools(p)
    p.add_argument("--seed", type=int, required=True)
    p.add_argument("--index", type=int, default=0)
    p.set_defaults(fn=cmd_config)

    p = sub.add_parser("check")
    tools(p)
    p.add_argument("file")
    p.add_argument("--flags", required=True)
    p.add_argument("--exec", action="store_true")
    p.add_argument("--main", help="file with the @main to append for --exec")
    p.set_defaults(fn=cmd_check)

    p = sub.add_parser("shrink")
    tools(p)
    p.add_argument("--seed", type=int, required=True)
    p.add_argument("--index", type=int, default=0)
    p.add_argument("--flags", default=None, help="override the flags")
    p.add_argument("--exec", action="store_true")
    p.add_argument("-o", "--output")
    p.set_defaults(fn=cmd_shrink)

    args = ap.parse_args()
    KNOWN_BUGS.update(getattr(args, "known_bug", []))
    return args.fn(args)


if __name__ == "__main__":
    sys.exit(main())
