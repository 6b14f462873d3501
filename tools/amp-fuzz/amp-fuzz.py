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
import random
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import irgen  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
LLVM_BIN = "/usr/lib/llvm-22/bin"
LLVM_LIB = "/usr/lib/llvm-22/lib"

# scripts/lower-to-llvm.sh's pipeline, with loops allowed to return new
# buffers (the generated scf.for bodies do not update their iter_args in place).
LOWERING = [
    "--convert-elementwise-to-linalg",
    "--one-shot-bufferize=bufferize-function-boundaries "
    "function-boundary-type-conversion=identity-layout-map "
    "allow-return-allocs-from-loops",
    "--canonicalize",
    "--buffer-deallocation-pipeline",
    "--convert-bufferization-to-memref",
    # Each temporary freed after its last use, as amp-lower-to-llvm does.
    "--optimize-allocation-liveness",
    "--convert-linalg-to-loops",
    # expand-strided-metadata emits affine.apply for subview offsets and
    # sizes, so it runs before lower-affine (as amp-lower-to-llvm does;
    # seed 40446000 left an affine.apply with the opposite order).
    "--expand-strided-metadata",
    "--lower-affine",
    "--convert-scf-to-cf",
    "--arith-expand",
    "--convert-math-to-llvm",
    "--convert-math-to-libm",
    "--convert-arith-to-llvm",
    "--convert-index-to-llvm",
    "--finalize-memref-to-llvm",
    "--convert-cf-to-llvm",
    "--convert-func-to-llvm",
    "--reconcile-unrealized-casts",
]

# Bugs reported but not fixed yet: --known-bug NAME stops counting them
# (they are counted as known-bug instead). See docs/fuzzing.md.
KNOWN_BUG_NAMES = {
    "pad-idempotence": "amp-auto-mixed-precision re-run after "
                       "amp-pad-for-tensor-cores paints the slice of a padded "
                       "contraction low (test/Fuzz/pad-idempotence.mlir)",
}
KNOWN_BUGS = set()

KINDS = ["crash", "no-location", "invalid", "rerun-error", "idempotence", "exec"]

# Op names the policy edits use: ops the generator emits, and some more.
EDIT_NAMES = [
    "linalg.matmul", "linalg.batch_matmul", "linalg.matvec", "linalg.conv_*",
    "linalg.conv_2d_nhwc_hwcf", "linalg.conv_2d_nchw_fchw",
    "arith.addf", "arith.mulf", "arith.subf", "arith.divf", "arith.maximumf",
    "arith.negf", "math.tanh", "math.exp", "math.sqrt", "math.absf",
    "linalg.add", "linalg.sub", "linalg.mul", "linalg.div", "linalg.max",
    "linalg.min", "linalg.exp", "linalg.tanh", "linalg.abs", "linalg.negf",
    "linalg.square", "linalg.softmax", "linalg.reduce", "linalg.fill",
    "linalg.transpose", "linalg.broadcast", "tensor.pad", "tensor.concat",
    "tensor.extract_slice", "tensor.insert_slice", "tensor.expand_shape",
    "tensor.collapse_shape", "tensor.cast", "tensor.extract", "tensor.empty",
    "arith.select", "arith.cmpf", "func.call", "scf.for", "scf.if",
    "arith.truncf", "arith.extf", "arith.constant",
    "linalg.generic:elementwise", "linalg.generic:sum-reduction",
    "linalg.generic:contraction", "linalg.generic:copy",
    "linalg.generic:sigmoid", "linalg.generic:reduction",
]
CLASSES = ["allow", "infer", "clear", "deny"]

_POLICY = {}


def default_policy(opt, mode="f16"):
    """{op name: class} of amp-opt's default policy for `mode`
    (print-policy): bf16 moves sums to infer."""
    if mode not in _POLICY:
        p = subprocess.run(
            [opt, "--amp-auto-mixed-precision=mode=%s print-policy=1" % mode,
             "-", "-o", os.devnull], input="module {}\n",
            capture_output=True, text=True)
        policy, cls = {}, None
        for line in p.stdout.splitlines():
            m = re.match(r"^(\w+):", line)
            if m:
                cls = m.group(1)
                continue
            m = re.match(r'^\s*-\s*"?([^"]+)"?', line)
            if m and cls:
                policy[m.group(1)] = cls
        _POLICY[mode] = policy
    return _POLICY[mode]


def make_config(seed, index, opt):
    """The flags of configuration `index` of seed `seed` (a list of argv
    items) and whether option errors are expected (conflicting edits)."""
    rng = random.Random(seed * 1000003 + 7 * index + 1)
    flags = []
    expect_option_error = False
    mode = rng.choice(["f16", "f16", "bf16"])
    k = rng.random()
    if k < 0.3:
        opts = []
        if mode == "bf16":
            opts.append("mode=bf16")
        if rng.random() < 0.3:
            opts.append("cast-economy=false")
        flags.append("--amp" + ("=" + " ".join(opts) if opts else ""))
    else:
        pol = default_policy(opt, mode)
        opts = ["mode=" + mode]
        edits = collections.defaultdict(list)
        for _ in range(rng.choice([0, 1, 1, 2, 3, 4])):
            name = rng.choice(EDIT_NAMES)
            cls = rng.choice(CLASSES)
            cur = pol.get(name)
            if cur == cls or name in edits[cls + "-add"]:
                continue
            if cur is not None:
                if rng.random() < 0.9:
                    edits[cur + "-remove"].append(name)
                else:
                    expect_option_error = True
            if rng.random() < 0.1:
                # removal only: the op becomes unlisted
                continue
            edits[cls + "-add"].append(name)
        # listing a cast is an option error (the pass owns the casts)
        if any(n in ("arith.truncf", "arith.extf")
               for ns in edits.values() for n in ns):
            expect_option_error = True
        # an op added to two classes is an option error too
        added = collections.Counter(n for key, ns in edits.items()
                                    if key.endswith("-add") for n in ns)
        if any(c > 1 for c in added.values()):
            expect_option_error = True
        for key in sorted(edits):
            if edits[key]:
                opts.append("%s=%s" % (key, ",".join(edits[key])))
        if rng.random() < 0.3:
            opts.append("cast-economy=false")
        if rng.random() < 0.7:
            opts.append("optimize-casts=true")
        if rng.random() < 0.15:
            opts.append("level=" + rng.choice(["tensor-cores-only",
                                               "treat-infer-as-deny"]))
        if rng.random() < 0.15:
            opts.append("keep-public-signatures=false")
        flags.append("--amp-auto-mixed-precision=" + " ".join(opts))
        if rng.random() < 0.2:
            # The separate cleanup goes before the painting too, as the
            # pass's own does (docs/passes.md: the pass paints the program
            # it is given; a cleanup after it alone can fold the input's own
            # casts into a program a second run paints differently).
            if "optimize-casts=true" not in opts:
                flags.insert(len(flags) - 1, "--amp-optimize-casts")
            flags.append("--amp-optimize-casts")
    if rng.random() < 0.35:
        popts = []
        if rng.random() < 0.4:
            popts.append("multiple=%d" % rng.choice([2, 4, 8, 16]))
        if rng.random() < 0.3:
            popts.append("max-flop-growth=%s" % rng.choice(["0", "0.5", "4"]))
        flags.append("--amp-pad-for-tensor-cores" +
                     ("=" + " ".join(popts) if popts else ""))
    return flags, expect_option_error


def is_executable_seed(seed, every):
    return every > 0 and seed % every == 0


def gen_module(seed, executable):
    g = irgen.Generator(seed, executable=executable)
    return g.module()


# ---------------------------------------------------------------- running

class Runner:
    def __init__(self, args):
        self.opt = args.opt_binary
        self.mlir_opt = args.mlir_opt
        self.runner = args.mlir_runner
        self.libs = args.shared_libs
        self.timeout = args.timeout
        self.fast = None if args.lowering == "reference" else args.lowering
        self.tmp = tempfile.mkdtemp(prefix="amp-fuzz-")
        self.entry = "f0"
        self.flags = []
        self.main_text = ""

    def cleanup(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def path(self, name):
        return os.path.join(self.tmp, name)

    def run(self, cmd, stdin=None):
        try:
            p = subprocess.run(cmd, input=stdin, capture_output=True,
                               text=True, timeout=self.timeout)
            return p.returncode, p.stdout, p.stderr
        except subprocess.TimeoutExpired as e:
            return "timeout", "", "time-out after %ss" % self.timeout


CRASH_MARKS = ("PLEASE submit a bug report", "Stack dump", "LLVM ERROR",
               "Assertion `", "UNREACHABLE executed")
LOC_ERROR = re.compile(r"^(?:[^\s:][^:]*:\d+:\d+|loc\(.*\)): error: ", re.M)
OPTION_ERROR = re.compile(r"^<unknown>:0: error: amp-[a-z-]+: ", re.M)


def crashed(rc, err):
    if rc == "timeout":
        return True
    if rc < 0 or rc >= 128:
        return True
    return any(m in err for m in CRASH_MARKS)


def crash_signature(rc, err):
    """A short stable description of a crash."""
    if rc == "timeout":
        return "timeout"
    for pat in (r"Assertion `[^']*' failed", r"LLVM ERROR: [^\n]*",
                r"UNREACHABLE executed[^\n]*"):
        m = re.search(pat, err)
        if m:
            return m.group(0)[:200]
    # first frame in amp / mlir code of the stack dump
    for line in err.splitlines():
        m = re.search(r"#\d+ 0x[0-9a-f]+ (?:in )?(\S*(?:amp|mlir)\S*)", line)
        if m and "PrintStackTrace" not in line and "Signal" not in line:
            return "frame " + m.group(1)[:150]
    return "rc=%s" % rc


def first_error(err):
    for line in err.splitlines():
        if "error:" in line:
            return line.strip()
    return err.strip().splitlines()[0] if err.strip() else ""


def normalize_msg(msg):
    msg = re.sub(r"^\S+?:\d+:\d+: ", "", msg)
    msg = re.sub(r"\d+", "N", msg)
    msg = re.sub(r"%\w+", "%V", msg)
    return msg[:160]


def check(runner, text, flags, expect_option_error, executable, mode):
    """Run every check on one (module, flags). Returns a dict:
    {"status": "ok"|"rejected"|<failure kind>, "message": ..., ...}."""
    runner.flags = flags
    inp = runner.path("in.mlir")
    out1 = runner.path("out1.mlir")
    out2 = runner.path("out2.mlir")
    with open(inp, "w") as f:
        f.write(text)
    for p in (out1, out2):
        if os.path.exists(p):
            os.unlink(p)
    cmd1 = [runner.opt, inp] + flags + ["--verify-each=0", "-o", out1]
    rc, _, err = runner.run(cmd1)
    res = {"stderr": err, "cmd": cmd1}
    if crashed(rc, err):
        return dict(res, status="crash", message=crash_signature(rc, err))
    if rc != 0:
        if LOC_ERROR.search(err):
            return dict(res, status="rejected", message=first_error(err))
        if OPTION_ERROR.search(err):
            # option errors are one line without a location, by design
            return dict(res, status="rejected", message=first_error(err),
                        option_error=True, expected=expect_option_error)
        return dict(res, status="no-location", message=first_error(err) or
                    "exit %s without a diagnostic" % rc)
    with open(out1) as f:
        text1 = f.read()
    res["output"] = text1
    # (c) + (d): the same flags again on the output (parsing verifies it)
    cmd2 = [runner.opt, out1] + flags + ["-o", out2]
    rc2, _, err2 = runner.run(cmd2)
    if crashed(rc2, err2):
        return dict(res, status="crash", stderr=err2, cmd=cmd2,
                    message="on own output: " + crash_signature(rc2, err2))
    if rc2 != 0:
        rcv, _, errv = runner.run([runner.opt, out1, "--verify-each",
                                   "-o", os.devnull])
        if rcv != 0:
            return dict(res, status="invalid", stderr=errv,
                        message=first_error(errv))
        return dict(res, status="rerun-error", stderr=err2, cmd=cmd2,
                    message=first_error(err2))
    with open(out2) as f:
        text2 = f.read()
    if text1 != text2 and "pad-idempotence" in KNOWN_BUGS and any(
            f.startswith("--amp-pad-for-tensor-cores") for f in flags):
        res["known_bug"] = "pad-idempotence"
    elif text1 != text2:
        # both through the same printer
        norm = runner.path("norm1.mlir")
        runner.run([runner.opt, out1, "-o", norm])
        with open(norm) as f:
            text1n = f.read()
        if text1n != text2:
            diff = first_diff(text1n, text2)
            return dict(res, status="idempotence", cmd=cmd2,
                        message="second run changes the output: " + diff)
    if executable:
        r = exec_check(runner, text, text1, mode)
        if r is not None:
            return dict(res, **r)
        res["executed"] = True
    return dict(res, status="ok", message="")


def first_diff(a, b):
    al, bl = a.splitlines(), b.splitlines()
    for i, (x, y) in enumerate(zip(al, bl)):
        if x != y:
            return "line %d: %r -> %r" % (i + 1, x.strip()[:120], y.strip()[:120])
    return "length %d -> %d lines" % (len(al), len(bl))


# ---------------------------------------------------------------- execution

# --lowering=fast: amp-run's pipeline (elementwise fusion, every matmul and
# convolution in libamp_rt, loops split over two threads), for the AMP
# program; the f32 reference stays on the loop pipeline above, the oracle.
# fast-library: the 16-bit contractions reach libamp_rt in 16 bits even
# where the fast pipeline would widen them in the IR (low-contractions), so
# that its 16-bit paths run (the native bf16 one under
# AMP_RT_CPU_BF16=emulate).
FAST_LOWERING = {
    "fast": "--amp-lower-to-llvm=fast=true threads=2",
    "fast-library": "--amp-lower-to-llvm=fast=true threads=2 "
                    "low-contractions=library",
}


def fast_libs(opt_binary):
    """libamp_rt of the build whose amp-opt lowers, and LLVM's OpenMP."""
    opt = shutil.which(opt_binary) or opt_binary
    build = os.path.dirname(os.path.dirname(os.path.realpath(opt)))
    return (os.path.join(build, "lib", "libamp_rt.so"),
            os.path.join(LLVM_LIB, "libomp.so"))


def lower_and_run(runner, text, tag, fast=None):
    src = runner.path(tag + ".mlir")
    ll = runner.path(tag + ".ll.mlir")
    with open(src, "w") as f:
        f.write(text)
    if fast:
        cmd = [runner.opt, src, FAST_LOWERING[fast], "-o", ll]
    else:
        cmd = [runner.mlir_opt, src] + LOWERING + ["-o", ll]
    rc, _, err = runner.run(cmd)
    if rc != 0:
        return None, "lowering failed: " + first_error(err)
    libs = runner.libs + ("," + ",".join(fast_libs(runner.opt)) if fast
                          else "")
    rc, out, err = runner.run([runner.runner, ll, "-e", "main",
                               "-entry-point-result=void",
                               "-shared-libs=" + libs])
    if rc != 0:
        return None, "mlir-runner failed (rc %s): %s" % (rc, first_error(err))
    return out, None


HEADER = re.compile(r"Unranked Memref base@ = \S+ rank = \d+ offset = \d+ "
                    r"sizes = \[([^\]]*)\] strides = \[[^\]]*\] data =")
NUMBER = re.compile(r"[-+]?(?:inf|nan|(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)",
                    re.IGNORECASE)


def parse_blocks(text):
    hs = list(HEADER.finditer(text))
    blocks = []
    for i, h in enumerate(hs):
        end = hs[i + 1].start() if i + 1 < len(hs) else len(text)
        blocks.append((h.group(1), [float(v) for v in
                                    NUMBER.findall(text[h.end():end])]))
    return blocks


def compare(ref, out, mode):
    """None if `out` matches `ref` within the low type's tolerance, or
    'inconclusive: ...' when the reference itself is not finite."""
    tol = 3e-2 if mode == "f16" else 1.2e-1
    rb, ob = parse_blocks(ref), parse_blocks(out)
    if len(rb) != len(ob):
        return "%d result blocks, expected %d" % (len(ob), len(rb))
    # A result that is exactly zero in f32 (x - x) is the rounding error of
    # its inputs once one side is low; its own scale says nothing, so it is
    # judged against the largest value of the call's results.
    largest = max([abs(x) for _, rv in rb for x in rv
                   if x == x and abs(x) != float("inf")], default=0.0)
    cancelled = None
    for i, ((rs, rv), (os_, ov)) in enumerate(zip(rb, ob)):
        if rs != os_ or len(rv) != len(ov):
            return "block %d: sizes [%s] vs [%s]" % (i, os_, rs)
        finite = [abs(x) for x in rv if x == x and abs(x) != float("inf")]
        if len(finite) != len(rv):
            return "inconclusive: reference not finite"
        scale = max(finite) if finite else 0.0
        if scale > 6.0e4:
            return "inconclusive: reference beyond the f16 range"
        zero = bool(rv) and scale == 0.0
        for j, (r, o) in enumerate(zip(rv, ov)):
            if abs(o - r) <= tol * scale + tol * abs(r) + 1e-6:
                continue
            if zero and abs(o) <= tol * largest:
                cancelled = i if cancelled is None else cancelled
                continue
            return "block %d element %d: ref %g out %g (max|ref| %g)" % (
                i, j, r, o, scale)
    if cancelled is not None:
        return ("inconclusive: block %d is exactly zero in f32, a "
                "cancellation that the low program's rounding leaves "
                "nonzero" % cancelled)
    return None


def matches_rounded_inputs(runner, text, out, mode):
    """Whether `out` is, within tolerance, what the f32 program `text`
    computes on its inputs rounded to `mode`: AMP rounds its inputs, and a
    result that cancels (a sum of terms much larger than itself) moves by
    more than the tolerance when they are rounded, whatever AMP does."""
    sig = irgen.signature_in(text, runner.entry)
    if sig is None:
        return False
    main = irgen.main_for_signature(runner.entry, *sig, round_to=mode)
    ref, err = lower_and_run(runner, irgen.with_main(text, main), "rounded")
    return err is None and compare(ref, out, mode) is None


def exec_check(runner, text, text1, mode):
    mod_main = None
    ref, err = lower_and_run(runner, irgen.with_main(text, runner.main_text),
                             "ref")
    if err is not None:
        return {"status": "ok", "exec_skipped": "reference: " + err,
                "message": ""}
    main1 = runner.main_text
    if "keep-public-signatures=false" in " ".join(runner.flags):
        sig = irgen.signature_in(text1, runner.entry)
        if sig is None:
            return {"status": "ok", "exec_skipped": "no entry in the output",
                    "message": ""}
        main1 = irgen.main_for_signature(runner.entry, *sig)
    out, err = lower_and_run(runner, irgen.with_main(text1, main1), "amp",
                             fast=runner.fast)
    if err is not None:
        return {"status": "exec", "message": "output does not run: " + err}
    d = compare(ref, out, mode)
    if d is None:
        return None
    if not d.startswith("inconclusive") and matches_rounded_inputs(
            runner, text, out, mode):
        d = ("inconclusive: %s; the f32 program on inputs rounded to %s "
             "gives the AMP result, so the difference is the rounding of the "
             "inputs (an ill-conditioned result, e.g. a cancelling sum)"
             % (d, mode))
    if d.startswith("inconclusive"):
        return {"status": "ok", "exec_skipped": d, "message": ""}
    del mod_main
    return {"status": "exec", "message": "results differ: " + d,
            "ref_out": ref, "amp_out": out}


def config_mode(flags):
    return "bf16" if any("mode=bf16" in f for f in flags) else "f16"


# ---------------------------------------------------------------- shrinking

NAME_END = r"(?![A-Za-z0-9_])"


def all_op_slots(mod):
    """(list, index) of every op of every function, innermost last."""
    slots = []

    def walk(ops):
        for i, op in enumerate(ops):
            slots.append((ops, i))
            for r in op.regions():
                walk(r.ops)
    for f in mod.funcs:
        if not f.decl:
            walk(f.body)
    return slots


def const_op(name, type_):
    if type_.startswith("tensor<"):
        return irgen.Op(["%s = arith.constant dense<0.5> : %s" % (name, type_)],
                        [(name, type_)])
    return irgen.Op(["%s = arith.constant 0.5 : %s" % (name, type_)],
                    [(name, type_)])


def is_const(op):
    return len(op.parts) == 1 and isinstance(op.parts[0], str) and \
        "= arith.constant" in op.parts[0]


def count_ops(mod):
    return sum(1 for ops, i in all_op_slots(mod) if not is_const(ops[i]))


def used_elsewhere(text, name):
    return len(re.findall(re.escape(name) + NAME_END, text)) > 1


def shrink(runner, mod, flags, expect, executable, mode, kind, message,
           log=print, budget=600):
    """Reduce `mod` while check() still fails with `kind` (and, for crashes,
    the same signature). Returns the reduced module text."""
    checks = [0]

    def fails(text):
        if checks[0] >= budget:
            return False
        checks[0] += 1
        rc, _, _ = runner.run([runner.opt, "-", "-o", os.devnull], stdin=text)
        if rc != 0:
            return False  # the candidate itself is not valid
        r = check(runner, text, flags, expect, executable, mode)
        if r["status"] != kind:
            return False
        if kind in ("crash", "no-location"):
            return r["message"] == message
        return True

    best = mod.render() if not executable else None

    def render(m):
        return m.render()

    progress = True
    while progress and checks[0] < budget:
        progress = False
        # 1. drop results of functions nobody calls (not the entry of @main)
        for f in mod.funcs:
            if f.decl or len(f.results) <= 1:
                continue
            if re.search("@%s%s" % (f.name, NAME_END), "\n".join(
                    op.text() for g in mod.funcs for op in g.body)):
                continue
            for k in range(len(f.results) - 1, -1, -1):
                if len(f.results) <= 1:
                    break
                saved = f.results
                f.results = saved[:k] + saved[k + 1:]
                if fails(render(mod)):
                    progress = True
                else:
                    f.results = saved
        # 2. delete ops, last first: drop if unused, else replace by constants
        slots = all_op_slots(mod)
        for ops, i in reversed(slots):
            if i >= len(ops):
                continue
            op = ops[i]
            text = render(mod)
            unused = all(not used_elsewhere(text, n) for n, _ in op.defs)
            if unused:
                del ops[i]
                if fails(render(mod)):
                    progress = True
                    continue
                ops.insert(i, op)
            if is_const(op) or not op.defs:
                continue
            ops[i:i + 1] = [const_op(n, t) for n, t in op.defs]
            if fails(render(mod)):
                progress = True
                continue
            ops[i:i + len(op.defs)] = [op]
        # 3. drop unused arguments of functions nobody calls
        for f in mod.funcs:
            if f.decl or (executable and f.name == mod.entry):
                continue
            text = render(mod)
            if re.search("@%s%s" % (f.name, NAME_END), text.replace(
                    "@%s(" % f.name, "", 1)):
                continue
            for a in list(f.args):
                if not used_elsewhere(text, a.name):
                    i = f.args.index(a)
                    f.args.remove(a)
                    if fails(render(mod)):
                        progress = True
                        text = render(mod)
                    else:
                        f.args.insert(i, a)
        # 4. drop functions nobody calls
        for f in list(mod.funcs):
            if f.name == mod.entry and executable:
                continue
            if not re.search("@%s%s" % (f.name, NAME_END), render(mod).replace(
                    "@%s(" % f.name, "", 1)):
                mod.funcs.remove(f)
                if fails(render(mod)):
                    progress = True
                else:
                    mod.funcs.insert(0, f)
    text = render(mod)
    # 5. shrink dims in the text (candidates that do not verify are skipped)
    dims = sorted({int(d) for t in re.findall(r"tensor<([0-9x]+)x", text)
                   for d in t.split("x") if int(d) > 1}, reverse=True)
    for d in dims:
        for nd in (1, 2, d // 2):
            if nd >= d or nd < 1:
                continue
            cand = re.sub(r"tensor<[0-9x?]*x(?:f32|f16|bf16)>",
                          lambda m: re.sub(r"(?<![0-9])%d(?=x)" % d, str(nd),
                                           m.group(0)), text)
            if cand != text and fails(cand):
                text = cand
                break
    log("shrink: %d checks, %d ops left" % (checks[0], count_ops(mod)))
    return text


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
                runner.main_text = irgen.main_for(mod)
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
        text = irgen.with_main(text, irgen.main_for(mod))
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
            runner.main_text = irgen.main_for(mod)
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
