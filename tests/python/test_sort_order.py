"""Sorting floats in PyTorch's order: -0.0 and 0.0 are equal keys (a stable
sort keeps their input order, and so the indices), every NaN is the largest
value whatever its sign bit. (StableHLO's TOTALORDER comparator, used before,
put -0.0 before 0.0 and negative NaNs first.) Found by tools/fuzz."""
import pytest
import torch

NAN = float("nan")
X = [0.0, -0.0, 1.0, -NAN, NAN, -1.0, 0.0, -0.0, float("inf"), -float("inf"), NAN, 2.0, -0.0]
DTYPES = [torch.float32, torch.float64, torch.bfloat16, torch.float16]


def same_values(a, b, signs=True):
    # NaN where CPU has NaN; elsewhere equal values, with the same sign bit
    # (-0.0 vs 0.0) where the order among equal keys is defined (stable sort)
    b = b.cpu()
    n = a.isnan()
    same = torch.equal(n, b.isnan()) and torch.equal(a[~n], b[~n])
    return same and (not signs or torch.equal(a[~n].signbit(), b[~n].signbit()))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("descending", [False, True])
def test_stable_sort_and_argsort_match_cpu(dtype, descending):
    xc = torch.tensor(X, dtype=dtype)
    xt = xc.to("tpu")
    vc, ic = torch.sort(xc, descending=descending, stable=True)
    vt, it = torch.sort(xt, descending=descending, stable=True)
    assert torch.equal(ic, it.cpu())
    assert same_values(vc, vt)
    assert torch.equal(torch.argsort(xc, descending=descending, stable=True),
                       torch.argsort(xt, descending=descending, stable=True).cpu())
    assert same_values(torch.msort(xc.reshape(-1, 1)), torch.msort(xt.reshape(-1, 1)))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("largest", [True, False])
def test_topk_treats_every_nan_as_largest(dtype, largest):
    xc = torch.tensor(X, dtype=dtype)
    vc, _ = torch.topk(xc, 5, largest=largest)
    vt, _ = torch.topk(xc.to("tpu"), 5, largest=largest)
    assert same_values(vc, vt, signs=False)  # which of the equal zeros topk picks is not defined


@pytest.mark.parametrize("dtype", DTYPES)
def test_sort_along_a_dim_of_a_matrix(dtype):
    g = torch.Generator().manual_seed(0)
    xc = torch.tensor(X * 4, dtype=dtype)[torch.randperm(len(X) * 4, generator=g)].reshape(4, -1)
    for dim in (0, 1):
        vc, ic = torch.sort(xc, dim=dim, stable=True)
        vt, it = torch.sort(xc.to("tpu"), dim=dim, stable=True)
        assert torch.equal(ic, it.cpu()) and same_values(vc, vt)
