"""Drives amp-fuzz's compare() (tools/amp-fuzz/checks.py) on
printMemrefF32-style outputs."""
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, sys.argv[1])
import checks as fuzz  # noqa: E402


def block(values):
    return ("Unranked Memref base@ = 0x1 rank = 1 offset = 0 sizes = [%d] "
            "strides = [1] data = \n[%s]\n" % (len(values),
                                              ", ".join(map(str, values))))


def run(name, ref, out):
    r = "".join(block(b) for b in ref)
    o = "".join(block(b) for b in out)
    print("%s: %s" % (name, fuzz.compare(r, o, "bf16")))


run("same", [[0.5, -0.25]], [[0.5, -0.25]])
run("within", [[0.5, -0.25]], [[0.51, -0.26]])
run("beyond", [[0.5, 0.5]], [[0.5, 0.7]])
run("cancelled", [[0.5, 0.3], [0.0, 0.0]], [[0.5, 0.3], [0.0012, -0.0009]])
run("zero-garbage", [[0.5, 0.3], [0.0, 0.0]], [[0.5, 0.3], [0.2, 0.0]])
run("all-zero", [[0.0, 0.0]], [[0.001, 0.0]])
