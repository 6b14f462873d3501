"""Generator ops that compute: contractions, elementwise ops, reductions and
softmax (a mixin of irgen.Generator; standard library only)."""

from irtext import Val, fmt_float

BIG_CONSTANTS = [1.0e6, 70000.0, -3.0e5, 65520.0]


class ComputeOps:
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
