"""Neural-network ops compared with CPU, forward and backward: grid_sample
(2-D/3-D, every mode and padding), max pools with indices (ties, NaN, padding)."""
import pytest
import torch
import torch.nn.functional as F
from conftest import compare, compare_grad, make, to_tpu


def _grid(shape, seed, spread=1.3):
    g = torch.Generator().manual_seed(seed)
    return (torch.rand(shape, generator=g) * 2 - 1) * spread


@pytest.mark.parametrize("mode", ["bilinear", "nearest", "bicubic"])
@pytest.mark.parametrize("padding", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align", [False, True])
def test_grid_sample_2d(mode, padding, align):
    # bicubic's grid gradient sums 16 taps with cancellation: float64 there.
    dt = torch.float64 if mode == "bicubic" else torch.float32
    x = make((2, 3, 5, 6), dt)
    grid = _grid((2, 4, 7, 2), 3).to(dt)
    fn = lambda a, b: F.grid_sample(a, b, mode=mode, padding_mode=padding, align_corners=align)
    compare_grad(fn, x, grid)
    if mode == "bicubic":
        compare(fn, x.float(), grid.float())


@pytest.mark.parametrize("mode,padding,align", [
    ("bilinear", "zeros", False), ("bilinear", "border", True), ("bilinear", "reflection", False),
    ("bilinear", "reflection", True), ("nearest", "zeros", True), ("nearest", "reflection", False),
])
def test_grid_sample_3d(mode, padding, align):
    x = make((2, 2, 3, 4, 5), torch.float32)
    grid = _grid((2, 3, 2, 4, 3), 5)
    fn = lambda a, b: F.grid_sample(a, b, mode=mode, padding_mode=padding, align_corners=align)
    compare_grad(fn, x, grid)


def test_grid_sample_wide_reflection_and_nonfinite():
    # Coordinates far outside (several reflections) and NaN/inf grid entries.
    x = make((1, 2, 4, 5), torch.float32)
    grid = _grid((1, 3, 5, 2), 7, spread=6.0)
    grid[0, 0, 0, 0] = float("nan")
    grid[0, 1, 1, 1] = float("inf")
    for padding in ["zeros", "border", "reflection"]:
        compare(lambda a, b: F.grid_sample(a, b, mode="bilinear", padding_mode=padding, align_corners=False), x, grid)


def test_grid_sample_double_and_errors():
    compare_grad(lambda a, b: F.grid_sample(a, b, align_corners=True), make((1, 2, 3, 3), torch.float64),
                 _grid((1, 2, 2, 2), 1).double())
    with pytest.raises(RuntimeError):
        torch.grid_sampler_3d(to_tpu(make((1, 1, 2, 2, 2), torch.float32)), to_tpu(_grid((1, 1, 1, 1, 3), 1)), 2, 0, False)


@pytest.mark.parametrize("kw", [
    {"kernel_size": 2},
    {"kernel_size": 3, "stride": 2, "padding": 1},
    {"kernel_size": (2, 3, 2), "stride": (1, 2, 1), "dilation": (2, 1, 1), "ceil_mode": True},
    {"kernel_size": 3, "stride": 2, "padding": 1, "ceil_mode": True},
])
def test_max_pool3d_indices(kw):
    x = make((2, 2, 5, 6, 7), torch.float32)
    compare(lambda t: F.max_pool3d(t, return_indices=True, **kw), x)
    compare_grad(lambda t: F.max_pool3d(t, **kw), x)


@pytest.mark.parametrize("kw", [
    {"kernel_size": 3, "stride": 1, "padding": 1},
    {"kernel_size": (2, 3), "stride": (2, 1), "dilation": (1, 2), "ceil_mode": True},
])
def test_max_pool2d_ties_nan_inf(kw):
    # Ties keep the first position, NaN wins (the last NaN of a window), an
    # all -inf window points at its first in-bounds position.
    x = torch.tensor([[1., 1., 2., 2., 0., 0.], [float("nan"), 3., float("nan"), 1., 1., 1.],
                      [-float("inf")] * 6, [-float("inf")] * 6, [5., 5., 5., 5., 5., 5.]]).reshape(1, 1, 5, 6)
    compare(lambda t: F.max_pool2d(t, return_indices=True, **kw), x)
    compare(lambda t: F.max_pool3d(t.unsqueeze(0), return_indices=True, kernel_size=(1, 3, 3), stride=1, padding=(0, 1, 1)), x)
    compare_grad(lambda t: F.max_pool2d(t, **kw), make((2, 3, 7, 6), torch.float32))


def test_max_pool2d_half():
    compare(lambda t: F.max_pool2d(t, 3, 2, 1, return_indices=True), make((1, 2, 7, 7), torch.bfloat16))


@pytest.mark.parametrize("concat", [False, True])
@pytest.mark.parametrize("reduction,zero_inf", [("mean", False), ("sum", True), ("none", False)])
def test_ctc_loss(concat, reduction, zero_inf):
    g = torch.Generator().manual_seed(2)
    T, N, C = 9, 4, 5
    lp = torch.randn(T, N, C, generator=g).log_softmax(2)
    tg = torch.randint(1, C, (N, 4), generator=g)
    tg[1, 1] = tg[1, 0]  # a repeated label needs a blank in between
    il, tl = [9, 7, 3, 6], [4, 3, 0, 2]
    if zero_inf:
        il[2], tl[2] = 2, 3  # too short: infinite loss, zeroed
    targets = torch.cat([tg[b, :tl[b]] for b in range(N)]) if concat else tg
    fn = lambda x: F.ctc_loss(x, targets.to(x.device), il, tl, reduction=reduction, zero_infinity=zero_inf)
    compare_grad(fn, lp)


def test_ctc_loss_outputs_and_double():
    g = torch.Generator().manual_seed(3)
    lp = torch.randn(6, 2, 4, generator=g, dtype=torch.float64).log_softmax(2)
    tg = torch.tensor([[1, 2, 2], [3, 1, 0]])
    nll_c, alpha_c = torch.ops.aten._ctc_loss(lp, tg, [6, 5], [3, 2])
    nll_t, alpha_t = torch.ops.aten._ctc_loss(to_tpu(lp), to_tpu(tg), [6, 5], [3, 2])
    torch.testing.assert_close(nll_t.cpu(), nll_c)
    assert alpha_t.shape == alpha_c.shape
    # CPU leaves entries past each sequence's lengths unwritten: compare the written ones.
    torch.testing.assert_close(alpha_t.cpu()[0], alpha_c[0])
    torch.testing.assert_close(alpha_t.cpu()[1, :5, :5], alpha_c[1, :5, :5])
    compare_grad(lambda x: F.ctc_loss(x, tg.to(x.device), [6, 5], [3, 2]), lp)


def test_ctc_loss_with_length_tensors_matches_cpu():
    """Lengths given as tensors (on tpu or cpu): read on the host as CPU and CUDA do; loss and gradient."""
    torch.manual_seed(0)
    T, N, C, S = 12, 3, 5, 4
    lp = torch.randn(T, N, C).log_softmax(2)
    tg = torch.randint(1, C, (N, S))
    il, tl = torch.tensor([12, 10, 7]), torch.tensor([4, 2, 3])
    for where in ("tpu", "cpu"):
        x = lp.clone().to("tpu").requires_grad_()
        ref = lp.clone().requires_grad_()
        got = torch.nn.functional.ctc_loss(x, tg.to("tpu"), il.to(where), tl.to(where))
        want = torch.nn.functional.ctc_loss(ref, tg, il, tl)
        torch.testing.assert_close(got.cpu(), want, atol=1e-4, rtol=1e-4)
        got.backward()
        want.backward()
        torch.testing.assert_close(x.grad.cpu(), ref.grad, atol=1e-4, rtol=1e-4)
    with pytest.raises(RuntimeError, match="integral dtype"):
        torch.ops.aten._ctc_loss.Tensor(lp.to("tpu"), tg.to("tpu"), il.float().to("tpu"), tl.to("tpu"))
