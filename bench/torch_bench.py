#!/usr/bin/env python3
"""PyTorch peers of the CPU benchmarks (docs/performance.md).

    torch_bench.py check
        exit 0 if torch imports, else print why and exit 1
    torch_bench.py gemm [--threads N] [--min-time S] MxNxK ...
        torch.mm in f32 and in bf16 (bf16 inputs and output, f32
        accumulation inside oneDNN/MKL), interleaved, best sample; prints
        "MxNxK f32 GF/s" and "MxNxK bf16 GF/s" lines, the input format of
        amp-bench-gemm-cpu --torch-results
    torch_bench.py step --model mlp|transformer|cnn [amp-gen-model sizes]
        an eager training step of the same model as amp-gen-model
        (forward, softmax cross-entropy, backward, SGD with momentum): f32,
        and under torch.autocast("cpu", dtype=torch.bfloat16); prints
        "f32_ms X" and "bf16_ms Y" (median of --bench-steps steps, best of
        --rounds interleaved rounds)

bench/gemm_cpu.sh and bench/train_step.py call it when `import torch`
works; nothing else needs torch.
"""

import argparse
import statistics
import sys
import time


def load_torch():
    try:
        import torch  # noqa: F401
        return torch
    except Exception as e:  # ImportError, or a broken install
        print("torch not installed (%s)" % e.__class__.__name__, file=sys.stderr)
        return None


def cmd_gemm(torch, args):
    torch.set_num_threads(args.threads)
    shapes = []
    for s in args.shapes:
        m, n, k = (int(v) for v in s.split("x"))
        shapes.append((s, m, n, k))
    for key, m, n, k in shapes:
        g = torch.Generator().manual_seed(1)
        a = torch.randint(-64, 65, (m, k), generator=g).float() / 64
        b = torch.randint(-64, 65, (k, n), generator=g).float() / 64
        variants = {"f32": (a, b), "bf16": (a.bfloat16(), b.bfloat16())}
        best = {v: float("inf") for v in variants}
        spent = {v: 0.0 for v in variants}
        reps = {}
        for v, (x, y) in variants.items():
            torch.mm(x, y)
            t0 = time.perf_counter()
            torch.mm(x, y)
            t = time.perf_counter() - t0
            reps[v] = max(1, min(1000, int(0.05 / max(t, 1e-7)) + 1))
        rounds = 0
        while rounds < args.min_rounds or min(spent.values()) < args.min_time:
            for v, (x, y) in variants.items():
                time.sleep(args.gap)
                t0 = time.perf_counter()
                for _ in range(reps[v]):
                    torch.mm(x, y)
                t = time.perf_counter() - t0
                best[v] = min(best[v], t / reps[v])
                spent[v] += t
            rounds += 1
        flops = 2.0 * m * n * k
        for v in variants:
            print("%s %s %.3f" % (key, v, flops / best[v] * 1e-9))
        sys.stdout.flush()
    return 0


def build_model(torch, args):
    nn = torch.nn
    if args.model == "mlp":
        layers, width = [], args.inputs
        for _ in range(args.layers):
            layers += [nn.Linear(width, args.width), nn.ReLU()]
            width = args.width
        layers.append(nn.Linear(width, args.classes))
        model = nn.Sequential(*layers)
        x = torch.randn(args.batch, args.inputs)
    elif args.model == "cnn":
        h, w = (int(v) for v in args.image.split("x"))
        filters = [int(f) for f in args.filters.split(",")]
        if len(filters) == 1:
            filters = filters * args.conv_layers
        layers, c = [], args.channels
        for f in filters:
            layers += [nn.Conv2d(c, f, args.kernel), nn.ReLU()]
            c, h, w = f, h - args.kernel + 1, w - args.kernel + 1
        layers += [nn.MaxPool2d(2), nn.Flatten(),
                   nn.Linear(c * (h // 2) * (w // 2), args.classes)]
        model = nn.Sequential(*layers)
        x = torch.randn(args.batch, args.channels, *(int(v) for v in args.image.split("x")))
    else:
        d = args.dmodel

        class Block(nn.Module):
            def __init__(self):
                super().__init__()
                self.ln1 = nn.LayerNorm(d)
                self.attn = nn.MultiheadAttention(d, args.heads, batch_first=True)
                self.ln2 = nn.LayerNorm(d)
                self.fc1 = nn.Linear(d, args.ffn)
                self.fc2 = nn.Linear(args.ffn, d)
                self.head = nn.Linear(d, args.classes)

            def forward(self, x):
                h = self.ln1(x)
                x = x + self.attn(h, h, h, need_weights=False)[0]
                h = self.fc2(torch.nn.functional.gelu(self.fc1(self.ln2(x)),
                                                      approximate="tanh"))
                x = x + h
                return self.head(x.mean(dim=1))

        model = Block()
        x = torch.randn(args.batch, args.seq, d)
    y = torch.randint(0, args.classes, (args.batch,))
    return model, x, y


def cmd_step(torch, args):
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    model, x, y = build_model(torch, args)
    opt = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9)
    loss_fn = torch.nn.CrossEntropyLoss()

    def step(bf16):
        opt.zero_grad(set_to_none=True)
        if bf16:
            with torch.autocast("cpu", dtype=torch.bfloat16):
                loss = loss_fn(model(x), y)
        else:
            loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()

    def median_ms(bf16):
        for _ in range(args.warmup):
            step(bf16)
        times = []
        for _ in range(args.bench_steps):
            t0 = time.perf_counter()
            step(bf16)
            times.append(time.perf_counter() - t0)
        return statistics.median(times) * 1e3

    best = {False: float("inf"), True: float("inf")}
    for _ in range(args.rounds):
        for bf16 in (False, True):
            best[bf16] = min(best[bf16], median_ms(bf16))
    print("f32_ms %.3f" % best[False])
    print("bf16_ms %.3f" % best[True])
    return 0


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    sub.add_parser("check")
    g = sub.add_parser("gemm")
    g.add_argument("--threads", type=int, default=2)
    g.add_argument("--min-time", type=float, default=0.5)
    g.add_argument("--min-rounds", type=int, default=5)
    g.add_argument("--gap", type=float, default=0.12)
    g.add_argument("shapes", nargs="+")
    s = sub.add_parser("step")
    s.add_argument("--threads", type=int, default=2)
    s.add_argument("--model", choices=["mlp", "cnn", "transformer"], required=True)
    s.add_argument("--layers", type=int, default=1)
    s.add_argument("--width", type=int, default=128)
    s.add_argument("--inputs", type=int, default=64)
    s.add_argument("--image", default="8x8")
    s.add_argument("--channels", type=int, default=1)
    s.add_argument("--filters", default="8")
    s.add_argument("--conv-layers", type=int, default=1)
    s.add_argument("--kernel", type=int, default=3)
    s.add_argument("--seq", type=int, default=8)
    s.add_argument("--dmodel", type=int, default=16)
    s.add_argument("--heads", type=int, default=2)
    s.add_argument("--ffn", type=int, default=32)
    s.add_argument("--batch", type=int, default=32)
    s.add_argument("--classes", type=int, default=10)
    s.add_argument("--lr", type=float, default=0.01)
    s.add_argument("--warmup", type=int, default=3)
    s.add_argument("--bench-steps", type=int, default=10)
    s.add_argument("--rounds", type=int, default=2)
    args = p.parse_args()
    torch = load_torch()
    if torch is None:
        return 1
    if args.cmd == "check":
        print("torch %s" % torch.__version__)
        return 0
    if args.cmd == "gemm":
        return cmd_gemm(torch, args)
    return cmd_step(torch, args)


if __name__ == "__main__":
    sys.exit(main())
