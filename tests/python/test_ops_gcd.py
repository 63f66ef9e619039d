"""gcd / lcm on tpu vs CPU: functional, in-place and out= forms, signs,
zeros, INT_MIN, broadcasting and promotion; floating inputs rejected as on CPU."""
import pytest
import torch

from conftest import compare, to_tpu

INT_TYPES = [torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64]


def _pair(dtype, n=64, seed=0):
    g = torch.Generator().manual_seed(seed)
    lo = 0 if dtype == torch.uint8 else -100
    a = torch.randint(lo, 100, (n,), generator=g).to(dtype)
    b = torch.randint(lo, 100, (n,), generator=g).to(dtype)
    a[:4] = 0
    b[2:6] = 0
    return a, b


@pytest.mark.parametrize("fn", [torch.gcd, torch.lcm])
@pytest.mark.parametrize("dtype", INT_TYPES)
def test_values(fn, dtype):
    a, b = _pair(dtype)
    compare(fn, a, b)


@pytest.mark.parametrize("fn", [torch.gcd, torch.lcm])
def test_extremes_broadcast_promotion(fn):
    m = torch.iinfo(torch.int32).min
    a = torch.tensor([m, 0, -6, 7, 0, -4, 2**30, 46368], dtype=torch.int32)
    b = torch.tensor([0, m, 4, -21, 0, -6, 3, 28657], dtype=torch.int32)
    compare(fn, a, b)
    compare(fn, torch.arange(-12, 12).reshape(4, 6), torch.tensor([4, 6, 9, 0, -15, 1]).to(torch.int16))
    compare(fn, torch.arange(-5, 5, dtype=torch.int8), torch.tensor(6))  # 0-dim other: self's type
    compare(fn, torch.empty(0, 3, dtype=torch.int64), torch.ones(3, dtype=torch.int64))


@pytest.mark.parametrize("name", ["gcd", "lcm"])
def test_out_and_inplace(name):
    a, b = _pair(torch.int64, 10, 1)
    expected = getattr(torch, name)(a, b)
    out = torch.empty(10, dtype=torch.int64, device="tpu")
    r = getattr(torch, name)(to_tpu(a), to_tpu(b), out=out)
    assert r is out
    torch.testing.assert_close(out.cpu(), expected, rtol=0, atol=0)
    x = to_tpu(a)
    getattr(x, name + "_")(to_tpu(b))
    torch.testing.assert_close(x.cpu(), expected, rtol=0, atol=0)


@pytest.mark.parametrize("fn", [torch.gcd, torch.lcm])
def test_float_and_bool_rejected(fn):
    for dt, name in ((torch.float32, "Float"), (torch.bool, "Bool")):
        x = torch.ones(3, dtype=dt, device="tpu")
        with pytest.raises(NotImplementedError, match=f"not implemented for '{name}'"):
            fn(x, x)
