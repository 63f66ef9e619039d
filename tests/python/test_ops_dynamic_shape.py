"""Ops whose output shape depends on the data (unique, repeat_interleave,
bincount): a size computed on device and downloaded, then outputs of known
shape; compared with PyTorch on CPU, forward and float32 backward."""
import pytest
import torch

import torchtpu  # noqa: F401
from conftest import compare, make

NAN = float("nan")
DTYPES = [torch.float32, torch.bfloat16, torch.int32, torch.int64, torch.bool]


def _exact(fn, x):
    """Same values, dtypes and shapes as CPU (indices and counts are exact)."""
    a, b = fn(x), fn(x.to("tpu"))
    a = a if isinstance(a, tuple) else (a,)
    b = b if isinstance(b, tuple) else (b,)
    assert len(a) == len(b)
    for p, q in zip(a, b):
        q = q.cpu()
        assert p.dtype == q.dtype and p.shape == q.shape, (p, q)
        torch.testing.assert_close(q, p, equal_nan=True, atol=0, rtol=0)


@pytest.mark.parametrize("dtype", DTYPES)
def test_unique_flat(dtype):
    x = make((4, 5), dtype).round() if dtype.is_floating_point else make((4, 5), dtype)
    _exact(torch.unique, x)
    _exact(lambda t: torch.unique(t, return_inverse=True, return_counts=True), x)
    _exact(lambda t: torch.unique(t, sorted=False, return_counts=True), x)
    _exact(lambda t: torch.ops.aten._unique(t, True, True), x)
    _exact(lambda t: torch.ops.aten._unique2(t, True, False, False), x)
    _exact(lambda t: torch.unique_consecutive(t, return_inverse=True, return_counts=True), x)
    _exact(lambda t: torch.ops.aten.unique_consecutive(t, False, False), x)


@pytest.mark.parametrize("dtype", [torch.float32, torch.int64, torch.bool])
def test_unique_dim(dtype):
    x = torch.tensor([[3, 1, 2], [3, 1, 5], [3, 1, 2], [0, 0, 0], [0, 0, 0]]).to(dtype)
    for d in (0, 1, -1):
        _exact(lambda t: torch.unique(t, dim=d, return_inverse=True, return_counts=True), x)
        _exact(lambda t: torch.unique(t, dim=d), x)
        _exact(lambda t: torch.unique_consecutive(t, dim=d, return_inverse=True, return_counts=True), x)
        _exact(lambda t: torch.ops.aten.unique_dim_consecutive(t, d, False, False), x)
    y = make((3, 2, 4), dtype) if dtype != torch.float32 else make((3, 2, 4), dtype).round()
    _exact(lambda t: torch.unique(t, dim=1, return_inverse=True, return_counts=True), torch.cat([y, y], 1))


def test_unique_special_values():
    x = torch.tensor([NAN, 1.0, NAN, 0.0, -0.0, 1.0, float("inf"), -float("inf")])
    _exact(lambda t: torch.unique(t, return_inverse=True, return_counts=True), x)
    _exact(lambda t: torch.unique_consecutive(t, return_inverse=True, return_counts=True), x)
    e = torch.zeros(0, 3)
    _exact(lambda t: torch.unique(t, return_inverse=True, return_counts=True), e)
    _exact(lambda t: torch.unique_consecutive(t, return_inverse=True, return_counts=True), e)
    _exact(lambda t: torch.unique(t, return_inverse=True, return_counts=True), torch.tensor(2.5))


def test_index_fill_backward_uses_unique():
    x = torch.randn(4, 5)
    idx = torch.tensor([1, 3, 1])
    compare(lambda t: t.index_fill(1, idx.to(t.device), 2.0), x, grad=True)
