"""torch.export / aot_autograd + torch-mlir's FX importer: a model's
forward or training step as linalg-on-tensors MLIR, with the decompositions
that keep it upstream MLIR."""

import contextlib
import json

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch._C import DispatchKey
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


def _grouped_input_gradient(grad_output, weight, size, stride, padding,
                            dilation, groups):
    """The input gradient of a grouped 2-D convolution as a forward one:
    the output gradient spread out by the stride (zeros between its rows and
    columns), padded by the kernel's reach, correlated with the filter
    flipped and transposed within each group. Not conv_transpose2d: torch-
    mlir's grouped transposed convolution does not lower (a collapse_shape
    of the wrong rank)."""
    n, o = grad_output.shape[:2]
    kh, kw = weight.shape[-2:]
    per_group = weight.shape[1]
    dy = grad_output
    sh, sw = stride
    if sh > 1 or sw > 1:
        oh, ow = dy.shape[-2:]
        dy = F.pad(dy[:, :, :, None, :, None], (0, sw - 1, 0, 0, 0, sh - 1))
        dy = dy.reshape(n, o, oh * sh, ow * sw)
        dy = dy[:, :, :(oh - 1) * sh + 1, :(ow - 1) * sw + 1]
    # Rows before the first and after the last the kernel reaches; a padding
    # larger than the reach reads rows of dy that do not exist: cropped.
    pads = []
    for side, length, k, p, d in zip(reversed(size), reversed(dy.shape[-2:]),
                                     (kw, kh), reversed(padding),
                                     reversed(dilation)):
        low = d * (k - 1) - p
        pads += [low, side + d * (k - 1) - low - length]
    dy = F.pad(dy, [max(p, 0) for p in pads])
    crop = [max(-p, 0) for p in pads]
    dy = dy[:, :, crop[2]:dy.shape[2] - crop[3], crop[0]:dy.shape[3] - crop[1]]
    w = weight.reshape(groups, o // groups, per_group, kh, kw).transpose(1, 2)
    w = w.reshape(groups * per_group, o // groups, kh, kw).flip(2, 3)
    return F.conv2d(dy, w, None, 1, 0, dilation, groups)


def _avg_pool2d_backward(grad_output, self, kernel_size, stride, padding,
                         ceil_mode, count_include_pad, divisor_override):
    """aten.avg_pool2d_backward without a scatter (torch-mlir lowers
    PyTorch's to tm_tensor.scatter): average pooling is a depthwise
    convolution by a constant filter, so its input gradient is that
    convolution's. Pools whose divisor varies from window to window
    (padding left out of the count, a divisor override, ceil mode's partial
    last window) stay torch-mlir's."""
    def pair(v):
        return tuple(v) if len(v) == 2 else (v[0], v[0])
    kh, kw = pair(kernel_size)
    sh, sw = pair(stride or kernel_size)
    ph, pw = pair(padding)
    if self.dim() != 4 or divisor_override or \
            (not count_include_pad and (ph or pw)):
        return NotImplemented
    h, w = self.shape[-2:]
    if tuple(grad_output.shape[-2:]) != ((h + 2 * ph - kh) // sh + 1,
                                         (w + 2 * pw - kw) // sw + 1):
        return NotImplemented
    c = self.shape[1]
    weight = grad_output.new_full((c, 1, kh, kw), 1.0 / (kh * kw))
    return _grouped_input_gradient(grad_output, weight, (h, w), (sh, sw),
                                   (ph, pw), (1, 1), c)


def _whole_scales(input, output_size, scale_factors):
    """The (rows, columns) factors of a 2-D upsampling, or None where one is
    not a whole number."""
    h, w = input.shape[-2:]
    if output_size is None:
        output_size = [int(h * scale_factors[0]), int(w * scale_factors[1])]
    if output_size[0] % h or output_size[1] % w:
        return None
    return output_size[0] // h, output_size[1] // w


def _upsample_nearest2d(input, output_size, scale_factors):
    """aten.upsample_nearest2d.vec by whole factors as a broadcast of each
    pixel over its block. torch-mlir's lowering gathers, and the gather's
    backward is a tm_tensor.scatter; the broadcast's backward is a sum."""
    scales = _whole_scales(input, output_size, scale_factors)
    if scales is None or input.dim() != 4:
        return NotImplemented
    n, c, h, w = input.shape
    fh, fw = scales
    return input[:, :, :, None, :, None].expand(n, c, h, fh, w, fw) \
        .reshape(n, c, h * fh, w * fw)


def _bilinear_upsample_dim(x, dim, factor):
    """One dimension of a bilinear upsampling by a whole factor without
    align_corners: output row i * factor + r blends input row i with its
    neighbour above (r before the block's middle) or below, by the fixed
    weight |(r + 0.5) / factor - 0.5|; the edge rows repeat themselves
    (PyTorch clamps the source index)."""
    size = x.shape[dim]
    above = below = x
    if size > 1:
        first, last = x.narrow(dim, 0, 1), x.narrow(dim, size - 1, 1)
        above = torch.cat([first, x.narrow(dim, 0, size - 1)], dim)
        below = torch.cat([x.narrow(dim, 1, size - 1), last], dim)
    rows = []
    for r in range(factor):
        t = (r + 0.5) / factor - 0.5
        rows.append(x * (1 + t) - above * t if t < 0
                    else x * (1 - t) + below * t)
    out = torch.stack(rows, dim + 1)
    shape = list(x.shape)
    shape[dim] *= factor
    return out.reshape(shape)


def _upsample_bilinear2d(input, output_size, align_corners, scale_factors):
    """aten.upsample_bilinear2d.vec by whole factors as fixed blends of
    shifted copies (_bilinear_upsample_dim, rows then columns): torch-mlir's
    lowering gathers, and the gather's backward is a tm_tensor.scatter."""
    scales = _whole_scales(input, output_size, scale_factors)
    if scales is None or align_corners or input.dim() != 4:
        return NotImplemented
    out = _bilinear_upsample_dim(input, 2, scales[0])
    return _bilinear_upsample_dim(out, 3, scales[1])


def _grouped_convolution_backward(grad_output, input, weight, bias_sizes,
                                  stride, padding, dilation, transposed,
                                  output_padding, groups, output_mask):
    """aten.convolution_backward of a grouped (or depthwise) 2-D
    convolution as forward convolutions. torch-mlir lowers the filter
    gradient of a grouped convolution wrongly: it splits the batch, not the
    channels, into the groups and casts a C x C filter to the C x C/G one it
    must return (torch-fuzz seed 451: a 4x4x5x5 tensor cast to 4x1x5x5, which
    cannot bufferize); and the input gradient, a grouped transposed
    convolution, does not lower at all. Ungrouped and transposed
    convolutions stay torch-mlir's."""
    if groups == 1 or transposed or input.dim() != 4:
        return NotImplemented
    n, c, h, w = input.shape
    kh, kw = weight.shape[-2:]
    grad_input = grad_weight = grad_bias = None
    if output_mask[0]:
        grad_input = _grouped_input_gradient(grad_output, weight, (h, w),
                                             stride, padding, dilation,
                                             groups)
    if output_mask[1]:
        # dW[o, j] = sum over the batch of x[:, g * C/G + j] correlated with
        # dy[:, o], o in group g: a grouped convolution whose batch is the
        # group's input channels and whose channels are (group, sample),
        # with the forward's stride and dilation swapped.
        per_group = c // groups
        x = input.reshape(n, groups, per_group, h, w).permute(2, 1, 0, 3, 4)
        x = x.reshape(per_group, groups * n, h, w)
        dy = grad_output.transpose(0, 1)
        grad_weight = F.conv2d(x, dy, None, dilation, padding, stride, groups)
        grad_weight = grad_weight[:, :, :kh, :kw].transpose(0, 1)
    if output_mask[2]:
        grad_bias = grad_output.sum((0, 2, 3))
    return grad_input, grad_weight, grad_bias


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
        table[torch.ops.aten.convolution_backward.default] = \
            _grouped_convolution_backward
        table[torch.ops.aten.avg_pool2d_backward.default] = \
            _avg_pool2d_backward
    return table


# Upsampling decomposes above autograd (PyTorch's CompositeImplicitAutograd
# kernels in torch._decomp into gathers, whose backward is a scatter), before
# a decomposition table is consulted: the training export swaps those kernels
# for these while it traces.
COMPOSITE_OVERRIDES = {
    torch.ops.aten.upsample_nearest2d.vec: _upsample_nearest2d,
    torch.ops.aten.upsample_bilinear2d.vec: _upsample_bilinear2d,
}


@contextlib.contextmanager
def composite_overrides():
    """Installs COMPOSITE_OVERRIDES; where one returns NotImplemented,
    PyTorch's own kernel runs."""
    key = DispatchKey.CompositeImplicitAutograd
    saved = {op: op.py_kernels.get(key) for op in COMPOSITE_OVERRIDES}

    def overriding(op, ours):
        def kernel(*args, **kwargs):
            out = ours(*args, **kwargs)
            if out is not NotImplemented:
                return out
            if saved[op] is not None:
                return saved[op](*args, **kwargs)
            return op.decompose(*args, **kwargs)
        return kernel

    def install(kernels):
        for op, kernel in kernels.items():
            if kernel is None:
                op.py_kernels.pop(key, None)
            else:
                op.py_kernels[key] = kernel
            op._dispatch_cache.clear()
    install({op: overriding(op, ours)
             for op, ours in COMPOSITE_OVERRIDES.items()})
    try:
        yield
    finally:
        install(saved)


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
    with sdpa_kernel(SDPBackend.MATH), composite_overrides():
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
            + " (torch-mlir lowers the backward of a gather -- an "
            "embedding, an upsampling by a fractional factor or with "
            "align_corners -- to tm_tensor.scatter)")


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
