"""Order statistics, scans, searches, histograms, distances and renorm on
"tpu" against PyTorch on CPU, forward and float32 backward."""
import pytest
import torch
import torch.nn.functional as F

import torchtpu
from conftest import compare

NAN = float("nan")


def _distinct(shape, dtype=torch.float32):
    """Values without ties (index choices on ties follow CPU's nth_element)."""
    n = 1
    for s in shape:
        n *= s
    return (torch.randperm(n).reshape(shape) - n // 2).to(dtype)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.int64])
def test_median_kthvalue(dtype):
    x = _distinct((4, 7), dtype)
    compare(torch.median, x)
    compare(torch.nanmedian, x)
    for d in (0, 1):
        compare(torch.median, x, d)
        compare(torch.nanmedian, x, d, True)
        compare(torch.kthvalue, x, 3, d)


def test_median_nan_and_grad():
    x = torch.tensor([[2.0, NAN, 1.0, NAN, 3.0], [1.0, 4.0, 3.0, 5.0, 2.0], [NAN, NAN, NAN, NAN, NAN]])
    compare(torch.median, x)
    compare(torch.nanmedian, x)
    compare(torch.median, x, 1)
    compare(torch.nanmedian, x, 1)
    compare(torch.kthvalue, x[:2], 4, 1)
    compare(torch.median, torch.tensor(2.5), 0, True)
    y = torch.randn(5, 6)
    compare(lambda t: torch.median(t, 1).values, y, grad=True)
    compare(lambda t: torch.nanmedian(t), y, grad=True)
    compare(lambda t: torch.kthvalue(t, 2, 0).values, y, grad=True)
    with pytest.raises(RuntimeError, match="selected number k out of range"):  # CPU's type
        torch.kthvalue(y.to("tpu"), 9, 0)


def test_mode():
    x = torch.tensor([[3, 1, 3, 1, 2, 2, 5, 1, 3], [0, 0, 4, 4, 4, 1, 1, 1, 9]])
    compare(torch.mode, x, 1)
    compare(torch.mode, x.float(), 1, True)
    compare(torch.mode, torch.tensor([2.0, NAN, NAN]))
    compare(lambda t: torch.mode(t, 0).values, torch.randn(3, 4).round(), grad=True)


@pytest.mark.parametrize("fn", [torch.cummax, torch.cummin])
def test_cummax_cummin(fn):
    compare(fn, torch.tensor([1.0, 3.0, 3.0, NAN, 2.0, NAN, 7.0]), 0)
    compare(fn, torch.randint(-3, 3, (4, 6)), 1)
    compare(fn, torch.randn(4, 6) > 0, 0)
    compare(lambda t: fn(t, 1).values, torch.randn(3, 5), grad=True)


def test_logcumsumexp():
    compare(torch.logcumsumexp, torch.tensor([-1000.0, 0.0, float("inf"), 3.0, -float("inf")]), 0)
    compare(torch.logcumsumexp, torch.full((4,), -float("inf")), 0)
    compare(torch.logcumsumexp, torch.randn(3, 9) * 30, 1, grad=True)
    compare(torch.logcumsumexp, torch.randn(5, 2).bfloat16(), 0)


def test_searchsorted_bucketize_isin():
    s = torch.sort(torch.randn(10)).values
    v = torch.randn(3, 4)
    compare(torch.searchsorted, s, v)
    compare(torch.searchsorted, s, v, right=True, out_int32=True)
    compare(torch.searchsorted, s, torch.tensor([NAN, s[3].item()]), side="right")
    compare(torch.searchsorted, s, 0.25)
    ss = torch.sort(torch.randn(3, 7)).values
    compare(torch.searchsorted, ss, v)
    unsorted = torch.randn(7)
    compare(lambda a, b, srt: torch.searchsorted(a, b, sorter=srt), unsorted, v, torch.argsort(unsorted))
    compare(torch.bucketize, v, s)
    compare(torch.bucketize, v, s, right=True)
    compare(torch.isin, torch.tensor([1, 2, 3, 4]), torch.tensor([2, 4, 6]))
    compare(torch.isin, torch.tensor([1.0, 2.0, NAN]), torch.tensor([2.0, NAN]), invert=True)
    compare(torch.isin, torch.tensor([[1, 5], [3, 2]]), 2)


def test_histc_histogram():
    x = torch.randn(60)
    compare(torch.histc, x, bins=10)
    compare(torch.histc, x, bins=7, min=-1, max=1)
    compare(torch.histc, torch.ones(4), bins=4)
    compare(torch.histogram, x, 5)
    compare(torch.histogram, x, 5, range=(-1.0, 2.0))
    compare(lambda a, w: torch.histogram(a, 6, weight=w, density=True), x, torch.rand(60))
    compare(torch.histogram, x, torch.tensor([-1.0, 0.0, 0.5, 2.0]))
    compare(torch.histogram, torch.zeros(5, 0), 3)


@pytest.mark.parametrize("p", [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, float("inf")])
def test_cdist_pdist(p):
    compare(lambda a, b: torch.cdist(a, b, p=p), torch.randn(3, 4, 5), torch.randn(1, 6, 5), grad=True, atol=1e-4, rtol=1e-4)
    compare(lambda a: F.pdist(a, p=p), torch.randn(5, 3), grad=True, atol=1e-4, rtol=1e-4)


def test_renorm_and_sgn_grad():
    x = torch.randn(4, 5, 3)
    compare(torch.renorm, x, 2, 1, 1.0, grad=True)
    compare(torch.renorm, x, 1, 0, 2.0, grad=True)
    compare(torch.renorm, x, float("inf"), 2, 0.5)
    compare(torch.sgn, torch.randn(6), grad=True)


def test_nonzero_static():
    x = torch.tensor([[0, 1, 0], [2, 0, 3]])
    for size in (0, 2, 3, 5):
        compare(lambda t: torch.nonzero_static(t, size=size), x)
    compare(lambda t: torch.nonzero_static(t, size=4, fill_value=7), torch.tensor([0.0, 1.5, 0.0, -2.0, 1.0]))
