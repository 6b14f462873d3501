"""Random PyTorch models for torch-fuzz.py: convolutional networks, token
sequence models and MLPs built from the layers real models use (torch.nn
modules and the functional ops torchvision's and transformers' code calls),
with random, often odd, sizes. A model is a list of layer descriptions
(JSON) drawn from a seed; build() turns one into an nn.Module, so that a
failure's description alone rebuilds it. Needs scripts/ on sys.path."""

import random

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch_to_amp.models import randomize_batch_norms

ACTIVATIONS = ["relu", "relu6", "gelu", "gelu_tanh", "silu", "hardswish",
               "sigmoid", "tanh", "leaky_relu", "elu"]


def activation(name):
    return {"relu": nn.ReLU(), "relu6": nn.ReLU6(), "gelu": nn.GELU(),
            "gelu_tanh": nn.GELU(approximate="tanh"), "silu": nn.SiLU(),
            "hardswish": nn.Hardswish(), "sigmoid": nn.Sigmoid(),
            "tanh": nn.Tanh(), "leaky_relu": nn.LeakyReLU(0.1),
            "elu": nn.ELU()}[name]


# ------------------------------------------------------------------ drawing

def draw_conv(rng, c, h, w):
    """A convolution that keeps the image at least 1x1; returns (layer,
    channels, height, width)."""
    k = rng.choice([1, 1, 3, 3, 3, 5])
    dil = 2 if k == 3 and rng.random() < 0.15 else 1
    span = dil * (k - 1) + 1
    pad = rng.choice([0, span // 2, span // 2])
    stride = 2 if rng.random() < 0.3 else 1
    depthwise = k > 1 and c > 1 and rng.random() < 0.2
    out = c if depthwise else rng.choice([1, 2, 3, 4, 6, 8, 12, 16, 24, 32])
    if h + 2 * pad < span or w + 2 * pad < span:
        pad = span // 2
        if h + 2 * pad < span or w + 2 * pad < span:
            return None
    layer = {"op": "conv", "in": c, "out": out, "k": k, "stride": stride,
             "pad": pad, "dil": dil, "groups": c if depthwise else 1,
             "bias": rng.random() < 0.5}
    oh = (h + 2 * pad - span) // stride + 1
    ow = (w + 2 * pad - span) // stride + 1
    return layer, out, oh, ow


def draw_cnn(rng):
    batch = rng.choice([1, 2, 3, 4])
    c, h = rng.choice([1, 3, 3, 4]), rng.randint(4, 24)
    w = h if rng.random() < 0.7 else rng.randint(4, 24)
    shape = [batch, c, h, w]
    layers = []
    for _ in range(rng.randint(1, 6)):
        kind = rng.choice(["conv", "conv", "conv", "bn", "act", "pool",
                           "residual", "dense", "groupnorm", "upsample"])
        if kind == "conv":
            drawn = draw_conv(rng, c, h, w)
            if drawn:
                layer, c, h, w = drawn
                layers.append(layer)
        elif kind == "bn":
            layers.append({"op": "bn2d", "ch": c})
        elif kind == "act":
            layers.append({"op": "act", "fn": rng.choice(ACTIVATIONS)})
        elif kind == "pool" and h >= 2 and w >= 2:
            layers.append({"op": rng.choice(["maxpool", "avgpool"]),
                           "k": 2, "stride": 2})
            h, w = h // 2, w // 2
        elif kind == "residual":
            # x + bn(conv3x3(act(x))): torchvision's basic block shape.
            layers.append({"op": "residual_conv", "ch": c,
                           "fn": rng.choice(ACTIVATIONS)})
        elif kind == "dense":
            # cat([x, conv3x3(act(bn(x)))], channels): DenseNet's layer.
            growth = rng.choice([1, 2, 4, 8])
            layers.append({"op": "dense_conv", "ch": c, "growth": growth,
                           "fn": rng.choice(ACTIVATIONS)})
            c += growth
        elif kind == "groupnorm":
            # (PyTorch refuses a group of one value.)
            fits = [g for g in (1, 2, 4, c) if c % g == 0 and c // g * h * w > 1]
            if fits:
                layers.append({"op": "groupnorm", "groups": rng.choice(fits),
                               "ch": c})
        elif kind == "upsample" and h * w <= 256:
            layers.append({"op": "upsample",
                           "mode": rng.choice(["nearest", "bilinear"])})
            h, w = 2 * h, 2 * w
    if rng.random() < 0.7:
        layers.append({"op": "global_avgpool"})
        feat = c
    else:
        layers.append({"op": "flatten"})
        feat = c * h * w
    layers.append({"op": "linear", "in": feat,
                   "out": rng.choice([1, 2, 5, 10, 16]), "bias": True})
    return {"family": "cnn", "input": shape, "layers": layers}


def draw_seq(rng):
    batch, t = rng.choice([1, 2, 3]), rng.choice([1, 2, 5, 8, 16, 24, 32])
    heads = rng.choice([1, 2, 4])
    d = heads * rng.choice([2, 4, 8, 16])
    shape = [batch, t, d]
    layers = []
    tokens = rng.random() < 0.25
    if tokens:
        # Token ids through an embedding (GPT's input), not embeddings.
        vocab = rng.choice([2, 17, 100])
        shape = [batch, t]
        layers.append({"op": "embedding", "vocab": vocab, "d": d})
    for _ in range(rng.randint(1, 4)):
        kind = rng.choice(["encoder", "encoder", "attention", "mlp", "ln",
                           "linear"])
        if kind == "encoder":
            layers.append({"op": "encoder_layer", "d": d, "heads": heads,
                           "ffn": rng.choice([d, 2 * d, 4 * d]),
                           "fn": rng.choice(["relu", "gelu"]),
                           "norm_first": rng.random() < 0.5})
        elif kind == "attention":
            layers.append({"op": "attention", "d": d, "heads": heads,
                           "causal": rng.random() < 0.5,
                           "norm": rng.random() < 0.6})
        elif kind == "mlp":
            layers.append({"op": "residual_mlp", "d": d,
                           "hidden": rng.choice([d, 2 * d, 4 * d]),
                           "fn": rng.choice(ACTIVATIONS),
                           "norm": rng.random() < 0.6})
        elif kind == "ln":
            layers.append({"op": "layernorm", "d": d})
        else:
            out = heads * rng.choice([2, 4, 8, 16])
            layers.append({"op": "linear", "in": d, "out": out,
                           "bias": rng.random() < 0.7})
            d = out
            heads = next(hh for hh in (4, 2, 1) if d % hh == 0)
    if rng.random() < 0.5:
        layers.append({"op": "mean_tokens"})
    out = rng.choice([1, 3, 8, 16])
    layers.append({"op": "linear", "in": d, "out": out, "bias": True})
    # (A softmax of one value is a constant.)
    if out > 1 and rng.random() < 0.3:
        layers.append({"op": "log_softmax"})
    spec = {"family": "seq", "input": shape, "layers": layers}
    if tokens:
        spec["vocab"] = vocab
    return spec


def draw_mlp(rng):
    batch = rng.choice([1, 2, 7, 16, 33, 64])
    width = rng.randint(1, 96)
    shape = [batch, width]
    layers = []
    for _ in range(rng.randint(1, 5)):
        kind = rng.choice(["linear", "linear", "act", "ln", "bn1d",
                           "residual"])
        if kind == "linear":
            out = rng.randint(1, 128)
            layers.append({"op": "linear", "in": width, "out": out,
                           "bias": rng.random() < 0.7})
            width = out
        elif kind == "act":
            layers.append({"op": "act", "fn": rng.choice(ACTIVATIONS)})
        elif kind == "ln":
            layers.append({"op": "layernorm", "d": width})
        elif kind == "bn1d":
            layers.append({"op": "bn1d", "ch": width})
        else:
            layers.append({"op": "residual_mlp", "d": width,
                           "hidden": rng.randint(1, 128),
                           "fn": rng.choice(ACTIVATIONS),
                           "norm": rng.random() < 0.5})
    out = rng.randint(1, 16)
    layers.append({"op": "linear", "in": width, "out": out, "bias": True})
    if out > 1 and rng.random() < 0.4:
        layers.append({"op": rng.choice(["softmax", "log_softmax"])})
    return {"family": "mlp", "input": shape, "layers": layers}


def outputs(spec):
    """The features of the model's output (its last linear layer's)."""
    return [l for l in spec["layers"] if l["op"] == "linear"][-1]["out"]


def draw(seed):
    """The description of seed's model (JSON-serializable)."""
    rng = random.Random(seed)
    family = rng.choice(["cnn", "cnn", "seq", "seq", "mlp"])
    spec = {"cnn": draw_cnn, "seq": draw_seq, "mlp": draw_mlp}[family](rng)
    spec["seed"] = seed
    # The scale of the input: a few seeds test values far from 1, where
    # f16's range matters (PyTorch's autocast meets the same values).
    spec["input_scale"] = rng.choice([1.0, 1.0, 1.0, 0.01, 30.0])
    return spec


# ----------------------------------------------------------------- building

class Attention(nn.Module):
    """Self-attention written out (as GPT-style code does): one QKV
    projection, scaled scores, optional causal mask, softmax, output
    projection, residual; pre-norm optional."""

    def __init__(self, d, heads, causal, norm):
        super().__init__()
        self.heads, self.causal = heads, causal
        self.norm = nn.LayerNorm(d) if norm else nn.Identity()
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)

    def forward(self, x):
        b, t, d = x.shape
        h = self.heads
        q, k, v = self.qkv(self.norm(x)).split(d, dim=2)
        q = q.view(b, t, h, d // h).transpose(1, 2)
        k = k.view(b, t, h, d // h).transpose(1, 2)
        v = v.view(b, t, h, d // h).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / (d // h) ** 0.5)
        if self.causal:
            mask = torch.ones(t, t, dtype=torch.bool).tril()
            att = att.masked_fill(~mask, float("-inf"))
        att = F.softmax(att, dim=-1)
        y = (att @ v).transpose(1, 2).reshape(b, t, d)
        return x + self.proj(y)


class ResidualMLP(nn.Module):
    def __init__(self, d, hidden, fn, norm):
        super().__init__()
        self.norm = nn.LayerNorm(d) if norm else nn.Identity()
        self.fc = nn.Linear(d, hidden)
        self.act = activation(fn)
        self.out = nn.Linear(hidden, d)

    def forward(self, x):
        return x + self.out(self.act(self.fc(self.norm(x))))


class ResidualConv(nn.Module):
    def __init__(self, ch, fn):
        super().__init__()
        self.act = activation(fn)
        self.conv = nn.Conv2d(ch, ch, 3, padding=1, bias=False)
        self.bn = nn.BatchNorm2d(ch)

    def forward(self, x):
        return x + self.bn(self.conv(self.act(x)))


class DenseConv(nn.Module):
    def __init__(self, ch, growth, fn):
        super().__init__()
        self.bn = nn.BatchNorm2d(ch)
        self.act = activation(fn)
        self.conv = nn.Conv2d(ch, growth, 3, padding=1, bias=False)

    def forward(self, x):
        return torch.cat([x, self.conv(self.act(self.bn(x)))], 1)


class Lambda(nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, x):
        return self.fn(x)


def build_layer(layer):
    op = layer["op"]
    if op == "conv":
        return nn.Conv2d(layer["in"], layer["out"], layer["k"],
                         stride=layer["stride"], padding=layer["pad"],
                         dilation=layer["dil"], groups=layer["groups"],
                         bias=layer["bias"])
    if op == "bn2d":
        return nn.BatchNorm2d(layer["ch"])
    if op == "bn1d":
        return nn.BatchNorm1d(layer["ch"])
    if op == "act":
        return activation(layer["fn"])
    if op == "maxpool":
        return nn.MaxPool2d(layer["k"], layer["stride"])
    if op == "avgpool":
        return nn.AvgPool2d(layer["k"], layer["stride"])
    if op == "residual_conv":
        return ResidualConv(layer["ch"], layer["fn"])
    if op == "dense_conv":
        return DenseConv(layer["ch"], layer["growth"], layer["fn"])
    if op == "groupnorm":
        return nn.GroupNorm(layer["groups"], layer["ch"])
    if op == "upsample":
        return nn.Upsample(scale_factor=2, mode=layer["mode"])
    if op == "global_avgpool":
        return nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Flatten())
    if op == "flatten":
        return nn.Flatten()
    if op == "linear":
        return nn.Linear(layer["in"], layer["out"], bias=layer["bias"])
    if op == "embedding":
        return nn.Embedding(layer["vocab"], layer["d"])
    if op == "layernorm":
        return nn.LayerNorm(layer["d"])
    if op == "encoder_layer":
        return nn.TransformerEncoderLayer(
            layer["d"], layer["heads"], layer["ffn"], dropout=0.0,
            activation=layer["fn"], batch_first=True,
            norm_first=layer["norm_first"])
    if op == "attention":
        return Attention(layer["d"], layer["heads"], layer["causal"],
                         layer["norm"])
    if op == "residual_mlp":
        return ResidualMLP(layer["d"], layer["hidden"], layer["fn"],
                           layer["norm"])
    if op == "mean_tokens":
        return Lambda(lambda x: x.mean(dim=1))
    if op == "softmax":
        return nn.Softmax(dim=-1)
    if op == "log_softmax":
        return nn.LogSoftmax(dim=-1)
    raise ValueError("unknown layer %r" % op)


def build(spec):
    """(model in eval mode, inputs) of a description, with weights and
    input drawn from its seed."""
    torch.manual_seed(spec["seed"])
    model = nn.Sequential(*[build_layer(layer) for layer in spec["layers"]])
    model.eval()
    randomize_batch_norms(model, spread=1.4, affine=True)
    if "vocab" in spec:
        x = torch.randint(0, spec["vocab"], spec["input"])
    else:
        x = torch.randn(*spec["input"]) * spec["input_scale"]
    return model, (x,)
