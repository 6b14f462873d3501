"""Random well-formed MLIR modules for fuzzing amp-opt (standard library only).

A module is a list of `Func`s; a function body is a list of `Op`s. An op is
rendered text (its own lines, nested regions included) plus the SSA values it
defines, so the shrinker can delete any op and replace its results with
constants without knowing what the op was.

    gen = Generator(seed, executable=False)
    mod = gen.module()
    text = mod.render()

The same seed always gives the same module (and the same configuration, see
amp_fuzz.py). Shapes are static and small (dims 1..64) so that executing a
module is cheap.
"""

import random
import re

VALUE_RE = re.compile(r"%[A-Za-z_][A-Za-z0-9_]*")


def ttype(shape, et):
    if not shape:
        return "tensor<%s>" % et
    return "tensor<%sx%s>" % ("x".join(str(d) for d in shape), et)


def parse_type(t):
    """tensor<2x3xf16> -> ((2, 3), 'f16')"""
    m = re.match(r"tensor<(?:([0-9x]*)x)?(f32|f16|bf16)>$", t)
    if m is None:
        raise ValueError("unexpected type " + t)
    dims = m.group(1)
    return (tuple(int(d) for d in dims.split("x")) if dims else ()), m.group(2)


def fmt_float(x):
    r = repr(float(x))
    if "e" in r or "." in r or "inf" in r or "nan" in r:
        if "e" in r and "." not in r.split("e")[0]:
            m, e = r.split("e")
            r = m + ".0e" + e
        return r
    return r + ".0"


class Val:
    __slots__ = ("name", "shape", "et")

    def __init__(self, name, shape, et="f32"):
        self.name = name
        self.shape = tuple(shape)
        self.et = et

    @property
    def type(self):
        if self.et in ("i1", "index") or self.shape is None:
            return self.et
        return ttype(self.shape, self.et)


class Op:
    """parts: str lines and Region objects, in order."""

    def __init__(self, parts, defs):
        self.parts = parts
        self.defs = defs  # list of (name, type)

    def render(self, indent, out):
        for p in self.parts:
            if isinstance(p, str):
                out.append("  " * indent + p)
            else:
                p.render(indent + 1, out)

    def text(self):
        out = []
        self.render(0, out)
        return "\n".join(out)

    def regions(self):
        return [p for p in self.parts if isinstance(p, Region)]


class Region:
    def __init__(self, ops, term):
        self.ops = ops  # list of Op
        self.term = term  # terminator line (str), e.g. "scf.yield %x : T"

    def render(self, indent, out):
        for op in self.ops:
            op.render(indent, out)
        out.append("  " * indent + self.term)


class Func:
    def __init__(self, name, public, decl=False):
        self.name = name
        self.public = public
        self.decl = decl
        self.args = []  # list of Val
        self.body = []  # list of Op
        self.results = []  # list of Val (the returned values)
        self.decl_sig = None  # (arg types, result types) of a declaration

    def result_types(self):
        if self.decl:
            return self.decl_sig[1]
        return [v.type for v in self.results]

    def arg_types(self):
        if self.decl:
            return self.decl_sig[0]
        return [v.type for v in self.args]

    def render(self, out):
        vis = "" if self.public else "private "
        rts = self.result_types()
        res = ""
        if len(rts) == 1:
            res = " -> " + rts[0]
        elif rts:
            res = " -> (" + ", ".join(rts) + ")"
        if self.decl:
            out.append("func.func %s@%s(%s)%s" % (
                vis, self.name, ", ".join(self.decl_sig[0]), res))
            return
        out.append("func.func %s@%s(%s)%s {" % (
            vis, self.name,
            ", ".join("%s: %s" % (a.name, a.type) for a in self.args), res))
        for op in self.body:
            op.render(1, out)
        if self.results:
            out.append("  return %s : %s" % (
                ", ".join(v.name for v in self.results),
                ", ".join(v.type for v in self.results)))
        else:
            out.append("  return")
        out.append("}")


class Module:
    def __init__(self):
        self.funcs = []
        self.entry = None  # name of the public function @main calls

    def render(self):
        out = ["module {"]
        for f in self.funcs:
            f.render(out)
        out.append("}")
        return "\n".join(out) + "\n"

    def func(self, name):
        for f in self.funcs:
            if f.name == name:
                return f
        return None


# ---------------------------------------------------------------- generator

BIG_CONSTANTS = [1.0e6, 70000.0, -3.0e5, 65520.0]


class Scope:
    def __init__(self, parent=None):
        self.parent = parent
        self.vals = []

    def all(self):
        s, out = self, []
        while s is not None:
            out.extend(s.vals)
            s = s.parent
        return out


class Generator:
    def __init__(self, seed, executable=False, max_ops=None):
        self.seed = seed
        self.rng = random.Random(seed)
        self.executable = executable
        self.counter = 0
        self.max_ops = max_ops
        self.mod = Module()
        self.helpers = []  # private functions callable with call sites
        self.depth = 0

    # -- names
    def fresh(self, prefix="v"):
        self.counter += 1
        return "%%%s%d" % (prefix, self.counter)

    def dim(self, hi=64):
        r = self.rng.random()
        if r < 0.5:
            return self.rng.randint(1, 8)
        if r < 0.85:
            return self.rng.randint(1, min(hi, 24))
        return self.rng.randint(1, hi)

    def shape(self, rank=None):
        if rank is None:
            rank = self.rng.choice([1, 2, 2, 2, 3, 4])
        return tuple(self.dim(16 if rank >= 3 else 64) for _ in range(rank))

    # -- emission helpers
    def emit(self, parts, defs_vals, readable=True):
        op = Op(parts if isinstance(parts, list) else [parts],
                [(v.name, v.type) for v in defs_vals])
        self.cur_body.append(op)
        for v in defs_vals if readable else ():
            if v.shape is not None and v.et not in ("i1", "index"):
                self.scope.vals.append(v)
        return op

    def const(self, shape, et="f32", value=None, allow_big=True):
        v = Val(self.fresh(), shape, et)
        rng = self.rng
        if value is None:
            if allow_big and rng.random() < 0.08:
                value = rng.choice(BIG_CONSTANTS)
            else:
                value = rng.choice([0.0, 1.0, -1.0, 0.5, 0.25, 2.0, -0.125,
                                    0.1, 3.0])
        n = 1
        for d in shape:
            n *= d
        if rng.random() < 0.25 and 1 < n <= 16 and not (allow_big and
                                                         rng.random() < 0.1):
            vals = [round(rng.uniform(-1, 1), 3) for _ in range(n)]
            body = self._nested(list(shape), vals)
            self.emit("%s = arith.constant dense<%s> : %s" % (
                v.name, body, v.type), [v])
        else:
            self.emit("%s = arith.constant dense<%s> : %s" % (
                v.name, fmt_float(value), v.type), [v])
        return v

    def _nested(self, shape, vals):
        if not shape:
            return fmt_float(vals[0])
        if len(shape) == 1:
            return "[" + ", ".join(fmt_float(x) for x in vals) + "]"
        step = len(vals) // shape[0]
        return "[" + ", ".join(self._nested(shape[1:], vals[i * step:(i + 1) * step])
                               for i in range(shape[0])) + "]"

    def scalar(self, value=0.0, et="f32"):
        name = self.fresh("s")
        self.emit("%s = arith.constant %s : %s" % (name, fmt_float(value), et),
                  [])
        return name

    def empty(self, shape, et="f32"):
        v = Val(self.fresh(), shape, et)
        # not readable: its contents are undefined (only `outs`)
        self.emit("%s = tensor.empty() : %s" % (v.name, v.type), [v],
                  readable=False)
        return v

    def zeros(self, shape, et="f32"):
        """An accumulator: fill(0) of an empty, or (sometimes) a constant."""
        if self.rng.random() < 0.15:
            return self.const(shape, et, 0.0)
        e = self.empty(shape, et)
        z = self.scalar(0.0, et)
        v = Val(self.fresh(), shape, et)
        self.emit("%s = linalg.fill ins(%s : %s) outs(%s : %s) -> %s" % (
            v.name, z, et, e.name, e.type, v.type), [v])
        return v

    def arg(self, shape, et="f32"):
        v = Val(self.fresh("a"), shape, et)
        self.cur_func.args.append(v)
        root = self.scope
        while root.parent is not None:
            root = root.parent
        root.vals.append(v)
        return v

    def need(self, shape, et="f32", fresh_ok=True):
        """A value of this shape and element type: reuse, derive or create."""
        shape = tuple(shape)
        rng = self.rng
        cands = [v for v in self.scope.all() if v.shape == shape and v.et == et]
        if cands and rng.random() < 0.8:
            # prefer recent values: chains
            if rng.random() < 0.6:
                return cands[-1]
            return rng.choice(cands)
        if et == "f32":
            # a low-precision value of that shape: extend it
            low = [v for v in self.scope.all() if v.shape == shape
                   and v.et in ("f16", "bf16")]
            if low and rng.random() < 0.7:
                src = rng.choice(low)
                v = Val(self.fresh(), shape, "f32")
                self.emit("%s = arith.extf %s : %s to %s" % (
                    v.name, src.name, src.type, v.type), [v])
                return v
            # slice of a bigger value of the same rank
            big = [v for v in self.scope.all() if v.et == "f32"
                   and len(v.shape) == len(shape)
                   and all(a >= b for a, b in zip(v.shape, shape))
                   and v.shape != shape]
            if big and rng.random() < 0.5:
                return self.slice_of(rng.choice(big), shape)
        r = rng.random()
        if r < 0.2 or not self.can_add_args:
            return self.const(shape, et, allow_big=not self.executable
                              or rng.random() < 0.3)
        if et == "f32" and r < 0.3 and self.cur_func.public:
            # mixed-precision input: an f16 / bf16 argument, extended
            low = self.arg(shape, rng.choice(["f16", "bf16"]))
            v = Val(self.fresh(), shape, "f32")
            self.emit("%s = arith.extf %s : %s to %s" % (
                v.name, low.name, low.type, v.type), [v])
            return v
        return self.arg(shape, et)

    def slice_of(self, src, shape):
        offs = [self.rng.randint(0, a - b) for a, b in zip(src.shape, shape)]
        v = Val(self.fresh(), shape, src.et)
        self.emit("%s = tensor.extract_slice %s[%s] [%s] [%s] : %s to %s" % (
            v.name, src.name, ", ".join(map(str, offs)),
            ", ".join(map(str, shape)), ", ".join("1" for _ in shape),
            src.type, v.type), [v])
        return v

    def any_f32(self, min_rank=0):
        vals = [v for v in self.scope.all() if v.et == "f32"
                and len(v.shape) >= min_rank]
        if vals and self.rng.random() < 0.85:
            if self.rng.random() < 0.6:
                return vals[-1]
            return self.rng.choice(vals)
        return self.need(self.shape(), "f32")

    def outs_for(self, shape):
        """An accumulator: zeros, or an existing value reused as `outs`."""
        cands = [v for v in self.scope.all() if v.shape == tuple(shape)
                 and v.et == "f32"]
        if cands and self.rng.random() < 0.25:
            return self.rng.choice(cands)
        return self.zeros(shape)

    # -- ops
    def op_matmul(self):
        rng = self.rng
        M, N, K = self.dim(), self.dim(), self.dim()
        src = self.any_f32(2) if rng.random() < 0.6 else None
        if src is not None and len(src.shape) == 2:
            M, K = src.shape
            a = src
        else:
            a = self.need((M, K))
        b = self.need((K, N))
        if rng.random() < 0.1:
            # mixed inputs: already low-precision operands
            et = rng.choice(["f16", "bf16"])
            a, b = self.trunc(a, et), self.trunc(b, et)
        c = self.outs_for((M, N))
        v = Val(self.fresh(), (M, N))
        self.emit("%s = linalg.matmul ins(%s, %s : %s, %s) outs(%s : %s) -> %s" % (
            v.name, a.name, b.name, a.type, b.type, c.name, c.type, v.type), [v])
        return v

    def op_batch_matmul(self):
        B, M, N, K = self.dim(8), self.dim(24), self.dim(24), self.dim(24)
        a = self.need((B, M, K))
        b = self.need((B, K, N))
        c = self.outs_for((B, M, N))
        v = Val(self.fresh(), (B, M, N))
        self.emit("%s = linalg.batch_matmul ins(%s, %s : %s, %s) outs(%s : %s) -> %s" % (
            v.name, a.name, b.name, a.type, b.type, c.name, c.type, v.type), [v])
        return v

    def op_matvec(self):
        M, N = self.dim(), self.dim()
        a = self.need((M, N))
        b = self.need((N,))
        c = self.outs_for((M,))
        v = Val(self.fresh(), (M,))
        self.emit("%s = linalg.matvec ins(%s, %s : %s, %s) outs(%s : %s) -> %s" % (
            v.name, a.name, b.name, a.type, b.type, c.name, c.type, v.type), [v])
        return v

    def op_conv(self):
        rng = self.rng
        kind = rng.random()
        nchw = kind < 0.4
        # Depthwise (MobileNet's): each channel with its own filter.
        depthwise = 0.4 <= kind < 0.55
        N, C, F = rng.randint(1, 2), self.dim(16), self.dim(16)
        KH, KW = rng.randint(1, 3), rng.randint(1, 3)
        s = rng.choice([1, 1, 2])
        H, W = rng.randint(KH, 12), rng.randint(KW, 12)
        OH, OW = (H - KH) // s + 1, (W - KW) // s + 1
        if depthwise and rng.random() < 0.5:
            x = self.need((N, C, H, W))
            w = self.need((C, KH, KW))
            oshape, name = (N, C, OH, OW), "depthwise_conv_2d_nchw_chw"
        elif depthwise:
            x = self.need((N, H, W, C))
            w = self.need((KH, KW, C))
            oshape, name = (N, OH, OW, C), "depthwise_conv_2d_nhwc_hwc"
        elif nchw:
            x = self.need((N, C, H, W))
            w = self.need((F, C, KH, KW))
            oshape, name = (N, F, OH, OW), "conv_2d_nchw_fchw"
        else:
            x = self.need((N, H, W, C))
            w = self.need((KH, KW, C, F))
            oshape, name = (N, OH, OW, F), "conv_2d_nhwc_hwcf"
        c = self.outs_for(oshape)
        v = Val(self.fresh(), oshape)
        self.emit(
            "%s = linalg.%s {dilations = dense<1> : tensor<2xi64>, strides = "
            "dense<%d> : tensor<2xi64>} ins(%s, %s : %s, %s) outs(%s : %s) -> %s" % (
                v.name, name, s, x.name, w.name, x.type, w.type, c.name,
                c.type, v.type), [v])
        return v

    def body_expr(self, args, et="f32"):
        """Lines of a scalar f32 expression over `args` (names); returns
        (lines, result name). Keeps values bounded where it matters."""
        rng = self.rng
        lines = []
        pool = list(args)

        def new():
            return self.fresh("x")

        for _ in range(rng.randint(1, 4)):
            k = rng.random()
            a = rng.choice(pool)
            b = rng.choice(pool)
            r = new()
            if k < 0.15:
                lines.append("%s = arith.addf %s, %s : f32" % (r, a, b))
            elif k < 0.25:
                lines.append("%s = arith.subf %s, %s : f32" % (r, a, b))
            elif k < 0.4:
                lines.append("%s = arith.mulf %s, %s : f32" % (r, a, b))
            elif k < 0.47:
                lines.append("%s = arith.maximumf %s, %s : f32" % (r, a, b))
            elif k < 0.52:
                lines.append("%s = arith.negf %s : f32" % (r, a))
            elif k < 0.62:
                lines.append("%s = math.tanh %s : f32" % (r, a))
            elif k < 0.7:
                t = new()
                lines.append("%s = math.tanh %s : f32" % (t, a))
                lines.append("%s = math.exp %s : f32" % (r, t))
            elif k < 0.78:
                t, o, d = new(), new(), new()
                lines.append("%s = math.absf %s : f32" % (t, b))
                lines.append("%s = arith.constant 1.0 : f32" % o)
                lines.append("%s = arith.addf %s, %s : f32" % (d, t, o))
                lines.append("%s = arith.divf %s, %s : f32" % (r, a, d))
            elif k < 0.84:
                t = new()
                lines.append("%s = math.absf %s : f32" % (t, a))
                lines.append("%s = math.sqrt %s : f32" % (r, t))
            elif k < 0.9:
                c, z = new(), new()
                lines.append("%s = arith.constant 0.0 : f32" % z)
                lines.append("%s = arith.cmpf ogt, %s, %s : f32" % (c, a, z))
                lines.append("%s = arith.select %s, %s, %s : f32" % (r, c, a, b))
            elif k < 0.95:
                # sigmoid: 1 / (1 + exp(-x))
                n, e, o, d = new(), new(), new(), new()
                lines.append("%s = arith.negf %s : f32" % (n, a))
                lines.append("%s = math.exp %s : f32" % (e, n))
                lines.append("%s = arith.constant 1.0 : f32" % o)
                lines.append("%s = arith.addf %s, %s : f32" % (d, o, e))
                lines.append("%s = arith.divf %s, %s : f32" % (r, o, d))
            else:
                c = new()
                val = (rng.choice(BIG_CONSTANTS) if not self.executable
                       and rng.random() < 0.3 else rng.choice([0.5, 2.0, -1.5]))
                lines.append("%s = arith.constant %s : f32" % (c, fmt_float(val)))
                lines.append("%s = arith.mulf %s, %s : f32" % (r, a, c))
            pool.append(r)
        return lines, pool[-1]

    def op_generic_ew(self):
        rng = self.rng
        x = self.any_f32(1)
        shape = x.shape
        rank = len(shape)
        ins = [x]
        maps = ["affine_map<(%s) -> (%s)>" % (
            ", ".join("d%d" % i for i in range(rank)),
            ", ".join("d%d" % i for i in range(rank)))]
        if rng.random() < 0.6:
            if rng.random() < 0.4 and rank >= 2:
                # broadcast operand over the trailing dims
                k = rng.randint(1, rank - 1)
                y = self.need(shape[k:])
                maps.append("affine_map<(%s) -> (%s)>" % (
                    ", ".join("d%d" % i for i in range(rank)),
                    ", ".join("d%d" % i for i in range(k, rank))))
            else:
                y = self.need(shape)
                maps.append(maps[0])
            ins.append(y)
        ident = maps[0]
        read_out = rng.random() < 0.2
        if read_out:
            out = self.outs_for(shape)
        else:
            out = self.empty(shape)
        maps.append(ident)
        bargs = [self.fresh("b") for _ in ins] + [self.fresh("b")]
        usable = bargs if read_out else bargs[:-1]
        lines, res = self.body_expr(usable)
        v = Val(self.fresh(), shape)
        parts = ["%s = linalg.generic {indexing_maps = [%s], iterator_types = [%s]} "
                 "ins(%s : %s) outs(%s : %s) {" % (
                     v.name, ", ".join(maps),
                     ", ".join('"parallel"' for _ in range(rank)),
                     ", ".join(i.name for i in ins),
                     ", ".join(i.type for i in ins), out.name, out.type),
                 "^bb0(%s):" % ", ".join("%s: f32" % b for b in bargs)]
        parts += ["  " + l for l in lines]
        parts += ["  linalg.yield %s : f32" % res, "} -> %s" % v.type]
        self.emit(parts, [v])
        return v

    def op_named_ew(self):
        rng = self.rng
        x = self.any_f32(1)
        kind = rng.choice(["add", "sub", "mul", "max", "min", "exp", "tanh",
                           "abs", "negf", "square", "div"])
        binary = kind in ("add", "sub", "mul", "max", "min", "div")
        ins = [x]
        if binary:
            y = self.need(x.shape)
            if kind == "div":
                # keep the denominator away from zero: exp(tanh(y))
                t = Val(self.fresh(), x.shape)
                self.emit("%s = math.tanh %s : %s" % (t.name, y.name, t.type), [t])
                y = Val(self.fresh(), x.shape)
                self.emit("%s = math.exp %s : %s" % (y.name, t.name, t.type), [y])
            ins.append(y)
        if kind == "exp":
            t = Val(self.fresh(), x.shape)
            self.emit("%s = math.tanh %s : %s" % (t.name, x.name, t.type), [t])
            ins = [t]
        out = self.empty(x.shape)
        v = Val(self.fresh(), x.shape)
        self.emit("%s = linalg.%s ins(%s : %s) outs(%s : %s) -> %s" % (
            v.name, kind, ", ".join(i.name for i in ins),
            ", ".join(i.type for i in ins), out.name, out.type, v.type), [v])
        return v

    def op_tensor_ew(self):
        rng = self.rng
        x = self.any_f32(0)
        kind = rng.choice(["arith.addf", "arith.mulf", "arith.subf",
                           "arith.maximumf", "math.tanh", "math.exp",
                           "math.absf", "arith.negf", "math.sqrt"])
        v = Val(self.fresh(), x.shape)
        if kind.startswith("arith.") and kind != "arith.negf":
            y = self.need(x.shape)
            self.emit("%s = %s %s, %s : %s" % (v.name, kind, x.name, y.name,
                                               v.type), [v])
        elif kind == "math.exp":
            t = Val(self.fresh(), x.shape)
            self.emit("%s = math.tanh %s : %s" % (t.name, x.name, t.type), [t])
            self.emit("%s = math.exp %s : %s" % (v.name, t.name, v.type), [v])
        elif kind == "math.sqrt":
            t = Val(self.fresh(), x.shape)
            self.emit("%s = math.absf %s : %s" % (t.name, x.name, t.type), [t])
            self.emit("%s = math.sqrt %s : %s" % (v.name, t.name, v.type), [v])
        else:
            self.emit("%s = %s %s : %s" % (v.name, kind, x.name, v.type), [v])
        return v

    def op_reduce(self):
        rng = self.rng
        x = self.any_f32(1)
        rank = len(x.shape)
        d = rng.randrange(rank)
        oshape = tuple(s for i, s in enumerate(x.shape) if i != d)
        kind = rng.choice(["addf", "addf", "maximumf", "mulf"])
        if kind == "mulf":
            init = self.const(oshape, "f32", 1.0, allow_big=False)
            # keep the product bounded
            t = Val(self.fresh(), x.shape)
            self.emit("%s = math.tanh %s : %s" % (t.name, x.name, t.type), [t])
            x = t
        elif kind == "maximumf":
            init = self.const(oshape, "f32", -1.0e30, allow_big=False) \
                if rng.random() < 0.5 else self.outs_for(oshape)
        else:
            init = self.outs_for(oshape)
        v = Val(self.fresh(), oshape)
        if rng.random() < 0.5:
            a, b = self.fresh("b"), self.fresh("b")
            r = self.fresh("x")
            self.emit([
                "%s = linalg.reduce ins(%s : %s) outs(%s : %s) dimensions = [%d]" % (
                    v.name, x.name, x.type, init.name, init.type, d),
                "  (%s: f32, %s: f32) {" % (a, b),
                "    %s = arith.%s %s, %s : f32" % (r, kind, a, b),
                "    linalg.yield %s : f32" % r,
                "  }"], [v])
        else:
            dims = ["d%d" % i for i in range(rank)]
            imap = "affine_map<(%s) -> (%s)>" % (", ".join(dims), ", ".join(dims))
            omap = "affine_map<(%s) -> (%s)>" % (
                ", ".join(dims), ", ".join(x for i, x in enumerate(dims) if i != d))
            its = ", ".join('"reduction"' if i == d else '"parallel"'
                            for i in range(rank))
            a, b = self.fresh("b"), self.fresh("b")
            r = self.fresh("x")
            self.emit([
                "%s = linalg.generic {indexing_maps = [%s, %s], iterator_types = [%s]} "
                "ins(%s : %s) outs(%s : %s) {" % (
                    v.name, imap, omap, its, x.name, x.type, init.name, init.type),
                "^bb0(%s: f32, %s: f32):" % (a, b),
                "  %s = arith.%s %s, %s : f32" % (r, kind, a, b),
                "  linalg.yield %s : f32" % r,
                "} -> %s" % v.type], [v])
        return v

    def op_softmax(self):
        if self.executable:
            # convert-linalg-to-loops does not lower linalg.softmax
            return self.op_reduce()
        x = self.any_f32(1)
        d = self.rng.randrange(len(x.shape))
        out = self.empty(x.shape)
        v = Val(self.fresh(), x.shape)
        self.emit("%s = linalg.softmax dimension(%d) ins(%s : %s) outs(%s : %s) -> %s" % (
            v.name, d, x.name, x.type, out.name, out.type, v.type), [v])
        return v

    def op_tensor(self):
        rng = self.rng
        x = self.any_f32(1)
        rank = len(x.shape)
        k = rng.choice(["slice", "insert", "expand", "collapse", "pad",
                        "concat", "cast", "transpose", "broadcast"])
        if k == "slice":
            shape = tuple(rng.randint(1, s) for s in x.shape)
            return self.slice_of(x, shape)
        if k == "insert":
            shape = tuple(rng.randint(1, s) for s in x.shape)
            small = self.need(shape)
            offs = [rng.randint(0, a - b) for a, b in zip(x.shape, shape)]
            v = Val(self.fresh(), x.shape)
            self.emit("%s = tensor.insert_slice %s into %s[%s] [%s] [%s] : %s into %s" % (
                v.name, small.name, x.name, ", ".join(map(str, offs)),
                ", ".join(map(str, shape)), ", ".join("1" for _ in shape),
                small.type, x.type), [v])
            return v
        if k == "expand" and rank <= 3:
            i = rng.randrange(rank)
            n = x.shape[i]
            divs = [f for f in range(1, n + 1) if n % f == 0]
            f = rng.choice(divs)
            nshape = x.shape[:i] + (f, n // f) + x.shape[i + 1:]
            reass, j = [], 0
            for q in range(rank):
                if q == i:
                    reass.append([j, j + 1])
                    j += 2
                else:
                    reass.append([j])
                    j += 1
            v = Val(self.fresh(), nshape)
            self.emit("%s = tensor.expand_shape %s %s output_shape [%s] : %s into %s" % (
                v.name, x.name, reass, ", ".join(map(str, nshape)), x.type,
                v.type), [v])
            return v
        if k == "collapse" and rank >= 2:
            i = rng.randrange(rank - 1)
            nshape = x.shape[:i] + (x.shape[i] * x.shape[i + 1],) + x.shape[i + 2:]
            reass, j = [], 0
            for q in range(rank - 1):
                if q == i:
                    reass.append([j, j + 1])
                    j += 2
                else:
                    reass.append([j])
                    j += 1
            v = Val(self.fresh(), nshape)
            self.emit("%s = tensor.collapse_shape %s %s : %s into %s" % (
                v.name, x.name, reass, x.type, v.type), [v])
            return v
        if k == "pad":
            lo = [rng.randint(0, 2) for _ in range(rank)]
            hi = [rng.randint(0, 2) for _ in range(rank)]
            nshape = tuple(s + a + b for s, a, b in zip(x.shape, lo, hi))
            v = Val(self.fresh(), nshape)
            val = rng.choice([0.0, 0.0, 1.0, -2.0])
            c = self.fresh("s")
            idx = [self.fresh("i") for _ in range(rank)]
            self.emit([
                "%s = arith.constant %s : f32" % (c, fmt_float(val)),
                "%s = tensor.pad %s low[%s] high[%s] {" % (
                    v.name, x.name, ", ".join(map(str, lo)), ", ".join(map(str, hi))),
                "^bb0(%s):" % ", ".join("%s: index" % i for i in idx),
                "  tensor.yield %s : f32" % c,
                "} : %s to %s" % (x.type, v.type)], [v])
            return v
        if k == "concat":
            d = rng.randrange(rank)
            oshape = list(x.shape)
            oshape[d] = self.dim(16)
            y = self.need(tuple(oshape))
            nshape = list(x.shape)
            nshape[d] += oshape[d]
            v = Val(self.fresh(), tuple(nshape))
            self.emit("%s = tensor.concat dim(%d) %s, %s : (%s, %s) -> %s" % (
                v.name, d, x.name, y.name, x.type, y.type, v.type), [v])
            return v
        if k == "cast":
            dshape = "x".join("?" if rng.random() < 0.5 else str(s) for s in x.shape)
            dyn = self.fresh()
            v = Val(self.fresh(), x.shape)
            self.emit(["%s = tensor.cast %s : %s to tensor<%sxf32>" % (
                dyn, x.name, x.type, dshape),
                "%s = tensor.cast %s : tensor<%sxf32> to %s" % (
                    v.name, dyn, dshape, v.type)], [v])
            return v
        if k == "transpose" and rank >= 2:
            perm = list(range(rank))
            rng.shuffle(perm)
            nshape = tuple(x.shape[p] for p in perm)
            out = self.empty(nshape)
            v = Val(self.fresh(), nshape)
            self.emit("%s = linalg.transpose ins(%s : %s) outs(%s : %s) permutation = %s" % (
                v.name, x.name, x.type, out.name, out.type, perm), [v])
            return v
        if k == "broadcast" and rank <= 2:
            b = self.dim(8)
            nshape = (b,) + x.shape
            out = self.empty(nshape)
            v = Val(self.fresh(), nshape)
            self.emit("%s = linalg.broadcast ins(%s : %s) outs(%s : %s) dimensions = [0]" % (
                v.name, x.name, x.type, out.name, out.type), [v])
            return v
        return self.slice_of(x, tuple(rng.randint(1, s) for s in x.shape))

    def trunc(self, x, et):
        v = Val(self.fresh(), x.shape, et)
        self.emit("%s = arith.truncf %s : %s to %s" % (v.name, x.name, x.type,
                                                      v.type), [v])
        return v

    def op_cast(self):
        rng = self.rng
        x = self.any_f32(0)
        et = rng.choice(["f16", "bf16"])
        t = self.trunc(x, et)
        if rng.random() < 0.4:
            u = Val(self.fresh(), x.shape, et)
            fn = rng.choice(["math.tanh", "math.absf", "arith.negf"])
            self.emit("%s = %s %s : %s" % (u.name, fn, t.name, u.type), [u])
            t = u
        if rng.random() < 0.6:
            v = Val(self.fresh(), x.shape)
            self.emit("%s = arith.extf %s : %s to %s" % (v.name, t.name, t.type,
                                                        v.type), [v])
            return v
        return t

    def op_scalar(self):
        """extract a scalar, compute on it, fill a tensor with it."""
        x = self.any_f32(1)
        idx = [self.rng.randrange(s) for s in x.shape]
        cs = [self.fresh("c") for _ in idx]
        s, m, sc = self.fresh("s"), self.fresh("s"), self.fresh("s")
        shape = self.shape(self.rng.choice([1, 2]))
        e = self.fresh()
        v = Val(self.fresh(), shape)
        lines = ["%s = arith.constant %d : index" % (c, i) for c, i in zip(cs, idx)]
        lines += ["%s = tensor.extract %s[%s] : %s" % (s, x.name, ", ".join(cs), x.type),
                  "%s = arith.constant 0.5 : f32" % sc,
                  "%s = arith.mulf %s, %s : f32" % (m, s, sc),
                  "%s = tensor.empty() : %s" % (e, v.type),
                  "%s = linalg.fill ins(%s : f32) outs(%s : %s) -> %s" % (
                      v.name, m, e, v.type, v.type)]
        self.emit(lines, [v])
        return v

    # -- control flow
    def sub_block(self, n, yield_shapes, extra=()):
        """Generate up to n ops in a nested scope; returns (ops, yields)."""
        saved_body, saved_scope = self.cur_body, self.scope
        self.cur_body = []
        self.scope = Scope(saved_scope)
        for v in extra:
            self.scope.vals.append(v)
        self.depth += 1
        for _ in range(n):
            self.random_op()
        ys = []
        for sh in yield_shapes:
            loc = [v for v in self.scope.vals if v.shape == sh and v.et == "f32"]
            ys.append(loc[-1] if loc else self.need(sh))
        self.depth -= 1
        ops = self.cur_body
        self.cur_body, self.scope = saved_body, saved_scope
        return ops, ys

    def op_for(self):
        rng = self.rng
        init = self.any_f32(1)
        T = init.type
        n = rng.randint(1, 3)
        lb, ub, st = self.fresh("c"), self.fresh("c"), self.fresh("c")
        iv = self.fresh("i")
        acc = Val(self.fresh("acc"), init.shape)
        ops, ys = self.sub_block(rng.randint(1, 4), [init.shape], extra=[acc])
        v = Val(self.fresh(), init.shape)
        parts = ["%s = arith.constant 0 : index" % lb,
                 "%s = arith.constant %d : index" % (ub, n),
                 "%s = arith.constant 1 : index" % st,
                 "%s = scf.for %s = %s to %s step %s iter_args(%s = %s) -> (%s) {" % (
                     v.name, iv, lb, ub, st, acc.name, init.name, T),
                 Region(ops, "scf.yield %s : %s" % (ys[0].name, T)),
                 "}"]
        self.emit(parts, [v])
        return v

    def op_if(self):
        rng = self.rng
        x = self.any_f32(1)
        shape = self.shape() if rng.random() < 0.5 else x.shape
        idx = [0] * len(x.shape)
        cs = self.fresh("c")
        s, z, c = self.fresh("s"), self.fresh("s"), self.fresh("s")
        ops1, y1 = self.sub_block(rng.randint(0, 3), [shape])
        ops2, y2 = self.sub_block(rng.randint(0, 3), [shape])
        v = Val(self.fresh(), shape)
        T = v.type
        parts = ["%s = arith.constant 0 : index" % cs,
                 "%s = tensor.extract %s[%s] : %s" % (s, x.name,
                                                       ", ".join(cs for _ in idx), x.type),
                 "%s = arith.constant 0.0 : f32" % z,
                 "%s = arith.cmpf ogt, %s, %s : f32" % (c, s, z),
                 "%s = scf.if %s -> (%s) {" % (v.name, c, T),
                 Region(ops1, "scf.yield %s : %s" % (y1[0].name, T)),
                 "} else {",
                 Region(ops2, "scf.yield %s : %s" % (y2[0].name, T)),
                 "}"]
        self.emit(parts, [v])
        return v

    def op_call(self):
        rng = self.rng
        if self.depth > 0 or self.in_helper:
            return self.op_tensor_ew()
        kinds = ["private", "private", "public"]
        if not self.executable:
            kinds.append("decl")
        kind = rng.choice(kinds)
        # reuse an existing callee sometimes (several call sites)
        existing = [f for f in self.helpers if (f.decl and kind == "decl") or
                    (not f.decl and f.public == (kind == "public"))]
        if existing and rng.random() < 0.5:
            f = rng.choice(existing)
        else:
            f = self.make_helper(kind)
        ops = []
        for t in f.arg_types():
            shape, et = parse_type(t)
            ops.append(self.need(shape, et))
        rts = f.result_types()
        outs = []
        for t in rts:
            shape, et = parse_type(t)
            outs.append(Val(self.fresh(), shape, et))
        lhs = ", ".join(v.name for v in outs)
        sig = "(%s) -> %s" % (", ".join(f.arg_types()),
                              rts[0] if len(rts) == 1 else "(" + ", ".join(rts) + ")")
        self.emit("%s%s = func.call @%s(%s) : %s" % (
            lhs, "" if lhs == "" else "", f.name, ", ".join(o.name for o in ops), sig)
            if not outs else
            "%s = func.call @%s(%s) : %s" % (lhs, f.name,
                                             ", ".join(o.name for o in ops), sig),
            outs)
        return outs[0] if outs else None

    def make_helper(self, kind):
        rng = self.rng
        name = "h%d" % (len(self.helpers))
        f = Func(name, public=(kind == "public"), decl=(kind == "decl"))
        if kind == "decl":
            sh = self.shape(2)
            ets = [rng.choice(["f32", "f32", "f16"]) for _ in range(rng.randint(1, 2))]
            f.decl_sig = ([ttype(sh, e) for e in ets],
                          [ttype(sh, rng.choice(["f32", "f32", "f16"]))])
        else:
            self.build_func(f, rng.randint(1, 5), helper=True)
        self.helpers.append(f)
        self.mod.funcs.append(f)
        return f

    # -- functions
    OPS = [("matmul", 10), ("batch_matmul", 3), ("matvec", 3), ("conv", 4),
           ("generic_ew", 10), ("named_ew", 6), ("tensor_ew", 8),
           ("reduce", 5), ("softmax", 3), ("tensor", 12), ("cast", 5),
           ("scalar", 2), ("for", 3), ("if", 3), ("call", 4)]

    def random_op(self):
        names = [n for n, w in self.OPS for _ in range(w)]
        k = self.rng.choice(names)
        if self.depth >= 2 and k in ("for", "if"):
            k = "generic_ew"
        return getattr(self, "op_" + k)()

    def build_func(self, f, nops, helper=False):
        saved = (getattr(self, "cur_func", None), getattr(self, "cur_body", None),
                 getattr(self, "scope", None), getattr(self, "in_helper", False),
                 getattr(self, "can_add_args", True), self.depth)
        self.cur_func, self.cur_body, self.scope = f, f.body, Scope()
        self.in_helper, self.can_add_args, self.depth = helper, True, 0
        # start from one or two arguments
        for _ in range(self.rng.randint(1, 2)):
            self.arg(self.shape(self.rng.choice([1, 2, 2, 3])))
        last = None
        for _ in range(nops):
            r = self.random_op()
            if r is not None:
                last = r
        produced = [v for v in self.scope.vals if v not in f.args]
        if last is None and produced:
            last = produced[-1]
        res = []
        if last is not None:
            res.append(last)
        extra = [v for v in produced if v is not last]
        self.rng.shuffle(extra)
        for v in extra[:self.rng.randint(0, 2)]:
            res.append(v)
        if not res:
            res = [f.args[0]]
        if self.executable and f.public and not helper:
            res = [v for v in res] or [f.args[0]]
        f.results = res
        (self.cur_func, self.cur_body, self.scope, self.in_helper,
         self.can_add_args, self.depth) = saved

    def module(self):
        rng = self.rng
        nf = rng.choice([1, 1, 1, 2, 3])
        publics = []
        for i in range(nf):
            f = Func("f%d" % i, public=True)
            self.build_func(f, self.max_ops or rng.randint(2, 14))
            publics.append(f)
        # helpers were appended while building; publics go first
        self.mod.funcs = publics + self.mod.funcs
        self.mod.entry = "f0"
        return self.mod


# ---------------------------------------------------------------- execution

def main_for(mod):
    """Text of a @main that fills the entry's arguments deterministically,
    calls it and prints every result with printMemrefF32."""
    f = mod.func(mod.entry)
    return main_for_signature(f.name, f.arg_types(), f.result_types())


def signature_in(text, name):
    """(arg types, result types) of func.func @name in printed IR."""
    m = re.search(r"func\.func @%s\((.*?)\)(?: -> (\(.*?\)|tensor<[^>]*>))? \{"
                  % re.escape(name), text)
    if m is None:
        return None
    args = re.findall(r"tensor<[^>]*>", m.group(1))
    res = re.findall(r"tensor<[^>]*>", m.group(2) or "")
    return args, res


def main_for_signature(name, arg_types, result_types, round_to=None):
    """Text of a @main that fills arguments of `arg_types` deterministically,
    calls @name and prints every result with printMemrefF32. With
    `round_to` ("f16" or "bf16"), the f32 arguments get values of that
    type (rounded, then widened back)."""
    class F:
        pass
    f = F()
    f.name = name
    f.args = [Val("", *parse_type(t)) for t in arg_types]
    f.result_types = lambda: list(result_types)
    lines = ["func.func @main() {"]
    n = [0]

    def fresh():
        n[0] += 1
        return "%%m%d" % n[0]

    args = []
    for k, a in enumerate(f.args):
        shape, et = a.shape, a.et
        rank = len(shape)
        t32 = ttype(shape, "f32")
        e = fresh()
        lines.append("  %s = tensor.empty() : %s" % (e, t32))
        v = fresh()
        dims = ", ".join("d%d" % i for i in range(rank))
        lines.append("  %s = linalg.generic {indexing_maps = [affine_map<(%s) -> (%s)>], "
                     "iterator_types = [%s]} outs(%s : %s) {" % (
                         v, dims, dims, ", ".join('"parallel"' for _ in range(rank)),
                         e, t32))
        lines.append("  ^bb0(%mo: f32):")
        acc = "%mk"
        lines.append("    %%mk = arith.constant %s : f32" % fmt_float(0.3 + 0.17 * k))
        coefs = [0.37, 0.71, 0.13, 0.29]
        for i in range(rank):
            lines.append("    %%mi%d = linalg.index %d : index" % (i, i))
            lines.append("    %%mj%d = arith.index_cast %%mi%d : index to i32" % (i, i))
            lines.append("    %%mf%d = arith.sitofp %%mj%d : i32 to f32" % (i, i))
            lines.append("    %%mc%d = arith.constant %s : f32" % (i, fmt_float(coefs[i] + 0.05 * k)))
            lines.append("    %%mm%d = arith.mulf %%mf%d, %%mc%d : f32" % (i, i, i))
            lines.append("    %%ma%d = arith.addf %s, %%mm%d : f32" % (i, acc, i))
            acc = "%%ma%d" % i
        lines.append("    %%ms = math.sin %s : f32" % acc)
        lines.append("    %mh = arith.constant 0.5 : f32")
        lines.append("    %mr = arith.mulf %ms, %mh : f32")
        lines.append("    linalg.yield %mr : f32")
        lines.append("  } -> %s" % t32)
        if et != "f32":
            w = fresh()
            lines.append("  %s = arith.truncf %s : %s to %s" % (w, v, t32, a.type))
            v = w
        elif round_to is not None:
            low, w = fresh(), fresh()
            lowt = ttype(shape, round_to)
            lines.append("  %s = arith.truncf %s : %s to %s" % (low, v, t32, lowt))
            lines.append("  %s = arith.extf %s : %s to %s" % (w, low, lowt, t32))
            v = w
        args.append((v, a.type))
    rts = f.result_types()
    res = [fresh() for _ in rts]
    sig = "(%s) -> %s" % (", ".join(t for _, t in args),
                          rts[0] if len(rts) == 1 else "(" + ", ".join(rts) + ")")
    lines.append("  %s = func.call @%s(%s) : %s" % (
        ", ".join(res), f.name, ", ".join(v for v, _ in args), sig))
    for r, t in zip(res, rts):
        m = re.match(r"tensor<(.*)x(f32|f16|bf16)>", t)
        if m is None:  # rank 0
            et = re.match(r"tensor<(\w+)>", t).group(1)
            shape = ""
        else:
            et, shape = m.group(2), m.group(1) + "x"
        if et != "f32":
            w = fresh()
            lines.append("  %s = arith.extf %s : %s to tensor<%sf32>" % (w, r, t, shape))
            r = w
        u = fresh()
        lines.append("  %s = tensor.cast %s : tensor<%sf32> to tensor<*xf32>" % (u, r, shape))
        lines.append("  func.call @printMemrefF32(%s) : (tensor<*xf32>) -> ()" % u)
    lines.append("  return")
    lines.append("}")
    lines.append("func.func private @printMemrefF32(tensor<*xf32>)")
    return "\n".join(lines) + "\n"


def with_main(module_text, main_text):
    """Insert @main before the last closing brace of the module."""
    i = module_text.rstrip().rfind("}")
    return module_text[:i] + main_text + "}\n"
