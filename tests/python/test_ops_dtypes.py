"""Reduced-precision and integer dtype cases where the CPU kernel rounds at
particular points (matmul family, addr) or accepts dtypes one might not expect
(integer pooling, bool clamp_min/clamp_max): tpu must give CPU's answer, within
OpInfo's device-vs-CPU tolerance (atol = rtol = 1e-3)."""
import pytest
import torch
from torch.testing import make_tensor

from conftest import compare

TOL = {"atol": 1e-3, "rtol": 1e-3}
REDUCED = [torch.bfloat16, torch.float16]


def mk(shape, dtype, seed):
    torch.manual_seed(seed)
    return make_tensor(shape, dtype=dtype, device="cpu", low=-9, high=9)


@pytest.mark.parametrize("dtype", REDUCED)
@pytest.mark.parametrize("self_shape", [(5,), (1,), ()])
def test_addmv_gemv_rounding(dtype, self_shape):
    # CPU's gemv takes beta/alpha as the tensor dtype and rounds beta * self first.
    for seed in range(3):
        compare(lambda s, m, v: torch.addmv(s, m, v, beta=0.2, alpha=0.6), mk(self_shape, dtype, seed),
                mk((5, 10), dtype, seed + 10), mk((10,), dtype, seed + 20), **TOL)


@pytest.mark.parametrize("dtype", REDUCED)
@pytest.mark.parametrize("beta,alpha", [(1, 1), (0.6, 0.2)])
def test_addbmm_rounds_per_batch(dtype, beta, alpha):
    for seed in range(3):
        compare(lambda s, a, b: torch.addbmm(s, a, b, beta=beta, alpha=alpha), mk((5, 10), dtype, seed),
                mk((5, 5, 5), dtype, seed + 10), mk((5, 5, 10), dtype, seed + 20), **TOL)


@pytest.mark.parametrize("dtype", REDUCED)
def test_addmm_empty_k_is_scaled_self(dtype):
    compare(lambda s, a, b: torch.addmm(s, a, b, beta=0.2, alpha=0.6), mk((5, 10), dtype, 0),
            mk((5, 0), dtype, 1), mk((0, 10), dtype, 2), **TOL)


ADDR_CASES = [(dt, b, a) for dt in REDUCED + [torch.float32] for b, a in [(1, 1), (0.6, 0.2), (0, 2)]] + [
    (torch.int64, b, a) for b, a in [(1, 1), (0, 2), (3, -2)]] + [
    (torch.bool, b, a) for b, a in [(True, False), (True, True), (False, True)]]


@pytest.mark.parametrize("dtype,beta,alpha", ADDR_CASES)
def test_addr(dtype, beta, alpha):
    # CPU's addr kernel: beta * self + (alpha * vec1) * vec2, each step in the tensor's dtype.
    for seed in range(2):
        compare(lambda s, a, b: torch.addr(s, a, b, beta=beta, alpha=alpha), mk((5, 10), dtype, seed),
                mk((5,), dtype, seed + 10), mk((10,), dtype, seed + 20), **TOL)


def test_addr_errors():
    x = torch.ones(2, 3, dtype=torch.int64)
    a, b = torch.ones(2, dtype=torch.int64), torch.ones(3, dtype=torch.int64)
    with pytest.raises(RuntimeError, match="must not be a floating point number"):
        torch.addr(x.to("tpu"), a.to("tpu"), b.to("tpu"), beta=0.5)
    with pytest.raises(RuntimeError, match="Boolean beta only supported for Boolean results"):
        torch.addr(x.to("tpu"), a.to("tpu"), b.to("tpu"), beta=True)


@pytest.mark.parametrize("op", ["addmm", "addmv", "addbmm", "baddbmm"])
@pytest.mark.parametrize("dtype", [torch.int32, torch.int64])
def test_matmul_family_int_float_scalars_truncate(op, dtype):
    # CPU casts float beta/alpha to the integer dtype (0.2 acts as 0, 2.6 as 2).
    shapes = {"addmm": ((3, 4), (3, 5), (5, 4)), "addmv": ((3,), (3, 5), (5,)),
              "addbmm": ((3, 4), (2, 3, 5), (2, 5, 4)), "baddbmm": ((2, 3, 4), (2, 3, 5), (2, 5, 4))}[op]
    args = [mk(s, dtype, i) for i, s in enumerate(shapes)]
    f = getattr(torch, op)
    for beta, alpha in [(0.2, 0.6), (1.7, 2.6), (-1.5, 3)]:
        compare(lambda s, a, b: f(s, a, b, beta=beta, alpha=alpha), *args)


@pytest.mark.parametrize("dtype", [torch.int32, torch.int64, torch.int8, torch.uint8])
@pytest.mark.parametrize("padding,ceil_mode", [(0, False), (1, True)])
def test_max_pool2d_integer(dtype, padding, ceil_mode):
    low = 0 if dtype == torch.uint8 else -9
    torch.manual_seed(0)
    x = make_tensor((2, 2, 5, 7), dtype=dtype, device="cpu", low=low, high=9)
    compare(lambda t: torch.nn.functional.max_pool2d_with_indices(t, 3, 2, padding, 1, ceil_mode), x)
    compare(lambda t: torch.nn.functional.max_pool2d(t, 2), torch.tensor([[[[0, -6], [-5, -7]]]], dtype=torch.int32))


def test_max_pool2d_bool_raises():
    with pytest.raises(RuntimeError, match="not implemented for 'Bool'"):
        torch.nn.functional.max_pool2d(torch.ones(1, 4, 4, dtype=torch.bool, device="tpu"), 2)


@pytest.mark.parametrize("kw", [dict(), dict(padding=1, ceil_mode=True, count_include_pad=False),
                                dict(padding=1, count_include_pad=True), dict(divisor_override=2)])
def test_avg_pool2d_int64_truncates(kw):
    # CPU sums in int64 and divides with truncation toward zero.
    x = mk((2, 3, 7, 7), torch.int64, 0)
    compare(lambda t: torch.nn.functional.avg_pool2d(t, 3, **kw), x)
    compare(lambda t: torch.nn.functional.avg_pool1d(t, 3), mk((2, 3, 9), torch.int64, 1))


@pytest.mark.parametrize("dtype", [torch.int32, torch.bool])
def test_avg_pool2d_other_integers_raise(dtype):
    with pytest.raises(RuntimeError, match="not implemented for"):
        torch.nn.functional.avg_pool2d(torch.ones(1, 4, 4, dtype=dtype, device="tpu"), 2)


def test_clamp_min_max_bool():
    x, t = mk((5, 10, 5), torch.bool, 0), mk((10, 5), torch.bool, 1)
    compare(torch.clamp_min, x, t)
    compare(torch.clamp_max, x, t)
    compare(lambda a, b: torch.clamp(a, min=b), x, t)
    compare(lambda a, b: torch.clamp(a, max=b), x, t)
    compare(lambda a: torch.clamp(a, 0, 1), x)  # int bounds promote to int64
    with pytest.raises(RuntimeError, match="clamp_cpu"):
        torch.clamp(x.to("tpu"), t.to("tpu"), t.to("tpu"))
    with pytest.raises(RuntimeError, match="clamp_min_scalar_cpu"):
        torch.clamp_min(x.to("tpu"), True)
