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
import ctypes
import importlib.metadata
import os
import shlex
import shutil
import subprocess
import sys
import time

import torch
import torchvision

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from torch_to_amp.checks import (check, check_training_step,  # noqa: E402
                                 dump_call)
from torch_to_amp.export import (ExportError, export,  # noqa: E402
                                 op_histogram, write_json)
from torch_to_amp.models import OWN_MODELS, build_model  # noqa: E402
from torch_to_amp.native import REPO, run_tool  # noqa: E402

LLVM_BIN = "/usr/lib/llvm-22/bin"


def versions():
    return {"torch": torch.__version__, "torchvision": torchvision.__version__,
            "torch-mlir": importlib.metadata.version("torch-mlir")}


def parse_args():
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
    p.add_argument("--loss", choices=["auto", "cross-entropy", "mse"],
                   default="auto",
                   help="with --train: the loss (default: the mean squared "
                        "error for transformer and encoder-layer, whose "
                        "output is an embedding, the cross-entropy against a "
                        "one-hot target for the others)")
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
        return args
    if not args.model:
        p.error("a model name is required (see --list)")
    if args.check and not args.amp:
        p.error("--check needs --amp")
    if args.train and args.model == "gpt":
        p.error("--train: gpt's embedding backward lowers to tm_tensor."
                "scatter, which is not upstream MLIR")
    if args.loss != "auto" and not args.train:
        p.error("--loss needs --train")
    if args.dump_params and not args.train:
        p.error("--dump-params needs --train")
    if args.train and args.params != "args":
        p.error("--train takes the weights as arguments (--params=args)")
    if args.func_name is None:
        args.func_name = "train_step" if args.train else "forward"
    return args


def list_models():
    for name, what in OWN_MODELS.items():
        print(f"{name:24} {what}")
    for name in torchvision.models.list_models(module=torchvision.models):
        print(f"{name:24} torchvision.models (classification)")


class Outputs:
    """Where the files go: FILE, its STEM (FILE without .mlir) and the small
    files --reports collects."""

    def __init__(self, args):
        self.out = args.output or f"{args.model}-b{args.batch}.mlir"
        self.base = self.out[:-5] if self.out.endswith(".mlir") else self.out
        self.stem = os.path.basename(self.base)
        if os.path.dirname(self.out):
            os.makedirs(os.path.dirname(self.out), exist_ok=True)
        self.saved = []  # (file, basename in --reports)

    def save(self, suffix):
        self.saved.append((self.base + suffix, self.stem + suffix))

    def copy_reports(self, directory):
        os.makedirs(directory, exist_ok=True)
        for path, name in self.saved:
            dest = os.path.join(directory, name)
            if os.path.abspath(path) != os.path.abspath(dest):
                shutil.copyfile(path, dest)
        print(f"reports in {directory}: "
              + ", ".join(name for _, name in self.saved))


def export_model(args, files, model, inputs):
    """Writes FILE and STEM.export.json; returns (arguments described,
    call arguments)."""
    t0 = time.time()
    mlir_module, described, call_args = export(args, model, inputs)
    text = str(mlir_module)
    with open(files.out, "w") as f:
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
    write_json(files.base + ".export.json", export_info)
    files.save(".export.json")
    print(f"exported {args.model} to {files.out} ({len(text) / 2**20:.1f} "
          f"MiB, {len(described)} arguments, {nweights / 1e6:.2f} M weights, "
          f"{sum(hist.values())} ops, {time.time() - t0:.1f} s)")
    print("  ops: " + ", ".join(f"{k} {v}" for k, v in hist.items()))
    print("  in bodies: " + ", ".join(f"{k} {v}"
                                      for k, v in body_hist.items()))
    return described, call_args


def run_amp_opt(args, files):
    """amp-opt --amp on FILE into STEM.amp.mlir (its stderr also in
    STEM.amp.txt), verified by upstream mlir-opt; returns the output."""
    base = files.base
    amp_out = base + ".amp.mlir"
    options = args.amp_options
    if args.reports:
        os.makedirs(args.reports, exist_ok=True)
        options += f" report={base}.report.json summary=true"
        files.save(".report.json")
    cmd = [args.amp_opt, files.out, f"--amp={options.strip()}", "-o", amp_out]
    print("$ " + " ".join(shlex.quote(c) for c in cmd))
    r = subprocess.run(cmd, capture_output=True, text=True)
    sys.stderr.write(r.stderr)
    if r.returncode != 0:
        sys.exit(f"torch-to-amp: amp-opt failed ({r.returncode})")
    with open(base + ".amp.txt", "w") as f:
        shown = options
        if os.path.dirname(base):
            shown = shown.replace(os.path.dirname(base) + os.sep, "")
        f.write(f"$ amp-opt {files.stem}.mlir --amp='{shown.strip()}'\n")
        f.write(r.stderr)
    files.save(".amp.txt")
    # The output must be upstream IR that upstream mlir-opt parses and
    # verifies.
    run_tool([os.path.join(args.llvm_bin, "mlir-opt"), amp_out,
              "-o", os.devnull])
    print(f"wrote {amp_out}; upstream mlir-opt verifies it")
    return amp_out


def dump_params(path, call_args, described):
    """The training step's param arguments as raw f32, in argument order."""
    with open(path, "wb") as f:
        for t, d in zip(call_args, described):
            if d["role"] == "param":
                # The host's byte order: amp-run reads it on the same
                # (little-endian) machines.
                v = t.detach().to(torch.float32).contiguous()
                f.write(ctypes.string_at(v.data_ptr(), v.numel() * 4))
    print(f"wrote {path} (the initial params, f32)")


def main():
    args = parse_args()
    if args.list:
        list_models()
        return
    files = Outputs(args)
    print(", ".join(f"{k} {v}" for k, v in versions().items()))
    model, inputs = build_model(args)
    try:
        described, call_args = export_model(args, files, model, inputs)
    except ExportError as e:
        sys.exit(f"torch-to-amp: {args.model}: {e}")
    amp_out = run_amp_opt(args, files) if args.amp else None
    if args.dump_call:
        dump_call(model, inputs, call_args, args.dump_call)
    if args.dump_params:
        dump_params(args.dump_params, call_args, described)
    if args.check and args.train:
        check_training_step(args, model, inputs, call_args, described,
                            files.out, amp_out, files.base)
        files.save(".check.json")
    elif args.check:
        check(args, model, inputs, call_args, files.out, amp_out, files.base)
        files.save(".check.json")
    if args.reports:
        files.copy_reports(args.reports)


if __name__ == "__main__":
    main()
