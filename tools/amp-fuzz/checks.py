"""amp-fuzz's checks of one (module, flags): amp-opt's exit and
diagnostics, the output's validity and idempotence, and the execution of
both programs (standard library only)."""

import os
import re
import shutil
import subprocess
import tempfile

import irmain

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
        except subprocess.TimeoutExpired:
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
    sig = irmain.signature_in(text, runner.entry)
    if sig is None:
        return False
    main = irmain.main_for_signature(runner.entry, *sig, round_to=mode)
    ref, err = lower_and_run(runner, irmain.with_main(text, main), "rounded")
    return err is None and compare(ref, out, mode) is None


def exec_check(runner, text, text1, mode):
    mod_main = None
    ref, err = lower_and_run(runner, irmain.with_main(text, runner.main_text),
                             "ref")
    if err is not None:
        return {"status": "ok", "exec_skipped": "reference: " + err,
                "message": ""}
    main1 = runner.main_text
    if "keep-public-signatures=false" in " ".join(runner.flags):
        sig = irmain.signature_in(text1, runner.entry)
        if sig is None:
            return {"status": "ok", "exec_skipped": "no entry in the output",
                    "message": ""}
        main1 = irmain.main_for_signature(runner.entry, *sig)
    out, err = lower_and_run(runner, irmain.with_main(text1, main1), "amp",
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
