"""Generator ops that move and structure data: tensor ops, casts, scalars,
scf.for / scf.if regions and calls (a mixin of irgen.Generator; standard
library only)."""

from irtext import Func, Region, Scope, Val, fmt_float, parse_type, ttype


class StructureOps:
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
