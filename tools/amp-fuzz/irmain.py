"""The @main that runs a generated module under mlir-runner: deterministic
arguments, every result printed (standard library only)."""

import re

from irtext import Val, fmt_float, parse_type, ttype


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
