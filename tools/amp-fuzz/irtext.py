"""The IR model of amp-fuzz's generated modules (standard library only).

A module is a list of `Func`s; a function body is a list of `Op`s. An op is
rendered text (its own lines, nested regions included) plus the SSA values it
defines, so the shrinker can delete any op and replace its results with
constants without knowing what the op was. irgen.py draws them.
"""

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
