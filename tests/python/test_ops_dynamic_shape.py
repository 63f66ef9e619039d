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
    """Same dtypes and shapes as CPU; integer results (indices, counts) exactly,
    floating ones within assert_close's defaults (sums may round differently)."""
    a, b = fn(x), fn(x.to("tpu"))
    a = a if isinstance(a, tuple) else (a,)
    b = b if isinstance(b, tuple) else (b,)
    assert len(a) == len(b)
    for p, q in zip(a, b):
        q = q.cpu()
        assert p.dtype == q.dtype and p.shape == q.shape, (p, q)
        exact = {} if p.is_floating_point() else {"atol": 0, "rtol": 0}
        torch.testing.assert_close(q, p, equal_nan=True, **exact)


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


@pytest.mark.parametrize("dtype", [torch.int32, torch.int64])
def test_repeat_interleave(dtype):
    _exact(torch.repeat_interleave, torch.tensor([2, 0, 3, 1], dtype=dtype))
    _exact(torch.repeat_interleave, torch.tensor([0, 0], dtype=dtype))
    _exact(lambda r: torch.repeat_interleave(r, output_size=4), torch.tensor([1, 3], dtype=dtype))
    x = torch.randn(3, 2)
    compare(lambda t: torch.repeat_interleave(t, torch.tensor([1, 2, 0], device=t.device), dim=0), x, grad=True)
    compare(lambda t: t.repeat_interleave(2, dim=1), x, grad=True)
    with pytest.raises(RuntimeError, match="repeats can not be negative"):
        torch.repeat_interleave(torch.tensor([1, -1], dtype=dtype, device="tpu"))
    with pytest.raises(RuntimeError, match="1D vector"):
        torch.repeat_interleave(torch.tensor([[1]], dtype=dtype, device="tpu"))


@pytest.mark.parametrize("dtype", [torch.int32, torch.int64])
def test_bincount(dtype):
    x = torch.tensor([1, 5, 1, 0, 7, 7, 7], dtype=dtype)
    _exact(torch.bincount, x)
    _exact(lambda t: torch.bincount(t, minlength=12), x)
    _exact(lambda t: torch.bincount(t, minlength=3), x)
    _exact(lambda t: torch.bincount(t, t.float() * 0.5), x)  # float32 weights: float32 result
    _exact(lambda t: torch.bincount(t, t), x)  # any other weights: float64
    _exact(lambda t: torch.bincount(t, t.to(torch.bfloat16)), x)
    _exact(torch.bincount, torch.tensor([], dtype=dtype))
    with pytest.raises(RuntimeError, match="non-negative"):
        torch.bincount(torch.tensor([1, -2], dtype=dtype, device="tpu"))
    with pytest.raises(RuntimeError, match="same length"):
        torch.bincount(x.to("tpu"), torch.ones(2, device="tpu"))


def test_logcumsumexp_large_values_backward():
    # float32 accumulates in float64 as on CPU; in float32 the backward formula's
    # exp(lcse(log g - result) + x) loses ~1e-3 at |x| ~ 1e4.
    g = torch.Generator().manual_seed(0)
    for _ in range(3):
        x = torch.rand(5, 5, 5, generator=g) * 18 - 9
        x[0] = 1e4  # as in the OpInfo sample
        compare(lambda t: torch.logcumsumexp(t, 0), x, grad=True)


def _bag_case(it):
    w = torch.randn(10, 3, generator=torch.Generator().manual_seed(5))
    idx = torch.tensor([1, 2, 4, 5, 4, 3, 2, 9], dtype=it)
    off = torch.tensor([0, 3, 3, 6], dtype=it)
    return w, idx, off


@pytest.mark.parametrize("it", [torch.int64, torch.int32])
def test_embedding_bag_all_outputs(it):
    # All four outputs as CPU fills them (offset2bag empty in sum mode without padding, ...).
    w, idx, off = _bag_case(it)
    psw = torch.rand(8, generator=torch.Generator().manual_seed(6))
    for mode in (0, 1, 2):
        for pad in (-1, 4):
            for p in ((None, psw) if mode == 0 else (None,)):
                for fwd in (torch.ops.aten._embedding_bag, torch.ops.aten._embedding_bag_forward_only):
                    _exact(lambda t: fwd(t, idx.to(t.device), off.to(t.device), False, mode, False,
                                         None if p is None else p.to(t.device), False, pad), w)
                # include_last_offset with offsets[-1] == len(indices)
                off2 = torch.cat([off, torch.tensor([8], dtype=it)])
                _exact(lambda t: torch.ops.aten._embedding_bag_forward_only(
                    t, idx.to(t.device), off2.to(t.device), False, mode, False,
                    None if p is None else p.to(t.device), True, pad), w)


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
def test_embedding_bag_backward(mode):
    import torch.nn.functional as F
    w, idx, off = _bag_case(torch.int64)
    psw = torch.rand(8, generator=torch.Generator().manual_seed(6))
    for pad in (None, 4):
        compare(lambda t: F.embedding_bag(idx.to(t.device), t, off.to(t.device), mode=mode, padding_idx=pad), w, grad=True)
    if mode == "sum":
        compare(lambda t, p: F.embedding_bag(idx.to(t.device), t, off.to(t.device), mode="sum", per_sample_weights=p),
                w, psw, grad=True)
    compare(lambda t: F.embedding_bag(idx.reshape(2, 4).to(t.device), t, mode=mode, max_norm=1.0), w, grad=True)
