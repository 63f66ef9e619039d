"""Orthogonal polynomials and Bessel J/Y/K on "tpu" against PyTorch's CPU:
degrees around the closed-form thresholds, |x| == 1, x == 0, fractional and
non-finite n, branch boundaries, zeros, negatives, infinities and NaN."""
import pytest
import torch

import torchtpu  # noqa: F401
from conftest import compare

INF, NAN = float("inf"), float("nan")

POLYS = [
    "chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v", "chebyshev_polynomial_w",
    "shifted_chebyshev_polynomial_t", "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
    "shifted_chebyshev_polynomial_w", "hermite_polynomial_h", "hermite_polynomial_he", "laguerre_polynomial_l",
    "legendre_polynomial_p",
]
XS = [-1.5, -1.0, -0.7, -0.2, 0.0, 0.3, 0.5, 0.9, 1.0, 1.3, 2.5, -3.0, NAN]
NS = [-3.0, -0.5, 0.0, 1.0, 1.7, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 12.9, NAN, INF, -INF]


def grid():
    x = torch.tensor(XS).repeat_interleave(len(NS))
    n = torch.tensor(NS).repeat(len(XS))
    return x, n


@pytest.mark.parametrize("name", POLYS)
def test_polynomial_grid(name):
    fn = getattr(torch.special, name)
    x, n = grid()
    compare(fn, x, n, atol=1e-4, rtol=1e-4)


@pytest.mark.parametrize("name", ["chebyshev_polynomial_t", "hermite_polynomial_h", "legendre_polynomial_p"])
def test_polynomial_scalar_and_int(name):
    fn = getattr(torch.special, name)
    x = torch.linspace(-2, 2, 11)
    compare(lambda t: fn(t, 5), x, atol=1e-4, rtol=1e-4)
    compare(lambda t: fn(0.25, t), torch.arange(-2, 12, dtype=torch.float32), atol=1e-4, rtol=1e-4)
    compare(fn, torch.arange(-3, 4, dtype=torch.int64), torch.tensor([3], dtype=torch.int32))
    # broadcasting x (4, 1) against n (5,)
    compare(fn, torch.linspace(-0.9, 0.9, 4).reshape(4, 1), torch.tensor([0.0, 2.0, 5.0, 7.0, 11.0]), atol=1e-4, rtol=1e-4)


def test_hermite_degree_limit():
    x = torch.tensor([0.1, 0.1, 0.1])
    n = torch.tensor([127.0, 128.0, 129.0])
    compare(torch.special.hermite_polynomial_he, x, n, atol=1e-4, rtol=1e-4)


BESSEL_X = [0.0, -0.0, 1e-6, 1e-3, 0.5, 1.0, 1.99, 2.0, 2.01, 3.0, 4.99, 5.0, 5.01, 8.0, 10.0, 30.0, 100.0, 800.0,
            -0.5, -3.0, -7.0, INF, -INF, NAN]
BESSELS = ["bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "modified_bessel_k0", "modified_bessel_k1",
           "scaled_modified_bessel_k0", "scaled_modified_bessel_k1"]


@pytest.mark.parametrize("name", BESSELS)
def test_bessel_edges(name):
    compare(getattr(torch.special, name), torch.tensor(BESSEL_X), atol=1e-5, rtol=1e-4)


@pytest.mark.parametrize("name", ["bessel_j0", "modified_bessel_k1"])
def test_bessel_int_input(name):
    compare(getattr(torch.special, name), torch.arange(0, 12, dtype=torch.int32), atol=1e-5, rtol=1e-4)


def test_airy_ai_edges():
    x = torch.tensor([-100.0, -10.0, -2.1, -2.09, -2.0, -1.0, -1e-3, 0.0, 0.5, 1.0, 2.0, 2.08, 2.09, 3.0, 8.3, 8.33,
                      20.0, 103.0, 104.0, INF, -INF, NAN])
    compare(torch.special.airy_ai, x, atol=1e-5, rtol=1e-4)
    compare(torch.special.airy_ai, torch.linspace(-6, 6, 97), atol=1e-5, rtol=1e-4)


IG_A = [0.0, 1e-3, 0.3, 0.5, 1.0, 1.5, 2.0, 4.5, 10.0, 25.0, 60.0, INF, -1.0, NAN]
IG_X = [0.0, 1e-4, 0.2, 0.5, 0.7, 1.0, 1.05, 1.2, 2.0, 4.0, 9.0, 26.0, 70.0, INF, -0.5, NAN]


@pytest.mark.parametrize("fn", [torch.igamma, torch.igammac], ids=["igamma", "igammac"])
def test_igamma_grid(fn):
    a = torch.tensor(IG_A).repeat_interleave(len(IG_X))
    x = torch.tensor(IG_X).repeat(len(IG_A))
    compare(fn, a, x, atol=1e-5, rtol=1e-4)


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
def test_igamma_half(dtype):
    a = (torch.rand(40, generator=torch.Generator().manual_seed(0)) * 8).to(dtype)
    x = (torch.rand(40, generator=torch.Generator().manual_seed(1)) * 8).to(dtype)
    compare(torch.special.gammainc, a, x)
    compare(torch.special.gammaincc, a, x)


def test_polynomial_huge_degree_outside_interval_stops():
    # |x| > 1: the recurrence overflows to NaN long before n; CPU stops there.
    x = torch.tensor([1.5, -2.0, 3.0])
    n = torch.tensor([1e9, 1e9, 1e9])
    compare(torch.special.chebyshev_polynomial_t, x, n)
    compare(torch.special.legendre_polynomial_p, x, n)
