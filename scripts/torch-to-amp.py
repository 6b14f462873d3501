#!/usr/bin/env python3
"""Export a PyTorch model to linalg-on-tensors MLIR and run amp-opt on it.

Runs inside the virtual environment of scripts/setup-torch.sh (torch,
torchvision and torch-mlir from PyPI); uses only the standard library, torch,
torchvision and torch_mlir. See docs/frontends.md.

    python scripts/torch-to-amp.py resnet18 -o /tmp/resnet18.mlir \\
        --amp --amp-options='stats=true report=/tmp/resnet18.json summary=true'

The model is built with random weights (torchvision's `weights=None`: nothing
is downloaded), exported with torch.export at a static shape in f32 and
lowered by torch-mlir's FX importer to linalg-on-tensors. Weights and
batch-norm statistics stay arguments of the function (`--params=args`, the
default), so the IR stays small and amp-opt sees them as weights; the
argument names and the op counts are written to STEM.export.json (FILE is
STEM.mlir).

With --amp, amp-opt rewrites FILE into STEM.amp.mlir (its stderr -- the
statistics, the summary -- is also written to STEM.amp.txt), and upstream
mlir-opt re-parses and verifies the result. With --check, both programs are
lowered to LLVM (scripts/lower-to-llvm.sh, mlir-translate, opt, llc), run on
the CPU on the same random input and weights, and compared with PyTorch
(STEM.check.json); with --train, every result of the training step (the
updated buffers, the loss, the gradients) against PyTorch's autograd and
autocast.
"""

import argparse
import copy
import ctypes
import importlib.metadata
import json
import math
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

import torch
import torch.nn as nn
import torch.nn.functional as F
import torchvision
from torch._functorch.aot_autograd import aot_export_module
from torch.func import functional_call
from torch.nn.attention import SDPBackend, sdpa_kernel
from torch_mlir import fx
from torch_mlir.extras.fx_decomp_util import get_decomposition_table

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LLVM_BIN = "/usr/lib/llvm-22/bin"


# --------------------------------------------------------------------------
# Models written here (torchvision models come from torchvision.models).


class TransformerEncoder(nn.Module):
    """A stack of torch.nn.TransformerEncoderLayer (pre-norm, GELU), the
    encoder of a BERT-style model; input: (batch, seq, d_model) embeddings."""

    def __init__(self, d_model=256, nhead=4, layers=4, ffn=1024):
        super().__init__()
        layer = nn.TransformerEncoderLayer(
            d_model, nhead, ffn, dropout=0.0, activation="gelu",
            batch_first=True, norm_first=True)
        self.encoder = nn.TransformerEncoder(
            layer, layers, norm=nn.LayerNorm(d_model),
            enable_nested_tensor=False)

    def forward(self, x):
        return self.encoder(x)


class CausalSelfAttention(nn.Module):
    def __init__(self, d_model, nhead):
        super().__init__()
        self.nhead = nhead
        self.qkv = nn.Linear(d_model, 3 * d_model)
        self.proj = nn.Linear(d_model, d_model)

    def forward(self, x):
        b, t, c = x.shape
        q, k, v = self.qkv(x).split(c, dim=2)
        h = self.nhead
        q = q.view(b, t, h, c // h).transpose(1, 2)
        k = k.view(b, t, h, c // h).transpose(1, 2)
        v = v.view(b, t, h, c // h).transpose(1, 2)
        # Written out (no scaled_dot_product_attention): matmul, scale,
        # causal mask, softmax, matmul.
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(c // h))
        mask = torch.ones(t, t, dtype=torch.bool).tril()
        att = att.masked_fill(~mask, float("-inf"))
        att = F.softmax(att, dim=-1)
        y = (att @ v).transpose(1, 2).reshape(b, t, c)
        return self.proj(y)


class GPTBlock(nn.Module):
    def __init__(self, d_model, nhead):
        super().__init__()
        self.ln1 = nn.LayerNorm(d_model)
        self.attn = CausalSelfAttention(d_model, nhead)
        self.ln2 = nn.LayerNorm(d_model)
        self.fc = nn.Linear(d_model, 4 * d_model)
        self.out = nn.Linear(4 * d_model, d_model)

    def forward(self, x):
        x = x + self.attn(self.ln1(x))
        return x + self.out(F.gelu(self.fc(self.ln2(x)), approximate="tanh"))


class GPT(nn.Module):
    """A small GPT-2-style decoder: token and position embeddings, pre-norm
    blocks with causal attention, a tied-free LM head; input: token ids
    (batch, seq) int64, output: logits (batch, seq, vocab)."""

    def __init__(self, vocab=4096, seq=128, d_model=256, nhead=4, layers=4):
        super().__init__()
        self.tok = nn.Embedding(vocab, d_model)
        self.pos = nn.Embedding(seq, d_model)
        self.blocks = nn.ModuleList(GPTBlock(d_model, nhead)
                                    for _ in range(layers))
        self.ln = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, vocab, bias=False)

    def forward(self, idx):
        t = idx.shape[1]
        x = self.tok(idx) + self.pos(torch.arange(t))
        for block in self.blocks:
            x = block(x)
        return self.head(self.ln(x))


OWN_MODELS = {
    "transformer": "nn.TransformerEncoder: 4 pre-norm layers, d_model 256, "
                   "4 heads, FFN 1024, GELU; input (batch, seq, 256) f32",
    "encoder-layer": "one nn.TransformerEncoderLayer(256, 4, 1024, gelu), "
                     "post-norm (PyTorch's default); input (batch, seq, 256)",
    "gpt": "GPT-2-style decoder: 4 blocks, d_model 256, 4 heads, vocab 4096,"
           " causal softmax attention; input (batch, seq) token ids",
    "mlp": "2048 -> 2048 -> ReLU -> 2048 -> ReLU -> 64 (three nn.Linear); "
           "input (batch, 2048)",
}


def build_model(args):
    """Returns (model in eval mode, example inputs) with random weights."""
    torch.manual_seed(args.seed)
    if args.model == "transformer":
        model = TransformerEncoder()
        inputs = (torch.randn(args.batch, args.seq_len, 256),)
    elif args.model == "encoder-layer":
        model = nn.TransformerEncoderLayer(256, 4, 1024, dropout=0.0,
                                           activation="gelu",
                                           batch_first=True)
        inputs = (torch.randn(args.batch, args.seq_len, 256),)
    elif args.model == "mlp":
        model = nn.Sequential(nn.Linear(2048, 2048), nn.ReLU(),
                              nn.Linear(2048, 2048), nn.ReLU(),
                              nn.Linear(2048, 64))
        inputs = (torch.randn(args.batch, 2048),)
    elif args.model == "gpt":
        model = GPT(seq=args.seq_len)
        inputs = (torch.randint(0, 4096, (args.batch, args.seq_len)),)
    else:
        try:
            model = torchvision.models.get_model(args.model, weights=None)
        except ValueError as e:
            sys.exit(f"torch-to-amp: {e} (see --list)")
        s = args.image_size
        inputs = (torch.randn(args.batch, 3, s, s),)
    model.eval()
    if args.train:
        # Batch norm on batch statistics (the running ones become results);
        # dropout stays off: its random masks do not export.
        model.train()
        for m in model.modules():
            if isinstance(m, nn.modules.dropout._DropoutNd):
                m.eval()
    # Random but not trivial inference-mode batch norm: running statistics
    # other than (0, 1), so that the folded scale and shift are exercised.
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, nn.modules.batchnorm._BatchNorm):
                m.running_mean.normal_(0.0, 0.1)
                m.running_var.uniform_(0.5, 1.5)
    return model, inputs


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


def decompositions(args):
    table = get_decomposition_table()
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
    mse = uses_mse(args.model)
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


def export(args, model, inputs):
    """Returns (MLIR text, argument descriptions, call arguments)."""
    if args.train:
        return export_training_step(args, model, inputs)
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


# --------------------------------------------------------------------------
# Running a lowered function on the CPU (for --check).


def run_tool(cmd, **kw):
    r = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if r.returncode != 0:
        sys.exit("torch-to-amp: command failed ({}):\n{}\n{}".format(
            r.returncode, " ".join(shlex.quote(c) for c in cmd),
            r.stderr[-4000:]))
    return r


def compile_to_shared_library(mlir_file, work, tag, llvm_bin, fast=False):
    """mlir_file (tensors) -> shared library exporting _mlir_ciface_<f>.
    fast: through the fast pipeline (libamp_rt's kernels, OpenMP loops,
    NCHW convolutions on blocked activations), linked with libamp_rt and
    LLVM's libomp."""
    llvm_dialect = os.path.join(work, tag + ".llvm.mlir")
    ll = os.path.join(work, tag + ".ll")
    obj = os.path.join(work, tag + ".o")
    lib = os.path.join(work, tag + ".so")
    env = dict(os.environ)
    # lower-to-llvm.sh runs amp-opt's amp-lower-to-llvm pipeline.
    env.setdefault("AMP_OPT", os.path.join(REPO, "build", "bin", "amp-opt"))
    with open(llvm_dialect, "w") as out:
        r = subprocess.run(
            [os.path.join(REPO, "scripts", "lower-to-llvm.sh")]
            + (["--fast"] if fast else [])
            + [mlir_file, "--llvm-request-c-wrappers"], stdout=out,
            stderr=subprocess.PIPE,
            text=True, env=env)
    if r.returncode != 0:
        sys.exit(f"torch-to-amp: lower-to-llvm.sh {mlir_file} failed:\n"
                 + r.stderr[-4000:])
    run_tool([os.path.join(llvm_bin, "mlir-translate"), "--mlir-to-llvmir",
              llvm_dialect, "-o", ll])
    run_tool([os.path.join(llvm_bin, "opt"), "-O3", "-mcpu=native", ll,
              "-S", "-o", ll + ".opt"])
    run_tool([os.path.join(llvm_bin, "llc"), "-O3", "-mcpu=native",
              "-relocation-model=pic", "-filetype=obj", ll + ".opt",
              "-o", obj])
    llvm_lib = os.path.join(os.path.dirname(llvm_bin), "lib")
    link = ["cc", "-shared", "-o", lib, obj, "-lm"]
    if os.path.exists(os.path.join(llvm_lib, "libmlir_float16_utils.so")):
        # __truncsfbf2 (f32 -> bf16) is missing from Debian 12's libgcc.
        link += ["-lmlir_float16_utils"]
    # memrefCopy (copies that bufferization leaves).
    link += [f"-L{llvm_lib}", "-lmlir_c_runner_utils", f"-Wl,-rpath,{llvm_lib}"]
    if fast:
        rt_lib = os.path.join(os.path.dirname(env["AMP_OPT"]), "..", "lib")
        link += [f"-L{rt_lib}", "-lamp_rt", f"-Wl,-rpath,{rt_lib}", "-lomp"]
    run_tool(link)
    return lib


_CTYPE = {torch.float32: ctypes.c_float, torch.float64: ctypes.c_double,
          torch.int64: ctypes.c_int64, torch.int32: ctypes.c_int32,
          torch.bool: ctypes.c_bool}


def memref_struct(rank):
    fields = [("allocated", ctypes.c_void_p), ("aligned", ctypes.c_void_p),
              ("offset", ctypes.c_int64)]
    if rank:
        fields += [("sizes", ctypes.c_int64 * rank),
                   ("strides", ctypes.c_int64 * rank)]
    return type(f"MemRef{rank}D", (ctypes.Structure,), {"_fields_": fields})


def to_memref(t):
    t = t.contiguous()
    d = memref_struct(t.dim())()
    d.allocated = d.aligned = t.data_ptr()
    d.offset = 0
    for i in range(t.dim()):
        d.sizes[i] = t.shape[i]
        d.strides[i] = t.stride(i)
    return d, t  # keep t alive


def call_shared_library(lib, func_name, call_args, result):
    """Calls _mlir_ciface_<func_name>(&result, &arg0, ...) of `lib`.
    `result` is a tensor of the result's shape and dtype (one result)."""
    so = ctypes.CDLL(lib)
    fn = getattr(so, "_mlir_ciface_" + func_name)
    keep = [to_memref(a) for a in call_args]
    out = memref_struct(result.dim())()
    fn.restype = None
    fn(ctypes.byref(out), *[ctypes.byref(d) for d, _ in keep])
    n = result.numel()
    elem = _CTYPE[result.dtype]
    size = ctypes.sizeof(elem)
    buf = (elem * n).from_address(out.aligned + out.offset * size)
    flat = torch.frombuffer(bytearray(buf), dtype=result.dtype)
    strides = [out.strides[i] for i in range(result.dim())]
    expected = list(result.contiguous().stride())
    if result.dim() and strides != expected:
        sys.exit(f"torch-to-amp: unexpected result strides {strides}")
    return flat.reshape(result.shape)


def call_training_step(lib, func_name, call_args, results):
    """Calls _mlir_ciface_<func_name>(&results, &arg0, ...) of a function
    with several results (the C wrapper returns them in one struct of
    memref descriptors); `results` are tensors of their shapes and dtypes."""
    so = ctypes.CDLL(lib)
    fn = getattr(so, "_mlir_ciface_" + func_name)
    keep = [to_memref(a) for a in call_args]
    fields = [(f"r{i}", memref_struct(r.dim())) for i, r in enumerate(results)]
    out = type("Results", (ctypes.Structure,), {"_fields_": fields})()
    fn.restype = None
    fn(ctypes.byref(out), *[ctypes.byref(d) for d, _ in keep])
    values = []
    for i, r in enumerate(results):
        d = getattr(out, f"r{i}")
        elem = _CTYPE[r.dtype]
        size = ctypes.sizeof(elem)
        strides = [d.strides[k] for k in range(r.dim())]
        if r.dim() and strides != list(r.contiguous().stride()):
            sys.exit(f"torch-to-amp: unexpected strides {strides} of "
                     f"result {i}")
        buf = (elem * r.numel()).from_address(d.aligned + d.offset * size)
        values.append(torch.frombuffer(bytearray(buf), dtype=r.dtype)
                      .reshape(r.shape))
    return values


def reference_training_step(model, mse, call_args, described, num_inputs,
                            autocast=None):
    """PyTorch's f32 results of the exported training step on a copy of the
    model (with `autocast`: under torch.autocast to that dtype): the updated
    buffers (in argument order), the loss, the gradients (in argument
    order), as train_step returns them; and the number of buffers."""
    loss_module = TrainingLoss(copy.deepcopy(model).train(), mse)
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


def compare_training_step(name, refs, outs, num_buffers):
    """The loss and the gradients of two training-step runs: the loss's
    absolute error, each floating result's rel. L2 error (its worst and
    median over the gradients), and whether all are finite."""
    def rel_l2(r, o):
        r, o = r.double(), o.double()
        return (torch.linalg.vector_norm(o - r)
                / (torch.linalg.vector_norm(r) or 1.0)).item()
    grads = [rel_l2(r, o) for r, o in zip(refs[num_buffers + 1:],
                                          outs[num_buffers + 1:])]
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
           "finite": all(bool(torch.isfinite(o).all()) for o in outs
                         if o.is_floating_point())}
    print(f"  {name}: " + ", ".join(
        f"{k} {v:.3g}" if isinstance(v, float) else f"{k} {v}"
        for k, v in res.items()))
    return res


def compile_and_run(args, work, programs, call):
    """Compiles each (tag, file) of `programs` to a shared library and runs
    it with `call(lib)`; returns {tag: result}."""
    runs = {}
    for tag, f in programs:
        t0 = time.time()
        lib = compile_to_shared_library(f, work, tag, args.llvm_bin,
                                        fast=args.check_pipeline == "fast")
        t1 = time.time()
        runs[tag] = call(lib)
        print(f"  ran {tag}: compile {t1 - t0:.1f} s, "
              f"run {time.time() - t1:.1f} s")
    return runs


def low_type_of(amp_out):
    """The 16-bit type amp-opt chose in `amp_out`: bf16 or f16."""
    return "bf16" if "bf16" in open(amp_out).read() else "f16"


def uses_mse(model_name):
    """The encoders' output is an embedding: their loss is the MSE."""
    return model_name in ("transformer", "encoder-layer")


def check_training_step(args, model, inputs, call_args, described, out,
                        amp_out, base):
    """--check --train: the f32 export and the AMP program's training step
    (buffers, loss, gradients) against PyTorch's autograd on the same
    state."""
    work = tempfile.mkdtemp(prefix="torch-to-amp-")
    try:
        refs, num_buffers = reference_training_step(
            model, uses_mse(args.model), call_args,
            described, len(inputs))
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
            "MLIR f32 vs PyTorch", refs, runs["f32"], num_buffers)
        results["amp_vs_pytorch"] = compare_training_step(
            "AMP vs PyTorch", refs, runs["amp"], num_buffers)
        # PyTorch's autocast in the precision amp-opt chose, side by side.
        low = low_type_of(amp_out)
        auto, _ = reference_training_step(
            model, uses_mse(args.model), call_args,
            described, len(inputs),
            torch.bfloat16 if low == "bf16" else torch.float16)
        results["autocast_dtype"] = low
        results["autocast_vs_pytorch"] = compare_training_step(
            f"PyTorch autocast {low} vs PyTorch", refs, auto, num_buffers)
        with open(base + ".check.json", "w") as f:
            json.dump(results, f, indent=1)
            f.write("\n")
    finally:
        if args.keep:
            print(f"  build files kept in {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)


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


# --------------------------------------------------------------------------


def versions():
    return {"torch": torch.__version__, "torchvision": torchvision.__version__,
            "torch-mlir": importlib.metadata.version("torch-mlir")}


def main():
    p = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=__doc__.split("\n\n", 1)[1])
    p.add_argument("model", nargs="?",
                   help="a torchvision model name (resnet18, mobilenet_v2, "
                        "efficientnet_b0, vgg11, ...), 'transformer', 'encoder-layer', 'mlp' or 'gpt'")
    p.add_argument("--list", action="store_true",
                   help="list the model names and exit")
    p.add_argument("-o", "--output",
                   help="the exported .mlir (default: MODEL-bBATCH.mlir)")
    p.add_argument("--batch", type=int, default=1)
    p.add_argument("--image-size", type=int, default=224,
                   help="torchvision models: input is BATCHx3xSxS")
    p.add_argument("--seq-len", type=int, default=128,
                   help="transformer / gpt: sequence length")
    p.add_argument("--params", choices=["args", "inline"], default="args",
                   help="args: weights and batch-norm statistics are function "
                        "arguments (default); inline: torch-mlir's frozen "
                        "import, weights as dense_resource constants (large)")
    p.add_argument("--f64-variance", action="store_true",
                   help="keep torch-mlir's decomposition of var / var_mean "
                        "(LayerNorm), which computes in f64; by default the "
                        "script decomposes them in f32")
    p.add_argument("--train", action="store_true",
                   help="export the training step (forward, loss, backward) "
                   "instead of the inference forward")
    p.add_argument("--dump-params", metavar="FILE",
                   help="with --train: write the model's parameters (the "
                   "training step's param arguments, in argument order) as "
                   "raw little-endian f32, for amp-run --init-params")
    p.add_argument("--func-name", default=None,
                   help="default: forward, or train_step with --train")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--amp", action="store_true",
                   help="run amp-opt --amp on the export (FILE.amp.mlir)")
    p.add_argument("--amp-opt", default=os.path.join(REPO, "build", "bin",
                                                     "amp-opt"),
                   help="the amp-opt binary (default: %(default)s)")
    p.add_argument("--amp-options", default="stats=true",
                   help="options of --amp, e.g. 'mode=bf16 stats=true "
                        "report=r.json summary=true target=h100' "
                        "(default: %(default)s)")
    p.add_argument("--dump-call", metavar="DIR",
                   help="write the forward call's arguments (raw, one "
                        "argN.bin each, in the exported order), PyTorch's "
                        "f32 result (ref.bin) and its autocast bf16 result "
                        "(autocast.bin, as f32) and call.json to DIR, for "
                        "running the export elsewhere (bench/"
                        "iree_downstream.py)")
    p.add_argument("--check", action="store_true",
                   help="with --amp: run the f32 export and the AMP program "
                        "on the CPU and compare them with PyTorch")
    p.add_argument("--check-pipeline", choices=["reference", "fast"],
                   default="reference",
                   help="with --check: lower both programs with the "
                        "reference pipeline (plain loops) or the fast one "
                        "(amp-run --fast's: libamp_rt, OpenMP, blocked "
                        "convolutions) (default: %(default)s)")
    p.add_argument("--reports", metavar="DIR",
                   help="also write the small files to DIR: STEM.export.json, "
                        "STEM.amp.txt, STEM.report.json (adds 'report=... "
                        "summary=true' to the --amp options), "
                        "STEM.check.json; STEM is the output's name")
    p.add_argument("--llvm-bin", default=LLVM_BIN,
                   help="mlir-opt, mlir-translate, opt, llc (default: "
                        "%(default)s)")
    p.add_argument("--keep", action="store_true",
                   help="keep the --check build files (printed)")
    args = p.parse_args()

    if args.list:
        for name, what in OWN_MODELS.items():
            print(f"{name:24} {what}")
        for name in torchvision.models.list_models(module=torchvision.models):
            print(f"{name:24} torchvision.models (classification)")
        return
    if not args.model:
        p.error("a model name is required (see --list)")
    if args.check and not args.amp:
        p.error("--check needs --amp")
    if args.train and args.model == "gpt":
        p.error("--train: gpt's embedding backward lowers to tm_tensor."
                "scatter, which is not upstream MLIR")
    if args.dump_params and not args.train:
        p.error("--dump-params needs --train")
    if args.train and args.params != "args":
        p.error("--train takes the weights as arguments (--params=args)")
    if args.func_name is None:
        args.func_name = "train_step" if args.train else "forward"
    out = args.output or f"{args.model}-b{args.batch}.mlir"
    base = out[:-5] if out.endswith(".mlir") else out
    stem = os.path.basename(base)
    if os.path.dirname(out):
        os.makedirs(os.path.dirname(out), exist_ok=True)
    saved = []  # (file, basename in --reports)

    def save(path, suffix):
        saved.append((path, stem + suffix))

    print(", ".join(f"{k} {v}" for k, v in versions().items()))
    model, inputs = build_model(args)
    t0 = time.time()
    mlir_module, described, call_args = export(args, model, inputs)
    text = str(mlir_module)
    with open(out, "w") as f:
        f.write(text)
    hist, body_hist = op_histogram(mlir_module)
    weights = call_args[:len(call_args) - len(inputs) - 1] if args.train \
        else call_args[len(inputs):]
    nweights = sum(t.numel() for t in weights)
    export_info = {
        "model": args.model, "batch": args.batch, "params": args.params,
        "train": args.train,
        "f64_variance": args.f64_variance, "versions": versions(),
        "func": args.func_name, "mlir_bytes": len(text),
        "weights": nweights, "ops": hist, "body_ops": body_hist,
        "arguments": described}
    write_json(base + ".export.json", export_info)
    save(base + ".export.json", ".export.json")
    print(f"exported {args.model} to {out} ({len(text) / 2**20:.1f} MiB, "
          f"{len(described)} arguments, {nweights / 1e6:.2f} M weights, "
          f"{sum(hist.values())} ops, {time.time() - t0:.1f} s)")
    print("  ops: " + ", ".join(f"{k} {v}" for k, v in hist.items()))
    print("  in bodies: " + ", ".join(f"{k} {v}"
                                      for k, v in body_hist.items()))

    if args.amp:
        amp_out = base + ".amp.mlir"
        options = args.amp_options
        if args.reports:
            os.makedirs(args.reports, exist_ok=True)
            options += f" report={base}.report.json summary=true"
            save(base + ".report.json", ".report.json")
        cmd = [args.amp_opt, out, f"--amp={options.strip()}", "-o", amp_out]
        print("$ " + " ".join(shlex.quote(c) for c in cmd))
        r = subprocess.run(cmd, capture_output=True, text=True)
        sys.stderr.write(r.stderr)
        if r.returncode != 0:
            sys.exit(f"torch-to-amp: amp-opt failed ({r.returncode})")
        with open(base + ".amp.txt", "w") as f:
            shown = options
            if os.path.dirname(base):
                shown = shown.replace(os.path.dirname(base) + os.sep, "")
            f.write(f"$ amp-opt {stem}.mlir --amp='{shown.strip()}'\n")
            f.write(r.stderr)
        save(base + ".amp.txt", ".amp.txt")
        # The output must be upstream IR that upstream mlir-opt parses and
        # verifies.
        run_tool([os.path.join(args.llvm_bin, "mlir-opt"), amp_out,
                  "-o", os.devnull])
        print(f"wrote {amp_out}; upstream mlir-opt verifies it")

    if args.dump_call:
        dump_call(model, inputs, call_args, args.dump_call)

    if args.dump_params:
        with open(args.dump_params, "wb") as f:
            for t, d in zip(call_args, described):
                if d["role"] == "param":
                    # The host's byte order: amp-run reads it on the same
                    # (little-endian) machines.
                    v = t.detach().to(torch.float32).contiguous()
                    f.write(ctypes.string_at(v.data_ptr(), v.numel() * 4))
        print(f"wrote {args.dump_params} (the initial params, f32)")

    if args.check and args.train:
        check_training_step(args, model, inputs, call_args, described, out,
                            amp_out, base)
        save(base + ".check.json", ".check.json")
    elif args.check:
        check(args, model, inputs, call_args, out, amp_out, base)
        save(base + ".check.json", ".check.json")

    if args.reports:
        os.makedirs(args.reports, exist_ok=True)
        for path, name in saved:
            dest = os.path.join(args.reports, name)
            if os.path.abspath(path) != os.path.abspath(dest):
                shutil.copyfile(path, dest)
        print(f"reports in {args.reports}: "
              + ", ".join(name for _, name in saved))


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
    work = tempfile.mkdtemp(prefix="torch-to-amp-")
    try:
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
        with open(base + ".check.json", "w") as f:
            json.dump(results, f, indent=1)
            f.write("\n")
    finally:
        if args.keep:
            print(f"  build files kept in {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
