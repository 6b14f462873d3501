"""Random well-formed MLIR modules for fuzzing amp-opt (standard library only).

The IR model (`Func`s of `Op`s, rendered text plus the values each op
defines) is in irtext.py, the ops the generator draws in gen_compute.py and
gen_structure.py, the @main that runs a module in irmain.py.

    gen = Generator(seed, executable=False)
    mod = gen.module()
    text = mod.render()

The same seed always gives the same module (and the same configuration, see
amp_fuzz.py). Shapes are static and small (dims 1..64) so that executing a
module is cheap.
"""

import random

from gen_compute import BIG_CONSTANTS, ComputeOps
from gen_structure import StructureOps
from irtext import Func, Module, Op, Scope, Val, fmt_float


class Generator(ComputeOps, StructureOps):
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
