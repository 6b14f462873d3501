"""The backward decompositions that scripts/torch-to-amp.py --train adds
(torch-mlir has no scatter-free lowering of them) against PyTorch's
autograd, on the pooling shapes of the exported models and odd ones."""
import os
import sys

import torch

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(sys.argv[1], "scripts"))
from torch_to_amp import export as tta  # noqa: E402
torch.manual_seed(0)

# (kernel, stride, padding, dilation, input H x W)
for k, s, p, d, hw in [(3, 2, 1, 1, (112, 112)), (2, 2, 0, 1, (14, 14)),
                       (3, 1, 1, 1, (9, 11)), (3, 2, 0, 1, (10, 7)),
                       (2, 3, 1, 2, (13, 8))]:
    x = torch.randn(2, 3, *hw, requires_grad=True)
    y, idx = torch.nn.functional.max_pool2d(x, k, s, p, d,
                                            return_indices=True)
    g = torch.randn_like(y)
    ref, = torch.autograd.grad(y, x, g)
    ours = tta._max_pool2d_backward(g, x.detach(), [k, k], [s, s], [p, p],
                                    [d, d], False, idx)
    err = (ours - ref).abs().max().item()
    print(f"max_pool2d k{k} s{s} p{p} d{d} {hw}: max error {err:.1e}")
    assert ours.shape == ref.shape and err < 1e-5, err

for hw, out in [((7, 7), (7, 7)), ((7, 7), (1, 1)), ((8, 6), (2, 3))]:
    x = torch.randn(2, 4, *hw, requires_grad=True)
    y = torch.nn.functional.adaptive_avg_pool2d(x, out)
    g = torch.randn_like(y)
    ref, = torch.autograd.grad(y, x, g)
    ours = tta._adaptive_avg_pool2d_backward(g, x.detach())
    err = (ours - ref).abs().max().item()
    print(f"adaptive_avg_pool2d {hw} -> {out}: max error {err:.1e}")
    assert err < 1e-6, err

try:
    tta._adaptive_avg_pool2d_backward(torch.randn(1, 1, 2, 2),
                                      torch.randn(1, 1, 5, 5))
    raise SystemExit("uneven adaptive pooling was accepted")
except NotImplementedError as e:
    print(f"uneven: {e}")
print("ok")
