"""The decompositions that scripts/torch-to-amp.py --train adds (torch-mlir
has no scatter-free or no correct lowering of them) against PyTorch's
autograd, on the pooling, convolution and upsampling shapes of the exported
models and odd ones."""
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
# (batch, in, out, size, kernel, stride, padding, dilation, groups): the
# depthwise conv of torch-fuzz seed 451, MobileNet's, and grouped ones whose
# strided output leaves input rows unread, one padded past the kernel's
# reach.
for n, c, o, hw, k, s, p, d, g in [(2, 4, 4, 15, 5, 2, 2, 1, 4),
                                   (2, 32, 32, 14, 3, 1, 1, 1, 32),
                                   (3, 6, 9, 13, 3, 2, 1, 2, 3),
                                   (2, 8, 8, 10, 2, 3, 0, 1, 2),
                                   (2, 6, 6, 7, 2, 1, 2, 1, 6)]:
    x = torch.randn(n, c, hw, hw, requires_grad=True)
    w = torch.randn(o, c // g, k, k, requires_grad=True)
    b = torch.randn(o, requires_grad=True)
    y = torch.nn.functional.conv2d(x, w, b, s, p, d, g)
    gy = torch.randn_like(y)
    refs = torch.autograd.grad(y, (x, w, b), gy)
    ours = tta._grouped_convolution_backward(
        gy, x.detach(), w.detach(), [o], [s, s], [p, p], [d, d], False,
        [0, 0], g, [True, True, True])
    errs = [(a - r).abs().max().item() / r.abs().max().item()
            for a, r in zip(ours, refs)]
    print(f"grouped conv {c}->{o} k{k} s{s} p{p} d{d} g{g}: max rel. error "
          + " ".join(f"{e:.1e}" for e in errs))
    assert all(a.shape == r.shape for a, r in zip(ours, refs))
    assert max(errs) < 1e-5, errs
assert tta._grouped_convolution_backward(
    gy, x.detach(), torch.randn(o, c, k, k), [o], [s, s], [p, p], [d, d],
    False, [0, 0], 1, [True, True, True]) is NotImplemented
# Average pooling's input gradient, as a depthwise convolution's; pools
# whose divisor varies stay torch-mlir's.
for k, s, p, cip, hw in [(2, 2, 0, True, (8, 8)), (3, 2, 1, True, (9, 11)),
                         (3, 1, 0, False, (7, 7)), (2, 3, 1, True, (10, 6))]:
    x = torch.randn(2, 3, *hw, requires_grad=True)
    y = torch.nn.functional.avg_pool2d(x, k, s, p, False, cip)
    g = torch.randn_like(y)
    ref, = torch.autograd.grad(y, x, g)
    ours = tta._avg_pool2d_backward(g, x.detach(), [k, k], [s, s], [p, p],
                                    False, cip, None)
    err = (ours - ref).abs().max().item()
    print(f"avg_pool2d k{k} s{s} p{p} {hw}: max error {err:.1e}")
    assert ours.shape == ref.shape and err < 1e-6, err
assert tta._avg_pool2d_backward(g, x.detach(), [2, 2], [3, 3], [1, 1], False,
                                False, None) is NotImplemented

# Upsampling by whole factors without a gather, against PyTorch's, by scale
# or by size; a fractional factor or align_corners stays torch-mlir's.
up = torch.nn.functional.interpolate
for mode, ours_of in [("nearest", lambda x, f: tta._upsample_nearest2d(
                           x, None, [f, f])),
                      ("bilinear", lambda x, f: tta._upsample_bilinear2d(
                          x, None, False, [f, f]))]:
    for hw, f in [((5, 7), 2), ((4, 3), 3), ((1, 6), 2)]:
        x = torch.randn(2, 3, *hw, dtype=torch.float64)
        ours = ours_of(x, f)
        err = max((ours - up(x, scale_factor=f, mode=mode)).abs().max(),
                  (ours - up(x, size=ours.shape[-2:], mode=mode)).abs().max())
        print(f"upsample {mode} {hw} x{f}: max error {err:.1e}")
        assert err < 1e-12, err
assert tta._upsample_nearest2d(x, None, [1.5, 1.5]) is NotImplemented
assert tta._upsample_bilinear2d(x, None, True, [2, 2]) is NotImplemented
print("ok")
