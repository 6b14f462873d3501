"""--check and --dump-call: the exported and the AMP programs against
PyTorch (f32 and autocast) on the same call, and the casts both make."""

import contextlib
import copy
import json
import math
import os
import re
import shutil
import tempfile

import torch

from .export import TrainingLoss, uses_mse
from .native import call_shared_library, call_training_step, compile_and_run

def reference_training_step(model, mse, call_args, described, num_inputs,
                            autocast=None, exact=False):
    """PyTorch's f32 results of the exported training step on a copy of the
    model (with `autocast`: under torch.autocast to that dtype; with
    `exact`: the model and the floating arguments in f64): the updated
    buffers (in argument order), the loss, the gradients (in argument
    order), as train_step returns them; and the number of buffers."""
    loss_module = TrainingLoss(copy.deepcopy(model).train(), mse)
    if exact:
        loss_module = loss_module.double()
        call_args = [a.double() if a.is_floating_point() else a
                     for a in call_args]
    params = dict(loss_module.named_parameters())
    buffers = dict(loss_module.named_buffers())
    names = [d["name"] for d in described[:len(described) - num_inputs - 1]]
    # The copy starts from the call's state.
    with torch.no_grad():
        for n, a in zip(names, call_args):
            (params.get(n) if n in params else buffers[n]).copy_(a)
    with torch.autocast("cpu", dtype=autocast or torch.bfloat16,
                        enabled=autocast is not None):
        loss = loss_module(*call_args[len(names):])[0]
    loss.float().backward()
    updated = [buffers[n].detach().clone() for n in names if n in buffers]
    return (updated + [loss.detach().float()]
            + [params[n].grad.detach().clone() for n in names
               if n in params]), len(updated)


def _norm(t):
    return torch.linalg.vector_norm(t.double()).item()


def zero_by_construction(exact, num_buffers):
    """Which gradients of an f64 run of the step are zero by construction
    (the bias of a layer followed by a batch norm): at most 1e-9 of the
    largest gradient's norm, i.e. f64 rounding noise. In f32 such a
    gradient is the noise of a cancelling sum, whose size depends on the
    order of the sum, so no relative bound says anything about it."""
    grads = exact[num_buffers + 1:]
    largest = max((_norm(g) for g in grads), default=0.0)
    return [_norm(g) <= 1e-9 * largest for g in grads]


def compare_training_step(name, refs, outs, num_buffers, zero=None):
    """The loss and the gradients of two training-step runs: the loss's
    absolute error, each floating result's rel. L2 error (its worst and
    median over the gradients), and whether all are finite. A gradient's
    error is relative to the larger of its norm and 1e-3 of the largest
    gradient's: one that is zero by construction (the bias of a layer
    followed by a batch norm, everything before a batch norm whose output
    is averaged over the whole batch) is rounding noise on both sides,
    whose relative difference means nothing. Gradients flagged in `zero`
    (zero_by_construction) are left out of the worst and the median."""
    def rel_l2(r, o, floor=0.0):
        return _norm(o.double() - r.double()) / (max(_norm(r), floor) or 1.0)
    floor = 1e-3 * max((_norm(r) for r in refs[num_buffers + 1:]),
                       default=0.0)
    zero = zero or [False] * (len(refs) - num_buffers - 1)
    grads = [rel_l2(r, o, floor) for r, o, z in
             zip(refs[num_buffers + 1:], outs[num_buffers + 1:], zero)
             if not z]
    stats = [rel_l2(r, o) for r, o in zip(refs[:num_buffers],
                                          outs[:num_buffers])
             if r.is_floating_point()]
    ordered = sorted(grads)
    res = {"loss_ref": refs[num_buffers].item(),
           "loss_abs_err": abs(outs[num_buffers].item()
                               - refs[num_buffers].item()),
           "grad_rel_l2_max": ordered[-1] if ordered else 0.0,
           "grad_rel_l2_median": ordered[len(ordered) // 2] if ordered else 0.0,
           "buffer_rel_l2_max": max(stats) if stats else 0.0,
           "zero_by_construction": sum(zero),
           "finite": all(bool(torch.isfinite(o).all()) for o in outs
                         if o.is_floating_point())}
    print(f"  {name}: " + ", ".join(
        f"{k} {v:.3g}" if isinstance(v, float) else f"{k} {v}"
        for k, v in res.items()))
    return res


def low_type_of(amp_out):
    """The 16-bit type amp-opt chose in `amp_out`: bf16 or f16."""
    return "bf16" if "bf16" in open(amp_out).read() else "f16"


@contextlib.contextmanager
def check_work_dir(args):
    """The directory the checks compile in: removed afterwards unless
    --keep asks for it."""
    work = tempfile.mkdtemp(prefix="torch-to-amp-")
    try:
        yield work
    finally:
        if args.keep:
            print(f"  build files kept in {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)


def write_check_json(base, results):
    with open(base + ".check.json", "w") as f:
        json.dump(results, f, indent=1)
        f.write("\n")


def check_training_step(args, model, inputs, call_args, described, out,
                        amp_out, base):
    """--check --train: the f32 export and the AMP program's training step
    (buffers, loss, gradients) against PyTorch's autograd on the same
    state."""
    with check_work_dir(args) as work:
        refs, num_buffers = reference_training_step(
            model, uses_mse(args), call_args,
            described, len(inputs))
        exact, _ = reference_training_step(
            model, uses_mse(args), call_args, described, len(inputs),
            exact=True)
        zero = zero_by_construction(exact, num_buffers)
        runs = compile_and_run(
            args, work, (("f32", out), ("amp", amp_out)),
            lambda lib: call_training_step(lib, args.func_name, call_args,
                                           refs))
        results = {"model": args.model, "batch": args.batch, "train": True,
                   "amp_options": args.amp_options, "seed": args.seed,
                   "pipeline": args.check_pipeline,
                   "results": len(refs), "gradients":
                   len(refs) - 1 - num_buffers}
        results["mlir_f32_vs_pytorch"] = compare_training_step(
            "MLIR f32 vs PyTorch", refs, runs["f32"], num_buffers, zero)
        results["amp_vs_pytorch"] = compare_training_step(
            "AMP vs PyTorch", refs, runs["amp"], num_buffers, zero)
        # PyTorch's autocast in the precision amp-opt chose, side by side.
        low = low_type_of(amp_out)
        auto, _ = reference_training_step(
            model, uses_mse(args), call_args,
            described, len(inputs),
            torch.bfloat16 if low == "bf16" else torch.float16)
        results["autocast_dtype"] = low
        results["autocast_vs_pytorch"] = compare_training_step(
            f"PyTorch autocast {low} vs PyTorch", refs, auto, num_buffers,
            zero)
        write_check_json(base, results)


def compare(name, ref, out):
    ref = ref.double()
    out = out.double()
    err = (out - ref).abs()
    scale = ref.abs().max().item() or 1.0
    rel_l2 = (torch.linalg.vector_norm(out - ref)
              / (torch.linalg.vector_norm(ref) or 1.0)).item()
    res = {"max_abs_err": err.max().item(),
           "max_abs_err_over_max_abs_ref": err.max().item() / scale,
           "rel_l2_err": rel_l2,
           "finite": bool(torch.isfinite(out).all())}
    if ref.dim() >= 2:
        # Top-1 agreement over the last dimension (classes or vocabulary).
        res["top1_agreement"] = (ref.argmax(-1) == out.argmax(-1)).double() \
            .mean().item()
    print(f"  {name}: " + ", ".join(
        f"{k} {v:.3g}" if isinstance(v, float) else f"{k} {v}"
        for k, v in res.items()))
    return res


# Tensor casts and the bytes they move (read + write), in amp-opt's output
# and in PyTorch's autocast, for comparing the two (bench/cast_traffic.py).

BYTES = {"f64": 8, "f32": 4, "f16": 2, "bf16": 2}
CONTRACTIONS = re.compile(r"linalg\.(?:batch_)?(?:matmul|conv_\w+)\b")


def count_amp_casts(path):
    """The tensor-level arith.truncf / arith.extf ops of an amp-opt output:
    count and bytes, and the part of them that rounds a contraction's f32
    accumulator (a matmul's or convolution's result), which PyTorch counts
    as part of the contraction (its bf16 matmul writes bf16)."""
    text = open(path).read()
    contraction_results = {
        m.group(1) for m in re.finditer(r"(%[\w.]+)(?::\d+)? = (\S+)", text)
        if CONTRACTIONS.match(m.group(2))}
    res = {"count": 0, "bytes": 0, "epilogue_count": 0, "epilogue_bytes": 0}
    for m in re.finditer(r"arith\.(?:truncf|extf) (%[\w.]+)(?: \w+)? : "
                         r"tensor<([^>]*)> to tensor<([^>]*)>", text):
        name, src, dst = m.groups()
        elems = math.prod(int(d) for d in src.split("x")[:-1])
        moved = elems * (BYTES[src.split("x")[-1]] + BYTES[dst.split("x")[-1]])
        res["count"] += 1
        res["bytes"] += moved
        if name in contraction_results:
            res["epilogue_count"] += 1
            res["epilogue_bytes"] += moved
    return res


def count_autocast_casts(model, inputs, dtype):
    """Runs `model` under torch.autocast("cpu", dtype), autograd on (as in a
    training step; under no_grad nn.TransformerEncoderLayer takes a fused
    path autocast does not reach), and counts the float-to-float tensor
    conversions it makes (aten._to_copy: autocast's casts of weights and
    inputs) with the bytes they read and write. Returns (result, counts)."""
    from torch.utils._python_dispatch import TorchDispatchMode

    class CastCounter(TorchDispatchMode):
        def __init__(self):
            super().__init__()
            self.count, self.bytes = 0, 0

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            out = func(*args, **(kwargs or {}))
            src = args[0] if args else None
            if (func is torch.ops.aten._to_copy.default
                    and isinstance(src, torch.Tensor)
                    and isinstance(out, torch.Tensor)
                    and src.is_floating_point() and out.is_floating_point()
                    and src.dtype != out.dtype):
                self.count += 1
                self.bytes += src.numel() * (src.element_size()
                                             + out.element_size())
            return out

    counter = CastCounter()
    with torch.enable_grad(), torch.autocast("cpu", dtype=dtype), counter:
        out = model(*inputs)
    return out.detach().float(), {"count": counter.count,
                                  "bytes": counter.bytes}


def dump_call(model, inputs, call_args, directory):
    """The call's arguments and PyTorch's f32 and autocast-bf16 results as
    raw little-endian files. Both results are computed with autograd on,
    as a training step would: under no_grad, nn.TransformerEncoderLayer
    takes a fused fast path that autocast does not reach."""
    os.makedirs(directory, exist_ok=True)
    ref = model(*inputs).detach()
    with torch.autocast("cpu", dtype=torch.bfloat16):
        auto = model(*inputs).detach().float()
    meta = {"args": [], "output": list(ref.shape)}
    for i, a in enumerate(call_args):
        a = a.detach().contiguous()
        a.numpy().tofile(os.path.join(directory, f"arg{i}.bin"))
        meta["args"].append({"shape": list(a.shape),
                             "dtype": str(a.dtype).replace("torch.", "")})
    ref.float().numpy().tofile(os.path.join(directory, "ref.bin"))
    auto.numpy().tofile(os.path.join(directory, "autocast.bin"))
    with open(os.path.join(directory, "call.json"), "w") as f:
        json.dump(meta, f, indent=1)
        f.write("\n")
    print(f"wrote the call's {len(call_args)} arguments and the reference "
          f"results to {directory}")


def check(args, model, inputs, call_args, out, amp_out, base):
    with check_work_dir(args) as work:
        with torch.no_grad():
            ref = model(*inputs)
        runs = compile_and_run(
            args, work, (("f32", out), ("amp", amp_out)),
            lambda lib: call_shared_library(lib, args.func_name, call_args,
                                            ref))
        results = {"model": args.model, "batch": args.batch,
                   "amp_options": args.amp_options, "seed": args.seed,
                   "output_shape": list(ref.shape)}
        results["mlir_f32_vs_pytorch"] = compare("MLIR f32 vs PyTorch", ref,
                                                 runs["f32"])
        results["amp_vs_mlir_f32"] = compare("AMP vs MLIR f32", runs["f32"],
                                             runs["amp"])
        results["amp_vs_pytorch"] = compare("AMP vs PyTorch", ref,
                                            runs["amp"])
        # PyTorch's autocast in the precision amp-opt chose, side by side.
        low = low_type_of(amp_out)
        auto, auto_casts = count_autocast_casts(
            model, inputs, torch.bfloat16 if low == "bf16" else torch.float16)
        results["autocast_dtype"] = low
        results["autocast_vs_pytorch"] = compare(
            f"PyTorch autocast {low} vs PyTorch", ref, auto)
        results["autocast_casts"] = auto_casts
        results["amp_casts"] = count_amp_casts(amp_out)
        a, t = results["amp_casts"], auto_casts
        print(f"  casts: amp-opt {a['count']} ({a['bytes'] / 1e6:.2f} MB; "
              f"{a['epilogue_count']} of them round a contraction's result, "
              f"{a['epilogue_bytes'] / 1e6:.2f} MB), PyTorch autocast "
              f"{t['count']} ({t['bytes'] / 1e6:.2f} MB)")
        write_check_json(base, results)

