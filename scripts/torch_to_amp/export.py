"""torch.export / aot_autograd + torch-mlir's FX importer: a model's
forward or training step as linalg-on-tensors MLIR, with the decompositions
that keep it upstream MLIR."""

import json

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch._decomp import decomposition_table as torch_decompositions
from torch._functorch.aot_autograd import aot_export_module
from torch.func import functional_call
from torch.nn.attention import SDPBackend, sdpa_kernel
from torch_mlir import fx
from torch_mlir.extras.fx_decomp_util import get_decomposition_table


def uses_mse(args):
    """The training step's loss: --loss, or by default the mean squared
    error for the encoders (their output is an embedding) and the
    cross-entropy for the classifiers."""
    if args.loss != "auto":
        return args.loss == "mse"
    return args.model in ("transformer", "encoder-layer")


class WeightsAsArguments(nn.Module):
    """forward(*inputs, *weights): the model with its floating-point
    parameters and buffers passed explicitly (torch.func.functional_call),
    so that torch.export makes them user inputs instead of constants."""

    def __init__(self, model, names, num_inputs):
        super().__init__()
        self.model = model
        self.names = names
        self.num_inputs = num_inputs

    def forward(self, *args):
        inputs, weights = args[:self.num_inputs], args[self.num_inputs:]
        return functional_call(self.model, dict(zip(self.names, weights)),
                               inputs)


def floating_state(model):
    """(names, tensors) of the model's floating-point parameters and
    buffers (integer buffers such as num_batches_tracked stay constants)."""
    names, tensors = [], []
    for name, t in list(model.named_parameters()) + list(
            model.named_buffers()):
        if t.is_floating_point():
            names.append(name)
            tensors.append(t.detach())
    return names, tensors


def _var_mean_f32(x, dim=None, *, correction=None, keepdim=False):
    """aten.var_mean.correction in the input's type, two passes (mean, then
    the sum of squared deviations). torch-mlir's own decomposition computes
    the variance of an f32 tensor in f64 (LayerNorm then has f64 tensors in
    its linalg output, which an f32 / f16 pipeline leaves untouched)."""
    dims = list(range(x.dim())) if dim is None else [d % x.dim() for d in dim]
    n = 1
    for d in dims:
        n *= x.shape[d]
    c = 1 if correction is None else correction
    mean = torch.mean(x, dims, keepdim=True)
    dev = x - mean
    var = torch.sum(dev * dev, dims, keepdim=keepdim) / max(n - c, 0)
    if not keepdim:
        mean = torch.squeeze(mean, dims)
    return var, mean


def _var_f32(x, dim=None, *, correction=None, keepdim=False):
    return _var_mean_f32(x, dim, correction=correction, keepdim=keepdim)[0]


def _max_pool2d_backward(grad_output, self, kernel_size, stride, padding,
                         dilation, ceil_mode, indices):
    """aten.max_pool2d_with_indices_backward without a scatter (torch-mlir
    lowers PyTorch's to tm_tensor.scatter, which is not upstream MLIR): each
    of the window's offsets adds the output gradients whose argmax is the
    input position it reaches into a strided slice of a padded gradient."""
    def pair(v):
        return tuple(v) if len(v) == 2 else (v[0], v[0])
    kh, kw = pair(kernel_size)
    sh, sw = pair(stride or kernel_size)
    ph, pw = pair(padding)
    dh, dw = pair(dilation)
    h_in, w_in = self.shape[-2:]
    oh, ow = grad_output.shape[-2:]
    hp = max(h_in + 2 * ph, (oh - 1) * sh + (kh - 1) * dh + 1)
    wp = max(w_in + 2 * pw, (ow - 1) * sw + (kw - 1) * dw + 1)
    grad = grad_output.new_zeros(tuple(self.shape[:-2]) + (hp, wp))
    for i in range(kh):
        for j in range(kw):
            h = torch.arange(oh) * sh + i * dh - ph
            w = torch.arange(ow) * sw + j * dw - pw
            valid = ((h >= 0) & (h < h_in))[:, None] \
                & ((w >= 0) & (w < w_in))[None, :]
            pos = torch.where(valid, h[:, None] * w_in + w[None, :], -1)
            contrib = torch.where(indices == pos, grad_output, 0.0)
            h0, w0 = i * dh, j * dw
            h1, w1 = h0 + (oh - 1) * sh + 1, w0 + (ow - 1) * sw + 1
            rows = grad[..., h0:h1:sh, :]
            rows = torch.slice_scatter(rows, rows[..., w0:w1:sw] + contrib,
                                       dim=-1, start=w0, end=w1, step=sw)
            grad = torch.slice_scatter(grad, rows, dim=-2, start=h0, end=h1,
                                       step=sh)
    return grad[..., ph:ph + h_in, pw:pw + w_in]


def _adaptive_avg_pool2d_backward(grad_output, self):
    """aten._adaptive_avg_pool2d_backward when the input's sides are
    multiples of the output's (VGG's 7x7 -> 7x7, ResNet's 7x7 -> 1x1): each
    output gradient spread evenly over its window. torch-mlir has no lowering
    of the general case."""
    h_in, w_in = self.shape[-2:]
    oh, ow = grad_output.shape[-2:]
    if h_in % oh or w_in % ow:
        raise NotImplementedError(
            f"adaptive average pooling {h_in}x{w_in} -> {oh}x{ow}: the "
            "backward is exported only when the sides divide evenly")
    kh, kw = h_in // oh, w_in // ow
    lead = tuple(grad_output.shape[:-2])
    spread = (grad_output / (kh * kw))[..., :, None, :, None]
    return spread.expand(lead + (oh, kh, ow, kw)).reshape(lead + (h_in, w_in))


def _gelu_tanh_exact(x, approximate="none"):
    """aten.gelu with approximate="tanh" by PyTorch's own decomposition:
    torch-mlir lowers aten.gelu itself and takes sqrt(2 / pi) as 0.797724
    there (sqrt(7 / 11): pi as 22 / 7) instead of 0.797885, 2e-4 relative,
    so an f32 export of a tanh-GELU model differed from PyTorch f32 by up to
    1e-4 (torch-fuzz seed 192). The exact GELU stays torch-mlir's (its
    gelu_backward is PyTorch's decomposition already)."""
    if approximate != "tanh":
        return NotImplemented
    return torch_decompositions[torch.ops.aten.gelu.default](x, approximate)


def decompositions(args):
    table = get_decomposition_table()
    table[torch.ops.aten.gelu.default] = _gelu_tanh_exact
    if not args.f64_variance:
        table[torch.ops.aten.var_mean.correction] = _var_mean_f32
        table[torch.ops.aten.var.correction] = _var_f32
    if args.train:
        table[torch.ops.aten.max_pool2d_with_indices_backward.default] = \
            _max_pool2d_backward
        table[torch.ops.aten._adaptive_avg_pool2d_backward.default] = \
            _adaptive_avg_pool2d_backward
    return table


class TrainingLoss(nn.Module):
    """forward(*inputs, target) -> (loss,): cross-entropy against a soft
    (one-hot) target over the last dimension for classifiers, the mean
    squared error for the encoder (its output is an embedding). A soft
    target keeps the loss's backward free of scatters."""

    def __init__(self, model, mse):
        super().__init__()
        self.model = model
        self.mse = mse

    def forward(self, *args):
        out = self.model(*args[:-1])
        target = args[-1]
        if self.mse:
            return (torch.mean((out - target) ** 2),)
        rows = out.numel() // out.shape[-1]
        return (-(torch.log_softmax(out, -1) * target).sum() / rows,)


def export_training_step(args, model, inputs):
    """The joint forward + backward graph of one training step (aot_autograd
    with the loss as output 0), imported as one function. Arguments: the
    parameters, the buffers, the inputs, the target; results: the updated
    batch-norm buffers, the loss, one gradient per parameter."""
    torch.manual_seed(args.seed + 1)
    with torch.no_grad():
        out = model(*inputs)
    mse = uses_mse(args)
    if mse:
        target = torch.randn_like(out)
    else:
        target = F.one_hot(torch.randint(0, out.shape[-1], out.shape[:-1]),
                           out.shape[-1]).float()
    loss_module = TrainingLoss(model, mse)
    call_inputs = tuple(inputs) + (target,)
    # Attention as matmul + softmax + matmul: the fused CPU kernel's
    # backward has no torch-mlir lowering.
    with sdpa_kernel(SDPBackend.MATH):
        gm, signature = aot_export_module(
            loss_module, call_inputs, trace_joint=True, output_loss_index=0,
            decompositions=decompositions(args))
    mlir_module = fx.stateless_fx_import(
        gm, output_type="linalg-on-tensors", model_name=args.func_name)
    state = dict(loss_module.named_parameters())
    state.update(loss_module.named_buffers())
    names = list(signature.parameters) + list(signature.buffers)
    call_args = tuple(state[n].detach() for n in names) + call_inputs
    arg_names = names + [f"input{i}" for i in range(len(inputs))] \
        + ["target"]
    roles = ["param"] * len(signature.parameters) \
        + ["buffer"] * len(signature.buffers) + ["input"] * len(inputs) \
        + ["target"]
    described = [{"name": n, "shape": list(t.shape),
                  "dtype": str(t.dtype).replace("torch.", ""), "role": r}
                 for n, t, r in zip(arg_names, call_args, roles)]
    return mlir_module, described, call_args


class ExportError(Exception):
    """The model exported to something amp-opt cannot read."""


def check_upstream_only(mlir_module):
    """torch-mlir leaves a few ops in its own tm_tensor dialect (the
    scatter of an embedding's backward): not upstream MLIR, which is all
    amp-opt reads."""
    top, body = op_histogram(mlir_module)
    foreign = sorted(name for name in {**top, **body}
                     if name.startswith("tm_tensor."))
    if foreign:
        raise ExportError(
            "the export has ops outside upstream MLIR: " + ", ".join(foreign)
            + " (torch-mlir lowers an embedding's backward to "
            "tm_tensor.scatter)")


def export(args, model, inputs):
    """Returns (MLIR text, argument descriptions, call arguments)."""
    if args.train:
        exported = export_training_step(args, model, inputs)
        check_upstream_only(exported[0])
        return exported
    if args.params == "args":
        names, weights = floating_state(model)
        module = WeightsAsArguments(model, names, len(inputs))
        call_args = tuple(inputs) + tuple(weights)
        arg_names = [f"input{i}" for i in range(len(inputs))] + names
    else:
        module = model
        call_args = tuple(inputs)
        arg_names = [f"input{i}" for i in range(len(inputs))]
    with torch.no_grad():
        mlir_module = fx.export_and_import(
            module, *call_args, output_type="linalg-on-tensors",
            func_name=args.func_name, decomposition_table=decompositions(args))
    described = [{"name": n, "shape": list(t.shape),
                  "dtype": str(t.dtype).replace("torch.", "")}
                 for n, t in zip(arg_names, call_args)]
    return mlir_module, described, call_args


def op_histogram(mlir_module):
    """(ops, body_ops): counts of the op names at the top level of the
    functions (what amp-opt classifies) and inside their regions (the
    scalar bodies of linalg.generic, tensor.pad, ...), terminators left
    out."""
    top, body = {}, {}
    skip = ("func.return", "linalg.yield", "tensor.yield", "scf.yield")

    def walk(op, counts):
        name = op.operation.name
        if name not in skip:
            counts[name] = counts.get(name, 0) + 1
        for region in op.operation.regions:
            for block in region.blocks:
                for inner in block.operations:
                    walk(inner, body)

    for func in mlir_module.body.operations:
        for region in func.operation.regions:
            for block in region.blocks:
                for op in block.operations:
                    walk(op, top)

    def ordered(counts):
        return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))
    return ordered(top), ordered(body)


def write_json(path, info):
    """JSON with one line per list element (argument lists stay short)."""
    def dump(value, indent):
        pad = " " * indent
        if isinstance(value, dict) and value:
            items = [f'{pad} {json.dumps(k)}: {dump(v, indent + 1)}'
                     for k, v in value.items()]
            return "{\n" + ",\n".join(items) + "\n" + pad + "}"
        if isinstance(value, list) and value:
            items = [pad + " " + json.dumps(v) for v in value]
            return "[\n" + ",\n".join(items) + "\n" + pad + "]"
        return json.dumps(value)
    with open(path, "w") as f:
        f.write(dump(info, 0) + "\n")
