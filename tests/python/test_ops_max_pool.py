"""max_pool2d/3d forward (values, indices) and backward against CPU: small
windows run as an unrolled scan (ops/max_pool.c), tiling windows' backward
as one select, larger windows as reduce_window + scatter. NaNs, -inf,
ties, padding, dilation and ceil mode."""
import itertools

import pytest
import torch
import torch.nn.functional as F

# (dims, kernel, stride, padding, dilation, ceil_mode): tiling windows
# (stride = kernel), overlapping ones, dilation, padding, ceil mode, and
# windows past the unrolled scan's 16 cells (5x5, 3x3x3).
CONFIGS = [c for c in itertools.product([2, 3], [1, 2, 3, 5], [1, 2, 3], [0, 1], [1, 2], [False, True])
           if c[3] <= (c[4] * (c[1] - 1) + 1) // 2
           and (c[2] in (1, c[1]) or c[1] == 2)  # strides: 1, the kernel, or 3 over 2
           and (c[4] == 1 or c[1] <= 3) and (c[5] is False or c[2] > 1)]


def sample(shape, dtype):
    g = torch.Generator().manual_seed(hash(shape) % 1000)
    if dtype == torch.float64:  # many ties
        return torch.randint(-2, 2, shape, generator=g).to(dtype)
    if not dtype.is_floating_point:
        return torch.randint(-5, 5, shape, generator=g, dtype=dtype)
    x = (torch.randn(shape, generator=g) * 3).to(dtype)
    if dtype == torch.float32:
        x.view(-1)[::7] = float("nan")
        x.view(-1)[3::11] = float("-inf")
    return x


# float32 (NaN, -inf) everywhere; ties (float64), bf16 and int32 on the
# undilated configs.
CASES = [(c, dt) for c in CONFIGS for dt in (torch.float32, torch.float64, torch.bfloat16, torch.int32)
         if dt == torch.float32 or c[4] == 1]


@pytest.mark.parametrize("config,dtype", CASES)
def test_max_pool_matches_cpu(config, dtype):
    dims, k, s, p, d, ceil = config
    shape = (2, 3) + (7, 6, 5)[:dims]
    x = sample(shape, dtype)
    f = F.max_pool2d if dims == 2 else F.max_pool3d
    try:
        yc, ic = f(x, k, s, p, d, ceil_mode=ceil, return_indices=True)
    except RuntimeError:
        with pytest.raises(RuntimeError):
            f(x.to("tpu"), k, s, p, d, ceil_mode=ceil, return_indices=True)
        return
    yt, it = f(x.to("tpu"), k, s, p, d, ceil_mode=ceil, return_indices=True)
    assert torch.equal(it.cpu(), ic)
    torch.testing.assert_close(yt.cpu(), yc, equal_nan=True, rtol=0, atol=0)
    if not dtype.is_floating_point:
        return
    g = torch.randn(yc.shape, generator=torch.Generator().manual_seed(1)).to(dtype)
    xc, xt = x.clone().requires_grad_(), x.to("tpu").requires_grad_()
    (gc,) = torch.autograd.grad(f(xc, k, s, p, d, ceil_mode=ceil), xc, g)
    (gt,) = torch.autograd.grad(f(xt, k, s, p, d, ceil_mode=ceil), xt, g.to("tpu"))
    if dtype == torch.bfloat16:  # overlapping windows: CPU sums in bf16, we in float32
        torch.testing.assert_close(gt.cpu().float(), gc.float(), rtol=2e-2, atol=1e-1)
    else:
        torch.testing.assert_close(gt.cpu(), gc)


@pytest.mark.parametrize("dtype", [torch.int8, torch.uint8, torch.int16, torch.int64, torch.bool])
def test_pool3d_dtypes_as_cpu(dtype):
    """max_pool3d takes every dtype but bool, avg_pool3d floats and int64;
    a refusal is CPU's NotImplementedError with CPU's kernel name."""
    x = torch.randint(0, 2, (1, 2, 4, 4, 4)).to(dtype)
    for f in (F.max_pool3d, F.avg_pool3d):
        try:
            want = f(x, 2)
        except NotImplementedError as e:
            with pytest.raises(NotImplementedError, match=str(e).split(" not")[0]):
                f(x.to("tpu"), 2)
            continue
        torch.testing.assert_close(f(x.to("tpu"), 2).cpu(), want)
