"""Matrix decompositions and related ops on "tpu" against CPU: Cholesky and
triangular solves, cross, trace (QR, eigh, SVD, lstsq below)."""
import pytest
import torch

import torchtpu  # noqa: F401
from conftest import DTYPES_ALL, compare, make, to_tpu

TOL = {"atol": 1e-4, "rtol": 1e-4}


def spd(*shape, seed=0):
    a = make(shape, torch.float32, seed)
    return a @ a.mT + shape[-1] * torch.eye(shape[-1])


def tri(n, upper, seed=0):
    a = make((n, n), torch.float32, seed)
    a = a.triu() if upper else a.tril()
    return a + 3 * torch.eye(n)


# ---------------------------------------------------------------- Cholesky

@pytest.mark.filterwarnings("ignore:torch.cholesky is deprecated")
@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_ex_and_grad(upper):
    a = spd(2, 4, 4)
    compare(lambda x: torch.linalg.cholesky_ex(x, upper=upper), a, **TOL)
    compare(lambda x: torch.linalg.cholesky(x, upper=upper), a, grad=True, **TOL)
    compare(lambda x: torch.cholesky(x, upper=upper), a[0], grad=True, **TOL)


def test_cholesky_info_is_lapacks():
    """info is the order of the first leading minor that is not positive
    definite, as LAPACK reports it, per batch element."""
    bad2 = torch.tensor([[1., 2, 0], [2, 1, 0], [0, 0, 1]])
    bad3 = torch.tensor([[4., 2, 0], [2, 5, 1], [0, 1, -1]])
    batch = torch.stack([bad3, torch.eye(3), bad2])
    info = torch.linalg.cholesky_ex(batch.to("tpu")).info
    assert info.dtype == torch.int32
    assert info.cpu().tolist() == torch.linalg.cholesky_ex(batch).info.tolist() == [3, 0, 2]
    with pytest.raises(torch.linalg.LinAlgError, match="order 2 is not positive-definite"):
        torch.linalg.cholesky(bad2.to("tpu"))


def test_cholesky_errors():
    with pytest.raises(RuntimeError, match="must be batches of square matrices"):
        torch.linalg.cholesky_ex(torch.ones(2, 3, device="tpu"))
    with pytest.raises(RuntimeError, match="Low precision dtypes not supported"):
        torch.linalg.cholesky_ex(torch.ones(2, 2, dtype=torch.bfloat16).to("tpu"))
    with pytest.raises(NotImplementedError, match="check_errors"):
        torch.linalg.cholesky_ex(torch.eye(2).to("tpu"), check_errors=True)


@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_solve_inverse(upper):
    a = spd(2, 3, 3)
    f = torch.linalg.cholesky(a, upper=upper)
    # b broadcasts against the factor's batch.
    compare(lambda b, f: torch.cholesky_solve(b, f, upper=upper), make((3, 2), torch.float32), f, grad=True, **TOL)
    compare(lambda f: torch.cholesky_inverse(f, upper=upper), f[1], grad=True, **TOL)


# ---------------------------------------------------------------- triangular solves

@pytest.mark.parametrize("upper,left,unit", [(True, True, False), (False, False, False), (False, True, True)])
def test_solve_triangular(upper, left, unit):
    a = tri(3, upper)
    b = make((2, 3, 4) if left else (2, 4, 3), torch.float32, 1)
    compare(lambda a, b: torch.linalg.solve_triangular(a, b, upper=upper, left=left, unitriangular=unit), a, b,
            grad=True, **TOL)


@pytest.mark.filterwarnings("ignore:torch.triangular_solve is deprecated")
@pytest.mark.parametrize("transpose", [False, True])
def test_triangular_solve_legacy(transpose):
    a = torch.stack([tri(3, False), tri(3, False, 2)])
    b = make((3, 2), torch.float32, 1)
    compare(lambda b, a: torch.triangular_solve(b, a, upper=False, transpose=transpose), b, a, grad=True, **TOL)


def test_solve_triangular_shape_error():
    with pytest.raises(RuntimeError, match="Incompatible shapes of A and B"):
        torch.linalg.solve_triangular(torch.eye(3).to("tpu"), torch.ones(4, 2, device="tpu"), upper=True)


# ---------------------------------------------------------------- cross, trace

@pytest.mark.parametrize("dtype", [d for d in DTYPES_ALL if d != torch.bool])
def test_cross(dtype):
    a, b = make((4, 3), dtype), make((1, 3), dtype, 1)
    compare(lambda a, b: torch.linalg.cross(a, b), a, b, grad=dtype == torch.float32)
    compare(lambda a, b: torch.cross(a, b, dim=0), make((3, 2), dtype), make((3, 2), dtype, 1))


def test_cross_errors():
    with pytest.raises(RuntimeError, match="must have length 3"):
        torch.linalg.cross(torch.ones(2, 4, device="tpu"), torch.ones(2, 4, device="tpu"))
    with pytest.raises(NotImplementedError, match="Bool"):
        torch.linalg.cross(torch.ones(3, device="tpu", dtype=torch.bool), torch.ones(3, device="tpu", dtype=torch.bool))


@pytest.mark.parametrize("dtype", [d for d in DTYPES_ALL if d != torch.bool])
def test_trace(dtype):
    out = compare(torch.trace, make((3, 5), dtype), grad=dtype == torch.float32)
    assert out.dtype == (dtype if dtype.is_floating_point else torch.int64)
    with pytest.raises(RuntimeError, match="expected a matrix"):
        torch.trace(torch.ones(2, 2, 2, device="tpu"))


# ---------------------------------------------------------------- QR (Householder, LAPACK's signs)

@pytest.mark.parametrize("shape", [(4, 3), (3, 5), (2, 4, 4)])
def test_geqrf_qr_match_lapack(shape):
    a = make(shape, torch.float32)
    compare(torch.geqrf, a, **TOL)
    for mode in ("reduced", "complete", "r"):
        compare(lambda x: torch.linalg.qr(x, mode=mode), a, **TOL)
    compare(lambda x: torch.linalg.qr(x), a, grad=True, **TOL)


@pytest.mark.parametrize("left,transpose", [(True, False), (True, True), (False, False), (False, True)])
def test_householder_product_ormqr(left, transpose):
    packed, tau = torch.geqrf(make((2, 4, 3), torch.float32))
    compare(torch.linalg.householder_product, packed, tau, grad=True, **TOL)
    c = make((2, 4, 2) if left else (2, 2, 4), torch.float32, 1)
    compare(lambda p, t, c: torch.ormqr(p, t, c, left, transpose), packed, tau, c, grad=True, **TOL)


# ---------------------------------------------------------------- eigh, SVD (vectors up to sign)

def _sym(*shape, seed=0):
    a = make(shape, torch.float32, seed)
    return a + a.mT


@pytest.mark.parametrize("shape", [(1, 1), (3, 3), (2, 5, 5), (0, 2, 2)])
def test_eigh(shape):
    a = _sym(*shape)
    w, v = torch.linalg.eigh(a.to("tpu"))
    wc, vc = torch.linalg.eigh(a)
    torch.testing.assert_close(w.cpu(), wc, **TOL)  # ascending, as LAPACK
    if a.numel():
        # Same eigenvectors up to sign; the largest entry of each is positive.
        v = v.cpu()
        torch.testing.assert_close(v.abs(), vc.abs(), atol=1e-3, rtol=1e-3)
        big = v.gather(-2, v.abs().argmax(-2, keepdim=True))
        assert (big > 0).all()
    # Upper triangle read for UPLO="U"; gauge-invariant gradients.
    compare(lambda x: torch.linalg.eigvalsh(x, UPLO="U"), make(shape, torch.float32, 1), grad=True, **TOL)
    compare(lambda x: (lambda w, v: (w, v @ v.mT * 2))(*torch.linalg.eigh(x)), a, grad=True, atol=1e-3, rtol=1e-3)


@pytest.mark.parametrize("shape", [(4, 3), (2, 5), (2, 4, 4), (3, 0)])
@pytest.mark.parametrize("full", [False, True])
def test_svd(shape, full):
    a = make(shape, torch.float32)
    u, s, vh = (t.cpu() for t in torch.linalg.svd(a.to("tpu"), full_matrices=full))
    uc, sc, vhc = torch.linalg.svd(a, full_matrices=full)
    assert u.shape == uc.shape and vh.shape == vhc.shape
    torch.testing.assert_close(s, sc, **TOL)  # descending, as LAPACK
    k = min(shape[-2:])
    torch.testing.assert_close(u[..., :k] @ torch.diag_embed(s) @ vh[..., :k, :], a, **TOL)
    torch.testing.assert_close(u.mT @ u, torch.eye(u.shape[-1]).expand_as(u.mT @ u), **TOL)
    torch.testing.assert_close(vh @ vh.mT, torch.eye(vh.shape[-2]).expand_as(vh @ vh.mT), **TOL)
    if a.numel():
        compare(torch.linalg.svdvals, a, grad=True, **TOL)
        compare(lambda x: (lambda u, s, vh: (s, u @ vh))(*torch.linalg.svd(x, full_matrices=False)), a, grad=True,
                atol=1e-3, rtol=1e-3)


def test_svd_users():
    a = make((4, 3), torch.float32)
    compare(torch.linalg.pinv, a, grad=True, atol=1e-3, rtol=1e-3)
    compare(lambda x: torch.linalg.matrix_norm(x, ord="nuc"), a, grad=True, **TOL)
    compare(lambda x: torch.linalg.matrix_norm(x, ord=2), a, grad=True, **TOL)
    compare(torch.linalg.cond, a[:3], **TOL)
    assert torch.linalg.matrix_rank(torch.ones(3, 4).to("tpu")).item() == 1


# ---------------------------------------------------------------- least squares

@pytest.mark.parametrize("driver", ["gels", "gelsy", "gelsd", "gelss"])
@pytest.mark.parametrize("sa,sb", [((4, 3), (4, 2)), ((2, 3), (2, 2)), ((2, 4, 3), (2, 4)), ((4, 3), (4,))])
def test_lstsq(driver, sa, sb):
    a, b = make(sa, torch.float32), make(sb, torch.float32, 1)
    compare(lambda a, b: torch.linalg.lstsq(a, b, driver=driver), a, b, **TOL)
    compare(lambda a, b: torch.linalg.lstsq(a, b, driver=driver).solution, a, b, grad=True, atol=1e-3, rtol=1e-3)


def test_lstsq_rank_deficient_min_norm():
    a = torch.tensor([[1., 2, 3], [2, 4, 6], [1, 0, 1], [0, 1, 1]])  # rank 2
    b = make((4, 2), torch.float32, 1)
    compare(lambda a, b: torch.linalg.lstsq(a, b, driver="gelsd")[0], a, b, atol=1e-3, rtol=1e-3)
    assert torch.linalg.lstsq(a.to("tpu"), b.to("tpu"), driver="gelsy").rank.item() == 2


@pytest.mark.parametrize("shape", [(4, 3), (3, 4), (3, 3)])
def test_svd_rank_deficient_factors_are_orthonormal(shape):
    """Zero singular values: U and V still have orthonormal columns, as LAPACK's do."""
    torch.manual_seed(0)
    a = torch.randn(shape[0], 1) @ torch.randn(1, shape[1])  # rank 1
    for x in (a, torch.zeros(shape)):
        for full in (False, True):
            u, s, vh = (t.cpu() for t in torch.linalg.svd(x.to("tpu"), full_matrices=full))
            torch.testing.assert_close(u.mT @ u, torch.eye(u.shape[-1]), atol=1e-5, rtol=0)
            torch.testing.assert_close(vh @ vh.mT, torch.eye(vh.shape[-2]), atol=1e-5, rtol=0)
            k = min(shape)
            torch.testing.assert_close(u[:, :k] @ torch.diag(s) @ vh[:k], x, atol=1e-5, rtol=1e-5)
            torch.testing.assert_close(s, torch.linalg.svdvals(x), atol=1e-5, rtol=1e-5)
