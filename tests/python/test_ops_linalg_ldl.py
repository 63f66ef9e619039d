"""LDL^T factorization (linalg.ldl_factor / ldl_factor_ex) and its solve
(linalg.ldl_solve) on "tpu" against CPU's LAPACK ?sytrf / ?sytrs: the same
Bunch-Kaufman pivots (exactly), the same packed LD, the same info."""
import pytest
import torch

import torchtpu  # noqa: F401
from conftest import make

# The lowering follows LAPACK's operation order and rounding (measured bit-exact
# on XLA's CPU plugin); the tolerances leave room for a backend's last bit only.
TOL = {torch.float32: dict(atol=1e-6, rtol=1e-6), torch.float64: dict(atol=1e-14, rtol=1e-14)}


def sym(shape, dtype, seed=0, diag=1.0):
    """Random symmetric matrices; diag scales the diagonal (0 forces 2x2 pivots,
    small values force interchanges)."""
    a = make(shape, torch.float64, seed)
    a = a + a.mT
    a.diagonal(dim1=-2, dim2=-1).mul_(diag)
    return a.to(dtype)


def check_factor(a, **kw):
    ref = torch.linalg.ldl_factor_ex(a, **kw)
    got = torch.linalg.ldl_factor_ex(a.to("tpu"), **kw)
    assert got.pivots.dtype == torch.int32 and got.info.dtype == torch.int32
    assert got.pivots.cpu().tolist() == ref.pivots.tolist()
    assert got.info.cpu().tolist() == ref.info.tolist()
    torch.testing.assert_close(got.LD.cpu(), ref.LD, **TOL[a.dtype])
    return ref


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("diag", [1.0, 0.0, 0.05])
def test_factor_matches_lapack(dtype, diag):
    two, swapped = False, False
    for n in range(1, 8):
        p = check_factor(sym((4, n, n), dtype, seed=n, diag=diag)).pivots
        two |= bool((p < 0).any())
        swapped |= bool(((p > 0) & (p != torch.arange(1, n + 1, dtype=p.dtype))).any())
    if diag == 0.0:
        assert two, "zero diagonals should give 2x2 pivots"
    if diag == 0.05:
        assert swapped, "small diagonals should give 1x1 interchanges"


def test_factor_branches():
    """Each decision of the pivot rule, with the outcome CPU gives written out."""
    cases = [
        (torch.tensor([[4., 1], [1, 3]]), [1, 2], 0),  # |a_kk| >= alpha colmax: no interchange
        (torch.tensor([[0., 1], [1, 0]]), [-2, -2], 0),  # zero diagonal: 2x2 block
        (torch.tensor([[1., 2], [2, 4]]), [2, 2], 2),  # interchange, 1x1, then a zero pivot
        (torch.tensor([[1., 2, 0], [2, 0, 9], [0, 9, 1]]), [1, -3, -3], 0),  # rowmax test keeps k, then 2x2
        (torch.tensor([[0.1, 1, 0], [1, 5, 0], [0, 0, 2]]), [2, 2, 3], 0),  # |a_imax,imax| large: 1x1 interchange
        (torch.tensor([[0., 1, 3], [1, 0, 2], [3, 2, 0]]), [-3, -3, 3], 0),  # 2x2 with interchange
        (torch.zeros(3, 3), [1, 2, 3], 1),  # a zero column: info, no update
    ]
    for a, piv, info in cases:
        ref = check_factor(a)
        assert ref.pivots.tolist() == piv and ref.info.item() == info


def test_factor_batch_mixes_steps():
    """Matrices of one batch take 1x1 and 2x2 steps at different columns."""
    a = torch.stack([sym((5, 5), torch.float64, 1), sym((5, 5), torch.float64, 2, diag=0.0),
                     torch.eye(5, dtype=torch.float64), torch.zeros(5, 5, dtype=torch.float64)])
    ref = check_factor(a.reshape(2, 2, 5, 5))
    assert (ref.pivots < 0).any() and (ref.pivots > 0).any() and (ref.info > 0).any()


def test_factor_hermitian_flag_and_upper_ignored():
    """hermitian=True is ?sytrf for real inputs; only the lower triangle is read."""
    a = sym((2, 4, 4), torch.float32, 3, diag=0.0)
    check_factor(a, hermitian=True)
    junk = a.tril() + torch.triu(torch.full_like(a, 7.0), 1)
    got = torch.linalg.ldl_factor_ex(junk.to("tpu"))
    ref = torch.linalg.ldl_factor_ex(a)
    assert got.pivots.cpu().tolist() == ref.pivots.tolist()
    torch.testing.assert_close(got.LD.cpu(), ref.LD, **TOL[a.dtype])


@pytest.mark.parametrize("shape", [(0, 0), (0, 2, 2), (2, 0, 0)])
def test_factor_empty(shape):
    a = torch.zeros(shape)
    got = torch.linalg.ldl_factor_ex(a.to("tpu"))
    ref = torch.linalg.ldl_factor_ex(a)
    assert got.LD.shape == ref.LD.shape and got.pivots.shape == ref.pivots.shape
    assert got.info.cpu().tolist() == ref.info.tolist()


def test_ldl_factor_raises_like_cpu():
    """ldl_factor checks info on the host, as CPU does (PyTorch words it as an internal assert)."""
    LD, piv = torch.linalg.ldl_factor(sym((3, 3), torch.float32, 4, diag=0.0).to("tpu"))
    ref = torch.linalg.ldl_factor(sym((3, 3), torch.float32, 4, diag=0.0))
    assert piv.cpu().tolist() == ref.pivots.tolist()
    with pytest.raises(RuntimeError, match="Unknown error code: 1"):
        torch.linalg.ldl_factor(torch.zeros(3, 3))
    with pytest.raises(RuntimeError, match="Unknown error code: 1"):
        torch.linalg.ldl_factor(torch.zeros(3, 3, device="tpu"))
    with pytest.raises(NotImplementedError, match="check_errors"):
        torch.linalg.ldl_factor_ex(torch.eye(2, device="tpu"), check_errors=True)


def solve_both(LD, piv, B, **kw):
    ref = torch.linalg.ldl_solve(LD, piv, B, **kw)
    got = torch.linalg.ldl_solve(LD.to("tpu"), piv.to("tpu"), B.to("tpu"), **kw).cpu()
    return got, ref


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("diag", [1.0, 0.0])
def test_solve_matches_lapack(dtype, diag):
    for n in (1, 2, 3, 5):
        a = sym((3, n, n), dtype, seed=10 + n, diag=diag)
        LD, piv, _ = torch.linalg.ldl_factor_ex(a)
        for B in (make((3, n, 2), dtype, n), make((n, 4), dtype, n)):
            got, ref = solve_both(LD, piv, B)
            torch.testing.assert_close(got, ref, **TOL[dtype])
    got, ref = solve_both(LD, piv.long(), B, hermitian=True)
    torch.testing.assert_close(got, ref, **TOL[dtype])


def test_solve_broadcasts_b_batch():
    """B's batch larger than LD's (CPU's kernel mishandles this): each matrix solved alone."""
    a = sym((4, 4), torch.float64, 20, diag=0.0)
    LD, piv = torch.linalg.ldl_factor(a)
    B = make((3, 4, 2), torch.float64, 21)
    got = torch.linalg.ldl_solve(LD.to("tpu"), piv.to("tpu"), B.to("tpu")).cpu()
    torch.testing.assert_close(got, torch.stack([torch.linalg.ldl_solve(LD, piv, b) for b in B]))
    torch.testing.assert_close(a @ got, B)


def test_solve_empty_and_bad_pivots():
    for LD, piv, B in [(torch.zeros(0, 0), torch.zeros(0, dtype=torch.int32), torch.zeros(0, 3)),
                       (torch.zeros(0, 2, 2), torch.zeros(0, 2, dtype=torch.int32), torch.zeros(2, 3))]:
        got, ref = solve_both(LD, piv, B)
        assert got.shape == ref.shape
    # Pivots out of range raise as on CPU (test_solve_rejects_bad_pivots_as_cpu); the
    # clamped output the check leaves for that matrix is NaN.
    got = torch.linalg.ldl_solve(torch.eye(2, device="tpu"), torch.tensor([5, 1], dtype=torch.int32, device="tpu"),
                                 torch.ones(2, 1, device="tpu"))
    with pytest.raises(RuntimeError, match="Pivots given to ldl_solve"):
        got.cpu()


def errors(fn):
    out = []
    for d in ("cpu", "tpu"):
        try:
            fn(d)
            out.append(None)
        except Exception as e:  # noqa: BLE001 - compared below
            out.append((type(e), str(e).splitlines()[0]))
    assert out[0] is not None and out[1] is not None
    assert out[0][0] is out[1][0] and out[1][1].endswith(out[0][1]), out
    return out


def test_errors_match_cpu():
    i32 = torch.int32
    errors(lambda d: torch.linalg.ldl_factor_ex(torch.zeros(3, device=d)))
    errors(lambda d: torch.linalg.ldl_factor_ex(torch.zeros(2, 3, device=d)))
    errors(lambda d: torch.linalg.ldl_factor_ex(torch.zeros(3, 3, dtype=i32, device=d)))
    errors(lambda d: torch.linalg.ldl_factor_ex(torch.eye(3, dtype=torch.bfloat16, device=d)))
    eye, p3 = (lambda d: torch.eye(3, device=d)), (lambda d: torch.ones(3, dtype=i32, device=d))
    errors(lambda d: torch.linalg.ldl_solve(eye(d), p3(d), torch.ones(3, device=d)))
    errors(lambda d: torch.linalg.ldl_solve(eye(d), p3(d), torch.ones(4, 1, device=d)))
    errors(lambda d: torch.linalg.ldl_solve(eye(d), torch.ones(2, dtype=i32, device=d), torch.ones(3, 1, device=d)))
    errors(lambda d: torch.linalg.ldl_solve(eye(d), torch.ones(3, device=d), torch.ones(3, 1, device=d)))
    errors(lambda d: torch.linalg.ldl_solve(eye(d), p3(d), torch.ones(3, 1, dtype=torch.float64, device=d)))


@pytest.mark.parametrize("mode", ["strict", "debug", "defer_and_fuse"])
@pytest.mark.parametrize("bad", [7, -7, 0])
def test_solve_rejects_bad_pivots_as_cpu(mode, bad):
    """CPU checks the pivots on the host; here a device-side check raises the
    same RuntimeError (at the op in Debug mode, at the next synchronization
    otherwise)."""
    a = torch.randn(3, 3, generator=torch.Generator().manual_seed(0))
    ld, piv = torch.linalg.ldl_factor(a + a.T)
    piv[0] = bad
    b = torch.randn(3, 1)
    with pytest.raises(RuntimeError) as cpu:
        torch.linalg.ldl_solve(ld, piv, b)
    with torch.tpu.eager_mode(mode):
        with pytest.raises(RuntimeError, match=str(cpu.value).split("?")[0].replace("|", "\\|").replace("(", "\\(").replace(")", "\\)")):
            torch.linalg.ldl_solve(ld.to("tpu"), piv.to("tpu"), b.to("tpu")).cpu()
