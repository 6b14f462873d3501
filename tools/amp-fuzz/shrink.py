"""amp-fuzz's shrinker: deletes ops of a failing module while the same
check still fails the same way (standard library only)."""

import os
import re

import irtext
from checks import check

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
        return irtext.Op(["%s = arith.constant dense<0.5> : %s" % (name, type_)],
                        [(name, type_)])
    return irtext.Op(["%s = arith.constant 0.5 : %s" % (name, type_)],
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
