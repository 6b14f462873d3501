#!/usr/bin/env python3
"""Emit f32 training steps (forward, loss, hand-written backward, optimizer)
of reference models as MLIR, with the markers and `amp.role` attributes of
docs/training-step.md, at any size.

Models (--model):
  mlp          dense layers + ReLU, then a dense output layer
  cnn          [conv KxK (linalg.conv_2d_nhwc_hwcf, valid) + bias + ReLU] x N,
               2x2 max pool (linalg.pooling_nhwc_max), flatten, dense
  transformer  one pre-LN block: LN -> multi-head self-attention (scaled dot
               product, softmax) -> residual -> LN -> GELU (tanh) MLP ->
               residual, then mean-pool over the sequence and a dense head

Heads (--head): `classifier` (softmax cross-entropy written out, one-hot
labels; an eval function @predict is emitted too) or `regression` (mean
squared error). Optimizers (--optimizer): sgd, momentum (v' = mu v + g,
w' = w - lr v'), adam (bias-corrected; its step count is an opt_state
scalar). The backward pass starts at `amp.grad_seed %loss`, every weight
gradient goes through `amp.param_grad`, every state write (weights, optimizer
buffers) through `amp.state_update`. `--no-markers` emits the marker-free
program that amp-strip-markers makes of it (seed = constant ones, the other
markers replaced by their value).

The step function is

  @train_step(x {input}, y {label}, params... {param}, states... {opt_state})
      -> (loss {loss}, new params... {update}, new states... {update})

with `amp.updates = <argument index>` on every update. docs/examples.md
describes the models, the flags and how the gradients were checked.

Usage:
  tools/gen-model.py --model mlp --optimizer momentum > step.mlir
  tools/gen-model.py --model cnn --image 8x8 --filters 8 --conv-layers 2
  tools/gen-model.py --model transformer --seq 16 --dmodel 32 --heads 4
  tools/gen-model.py --model mlp --no-markers --driver     # + @main that runs
                                    # one step on deterministic inputs
  tools/gen-model.py --model mlp --describe                # JSON summary

Testing aids (see test/Examples/gradcheck.py): `--driver` adds @main (for
mlir-runner, needs --no-markers) which prints the loss, w - w' of every
parameter, every optimizer state s before and after the step (and, for
momentum buffers and Adam first moments, s' - mu s or s' - beta1 s: the
gradient up to a factor) and, for the `--probe P:I` list (element I, flat
row-major, of parameter P), the central finite differences
(L(w + eps e_I) - L(w - eps e_I)) / (2 eps) of the loss, then the
differences (forward - backward) of the one-sided ones, which are large
where a ReLU or max-pool kink lies within eps. `--dtype f64` emits the same
program in f64; `--inject-bug` a deliberately wrong backward pass.

Standard library only.
"""

import argparse
import json
import math
import re
import struct
import sys

FT = "f32"  # element type of every float tensor (--dtype)
BUG = None  # --inject-bug: a deliberately wrong backward (negative controls)
BUGS = ["relu-mask", "pool-mask", "conv-flip", "softmax-grad", "ln-grad",
        "gelu-grad", "xent-grad"]


def flit(v):
    """A float literal MLIR parses for FT (repr is shortest round-trip)."""
    v = float(v)
    if FT == "f32" and not math.isinf(v) and v == v:
        # the shortest decimal that denotes the same f32 value
        f = struct.unpack("f", struct.pack("f", v))[0]
        for digits in range(1, 10):
            s = "%.*g" % (digits, v)
            if struct.unpack("f", struct.pack("f", float(s)))[0] == f:
                v = float(s)
                break
    if math.isinf(v):
        if FT == "f32":
            return "0xFF800000" if v < 0 else "0x7F800000"
        return "0xFFF0000000000000" if v < 0 else "0x7FF0000000000000"
    s = repr(v)
    mant, e, exp = s.partition("e")
    if "." not in mant:
        mant += ".0"
    return mant + e + exp


def ttype(shape, elt=None):
    elt = elt or FT
    if not shape:
        return "tensor<%s>" % elt
    return "tensor<%sx%s>" % ("x".join(str(d) for d in shape), elt)


def prod(xs):
    r = 1
    for x in xs:
        r *= x
    return r


class T:
    """A tensor SSA value and its static shape."""

    def __init__(self, name, shape):
        self.name = name
        self.shape = tuple(shape)

    @property
    def type(self):
        return ttype(self.shape)

    def __repr__(self):
        return self.name


class Module:
    def __init__(self):
        self.maps = {}  # affine_map text -> alias
        self.funcs = []
        self.decls = []

    def map(self, dims, exprs):
        # name the dims d0, d1, ... so that equal maps share an alias
        ren = {d: "d%d" % i for i, d in enumerate(dims)}
        exprs = [re.sub(r"\b[A-Za-z_]\w*\b",
                        lambda m: ren.get(m.group(0), m.group(0)), e)
                 for e in exprs]
        text = "affine_map<(%s) -> (%s)>" % (", ".join(ren[d] for d in dims),
                                             ", ".join(exprs))
        if text not in self.maps:
            self.maps[text] = "#map%d" % len(self.maps)
        return self.maps[text]

    def text(self, header):
        out = list(header)
        out.append("")
        for text, alias in self.maps.items():
            out.append("%s = %s" % (alias, text))
        for f in self.funcs:
            out.append("")
            out.extend(f)
        if self.decls:
            out.append("")
            out.extend(self.decls)
        return "\n".join(out) + "\n"


class Body:
    """Builds the scalar region of a linalg.generic / linalg.reduce."""

    def __init__(self, fn):
        self.fn = fn
        self.lines = []
        self.n = 0

    def _new(self):
        name = "%%r%d" % self.n
        self.n += 1
        return name

    def op(self, opname, *operands, ty=None):
        r = self._new()
        self.lines.append("%s = %s %s : %s" % (r, opname, ", ".join(operands),
                                              ty or FT))
        return r

    def c(self, v, hint=None):
        return self.fn.c(v, hint)

    def add(self, a, b):
        return self.op("arith.addf", a, b)

    def sub(self, a, b):
        return self.op("arith.subf", a, b)

    def mul(self, a, b):
        return self.op("arith.mulf", a, b)

    def div(self, a, b):
        return self.op("arith.divf", a, b)

    def max(self, a, b):
        return self.op("arith.maximumf", a, b)

    def exp(self, a):
        return self.op("math.exp", a)

    def tanh(self, a):
        return self.op("math.tanh", a)

    def sqrt(self, a):
        return self.op("math.sqrt", a)

    def cmp(self, pred, a, b):
        r = self._new()
        self.lines.append("%s = arith.cmpf %s, %s, %s : %s"
                          % (r, pred, a, b, FT))
        return r

    def select(self, c, a, b):
        r = self._new()
        self.lines.append("%s = arith.select %s, %s, %s : %s"
                          % (r, c, a, b, FT))
        return r

    def raw(self, line):
        self.lines.append(line)


RESERVED = re.compile(r"^(p\d+|r\d+|acc|out|in|fd_acc|kink_acc)$")


class Func:
    """Emits one func.func: unique SSA names, hoisted constants, tensor ops."""

    def __init__(self, mod, name, markers=True):
        self.mod = mod
        self.name = name
        self.markers = markers
        self.used = set()
        self.consts = {}
        self.const_lines = []
        self.lines = []
        self.args = []     # (T, attr text or None)
        self.results = []  # (T, attr text or None)

    # ----------------------------------------------------------- plumbing
    def fresh(self, hint):
        hint = re.sub(r"[^A-Za-z0-9_]", "_", hint)
        name, n = hint, 0
        while name in self.used or RESERVED.match(name):
            n += 1
            name = "%s_%d" % (hint, n)
        self.used.add(name)
        return "%" + name

    def emit(self, line):
        self.lines.append("  " + line)

    def comment(self, text):
        self.lines.append("  // " + text)

    def blank(self):
        self.lines.append("")

    def arg(self, hint, shape, attrs=None):
        v = T(self.fresh(hint), shape)
        self.args.append((v, attrs))
        return v

    def ret(self, v, attrs=None):
        self.results.append((v, attrs))

    def c(self, value, hint=None):
        """A scalar FT constant, defined once at the top of the function."""
        key = ("f", flit(value), hint)
        if key not in self.consts:
            if hint is None:
                hint = {0.0: "zero", 1.0: "one"}.get(float(value), "cst")
                if math.isinf(value) and value < 0:
                    hint = "ninf"
            name = self.fresh(hint)
            self.consts[key] = name
            self.const_lines.append("  %s = arith.constant %s : %s"
                                    % (name, flit(value), FT))
        return self.consts[key]

    def splat(self, value, shape, hint="cst"):
        """A dense splat FT tensor constant, defined once at the top."""
        key = ("t", flit(value), tuple(shape))
        if key not in self.consts:
            name = self.fresh(hint)
            self.consts[key] = T(name, shape)
            self.const_lines.append("  %s = arith.constant dense<%s> : %s"
                                    % (name, flit(value), ttype(shape)))
        return self.consts[key]

    def ci(self, n):
        key = ("i", n)
        if key not in self.consts:
            name = self.fresh("c%d" % n)
            self.consts[key] = name
            self.const_lines.append("  %s = arith.constant %d : index"
                                    % (name, n))
        return self.consts[key]

    private = False
    extra_args = ()
    results_text = None

    def finish(self):
        def sig(v, attrs):
            return "%s%s" % (v.type, " {%s}" % attrs if attrs else "")
        out = []
        head = "func.func %s@%s" % ("private " if self.private else "",
                                    self.name)
        if self.results_text:
            # a helper that writes its own return
            args = ["%s: %s" % (v.name, v.type) for v, _ in self.args]
            args += list(self.extra_args)
            out.append("%s(%s)" % (head, ", ".join(args)))
            out.append("    -> %s {" % self.results_text)
            out.extend(self.const_lines)
            out.extend(self.lines)
            out.append("}")
            self.mod.funcs.append(out)
            return
        if self.args:
            args = ["%s: %s" % (v.name, sig(v, a)) for v, a in self.args]
            out.append("%s(" % head)
            for i, a in enumerate(args):
                out.append("    %s%s" % (a, "," if i + 1 < len(args) else ")"))
        else:
            out.append("%s()" % head)
        if self.results:
            res = [sig(v, a) for v, a in self.results]
            if len(res) == 1 and not self.results[0][1]:
                out[-1] += " -> %s {" % res[0]
            else:
                out.append("    -> (")
                for i, r in enumerate(res):
                    out.append("        %s%s" % (r, "," if i + 1 < len(res)
                                                 else ") {"))
        else:
            out[-1] += " {"
        out.extend(self.const_lines)
        out.extend(self.lines)
        if self.results:
            out.append("  return %s" % ", ".join(v.name for v, _ in
                                                 self.results))
            out.append("      : %s" % ", ".join(v.type for v, _ in
                                                self.results))
        else:
            out.append("  return")
        out.append("}")
        self.mod.funcs.append(out)

    # ---------------------------------------------------------- tensor ops
    def empty(self, shape, hint="e"):
        r = T(self.fresh(hint), shape)
        self.emit("%s = tensor.empty() : %s" % (r, r.type))
        return r

    def full(self, value, shape, hint="init"):
        e = self.empty(shape, "e_" + hint)
        r = T(self.fresh(hint), shape)
        self.emit("%s = linalg.fill ins(%s : %s) outs(%s : %s) -> %s"
                  % (r, self.c(value), FT, e, e.type, r.type))
        return r

    def generic(self, hint, space, ins, out, body, init=None):
        """linalg.generic over the loops `space` = [(dim, size)...].

        ins: [(T, [index expr per operand dim])]; out: index exprs of the
        result (plain dims; the others are reduction loops); body(b, *ins,
        out) returns the yielded value; init: None (tensor.empty), a float
        (filled) or a T."""
        dims = [d for d, _ in space]
        size = dict(space)
        for v, ex in ins:
            assert len(ex) == len(v.shape), (hint, v, ex)
        shape = tuple(size[e] for e in out)
        if init is None:
            init = self.empty(shape, "e_" + hint)
        elif not isinstance(init, T):
            init = self.full(init, shape, "init_" + hint)
        assert init.shape == shape
        maps = [self.mod.map(dims, ex) for _, ex in ins]
        maps.append(self.mod.map(dims, out))
        its = ", ".join('"parallel"' if d in out else '"reduction"'
                        for d in dims)
        red = any(d not in out for d in dims)
        b = Body(self)
        pnames = ["%%p%d" % i for i in range(len(ins))]
        oname = "%acc" if red else "%out"
        y = body(b, *(pnames + [oname]))
        r = T(self.fresh(hint), shape)
        self.emit("%s = linalg.generic {indexing_maps = [%s], "
                  "iterator_types = [%s]}" % (r, ", ".join(maps), its))
        if ins:
            self.emit("    ins(%s : %s)" % (", ".join(v.name for v, _ in ins),
                                            ", ".join(v.type for v, _ in ins)))
        self.emit("    outs(%s : %s) {" % (init, init.type))
        self.emit("^bb0(%s):" % ", ".join("%s: %s" % (p, FT)
                                          for p in pnames + [oname]))
        for ln in b.lines:
            self.emit("  " + ln)
        self.emit("  linalg.yield %s : %s" % (y, FT))
        self.emit("} -> %s" % r.type)
        return r

    def reduce_sum(self, x, dims, hint):
        shape = tuple(s for i, s in enumerate(x.shape) if i not in dims)
        init = self.full(0.0, shape, "init_" + hint)
        r = T(self.fresh(hint), shape)
        self.emit("%s = linalg.reduce ins(%s : %s) outs(%s : %s)"
                  % (r, x, x.type, init, init.type))
        self.emit("    dimensions = [%s]" % ", ".join(str(d) for d in dims))
        self.emit("    (%%in: %s, %%acc: %s) {" % (FT, FT))
        self.emit("      %%r0 = arith.addf %%in, %%acc : %s" % FT)
        self.emit("      linalg.yield %%r0 : %s" % FT)
        self.emit("    }")
        return r

    def ew(self, op, a, b, hint):
        """Element-wise arith op on two tensors of one shape."""
        assert a.shape == b.shape, (op, a, b)
        r = T(self.fresh(hint), a.shape)
        self.emit("%s = %s %s, %s : %s" % (r, op, a, b, r.type))
        return r

    def powf(self, a, b, hint):
        r = T(self.fresh(hint), a.shape)
        self.emit("%s = math.powf %s, %s : %s" % (r, a, b, r.type))
        return r

    def unary(self, op, a, hint):
        r = T(self.fresh(hint), a.shape)
        self.emit("%s = %s %s : %s" % (r, op, a, r.type))
        return r

    def matmul(self, a, b, hint):
        (m, k), (k2, n) = a.shape, b.shape
        assert k == k2, (a, b)
        acc = self.full(0.0, (m, n), "acc_" + hint)
        r = T(self.fresh(hint), (m, n))
        self.emit("%s = linalg.matmul ins(%s, %s : %s, %s)"
                  % (r, a, b, a.type, b.type))
        self.emit("    outs(%s : %s) -> %s" % (acc, acc.type, r.type))
        return r

    def batch_matmul(self, a, b, hint):
        (bs, m, k), (bs2, k2, n) = a.shape, b.shape
        assert k == k2 and bs == bs2, (a, b)
        acc = self.full(0.0, (bs, m, n), "acc_" + hint)
        r = T(self.fresh(hint), (bs, m, n))
        self.emit("%s = linalg.batch_matmul ins(%s, %s : %s, %s)"
                  % (r, a, b, a.type, b.type))
        self.emit("    outs(%s : %s) -> %s" % (acc, acc.type, r.type))
        return r

    def transpose(self, a, perm, hint):
        shape = tuple(a.shape[p] for p in perm)
        e = self.empty(shape, "e_" + hint)
        r = T(self.fresh(hint), shape)
        self.emit("%s = linalg.transpose ins(%s : %s) outs(%s : %s)"
                  % (r, a, a.type, e, e.type))
        self.emit("    permutation = [%s]" % ", ".join(str(p) for p in perm))
        return r

    def t2(self, a, hint=None):
        return self.transpose(a, [1, 0], hint or (a.name[1:] + "T"))

    @staticmethod
    def _reassoc(groups):
        return "[%s]" % ", ".join("[%s]" % ", ".join(str(i) for i in g)
                                  for g in groups)

    def collapse(self, a, groups, hint):
        shape = tuple(prod(a.shape[i] for i in g) for g in groups)
        r = T(self.fresh(hint), shape)
        self.emit("%s = tensor.collapse_shape %s %s : %s into %s"
                  % (r, a, self._reassoc(groups), a.type, r.type))
        return r

    def expand(self, a, groups, shape, hint):
        r = T(self.fresh(hint), shape)
        self.emit("%s = tensor.expand_shape %s %s output_shape [%s] "
                  ": %s into %s" % (r, a, self._reassoc(groups),
                                    ", ".join(str(s) for s in shape),
                                    a.type, r.type))
        return r

    def pad(self, a, low, high, hint):
        shape = tuple(s + l + h for s, l, h in zip(a.shape, low, high))
        r = T(self.fresh(hint), shape)
        self.emit("%s = tensor.pad %s low[%s] high[%s] {"
                  % (r, a, ", ".join(map(str, low)),
                     ", ".join(map(str, high))))
        self.emit("^bb0(%s):" % ", ".join("%%p%d: index" % i
                                          for i in range(len(shape))))
        self.emit("  tensor.yield %s : %s" % (self.c(0.0), FT))
        self.emit("} : %s to %s" % (a.type, r.type))
        return r

    def conv(self, x, k, hint):
        n, h, w, c = x.shape
        kh, kw, c2, f = k.shape
        assert c == c2, (x, k)
        shape = (n, h - kh + 1, w - kw + 1, f)
        acc = self.full(0.0, shape, "acc_" + hint)
        r = T(self.fresh(hint), shape)
        self.emit("%s = linalg.conv_2d_nhwc_hwcf" % r)
        self.emit("    {dilations = dense<1> : tensor<2xi64>, "
                  "strides = dense<1> : tensor<2xi64>}")
        self.emit("    ins(%s, %s : %s, %s)" % (x, k, x.type, k.type))
        self.emit("    outs(%s : %s) -> %s" % (acc, acc.type, r.type))
        return r

    def maxpool2(self, x, hint):
        n, h, w, c = x.shape
        shape = (n, h // 2, w // 2, c)
        win = self.empty((2, 2), "window")
        acc = self.full(float("-inf"), shape, "init_" + hint)
        r = T(self.fresh(hint), shape)
        self.emit("%s = linalg.pooling_nhwc_max" % r)
        self.emit("    {dilations = dense<1> : tensor<2xi64>, "
                  "strides = dense<2> : tensor<2xi64>}")
        self.emit("    ins(%s, %s : %s, %s)" % (x, win, x.type, win.type))
        self.emit("    outs(%s : %s) -> %s" % (acc, acc.type, r.type))
        return r

    # -------------------------------------------------------- common layers
    def bias_add(self, z, b, hint):
        """z[..., j] + b[j]"""
        dims = ["d%d" % i for i in range(len(z.shape))]
        return self.generic(hint, list(zip(dims, z.shape)),
                            [(z, dims), (b, [dims[-1]])], dims,
                            lambda bb, v, c, o: bb.add(v, c))

    def relu(self, a, hint):
        dims = ["d%d" % i for i in range(len(a.shape))]
        return self.generic(hint, list(zip(dims, a.shape)), [(a, dims)], dims,
                            lambda bb, v, o: bb.max(v, bb.c(0.0)))

    def relu_bwd(self, g, a, hint):
        """g * (a > 0)"""
        dims = ["d%d" % i for i in range(len(a.shape))]

        def body(bb, gv, av, o):
            pos = bb.cmp("olt" if BUG == "relu-mask" else "ogt", av,
                         bb.c(0.0))
            return bb.select(pos, gv, bb.c(0.0))
        return self.generic(hint, list(zip(dims, a.shape)),
                            [(g, dims), (a, dims)], dims, body)

    def dense(self, x, w, b, hint):
        z = self.matmul(x, w, "z_" + hint)
        return self.bias_add(z, b, hint)

    def scale(self, x, s, hint):
        """x * s (s a Python float) as one generic."""
        dims = ["d%d" % i for i in range(len(x.shape))]
        return self.generic(hint, list(zip(dims, x.shape)), [(x, dims)], dims,
                            lambda bb, v, o: bb.mul(v, bb.c(s)))

    # ------------------------------------------------------------- markers
    def grad_seed(self, loss):
        r = T(self.fresh("seed"), loss.shape)
        if self.markers:
            self.emit("%s = amp.grad_seed %s : %s" % (r, loss, loss.type))
        else:
            self.emit("%s = arith.constant dense<%s> : %s"
                      % (r, flit(1.0), loss.type))
        return r

    def param_grad(self, g, pname):
        if not self.markers:
            return g
        r = T(self.fresh("g_" + pname), g.shape)
        self.emit("%s = amp.param_grad %s : %s" % (r, g, g.type))
        return r

    def state_update(self, old, new, hint):
        if not self.markers:
            return new
        r = T(self.fresh(hint), new.shape)
        self.emit("%s = amp.state_update %s, %s : %s"
                  % (r, old, new, new.type))
        return r


# =============================================================== models

def col_map(rank):
    return ["d%d" % i for i in range(rank)]


class MLP:
    kind = "mlp"

    def __init__(self, a):
        self.B = a.batch
        self.dims = [a.inputs] + [a.width] * a.layers + [a.classes]
        self.outputs = a.classes

    def describe(self):
        return ("an MLP %s, batch %d" % (" -> ".join(map(str, self.dims)),
                                      self.B))

    def doc(self):
        N = len(self.dims) - 2
        if N == 0:
            return ["x[%dx%d], y[%dx%d]" % (self.B, self.dims[0], self.B,
                                            self.outputs),
                    "forward:  logits = x . w1 + b1",
                    "backward: dw1 = x^T . dlogits, db1 = sum_i dlogits"]
        return [
            "x[%dx%d], y[%dx%d]" % (self.B, self.dims[0], self.B,
                                    self.outputs),
            "forward:  h0 = x; a_l = h_{l-1} . w_l + b_l, h_l = relu(a_l) "
            "(l = 1..%d)" % N,
            "          logits = h_%d . w%d + b%d" % (N, N + 1, N + 1),
            "backward: dw_l = h_{l-1}^T . da_l, db_l = sum_i da_l,",
            "          da_{l-1} = (da_l . w_l^T) * (a_{l-1} > 0)  "
            "(da_%d = dlogits)" % (N + 1)]

    def input_shape(self):
        return (self.B, self.dims[0])

    def param_specs(self):
        """[(name, shape, fan_in)]"""
        ps = []
        for l in range(1, len(self.dims)):
            ps.append(("w%d" % l, (self.dims[l - 1], self.dims[l]),
                       self.dims[l - 1]))
            ps.append(("b%d" % l, (self.dims[l],), None))
        return ps

    def forward(self, fn, x, P):
        L = len(self.dims) - 1
        h, hs, acts = x, [x], []
        for l in range(1, L + 1):
            fn.comment("layer %d: %d -> %d%s" % (l, self.dims[l - 1],
                                                 self.dims[l],
                                                 " + relu" if l < L else ""))
            a = fn.dense(h, P["w%d" % l], P["b%d" % l],
                         "a%d" % l if l < L else "logits")
            if l == L:
                return a, {"h": hs, "a": acts}
            acts.append(a)
            h = fn.relu(a, "h%d" % l)
            hs.append(h)

    def backward(self, fn, g, P, cache):
        L = len(self.dims) - 1
        grads = {}
        for l in range(L, 0, -1):
            fn.comment("layer %d" % l)
            hp = cache["h"][l - 1]
            dw = fn.matmul(fn.t2(hp), g, "dw%d" % l)
            grads["w%d" % l] = fn.param_grad(dw, "w%d" % l)
            db = fn.reduce_sum(g, [0], "db%d" % l)
            grads["b%d" % l] = fn.param_grad(db, "b%d" % l)
            if l > 1:
                dh = fn.matmul(g, fn.t2(P["w%d" % l]), "dh%d" % (l - 1))
                g = fn.relu_bwd(dh, cache["a"][l - 2], "da%d" % (l - 1))
        return grads


class CNN:
    kind = "cnn"

    def __init__(self, a):
        self.B = a.batch
        self.H, self.W = a.image
        self.C = a.channels
        self.K = a.kernel
        self.filters = a.filters
        self.outputs = a.classes
        h, w = self.H, self.W
        for _ in self.filters:
            h, w = h - self.K + 1, w - self.K + 1
        self.conv_out = (h, w)
        self.pool = (h // 2, w // 2)
        self.flat = h // 2 * (w // 2) * self.filters[-1]

    def describe(self):
        s = "a CNN %dx%dx%d" % (self.H, self.W, self.C)
        for f in self.filters:
            s += " -> conv %dx%d/%d + relu" % (self.K, self.K, f)
        s += " -> maxpool 2x2 (%dx%dx%d) -> dense %d -> %d, batch %d" % (
            self.pool[0], self.pool[1], self.filters[-1], self.flat,
            self.outputs, self.B)
        return s

    def input_shape(self):
        return (self.B, self.H, self.W, self.C)

    def doc(self):
        L = len(self.filters)
        return [
            "x[%dx%dx%dx%d] (NHWC), y[%dx%d]" % (self.B, self.H, self.W,
                                                self.C, self.B, self.outputs),
            "forward:  a_l = conv(h_{l-1}, k_l) + kb_l, h_l = relu(a_l)  "
            "(h0 = x, l = 1..%d;" % L,
            "          linalg.conv_2d_nhwc_hwcf, valid, stride 1)",
            "          p = maxpool 2x2/2 (h_%d), logits = flatten(p) . wd + bd"
            % L,
            "backward: dp = unflatten(dlogits . wd^T)",
            "          dh_%d = dp where h_%d equals its window's max "
            "(h == p), else 0" % (L, L),
            "          da_l = dh_l * (a_l > 0), dkb_l = sum_{n,y,x} da_l",
            "          dk_l = conv(h_{l-1} with batch <-> channels, da_l as "
            "the filter)",
            "          dh_{l-1} = conv(da_l padded by K-1, k_l flipped with "
            "c <-> f)"]

    def param_specs(self):
        ps, c = [], self.C
        for l, f in enumerate(self.filters, 1):
            ps.append(("k%d" % l, (self.K, self.K, c, f), self.K * self.K * c))
            ps.append(("kb%d" % l, (f,), None))
            c = f
        ps.append(("wd", (self.flat, self.outputs), self.flat))
        ps.append(("bd", (self.outputs,), None))
        return ps

    def forward(self, fn, x, P):
        h, hs, acts = x, [x], []
        for l, f in enumerate(self.filters, 1):
            fn.comment("conv %d: %dx%d, %d -> %d channels, + bias, relu"
                       % (l, self.K, self.K, h.shape[3], f))
            z = fn.conv(h, P["k%d" % l], "conv%d" % l)
            a = fn.bias_add(z, P["kb%d" % l], "a%d" % l)
            acts.append(a)
            h = fn.relu(a, "h%d" % l)
            hs.append(h)
        fn.comment("max pool 2x2 / 2, flatten, dense")
        p = fn.maxpool2(h, "pool")
        flat = fn.collapse(p, [[0], [1, 2, 3]], "flat")
        logits = fn.dense(flat, P["wd"], P["bd"], "logits")
        return logits, {"h": hs, "a": acts, "pool": p, "flat": flat}

    def backward(self, fn, g, P, cache):
        grads = {}
        fn.comment("dense")
        dwd = fn.matmul(fn.t2(cache["flat"]), g, "dwd")
        grads["wd"] = fn.param_grad(dwd, "wd")
        grads["bd"] = fn.param_grad(fn.reduce_sum(g, [0], "dbd"), "bd")
        dflat = fn.matmul(g, fn.t2(P["wd"]), "dflat")
        p = cache["pool"]
        dp = fn.expand(dflat, [[0], [1, 2, 3]], p.shape, "dpool")
        fn.comment("max pool: the gradient goes to the window's maximum "
                   "(every position equal to it)")
        L = len(self.filters)
        hL = cache["h"][L]
        d4 = ["n", "h", "w", "c"]
        win = ["n", "h floordiv 2", "w floordiv 2", "c"]

        def pool_bwd(bb, xv, mv, gv, o):
            if BUG == "pool-mask":
                return gv
            hit = bb.cmp("oeq", xv, mv)
            return bb.select(hit, gv, bb.c(0.0))
        dh = fn.generic("dh%d" % L, list(zip(d4, hL.shape)),
                        [(hL, d4), (p, win), (dp, win)], d4, pool_bwd)
        for l in range(L, 0, -1):
            k = P["k%d" % l]
            K, _, c, f = k.shape
            fn.comment("conv %d: relu, bias, filter and input gradients" % l)
            da = fn.relu_bwd(dh, cache["a"][l - 1], "da%d" % l)
            grads["kb%d" % l] = fn.param_grad(
                fn.reduce_sum(da, [0, 1, 2], "dkb%d" % l), "kb%d" % l)
            # dk[kh,kw,c,f] = sum_{n,oh,ow} h[n,oh+kh,ow+kw,c] da[n,oh,ow,f]:
            # a convolution of h^T (channels as batch) with da^T as filter.
            hp = cache["h"][l - 1]
            hT = fn.transpose(hp, [3, 1, 2, 0], "h%dT" % (l - 1))
            daT = fn.transpose(da, [1, 2, 0, 3], "da%dT" % l)
            dkT = fn.conv(hT, daT, "dk%dT" % l)
            dk = fn.transpose(dkT, [1, 2, 0, 3], "dk%d" % l)
            grads["k%d" % l] = fn.param_grad(dk, "k%d" % l)
            if l > 1:
                # dh[n,y,x,c] = sum da[n,y-kh,x-kw,f] k[kh,kw,c,f]: a full
                # convolution: da padded by K-1, filter flipped, c <-> f.
                dap = fn.pad(da, [0, K - 1, K - 1, 0], [0, K - 1, K - 1, 0],
                             "da%dpad" % l)
                kd = ["a", "b", "f", "c"]
                kf = fn.generic("k%dflip" % l,
                                list(zip(kd, (K, K, f, c))),
                                [(k, ["a", "b", "c", "f"] if BUG == "conv-flip"
                                  else ["%d - a" % (K - 1), "%d - b" % (K - 1),
                                        "c", "f"])], kd,
                                lambda bb, v, o: v)
                dh = fn.conv(dap, kf, "dh%d" % (l - 1))
        return grads


class Transformer:
    kind = "transformer"

    def __init__(self, a):
        self.B, self.S, self.D = a.batch, a.seq, a.dmodel
        self.Hn, self.F = a.heads, a.ffn
        self.dh = self.D // self.Hn
        self.outputs = a.classes
        self.eps = 1e-5

    def describe(self):
        return ("a pre-LN transformer block: batch %d, seq %d, d_model %d, "
                "%d heads (%d each), ffn %d, head %d"
                % (self.B, self.S, self.D, self.Hn, self.dh, self.F,
                   self.outputs))

    def input_shape(self):
        return (self.B, self.S, self.D)

    def doc(self):
        return [
            "x[%dx%dx%d] (embeddings), y[%dx%d]" % (self.B, self.S, self.D,
                                                    self.B, self.outputs),
            "forward:  n1 = LN1(x); q, k, v = n1 . w{q,k,v} + b{q,k,v}",
            "          per head: p = softmax(q k^T / sqrt(%d)), o = p . v"
            % self.dh,
            "          h = x + o . wo + bo; n2 = LN2(h)",
            "          out = h + gelu(n2 . w1 + b1) . w2 + b2",
            "          logits = mean_s(out) . wc + bc",
            "          LN(x) = (x - mean) / sqrt(var + 1e-5) * (1 + g) + b "
            "(g starts at 0)",
            "          gelu(u) = u/2 (1 + tanh(sqrt(2/pi) "
            "(u + 0.044715 u^3)))",
            "backward: matmuls: dA = dC . B^T, dB = A^T . dC; "
            "softmax: ds = p (dp - sum_j p dp)",
            "          LN: dx = rstd (dxh - mean(dxh) - xhat mean(dxh xhat)), "
            "dxh = dy (1 + g)",
            "          gelu: du = dy (0.5 (1 + t) + 0.5 u (1 - t^2) sqrt(2/pi)"
            " (1 + 3 0.044715 u^2))"]

    def param_specs(self):
        D, F, C = self.D, self.F, self.outputs
        ps = [("ln1_g", (D,), None), ("ln1_b", (D,), None)]
        for n in "qkvo":
            ps += [("w" + n, (D, D), D), ("b" + n, (D,), None)]
        ps += [("ln2_g", (D,), None), ("ln2_b", (D,), None),
               ("w1", (D, F), D), ("b1", (F,), None),
               ("w2", (F, D), F), ("b2", (D,), None),
               ("wc", (D, C), D), ("bc", (C,), None)]
        return ps

    # -- helpers
    def layer_norm(self, fn, x, g, b, hint):
        """y = xhat * (1 + g) + b, xhat = (x - mean) / sqrt(var + eps), over
        the last dim. The gain is 1 + g so that g starts at zero (amp-run
        initialises rank-1 parameters to zeros)."""
        N, D = x.shape
        sp = [("i", N), ("j", D)]
        s1 = fn.generic(hint + "_sum", sp, [(x, ["i", "j"])], ["i"],
                        lambda bb, v, acc: bb.add(v, acc), init=0.0)
        mean = fn.scale(s1, 1.0 / D, hint + "_mean")
        xc = fn.generic(hint + "_xc", sp, [(x, ["i", "j"]), (mean, ["i"])],
                        ["i", "j"], lambda bb, v, m, o: bb.sub(v, m))
        s2 = fn.generic(hint + "_sqsum", sp, [(xc, ["i", "j"])], ["i"],
                        lambda bb, v, acc: bb.add(bb.mul(v, v), acc),
                        init=0.0)

        def rstd_body(bb, v, o):
            var = bb.mul(v, bb.c(1.0 / D))
            return bb.div(bb.c(1.0), bb.sqrt(bb.add(var, bb.c(self.eps,
                                                               "ln_eps"))))
        rstd = fn.generic(hint + "_rstd", [("i", N)], [(s2, ["i"])], ["i"],
                          rstd_body)
        xhat = fn.generic(hint + "_xhat", sp, [(xc, ["i", "j"]),
                                               (rstd, ["i"])],
                          ["i", "j"], lambda bb, v, r, o: bb.mul(v, r))

        def affine(bb, v, gv, bv, o):
            return bb.add(bb.mul(v, bb.add(gv, bb.c(1.0))), bv)
        y = fn.generic(hint, sp, [(xhat, ["i", "j"]), (g, ["j"]),
                                  (b, ["j"])], ["i", "j"], affine)
        return y, (xhat, rstd)

    def layer_norm_bwd(self, fn, dy, g, cache, hint, need_dx=True):
        """Returns (dx, dg, db)."""
        xhat, rstd = cache
        N, D = dy.shape
        sp = [("i", N), ("j", D)]
        dyx = fn.ew("arith.mulf", dy, xhat, hint + "_dyxhat")
        dg = fn.reduce_sum(dyx, [0], "d" + hint + "_g")
        db = fn.reduce_sum(dy, [0], "d" + hint + "_b")
        if not need_dx:
            return None, dg, db
        dxhat = fn.generic(hint + "_dxhat", sp, [(dy, ["i", "j"]),
                                                 (g, ["j"])], ["i", "j"],
                           lambda bb, v, gv, o: bb.mul(v, bb.add(gv,
                                                                 bb.c(1.0))))
        a1 = fn.generic(hint + "_dsum", sp, [(dxhat, ["i", "j"])], ["i"],
                        lambda bb, v, acc: bb.add(v, acc), init=0.0)
        a2 = fn.generic(hint + "_dxsum", sp, [(dxhat, ["i", "j"]),
                                              (xhat, ["i", "j"])], ["i"],
                        lambda bb, v, xv, acc: bb.add(bb.mul(v, xv), acc),
                        init=0.0)

        def body(bb, dv, xv, s1, s2, r, o):
            # rstd * (dxhat - mean(dxhat) - xhat * mean(dxhat * xhat))
            inv = bb.c(1.0 / D)
            t = bb.sub(dv, bb.mul(s1, inv))
            if BUG != "ln-grad":
                t = bb.sub(t, bb.mul(xv, bb.mul(s2, inv)))
            return bb.mul(t, r)
        dx = fn.generic("d" + hint + "_x", sp,
                        [(dxhat, ["i", "j"]), (xhat, ["i", "j"]),
                         (a1, ["i"]), (a2, ["i"]), (rstd, ["i"])],
                        ["i", "j"], body)
        return dx, dg, db

    def heads(self, fn, t, hint):
        """[B*S, D] -> [B*H, S, dh]"""
        B, S, H, dh = self.B, self.S, self.Hn, self.dh
        e = fn.expand(t, [[0, 1], [2, 3]], (B, S, H, dh), hint + "_bshd")
        tr = fn.transpose(e, [0, 2, 1, 3], hint + "_bhsd")
        return fn.collapse(tr, [[0, 1], [2], [3]], hint)

    def unheads(self, fn, t, hint):
        """[B*H, S, dh] -> [B*S, D]"""
        B, S, H, dh = self.B, self.S, self.Hn, self.dh
        e = fn.expand(t, [[0, 1], [2], [3]], (B, H, S, dh), hint + "_bhsd")
        tr = fn.transpose(e, [0, 2, 1, 3], hint + "_bshd")
        return fn.collapse(tr, [[0, 1], [2, 3]], hint)

    K0 = math.sqrt(2.0 / math.pi)
    K1 = 0.044715

    def gelu_inner(self, bb, u):
        u3 = bb.mul(bb.mul(u, u), u)
        inner = bb.mul(bb.c(self.K0, "gelu_k0"),
                       bb.add(u, bb.mul(bb.c(self.K1, "gelu_k1"), u3)))
        return bb.tanh(inner)

    def forward(self, fn, x, P):
        B, S, D = self.B, self.S, self.D
        N = B * S
        c = {}
        x2 = fn.collapse(x, [[0, 1], [2]], "x2")
        fn.comment("layer norm 1")
        n1, c["ln1"] = self.layer_norm(fn, x2, P["ln1_g"], P["ln1_b"], "ln1")
        c["n1"] = n1
        fn.comment("self-attention: %d heads of %d" % (self.Hn, self.dh))
        for n in "qkv":
            t = fn.dense(n1, P["w" + n], P["b" + n], n)
            c[n + "h"] = self.heads(fn, t, n + "h")
        kT = fn.transpose(c["kh"], [0, 2, 1], "khT")
        sc = fn.batch_matmul(c["qh"], kT, "scores")
        scale = 1.0 / math.sqrt(self.dh)
        BH = B * self.Hn
        sp3 = [("b", BH), ("i", S), ("j", S)]
        s = fn.generic("scaled", sp3, [(sc, ["b", "i", "j"])],
                       ["b", "i", "j"],
                       lambda bb, v, o: bb.mul(v, bb.c(scale, "att_scale")))
        fn.comment("softmax over keys (max-subtracting)")
        m = fn.generic("att_max", sp3, [(s, ["b", "i", "j"])], ["b", "i"],
                       lambda bb, v, acc: bb.max(v, acc), init=float("-inf"))
        e = fn.generic("att_exp", sp3, [(s, ["b", "i", "j"]), (m, ["b", "i"])],
                       ["b", "i", "j"],
                       lambda bb, v, mv, o: bb.exp(bb.sub(v, mv)))
        z = fn.generic("att_sum", sp3, [(e, ["b", "i", "j"])], ["b", "i"],
                       lambda bb, v, acc: bb.add(v, acc), init=0.0)
        p = fn.generic("att_p", sp3, [(e, ["b", "i", "j"]), (z, ["b", "i"])],
                       ["b", "i", "j"], lambda bb, v, zv, o: bb.div(v, zv))
        c["p"] = p
        oh = fn.batch_matmul(p, c["vh"], "att_oh")
        att = self.unheads(fn, oh, "att")
        c["att"] = att
        ao = fn.dense(att, P["wo"], P["bo"], "att_out")
        h = fn.ew("arith.addf", x2, ao, "res1")
        fn.comment("layer norm 2, GELU MLP, residual")
        n2, c["ln2"] = self.layer_norm(fn, h, P["ln2_g"], P["ln2_b"], "ln2")
        c["n2"] = n2
        u = fn.dense(n2, P["w1"], P["b1"], "ffn_u")
        c["u"] = u
        sp2 = [("i", N), ("j", self.F)]

        def gelu(bb, v, o):
            t = self.gelu_inner(bb, v)
            return bb.mul(bb.mul(bb.c(0.5, "half"), v),
                          bb.add(bb.c(1.0), t))
        gl = fn.generic("gelu", sp2, [(u, ["i", "j"])], ["i", "j"], gelu)
        c["gelu"] = gl
        mo = fn.dense(gl, P["w2"], P["b2"], "ffn_out")
        out = fn.ew("arith.addf", h, mo, "res2")
        fn.comment("mean over the sequence, classifier")
        out3 = fn.expand(out, [[0, 1], [2]], (B, S, D), "res2_bsd")
        ssum = fn.generic("seq_sum", [("b", B), ("s", S), ("d", D)],
                          [(out3, ["b", "s", "d"])], ["b", "d"],
                          lambda bb, v, acc: bb.add(v, acc), init=0.0)
        pooled = fn.scale(ssum, 1.0 / S, "pooled")
        c["pooled"] = pooled
        logits = fn.dense(pooled, P["wc"], P["bc"], "logits")
        return logits, c

    def dense_bwd(self, fn, x, dy, w, wname, bname, grads, need_dx=True):
        dw = fn.matmul(fn.t2(x), dy, "d" + wname)
        grads[wname] = fn.param_grad(dw, wname)
        grads[bname] = fn.param_grad(fn.reduce_sum(dy, [0], "d" + bname),
                                     bname)
        if need_dx:
            return fn.matmul(dy, fn.t2(w), "d" + x.name[1:])
        return None

    def backward(self, fn, g, P, c):
        B, S, D, F = self.B, self.S, self.D, self.F
        N = B * S
        grads = {}
        fn.comment("classifier, mean over the sequence")
        dpooled = self.dense_bwd(fn, c["pooled"], g, P["wc"], "wc", "bc",
                                 grads)
        dout3 = fn.generic("dres2_bsd", [("b", B), ("s", S), ("d", D)],
                           [(dpooled, ["b", "d"])], ["b", "s", "d"],
                           lambda bb, v, o: bb.mul(v, bb.c(1.0 / S)))
        dout = fn.collapse(dout3, [[0, 1], [2]], "dres2")
        fn.comment("MLP: second dense, GELU, first dense")
        dgl = self.dense_bwd(fn, c["gelu"], dout, P["w2"], "w2", "b2", grads)

        def gelu_bwd(bb, gv, u, o):
            # d/du 0.5 u (1 + t)
            #   = 0.5 (1 + t) + 0.5 u (1 - t^2) k0 (1 + 3 k1 u^2)
            t = self.gelu_inner(bb, u)
            half = bb.c(0.5, "half")
            one = bb.c(1.0)
            a = bb.mul(half, bb.add(one, t))
            sech2 = bb.sub(one, bb.mul(t, t))
            du2 = bb.mul(bb.c(3.0 * self.K1, "gelu_3k1"), bb.mul(u, u))
            dinner = bb.mul(bb.c(self.K0, "gelu_k0"), bb.add(one, du2))
            b_ = bb.mul(bb.mul(half, u), bb.mul(sech2, dinner))
            if BUG == "gelu-grad":
                return bb.mul(gv, a)
            return bb.mul(gv, bb.add(a, b_))
        du = fn.generic("dffn_u", [("i", N), ("j", F)],
                        [(dgl, ["i", "j"]), (c["u"], ["i", "j"])], ["i", "j"],
                        gelu_bwd)
        dn2 = self.dense_bwd(fn, c["n2"], du, P["w1"], "w1", "b1", grads)
        fn.comment("layer norm 2; the residual adds the MLP's gradient")
        dh_ln, dg, db = self.layer_norm_bwd(fn, dn2, P["ln2_g"], c["ln2"],
                                            "ln2")
        grads["ln2_g"] = fn.param_grad(dg, "ln2_g")
        grads["ln2_b"] = fn.param_grad(db, "ln2_b")
        dh = fn.ew("arith.addf", dout, dh_ln, "dres1")
        fn.comment("attention output projection")
        datt = self.dense_bwd(fn, c["att"], dh, P["wo"], "wo", "bo", grads)
        doh = self.heads(fn, datt, "datt_oh")
        fn.comment("o = p . v")
        dp = fn.batch_matmul(doh, fn.transpose(c["vh"], [0, 2, 1], "vhT"),
                             "datt_p")
        dvh = fn.batch_matmul(fn.transpose(c["p"], [0, 2, 1], "att_pT"), doh,
                              "dvh")
        fn.comment("softmax: ds = p * (dp - sum_j dp * p), times the scale")
        BH = B * self.Hn
        sp3 = [("b", BH), ("i", S), ("j", S)]
        r = fn.generic("datt_dot", sp3, [(dp, ["b", "i", "j"]),
                                         (c["p"], ["b", "i", "j"])],
                       ["b", "i"],
                       lambda bb, a, pv, acc: bb.add(bb.mul(a, pv), acc),
                       init=0.0)
        scale = 1.0 / math.sqrt(self.dh)

        def sm_bwd(bb, pv, dv, rv, o):
            if BUG == "softmax-grad":
                rv = bb.c(0.0)
            return bb.mul(bb.mul(pv, bb.sub(dv, rv)),
                          bb.c(scale, "att_scale"))
        dsc = fn.generic("dscores", sp3, [(c["p"], ["b", "i", "j"]),
                                          (dp, ["b", "i", "j"]),
                                          (r, ["b", "i"])],
                         ["b", "i", "j"], sm_bwd)
        fn.comment("scores = q . k^T")
        dqh = fn.batch_matmul(dsc, c["kh"], "dqh")
        dkh = fn.batch_matmul(fn.transpose(dsc, [0, 2, 1], "dscoresT"),
                              c["qh"], "dkh")
        fn.comment("q, k, v projections")
        dn1 = None
        for n, dxh in (("q", dqh), ("k", dkh), ("v", dvh)):
            dt = self.unheads(fn, dxh, "d" + n)
            dn = self.dense_bwd(fn, c["n1"], dt, P["w" + n], "w" + n,
                                "b" + n, grads)
            dn1 = dn if dn1 is None else fn.ew("arith.addf", dn1, dn, "dln1")
        fn.comment("layer norm 1 (the input needs no gradient)")
        _, dg, db = self.layer_norm_bwd(fn, dn1, P["ln1_g"], c["ln1"], "ln1",
                                        need_dx=False)
        grads["ln1_g"] = fn.param_grad(dg, "ln1_g")
        grads["ln1_b"] = fn.param_grad(db, "ln1_b")
        return grads


MODELS = {"mlp": MLP, "cnn": CNN, "transformer": Transformer}


# ============================================================ the program

def loss_head(fn, a, logits, y):
    """Returns (loss, dlogits)."""
    Bn, C = logits.shape
    sp = [("i", Bn), ("j", C)]
    ij = ["i", "j"]
    if a.head == "classifier":
        fn.comment("softmax cross-entropy: loss = -1/%d sum_ij y log "
                   "softmax(logits)" % Bn)
        m = fn.generic("lmax", sp, [(logits, ij)], ["i"],
                       lambda bb, v, acc: bb.max(v, acc), init=float("-inf"))
        sh = fn.generic("shifted", sp, [(logits, ij), (m, ["i"])], ij,
                        lambda bb, v, mv, o: bb.sub(v, mv))
        ex = fn.unary("math.exp", sh, "ex")
        s = fn.generic("sumex", sp, [(ex, ij)], ["i"],
                       lambda bb, v, acc: bb.add(v, acc), init=0.0)
        lse = fn.unary("math.log", s, "lse")
        logp = fn.generic("logp", sp, [(sh, ij), (lse, ["i"])], ij,
                          lambda bb, v, l, o: bb.sub(v, l))
        p = fn.generic("softmax", sp, [(ex, ij), (s, ["i"])], ij,
                       lambda bb, v, sv, o: bb.div(v, sv))
        ylogp = fn.ew("arith.mulf", y, logp, "ylogp")
        total = fn.reduce_sum(ylogp, [0, 1], "total")
        loss = fn.ew("arith.mulf", total,
                     fn.splat(-1.0 / Bn, (), "neg_inv_batch"), "loss")
        fn.blank()
        fn.comment("---------------------------------------------- backward")
        seed = fn.grad_seed(loss)
        fn.comment("dlogits = (softmax - y) * seed / %d" % Bn)

        def body(bb, pv, yv, sv, o):
            if BUG == "xent-grad":
                pv = bb.c(0.0)
            return bb.mul(bb.mul(bb.sub(pv, yv), sv),
                          bb.c(a.loss_weight / Bn, "inv_batch"))
        dl = fn.generic("dlogits", sp, [(p, ij), (y, ij), (seed, [])], ij,
                        body)
        return loss, dl
    n = Bn * C
    fn.comment("mean squared error: loss = 1/%d sum_ij (pred - y)^2" % n)
    diff = fn.ew("arith.subf", logits, y, "err")
    sq = fn.ew("arith.mulf", diff, diff, "sqerr")
    total = fn.reduce_sum(sq, [0, 1], "total")
    loss = fn.ew("arith.mulf", total, fn.splat(1.0 / n, (), "inv_count"),
                 "loss")
    fn.blank()
    fn.comment("---------------------------------------------- backward")
    seed = fn.grad_seed(loss)
    fn.comment("dpred = 2 (pred - y) * seed / %d" % n)
    dl = fn.generic("dpred", sp, [(diff, ij), (seed, [])], ij,
                    lambda bb, dv, sv, o: bb.mul(bb.mul(dv, sv),
                                                 bb.c(2.0 * a.loss_weight / n)))
    return loss, dl


def state_specs(a, params):
    """[(name, shape, param name or None, kind)]"""
    st = []
    if a.optimizer == "momentum":
        for n, sh, _ in params:
            st.append(("v_" + n, sh, n, "velocity"))
    elif a.optimizer == "adam":
        for n, sh, _ in params:
            st.append(("m_" + n, sh, n, "m"))
            st.append(("v_" + n, sh, n, "v"))
        st.append(("step", (), None, "step"))
    return st


def optimizer(fn, a, P, S, grads, params):
    """Returns {state name: new value} for params and states (un-marked)."""
    new = {}
    # The gradients carry --loss-weight; SGD and momentum divide it out of
    # the learning rate, so the f32 step is unchanged (exactly, for powers
    # of two).
    lr = a.lr / a.loss_weight
    fn.blank()
    if a.optimizer == "sgd":
        fn.comment("---------------------------------- SGD: w' = w - lr g")
        for n, sh, _ in params:
            s = fn.ew("arith.mulf", fn.splat(lr, sh, "lr"), grads[n],
                      "step_" + n)
            new[n] = fn.ew("arith.subf", P[n], s, "next_" + n)
        return new
    if a.optimizer == "momentum":
        fn.comment("------------- momentum: v' = %s v + g, w' = w - lr v'"
                   % flit(a.momentum))
        for n, sh, _ in params:
            mv = fn.ew("arith.mulf", fn.splat(a.momentum, sh, "mu"),
                       S["v_" + n], "mv_" + n)
            v2 = fn.ew("arith.addf", mv, grads[n], "next_v_" + n)
            new["v_" + n] = v2
            s = fn.ew("arith.mulf", fn.splat(lr, sh, "lr"), v2, "step_" + n)
            new[n] = fn.ew("arith.subf", P[n], s, "next_" + n)
        return new
    # adam
    b1, b2, eps = a.beta1, a.beta2, a.adam_eps
    fn.comment("------------------------------------------------------ Adam")
    fn.comment("t' = t + 1; lr_t = lr sqrt(1 - b2^t') / (1 - b1^t')")
    fn.comment("m' = b1 m + (1 - b1) g; v' = b2 v + (1 - b2) g^2; "
               "w' = w - lr_t m' / (sqrt(v') + eps)")
    t = S["step"]
    t2 = fn.ew("arith.addf", t, fn.splat(1.0, (), "one_t"), "next_step")
    new["step"] = t2
    p1 = fn.powf(fn.splat(b1, (), "beta1_t"), t2, "b1_pow")
    p2 = fn.powf(fn.splat(b2, (), "beta2_t"), t2, "b2_pow")

    def lrt_body(bb, x1, x2, o):
        one = bb.c(1.0)
        return bb.div(bb.mul(bb.c(lr, "lr"), bb.sqrt(bb.sub(one, x2))),
                      bb.sub(one, x1))
    lrt = fn.generic("lr_t", [], [(p1, []), (p2, [])], [], lrt_body)
    for n, sh, _ in params:
        dims = col_map(len(sh))
        sp = list(zip(dims, sh))
        m2 = fn.generic("next_m_" + n, sp, [(S["m_" + n], dims),
                                            (grads[n], dims)], dims,
                        lambda bb, mv, gv, o: bb.add(
                            bb.mul(bb.c(b1, "beta1"), mv),
                            bb.mul(bb.c(1.0 - b1, "one_m_beta1"), gv)))
        v2 = fn.generic("next_v_" + n, sp, [(S["v_" + n], dims),
                                            (grads[n], dims)], dims,
                        lambda bb, vv, gv, o: bb.add(
                            bb.mul(bb.c(b2, "beta2"), vv),
                            bb.mul(bb.c(1.0 - b2, "one_m_beta2"),
                                   bb.mul(gv, gv))))
        new["m_" + n], new["v_" + n] = m2, v2

        def upd(bb, wv, mv, vv, lv, o):
            den = bb.add(bb.sqrt(vv), bb.c(eps, "adam_eps"))
            return bb.sub(wv, bb.mul(lv, bb.div(mv, den)))
        new[n] = fn.generic("next_" + n, sp, [(P[n], dims), (m2, dims),
                                              (v2, dims), (lrt, [])], dims,
                            upd)
    return new


def emit_step(mod, a, model):
    fn = Func(mod, a.name, markers=not a.no_markers)
    params = model.param_specs()
    states = state_specs(a, params)
    x = fn.arg("x", model.input_shape(), 'amp.role = "input"')
    y = fn.arg("y", (model.B, model.outputs), 'amp.role = "label"')
    P, S, index = {}, {}, {}
    for n, sh, _ in params:
        P[n] = fn.arg(n, sh, 'amp.role = "param"')
        index[n] = len(fn.args) - 1
    for n, sh, _, _ in states:
        S[n] = fn.arg(n, sh, 'amp.role = "opt_state"')
        index[n] = len(fn.args) - 1
    fn.comment("----------------------------------------------- forward")
    logits, cache = model.forward(fn, x, P)
    loss, dl = loss_head(fn, a, logits, y)
    grads = model.backward(fn, dl, P, cache)
    new = optimizer(fn, a, P, S, grads, params)
    fn.ret(loss, 'amp.role = "loss"')
    order = [n for n, _, _ in params] + [n for n, _, _, _ in states]
    outs = []
    for n in order:
        old = P[n] if n in P else S[n]
        outs.append((n, fn.state_update(old, new[n], "new_" + n)))
    for n, v in outs:
        fn.ret(v, 'amp.role = "update", amp.updates = %d : i64' % index[n])
    if a.emit_grads:
        for n, _, _ in params:
            fn.ret(grads[n], 'amp.role = "grad"')
    fn.finish()
    return params, states, index


def emit_predict(mod, a, model):
    fn = Func(mod, a.predict_name)
    x = fn.arg("x", model.input_shape(), 'amp.role = "input"')
    P = {}
    for n, sh, _ in model.param_specs():
        P[n] = fn.arg(n, sh, 'amp.role = "param"')
    logits, _ = model.forward(fn, x, P)
    fn.ret(logits, 'amp.role = "logits"')
    fn.finish()


# ------------------------------------------------------------------ driver

def init_tensor(fn, shape, seed, scale, offset=0.0, square=False,
                hint="init"):
    """Deterministic pseudo-random values offset + scale * u (u uniform in
    [-1, 1), or u^2 with `square`), from an integer hash of the flat index
    and the seed (exact integer arithmetic: the same in f32 and f64)."""
    dims = col_map(len(shape))

    def body(bb, o):
        lin = None
        stride = 1
        for k in range(len(shape) - 1, -1, -1):
            ix = bb._new()
            bb.raw("%s = linalg.index %d : index" % (ix, k))
            iv = bb._new()
            bb.raw("%s = arith.index_cast %s : index to i64" % (iv, ix))
            if stride != 1:
                sv = bb._new()
                bb.raw("%s = arith.constant %d : i64" % (sv, stride))
                m = bb._new()
                bb.raw("%s = arith.muli %s, %s : i64" % (m, iv, sv))
                iv = m
            if lin is None:
                lin = iv
            else:
                s = bb._new()
                bb.raw("%s = arith.addi %s, %s : i64" % (s, lin, iv))
                lin = s
            stride *= shape[k]
        if lin is None:
            lin = bb._new()
            bb.raw("%s = arith.constant 0 : i64" % lin)

        def ic(v):
            r = bb._new()
            bb.raw("%s = arith.constant %d : i64" % (r, v))
            return r

        def iop(op, x, y):
            r = bb._new()
            bb.raw("%s = arith.%s %s, %s : i64" % (r, op, x, y))
            return r
        mask = ic(0xFFFFFFFF)
        h = iop("addi", iop("muli", lin, ic(2654435761)),
                ic((seed * 40503 + 12345) & 0xFFFFFFFF))
        h = iop("andi", h, mask)
        for shift, mul in ((16, 0x7FEB352D), (15, 0x846CA68B), (16, None)):
            h = iop("xori", h, iop("shrui", h, ic(shift)))
            if mul is not None:
                h = iop("andi", iop("muli", h, ic(mul)), mask)
        top = iop("shrui", h, ic(8))  # 24 bits
        f = bb._new()
        bb.raw("%s = arith.uitofp %s : i64 to %s" % (f, top, FT))
        u = bb.sub(bb.mul(f, bb.c(2.0 / (1 << 24))), bb.c(1.0))
        if square:
            u = bb.mul(u, u)
        return bb.add(bb.mul(u, bb.c(scale)), bb.c(offset))
    return fn.generic(hint, list(zip(dims, shape)), [], dims, body)


def emit_loss_of(mod, a, args, rtypes):
    """@loss_of(step args...) -> the loss, as a scalar."""
    fn = Func(mod, "loss_of")
    fn.private = True
    av = [fn.arg(v.name[1:], v.shape) for v in args]
    rr = fn.fresh("r")
    fn.emit("%s:%d = func.call @%s(%s)" % (rr, len(rtypes), a.name,
                                          ", ".join(x.name for x in av)))
    fn.emit("    : (%s) -> (%s)" % (", ".join(x.type for x in av),
                                    ", ".join(rtypes)))
    lv = fn.fresh("l")
    fn.emit("%s = tensor.extract %s#0[] : %s" % (lv, rr, ttype(())))
    fn.lines.append("  return %s : %s" % (lv, FT))
    fn.results_text = FT
    fn.finish()


def emit_fd_helper(mod, a, p, pname, shape, args, rtypes):
    """@fd_<param>(step args..., L0, indices...) -> (central difference,
    forward - backward difference) of the loss for one element."""
    name = "fd_" + pname
    fn = Func(mod, name)
    fn.private = True
    av = [fn.arg(v.name[1:], v.shape) for v in args]
    l0 = fn.fresh("l0")
    idx = [fn.fresh("i%d" % k) for k in range(len(shape))]
    w = av[2 + p]
    v = fn.fresh("w")
    fn.emit("%s = tensor.extract %s[%s] : %s" % (v, w, ", ".join(idx),
                                                 w.type))
    ends = []
    for sign in (1, -1):
        sfx = "p" if sign > 0 else "m"
        vv = fn.fresh("w" + sfx)
        fn.emit("%s = arith.%s %s, %s : %s"
                % (vv, "addf" if sign > 0 else "subf", v,
                   fn.c(a.eps, "eps"), FT))
        wt = T(fn.fresh(pname + "_" + sfx), shape)
        fn.emit("%s = tensor.insert %s into %s[%s] : %s"
                % (wt, vv, w, ", ".join(idx), w.type))
        argv = list(av)
        argv[2 + p] = wt
        lv = fn.fresh("l" + sfx)
        fn.emit("%s = func.call @loss_of(%s)" % (lv, ", ".join(
            x.name for x in argv)))
        fn.emit("    : (%s) -> %s" % (", ".join(x.type for x in argv), FT))
        ends.append((vv, lv))
    (vp, lp), (vm, lm) = ends

    def bin(op, x, y, hint):
        d = fn.fresh(hint)
        fn.emit("%s = arith.%s %s, %s : %s" % (d, op, x, y, FT))
        return d
    g = bin("divf", bin("subf", lp, lm, "dl"), bin("subf", vp, vm, "dw"),
            "fd")
    fwd = bin("divf", bin("subf", lp, l0, "dlp"), bin("subf", vp, v, "dwp"),
              "fwd")
    bwd = bin("divf", bin("subf", l0, lm, "dlm"), bin("subf", v, vm, "dwm"),
              "bwd")
    kink = bin("subf", fwd, bwd, "kink")
    fn.lines.append("  return %s, %s : %s, %s" % (g, kink, FT, FT))
    fn.results_text = "(%s, %s)" % (FT, FT)
    fn.extra_args = ["%s: %s" % (l0, FT)] + ["%s: index" % i for i in idx]
    fn.finish()
    return name


def emit_driver(mod, a, model, params, states, probes):
    fn = Func(mod, "main")
    B, C = model.B, model.outputs
    seed = [0]

    def nxt():
        seed[0] += 1
        return seed[0]
    x = init_tensor(fn, model.input_shape(), nxt(), 1.0, hint="x")
    if a.head == "classifier":
        fn.comment("one-hot labels: class (7 i + 3) mod %d" % C)

        def onehot(bb, o):
            i = bb._new()
            bb.raw("%s = linalg.index 0 : index" % i)
            j = bb._new()
            bb.raw("%s = linalg.index 1 : index" % j)
            r = bb._new()
            bb.raw("%s = arith.muli %s, %s : index" % (r, i, fn.ci(7)))
            r2 = bb._new()
            bb.raw("%s = arith.addi %s, %s : index" % (r2, r, fn.ci(3)))
            cl = bb._new()
            bb.raw("%s = arith.remui %s, %s : index" % (cl, r2, fn.ci(C)))
            hit = bb._new()
            bb.raw("%s = arith.cmpi eq, %s, %s : index" % (hit, cl, j))
            return bb.select(hit, bb.c(1.0), bb.c(0.0))
        y = fn.generic("y", [("i", B), ("j", C)], [], ["i", "j"], onehot)
    else:
        y = init_tensor(fn, (B, C), nxt(), 1.0, hint="y")
    P = {}
    for n, sh, fan_in in params:
        if fan_in:
            P[n] = init_tensor(fn, sh, nxt(), math.sqrt(3.0 / fan_in), hint=n)
        else:
            P[n] = init_tensor(fn, sh, nxt(), 0.1, hint=n)
    S = {}
    for n, sh, _, kind in states:
        if kind == "step":
            S[n] = fn.splat(3.0, (), "t0")
        elif kind == "v":
            S[n] = init_tensor(fn, sh, nxt(), 1e-4, 1e-5, square=True, hint=n)
        else:
            S[n] = init_tensor(fn, sh, nxt(), 1e-2, hint=n)
    args = [x, y] + [P[n] for n, _, _ in params] + \
        [S[n] for n, _, _, _ in states]
    rtypes = [ttype(())] + [P[n].type for n, _, _ in params] + \
        [S[n].type for n, _, _, _ in states]
    nres = len(rtypes)
    pname = "printMemrefF32" if FT == "f32" else "printMemrefF64"

    def call(argv, hint):
        r = fn.fresh(hint)
        fn.emit("%s:%d = func.call @%s(%s)" % (r, nres, a.name,
                                              ", ".join(v.name for v in argv)))
        fn.emit("    : (%s) -> (%s)" % (", ".join(v.type for v in argv),
                                        ", ".join(rtypes)))
        return r

    def prn(v):
        # print a copy: printMemref might write to its argument, and `v`
        # may be used again
        e = fn.empty(v.shape, "e_copy")
        cp = fn.fresh("copy")
        fn.emit("%s = linalg.copy ins(%s : %s) outs(%s : %s) -> %s"
                % (cp, v, v.type, e, e.type, e.type))
        u = fn.fresh("u")
        fn.emit("%s = tensor.cast %s : %s to tensor<*x%s>" % (u, cp, v.type,
                                                               FT))
        fn.emit("func.call @%s(%s) : (tensor<*x%s>) -> ()" % (pname, u, FT))
    r = call(args, "r")
    fn.comment("print: loss; w - w' per parameter; s, s' per state")
    prn(T(r + "#0", ()))
    k = 1
    for n, sh, _ in params:
        prn(fn.ew("arith.subf", P[n], T("%s#%d" % (r, k), sh), "delta_" + n))
        k += 1
    for n, sh, _, kind in states:
        prn(S[n])
        new = T("%s#%d" % (r, k), sh)
        prn(new)
        if kind in ("velocity", "m"):
            # the gradient, up to a factor, without the rounding of printing
            coef = a.momentum if kind == "velocity" else a.beta1
            old = fn.ew("arith.mulf", fn.splat(coef, sh, "coef"), S[n],
                        "old_" + n)
            prn(fn.ew("arith.subf", new, old, "grad_" + n))
        k += 1
    if probes:
        fn.comment("finite differences of the loss: central, and forward "
                   "minus backward (large at a kink)")
        K = len(probes)
        fd = fn.empty((K,), "fd")
        kink = fn.empty((K,), "kink")
        l0 = fn.fresh("l0")
        fn.emit("%s = tensor.extract %s#0[] : %s" % (l0, r, ttype(())))
        emit_loss_of(mod, a, args, rtypes)
        groups = {}
        for q, (p, flat) in enumerate(probes):
            groups.setdefault(p, []).append((q, flat))
        for p, items in sorted(groups.items()):
            n, sh, _ = params[p]
            helper = emit_fd_helper(mod, a, p, n, sh, args, rtypes)
            # rows: the element's indices, then its position in fd
            rows = []
            for q, flat in items:
                idx, rem = [], flat
                for s in reversed(sh):
                    idx.append(rem % s)
                    rem //= s
                rows.append(list(reversed(idx)) + [q])
            R = len(sh) + 1
            tab = fn.fresh("probes_" + n)
            fn.emit("%s = arith.constant dense<[%s]> : tensor<%dx%dxi64>"
                    % (tab, ", ".join("[%s]" % ", ".join(map(str, r))
                                      for r in rows), len(rows), R))
            k = fn.fresh("k")
            res = fn.fresh("fd_" + n)
            fn.emit("%s:2 = scf.for %s = %s to %s step %s "
                    "iter_args(%%fd_acc = %s, %%kink_acc = %s) -> (%s, %s) {"
                    % (res, k, fn.ci(0), fn.ci(len(rows)), fn.ci(1), fd,
                       kink, fd.type, kink.type))
            cols = []
            for j in range(R):
                e = fn.fresh("e%d" % j)
                fn.emit("  %s = tensor.extract %s[%s, %s] : tensor<%dx%dxi64>"
                        % (e, tab, k, fn.ci(j), len(rows), R))
                ix = fn.fresh("ix%d" % j)
                fn.emit("  %s = arith.index_cast %s : i64 to index" % (ix, e))
                cols.append(ix)
            argv = [v.name for v in args] + [l0] + cols[:-1]
            tys = [v.type for v in args] + [FT] + ["index"] * len(sh)
            rr = fn.fresh("rfd")
            fn.emit("  %s:2 = func.call @%s(%s) : (%s) -> (%s, %s)"
                    % (rr, helper, ", ".join(argv), ", ".join(tys), FT, FT))
            f1, k1 = fn.fresh("fd_next"), fn.fresh("kink_next")
            fn.emit("  %s = tensor.insert %s#0 into %%fd_acc[%s] : %s"
                    % (f1, rr, cols[-1], fd.type))
            fn.emit("  %s = tensor.insert %s#1 into %%kink_acc[%s] : %s"
                    % (k1, rr, cols[-1], kink.type))
            fn.emit("  scf.yield %s, %s : %s, %s" % (f1, k1, fd.type,
                                                     kink.type))
            fn.emit("}")
            fd, kink = T(res + "#0", (K,)), T(res + "#1", (K,))
        prn(fd)
        prn(kink)
    fn.finish()
    mod.decls.append("func.func private @%s(tensor<*x%s>)" % (pname, FT))


# -------------------------------------------------------------------- main

def command_line(a):
    parts = ["tools/gen-model.py", "--model", a.model]
    if a.model == "mlp":
        parts += ["--layers", a.layers, "--width", a.width, "--inputs",
                  a.inputs]
    elif a.model == "cnn":
        parts += ["--image", "%dx%d" % tuple(a.image), "--channels",
                  a.channels, "--filters", ",".join(map(str, a.filters)),
                  "--conv-layers", len(a.filters), "--kernel", a.kernel]
    else:
        parts += ["--seq", a.seq, "--dmodel", a.dmodel, "--heads", a.heads,
                  "--ffn", a.ffn]
    parts += ["--batch", a.batch, "--classes", a.classes]
    if a.head != "classifier":
        parts += ["--head", a.head]
    parts += ["--optimizer", a.optimizer, "--lr", flit_plain(a.lr)]
    if a.optimizer == "momentum":
        parts += ["--momentum", flit_plain(a.momentum)]
    if a.optimizer == "adam":
        parts += ["--beta1", flit_plain(a.beta1), "--beta2",
                  flit_plain(a.beta2), "--adam-eps", flit_plain(a.adam_eps)]
    if a.loss_weight != 1.0:
        parts += ["--loss-weight", flit_plain(a.loss_weight)]
    if a.emit_grads:
        parts.append("--emit-grads")
    if a.no_markers:
        parts.append("--no-markers")
    if a.dtype != "f32":
        parts += ["--dtype", a.dtype]
    if a.inject_bug:
        parts += ["--inject-bug", a.inject_bug]
    return " ".join(str(p) for p in parts)


def flit_plain(v):
    return repr(float(v))


def gen(a):
    model = MODELS[a.model](a)
    mod = Module()
    params = model.param_specs()
    states = state_specs(a, params)
    loss = ("softmax cross-entropy, mean over the batch (max-subtracting)"
            if a.head == "classifier" else "mean squared error")
    opt = {"sgd": "SGD: w' = w - lr g",
           "momentum": "momentum: v' = %s v + g, w' = w - lr v'"
                       % flit_plain(a.momentum),
           "adam": "Adam (bias-corrected; the step count is an opt_state)"}
    lines = ["Generated by:",
             "  " + command_line(a),
             "",
             "One training step of %s." % model.describe(),
             ""]
    lines += ["  " + d for d in model.doc()]
    lines += ["  loss:     " + loss,
              "  dlogits:  " + ("(softmax - y) * seed / %d" % model.B
                                if a.head == "classifier" else
                                "2 (pred - y) * seed / %d"
                                % (model.B * model.outputs))
              + ("" if a.loss_weight == 1.0 else
                 " * %s (--loss-weight; the loss returned is unweighted, "
                 "the lr divided by it)" % flit_plain(a.loss_weight)),
              "  update:   %s, lr %s" % (opt[a.optimizer], flit_plain(a.lr)),
              "",
              "@%s(x, y, %d params, %d optimizer states) -> (loss, %d updates%s)"
              % (a.name, len(params), len(states), len(params) + len(states),
                 ", %d gradients" % len(params) if a.emit_grads else "")]
    if a.head == "classifier" and not a.no_predict:
        lines.append("@%s(x, params) -> logits" % a.predict_name)
    if a.no_markers:
        lines.append("No markers (--no-markers): the program amp-strip-markers"
                     " makes of the marked one.")
    else:
        lines.append("amp.grad_seed starts the backward pass, amp.param_grad "
                     "marks the gradients,")
        lines.append("amp.state_update the new params and states; roles and "
                     "markers: docs/training-step.md.")
    header = [("// " + ln).rstrip() for ln in lines]
    emit_step(mod, a, model)
    if a.head == "classifier" and not a.no_predict:
        emit_predict(mod, a, model)
    if a.driver:
        emit_driver(mod, a, model, params, states, a.probe)
    return mod.text(header)


def describe(a):
    model = MODELS[a.model](a)
    params = model.param_specs()
    states = state_specs(a, params)
    d = {"model": a.model, "summary": model.describe(), "dtype": a.dtype,
         "head": a.head,
         "optimizer": {"kind": a.optimizer, "lr": a.lr,
                       "momentum": a.momentum, "beta1": a.beta1,
                       "beta2": a.beta2, "eps": a.adam_eps},
         "params": [{"name": n, "shape": list(sh), "arg": 2 + i}
                    for i, (n, sh, _) in enumerate(params)],
         "states": [{"name": n, "shape": list(sh), "param": p, "kind": k,
                     "arg": 2 + len(params) + i}
                    for i, (n, sh, p, k) in enumerate(states)]}
    return json.dumps(d, indent=1) + "\n"


def parse_hw(s):
    m = re.match(r"^(\d+)(?:x(\d+))?$", s)
    if not m:
        raise argparse.ArgumentTypeError("expected HxW, e.g. 8x8")
    h = int(m.group(1))
    return [h, int(m.group(2) or h)]


def parse_probe(s):
    m = re.match(r"^(\d+):(\d+)$", s)
    if not m:
        raise argparse.ArgumentTypeError("expected PARAM:INDEX, e.g. 0:17")
    return (int(m.group(1)), int(m.group(2)))


def main(argv=None):
    global FT, BUG
    ap = argparse.ArgumentParser(
        description="Emit an f32 training step (forward, loss, backward, "
                    "optimizer) of an MLP, a CNN or a transformer block as "
                    "MLIR, with amp markers and amp.role attributes.")
    ap.add_argument("--model", choices=sorted(MODELS), default="mlp")
    g = ap.add_argument_group("mlp")
    g.add_argument("--layers", type=int, default=1,
                   help="hidden layers (default 1; 0: softmax regression)")
    g.add_argument("--width", type=int, default=128,
                   help="hidden width (default 128)")
    g.add_argument("--inputs", type=int, default=64,
                   help="input features (default 64)")
    g = ap.add_argument_group("cnn")
    g.add_argument("--image", type=parse_hw, default=[8, 8],
                   help="HxW (default 8x8)")
    g.add_argument("--channels", type=int, default=1,
                   help="input channels (default 1)")
    g.add_argument("--filters", default="8",
                   help="filters per conv layer: N (every layer) or a "
                        "comma-separated list (default 8)")
    g.add_argument("--conv-layers", type=int, default=None,
                   help="conv layers (default 1, or the length of the "
                        "--filters list)")
    g.add_argument("--kernel", type=int, default=3,
                   help="square filter size (default 3)")
    g = ap.add_argument_group("transformer")
    g.add_argument("--seq", type=int, default=8, help="default 8")
    g.add_argument("--dmodel", type=int, default=16, help="default 16")
    g.add_argument("--heads", type=int, default=2, help="default 2")
    g.add_argument("--ffn", type=int, default=32,
                   help="MLP hidden width (default 32)")
    g = ap.add_argument_group("all models")
    g.add_argument("--batch", type=int, default=32, help="default 32")
    g.add_argument("--classes", type=int, default=10,
                   help="classes, or outputs of the regression head "
                        "(default 10)")
    g.add_argument("--head", choices=["classifier", "regression"],
                   default="classifier",
                   help="softmax cross-entropy on one-hot labels (default) "
                        "or mean squared error")
    g.add_argument("--optimizer", choices=["sgd", "momentum", "adam"],
                   default="sgd", help="default sgd; momentum and adam "
                   "buffers are opt_state arguments")
    g.add_argument("--lr", type=float, default=None,
                   help="learning rate (default 0.1; adam 0.001)")
    g.add_argument("--momentum", type=float, default=0.9,
                   help="mu of --optimizer momentum (default 0.9)")
    g.add_argument("--beta1", type=float, default=0.9,
                   help="Adam (default 0.9)")
    g.add_argument("--beta2", type=float, default=0.999,
                   help="Adam (default 0.999)")
    g.add_argument("--adam-eps", type=float, default=1e-8,
                   help="Adam (default 1e-8)")
    g.add_argument("--loss-weight", type=float, default=1.0,
                   help="multiply the gradients by W (a weighted loss; the "
                        "loss returned stays unweighted) and divide the "
                        "learning rate by W: small W makes gradients that "
                        "underflow f16 (sgd and momentum; default 1)")
    g.add_argument("--emit-grads", action="store_true",
                   help="also return every parameter gradient (the "
                        "amp.param_grad values) with amp.role \"grad\"")
    g.add_argument("--no-markers", action="store_true",
                   help="the marker-free program (what amp-strip-markers "
                        "makes of the marked one)")
    g.add_argument("--name", default="train_step",
                   help="step function name (default train_step)")
    g.add_argument("--predict-name", default="predict",
                   help="eval function name (default predict)")
    g.add_argument("--no-predict", action="store_true",
                   help="no eval function")
    g.add_argument("--dtype", choices=["f32", "f64"], default="f32",
                   help="float type (f64: for precise gradient checks)")
    g = ap.add_argument_group("testing")
    g.add_argument("--driver", action="store_true",
                   help="add @main for mlir-runner (needs --no-markers)")
    g.add_argument("--probe", type=parse_probe, action="append", default=[],
                   metavar="P:I",
                   help="with --driver: finite difference of the loss for "
                        "element I (flat) of parameter P (repeatable)")
    g.add_argument("--eps", type=float, default=1e-3,
                   help="finite-difference step (default 1e-3)")
    g.add_argument("--inject-bug", choices=BUGS, default=None,
                   help="emit a deliberately wrong backward pass (negative "
                        "controls of the gradient check)")
    g.add_argument("--describe", action="store_true",
                   help="print a JSON summary of parameters and states")
    ap.add_argument("-o", "--output", default="-",
                    help="output file (default stdout)")
    a = ap.parse_args(argv)

    FT = a.dtype
    BUG = a.inject_bug
    if a.lr is None:
        a.lr = 0.001 if a.optimizer == "adam" else 0.1
    filters = [s for s in a.filters.split(",") if s.strip()]
    try:
        filters = [int(s) for s in filters]
    except ValueError:
        ap.error("--filters: expected integers")
    if not filters:
        ap.error("--filters: expected integers")
    if a.conv_layers is not None:
        if a.conv_layers < 1:
            ap.error("--conv-layers must be >= 1")
        if len(filters) == 1:
            filters = filters * a.conv_layers
        elif len(filters) != a.conv_layers:
            ap.error("--filters lists %d layers, --conv-layers says %d"
                     % (len(filters), a.conv_layers))
    a.filters = filters
    if a.layers < 0:
        ap.error("--layers must be >= 0")
    for opt in ("width", "inputs", "channels", "kernel", "seq",
                "dmodel", "heads", "ffn", "batch", "classes"):
        if getattr(a, opt) < 1:
            ap.error("--%s must be >= 1" % opt.replace("_", "-"))
    if min(a.image) < 1 or min(filters) < 1:
        ap.error("--image and --filters must be >= 1")
    if a.model == "cnn":
        h, w = a.image
        for _ in filters:
            h, w = h - a.kernel + 1, w - a.kernel + 1
        if h < 2 or w < 2 or h % 2 or w % 2:
            ap.error("cnn: the last conv output is %dx%d; the 2x2 max pool "
                     "needs even sizes >= 2 (each valid %dx%d conv removes "
                     "%d)" % (h, w, a.kernel, a.kernel, a.kernel - 1))
    if a.model == "transformer" and a.dmodel % a.heads:
        ap.error("--dmodel must be a multiple of --heads")
    if a.lr <= 0:
        ap.error("--lr must be > 0")
    if not (a.loss_weight > 0 and math.isfinite(a.loss_weight)):
        ap.error("--loss-weight must be a finite number > 0")
    if a.loss_weight != 1.0 and a.optimizer == "adam":
        ap.error("--loss-weight needs --optimizer sgd or momentum (Adam "
                 "would not cancel it)")
    for nm in (a.name, a.predict_name):
        if not re.match(r"^[A-Za-z_][A-Za-z0-9_]*$", nm):
            ap.error("function names must be identifiers")
    if a.driver and not a.no_markers:
        ap.error("--driver needs --no-markers (mlir-runner cannot run "
                 "the amp markers)")
    if a.probe and not a.driver:
        ap.error("--probe needs --driver")
    model = MODELS[a.model](a)
    specs = model.param_specs()
    for p, i in a.probe:
        if p >= len(specs) or i >= prod(specs[p][1]):
            ap.error("--probe %d:%d out of range" % (p, i))

    text = describe(a) if a.describe else gen(a)
    if a.output == "-":
        sys.stdout.write(text)
    else:
        with open(a.output, "w") as f:
            f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
