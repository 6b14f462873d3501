"""The models torch-to-amp.py exports: its own (an encoder stack, one
encoder layer, an MLP, a small GPT) and torchvision's classifiers, built
with random weights."""

import math
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F
import torchvision

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
    randomize_batch_norms(model)
    return model, inputs


def randomize_batch_norms(model, spread=1.0, affine=False):
    """Random but not trivial inference-mode batch norm: running statistics
    other than (0, 1), as after training, so that the folded scale and
    shift are exercised (`spread` widens them; `affine` also draws the
    scale and shift)."""
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, nn.modules.batchnorm._BatchNorm):
                m.running_mean.normal_(0.0, 0.1 * spread)
                m.running_var.uniform_(1.0 - 0.5 * spread, 1.0 + 0.5 * spread)
                if affine:
                    m.weight.normal_(1.0, 0.2 * spread)
                    m.bias.normal_(0.0, 0.2 * spread)
