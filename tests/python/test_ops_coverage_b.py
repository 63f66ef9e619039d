"""Ops added for OpInfo coverage (inverse trig/hyperbolic, binary float
functions, activations, norms, nan-reductions, linspace/logspace) on "tpu"
against PyTorch's CPU, forward and backward, in several dtypes."""
import math

import pytest
import torch
import torch.nn.functional as F

import torchtpu  # noqa: F401
from conftest import DTYPES_FLOAT, compare

ALL = [torch.float32, torch.bfloat16, torch.float16, torch.int32, torch.int64, torch.bool]
# Halves: both sides round once from f32, but PyTorch's CPU sometimes rounds
# intermediate values; a couple of ulp apart.
HALF_TOL = {torch.bfloat16: {"atol": 2e-2, "rtol": 2e-2}, torch.float16: {"atol": 2e-3, "rtol": 2e-3}}


def rand(dtype, shape=(4, 5), lo=-3.0, hi=3.0, seed=0):
    g = torch.Generator().manual_seed(seed)
    x = torch.rand(shape, generator=g) * (hi - lo) + lo
    if dtype == torch.bool:
        return x > (lo + hi) / 2
    return x.to(dtype)


def tol(dtype):
    return HALF_TOL.get(dtype, {})


# (function, domain) for unary functions that give floats for every input dtype.
UNARY = [
    (torch.atan, (-4, 4)), (torch.asin, (-0.99, 0.99)), (torch.acos, (-0.99, 0.99)),
    (torch.sinh, (-5, 5)), (torch.cosh, (-5, 5)), (torch.asinh, (-50, 50)),
    (torch.acosh, (1.01, 40)), (torch.atanh, (-0.99, 0.99)),
    (torch.deg2rad, (-360, 360)), (torch.rad2deg, (-7, 7)),
]


@pytest.mark.parametrize("dtype", ALL)
@pytest.mark.parametrize("fn,dom", UNARY, ids=lambda v: getattr(v, "__name__", ""))
def test_unary_float(fn, dom, dtype):
    x = rand(dtype, lo=dom[0], hi=dom[1])
    compare(fn, x, grad=dtype == torch.float32, **tol(dtype))


def test_unary_edges():
    # Out-of-domain inputs give NaN, the domain's ends give infinities, huge
    # inputs stay finite where the function is.
    x = torch.tensor([-2.0, -1.0, -0.5, -0.0, 0.0, 1e-30, 0.5, 1.0, 2.0, 80.0, 1e20, float("inf"), float("nan")])
    for fn in (torch.atan, torch.asin, torch.acos, torch.sinh, torch.cosh, torch.asinh, torch.acosh, torch.atanh):
        compare(fn, x, atol=1e-6, rtol=1e-5)  # e^|x|/2 as exp(|x| - ln 2): a few ulp at large |x|
    compare(torch.signbit, x)
    compare(torch.frac, x * 1.7)


@pytest.mark.parametrize("dtype", DTYPES_FLOAT)
def test_frac_signbit(dtype):
    x = rand(dtype, lo=-5, hi=5)
    compare(torch.frac, x, grad=dtype == torch.float32)
    compare(torch.signbit, x)
    compare(torch.signbit, rand(torch.int32))


BINARY = [torch.atan2, torch.hypot, torch.copysign, torch.logaddexp, torch.logaddexp2, torch.xlogy,
          torch.special.xlog1py, torch.fmax, torch.fmin]


@pytest.mark.parametrize("dtype", DTYPES_FLOAT)
@pytest.mark.parametrize("fn", BINARY, ids=lambda f: f.__name__)
def test_binary_float(fn, dtype):
    x, y = rand(dtype, seed=1), rand(dtype, (5,), lo=0.1, hi=4, seed=2)
    if fn in (torch.xlogy, torch.special.xlog1py):
        x[0, 0] = 0
    t = {"atol": 3e-2, "rtol": 3e-2} if dtype == torch.bfloat16 else tol(dtype)
    compare(fn, x, y, grad=dtype == torch.float32, **t)


def test_binary_special_values():
    inf, nan = float("inf"), float("nan")
    x = torch.tensor([0.0, -0.0, 1.0, -2.0, inf, -inf, nan, 0.0, inf, 3.0])
    y = torch.tensor([2.0, -1.0, -0.0, 0.0, inf, -inf, 1.0, nan, 3.0, nan])
    for fn in BINARY + [torch.heaviside]:
        compare(fn, x, y)
    compare(torch.xlogy, x, 2.5)
    compare(torch.xlogy, 3.0, y.abs())


@pytest.mark.parametrize("dtype", [torch.int32, torch.int64, torch.bool])
def test_binary_integer_inputs(dtype):
    x, y = rand(dtype, seed=1), rand(dtype, seed=2)
    for fn in (torch.fmax, torch.fmin, torch.heaviside, torch.atan2, torch.copysign):
        if dtype == torch.bool and fn in (torch.atan2, torch.copysign):
            continue
        compare(fn, x, y)


@pytest.mark.parametrize("dtype", DTYPES_FLOAT)
def test_logit(dtype):
    x = rand(dtype, lo=-0.2, hi=1.2)
    compare(torch.logit, x, **({"atol": 5e-2, "rtol": 5e-2} if dtype == torch.bfloat16 else tol(dtype)))
    xf = rand(torch.float32, lo=0.05, hi=0.95)
    compare(torch.logit, xf, grad=True)
    compare(lambda t: torch.logit(t, eps=0.1), rand(torch.float32, lo=-0.2, hi=1.2), grad=True)


ACTS = [F.hardsigmoid, F.hardswish, F.mish, F.logsigmoid, F.softshrink, F.hardshrink,
        lambda t: F.softshrink(t, 1.5), lambda t: F.hardshrink(t, 0.25)]


@pytest.mark.parametrize("dtype", DTYPES_FLOAT)
@pytest.mark.parametrize("fn", ACTS)
def test_activations(fn, dtype):
    x = rand(dtype, (6, 7), lo=-5, hi=5)
    x.view(-1)[:4] = torch.tensor([-3.0, 3.0, 0.5, -0.5]).to(dtype)  # boundaries
    compare(fn, x, grad=True, **tol(dtype))


def test_activation_int_rejected():
    x = torch.arange(4, device="tpu")
    with pytest.raises(RuntimeError):
        F.mish(x)


@pytest.mark.parametrize("dtype", DTYPES_FLOAT)
def test_norms(dtype):
    x = rand(dtype, (4, 6))
    t = {"atol": 2e-2, "rtol": 2e-2} if dtype != torch.float32 else {}
    compare(lambda a: torch.norm(a), x, grad=True, **t)
    compare(lambda a: torch.norm(a, p=1, dim=1), x, grad=True, **t)
    compare(lambda a: torch.norm(a, p=3, dim=0, keepdim=True), x, grad=True, **t)
    compare(lambda a: torch.norm(a, p=float("inf"), dim=1), x, **t)
    compare(lambda a, b: torch.dist(a, b), x, rand(dtype, (4, 6), seed=3), grad=True, **t)


@pytest.mark.parametrize("dtype", ALL)
def test_nansum_count_nonzero(dtype):
    x = rand(dtype, (5, 6))
    if dtype.is_floating_point:
        x[1, 2] = float("nan")
        x[3, 0] = float("nan")
        t = {"atol": 2e-2, "rtol": 2e-2} if dtype != torch.float32 else {}
        compare(torch.nansum, x, **t)
        compare(lambda a: torch.nansum(a, dim=1, keepdim=True), x, **t)
        compare(lambda a: torch.nanmean(a, dim=0), x, **t)
    elif dtype != torch.bool:
        compare(torch.nansum, x)
    x[2] = 0
    compare(torch.count_nonzero, x)
    compare(lambda a: torch.count_nonzero(a, dim=1), x)
    compare(lambda a: torch.count_nonzero(a, dim=(0, 1)), x)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.int32, torch.int64])
@pytest.mark.parametrize("args", [(0, 10, 5), (-3, 7.5, 4), (4.3, -3, 50), (1, 1, 1), (2, 5, 0), (1, 50, 50)])
def test_linspace(args, dtype):
    a = torch.linspace(*args, dtype=dtype)
    b = torch.linspace(*args, dtype=dtype, device="tpu")
    torch.testing.assert_close(b.cpu(), a)


@pytest.mark.parametrize("dtype", [torch.float32, torch.int64])
@pytest.mark.parametrize("args", [(0, 3, 4), (-2, 2, 5, 2.0), (1.2, 4, 4), (3, 3, 1)])
def test_logspace(args, dtype):
    a = torch.logspace(*args, dtype=dtype)
    b = torch.logspace(*args, dtype=dtype, device="tpu")
    torch.testing.assert_close(b.cpu(), a)


def test_linspace_out_wrong_shape_is_clear():
    out = torch.empty(3, device="tpu")
    torch.linspace(0, 1, 3, out=out)
    torch.testing.assert_close(out.cpu(), torch.linspace(0, 1, 3))


@pytest.mark.parametrize("dtype", ALL)
def test_aminmax(dtype):
    x = rand(dtype, (5, 6))
    compare(lambda a: torch.aminmax(a), x)
    compare(lambda a: torch.aminmax(a, dim=1), x)
    compare(lambda a: torch.aminmax(a, dim=0, keepdim=True), x)
    with pytest.raises(RuntimeError, match="aminmax"):
        torch.aminmax(torch.empty(0, device="tpu"))


@pytest.mark.parametrize("dtype", DTYPES_FLOAT)
def test_max_unpool(dtype):
    x = rand(dtype, (2, 3, 8, 6))
    y, idx = F.max_pool2d(x, 2, return_indices=True)

    def unpool2(t):
        return F.max_unpool2d(t, idx.to(t.device), 2)

    compare(unpool2, y, grad=dtype == torch.float32)
    compare(lambda t: F.max_unpool2d(t, idx.to(t.device), 2, output_size=(9, 7)), y)
    x3 = rand(dtype, (1, 2, 4, 4, 6))
    y3, idx3 = F.max_pool3d(x3, 2, return_indices=True)
    compare(lambda t: F.max_unpool3d(t, idx3.to(t.device), 2), y3, grad=dtype == torch.float32)
    x1 = rand(dtype, (2, 3, 10))
    y1, idx1 = F.max_pool1d(x1, 2, return_indices=True)
    compare(lambda t: F.max_unpool1d(t, idx1.to(t.device), 2), y1, grad=dtype == torch.float32)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_huber_loss(reduction, dtype):
    x, t = rand(dtype, (4, 5), seed=1), rand(dtype, (4, 5), seed=2)
    x[0, :3] = t[0, :3] + torch.tensor([0.5, -0.5, 0.0]).to(dtype)  # at and inside delta
    for delta in (1.0, 0.5):
        compare(lambda a, b: F.huber_loss(a, b, reduction=reduction, delta=delta), x, t, grad=dtype == torch.float32, **tol(dtype))
    with pytest.raises(RuntimeError, match="delta"):
        F.huber_loss(x.to("tpu"), t.to("tpu"), delta=0.0)


def test_equal():
    a = torch.tensor([1.0, 2.0, float("nan")])
    cases = [(a[:2], a[:2]), (a[:2], torch.tensor([1, 2])), (a, a), (a[:2], a), (torch.tensor(3), torch.tensor(3.0)),
             (torch.ones(2, 3), torch.ones(3, 2)), (torch.ones(2, 3), torch.ones(2, 3).t().contiguous().t())]
    for x, y in cases:
        r = torch.equal(x.to("tpu"), y.to("tpu"))
        assert isinstance(r, bool)
        assert r == torch.equal(x, y), (x, y)


@pytest.mark.parametrize("dtype", DTYPES_FLOAT)
def test_glu(dtype):
    x = rand(dtype, (4, 6, 2))
    compare(F.glu, x, grad=True, **tol(dtype))
    compare(lambda t: F.glu(t, 0), x, grad=True, **tol(dtype))
    with pytest.raises(RuntimeError, match="Halving dimension must be even"):
        F.glu(torch.ones(3, 5, device="tpu"))
