"""Differences of the thirteenth fuzzing session (seeds 636-700), each checked against CPU.

Errors in other words than CPU's: std/var and std_mean/var_mean of an
integral input."""

import pytest
import torch

from test_fuzz_found10 import _check  # CPU's dtype, shape and values, or its exception


@pytest.mark.parametrize("op", [torch.std, torch.var, torch.std_mean, torch.var_mean])
def test_std_var_integral_message(op):
    # std(int64) is CPU's 'std and var only support floating point and
    # complex dtypes', std_mean's 'std_mean only support ...'; tpu said
    # 'std and var only supports ...' for all four
    bad = []
    for dt in (torch.bool, torch.uint8, torch.int32, torch.int64):
        x = torch.arange(6).reshape(2, 3).to(dt)
        _check(bad, f"{dt}", op, (x,))
        _check(bad, f"{dt} dim 1", op, (x, 1))
        _check(bad, f"{dt} empty", op, (x[:0],))
    assert not bad, "\n".join(bad)
