"""amp-fuzz's configurations: the amp-opt flags drawn for a seed, and the
seed's module (standard library only)."""

import collections
import os
import random
import re
import subprocess

import irgen

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


def config_mode(flags):
    return "bf16" if any("mode=bf16" in f for f in flags) else "f16"
