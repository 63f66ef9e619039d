"""Bit shifts (ops/shift.c): every integer dtype, tensor and scalar shift
amounts (negative and past the width included), the operators and their
in-place forms, against CPU; floats and bool refused as on CPU."""
import operator

import pytest
import torch

INTS = [torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64]


def values(dtype):
    info = torch.iinfo(dtype)
    a = torch.tensor([0, 1, 5, info.max, info.min, -1 if info.min < 0 else 3, 100 % (info.max + 1)], dtype=dtype)
    amounts = [0, 1, 3, 7, 8, 15, 16, 31, 63, 64, 70] + ([-1, -5] if info.min < 0 else [])
    return a, torch.tensor(amounts, dtype=dtype)


@pytest.mark.parametrize("dtype", INTS)
@pytest.mark.parametrize("fn", [torch.bitwise_left_shift, torch.bitwise_right_shift, operator.lshift, operator.rshift])
def test_tensor_shifts_match_cpu(fn, dtype):
    a, b = values(dtype)
    a, b = a[:, None].expand(-1, len(b)), b[None, :].expand(len(a), -1)
    torch.testing.assert_close(fn(a.to("tpu"), b.to("tpu")).cpu(), fn(a, b), rtol=0, atol=0)


@pytest.mark.parametrize("dtype", INTS)
@pytest.mark.parametrize("amount", [0, 2, 9, 40, 70])
def test_scalar_shifts_and_inplace(dtype, amount):
    a, _ = values(dtype)
    t = a.to("tpu")
    for fn in (operator.lshift, operator.rshift, torch.bitwise_left_shift, torch.bitwise_right_shift):
        torch.testing.assert_close(fn(t, amount).cpu(), fn(a, amount), rtol=0, atol=0)
    x, y = a.clone(), a.clone().to("tpu")
    x <<= 3
    y <<= 3
    x >>= torch.tensor(1, dtype=dtype)
    y >>= torch.tensor(1, dtype=dtype, device="tpu")
    torch.testing.assert_close(y.cpu(), x, rtol=0, atol=0)


def test_scalar_tensor_form():
    b = torch.tensor([0, 1, 4], dtype=torch.int16)
    torch.testing.assert_close(torch.bitwise_left_shift(3, b.to("tpu")).cpu(), torch.bitwise_left_shift(3, b))


@pytest.mark.parametrize("dtype", [torch.float32, torch.bool])
def test_refused_as_cpu(dtype):
    a = torch.ones(3, dtype=dtype)
    for fn in (torch.bitwise_left_shift, torch.bitwise_right_shift):
        with pytest.raises(NotImplementedError) as cpu:
            fn(a, a)
        with pytest.raises(NotImplementedError, match=str(cpu.value).split(" not")[0]):
            fn(a.to("tpu"), a.to("tpu"))
