"""LU-based linear algebra on tpu vs CPU: lu_factor(_ex), lu_unpack, lu,
lu_solve, inv(_ex), solve(_ex), det, slogdet, logdet, eye; forward and
float32 backward; singular inputs report info as LAPACK does."""
import pytest
import torch

from conftest import compare, make, to_tpu

TOL = dict(atol=1e-4, rtol=1e-4)


def well_conditioned(shape, seed=0):
    a = make(shape, torch.float32, seed)
    n = shape[-1]
    return a + n * torch.eye(n) * 0.5 if shape[-2] == n else a


@pytest.mark.parametrize("shape", [(4, 4), (2, 3, 5, 5), (3, 5), (5, 3), (0, 3, 3), (1, 1)])
def test_lu_factor_ex(shape):
    a = make(shape, torch.float32)
    out = compare(lambda x: torch.linalg.lu_factor_ex(x), a, **TOL)
    assert out.pivots.dtype == torch.int32 and out.info.dtype == torch.int32


def test_lu_factor_singular_info():
    a = torch.tensor([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]])
    b = torch.zeros(2, 2)
    for x in (a, b, torch.tensor([[1.0, 2.0], [2.0, 4.0]])):
        compare(lambda t: torch.linalg.lu_factor_ex(t), x)
    with pytest.raises(RuntimeError, match="is zero"):  # CPU's error for lu_factor
        torch.linalg.lu_factor(to_tpu(b))
    with pytest.raises(torch.linalg.LinAlgError):
        torch.linalg.inv(to_tpu(b))


@pytest.mark.parametrize("shape", [(4, 4), (3, 2, 4), (2, 4, 3)])
def test_lu_and_unpack(shape):
    a = make(shape, torch.float32)
    compare(lambda x: torch.linalg.lu(x), a, **TOL)
    lu, piv = torch.linalg.lu_factor(a)
    compare(lambda x, p: torch.lu_unpack(x, p), lu, piv, **TOL)
    compare(lambda x, p: torch.lu_unpack(x, p, unpack_data=False), lu, piv)
    compare(lambda x, p: torch.lu_unpack(x, p, unpack_pivots=False), lu, piv, **TOL)


@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("adjoint", [True, False])
def test_lu_solve(left, adjoint):
    a = well_conditioned((2, 4, 4))
    b = make((2, 4, 3) if left else (2, 3, 4), torch.float32, 1)
    lu, piv = torch.linalg.lu_factor(a)
    compare(lambda x, p, y: torch.linalg.lu_solve(x, p, y, left=left, adjoint=adjoint), lu, piv, b, **TOL)
    # batch broadcasting of B against LU
    b1 = make((4, 2) if left else (2, 4), torch.float32, 2)
    compare(lambda x, p, y: torch.linalg.lu_solve(x, p, y, left=left, adjoint=adjoint), lu, piv, b1, **TOL)


def test_inv():
    a = well_conditioned((3, 5, 5))
    compare(lambda x: torch.linalg.inv(x), a, grad=True, **TOL)
    compare(lambda x: torch.linalg.inv_ex(x), a, **TOL)
    compare(lambda x: torch.inverse(x), well_conditioned((4, 4)), **TOL)


@pytest.mark.parametrize("bshape,left", [((4, 2), True), ((4,), True), ((3, 4), True), ((3, 4, 2), True), ((2, 4), False)])
def test_solve(bshape, left):
    a = well_conditioned((3, 4, 4))
    b = make(bshape, torch.float32, 3)
    compare(lambda x, y: torch.linalg.solve(x, y, left=left), a, b, grad=True, **TOL)
    compare(lambda x, y: torch.linalg.solve_ex(x, y, left=left), a, b, **TOL)


def test_det_slogdet():
    a = make((2, 3, 4, 4), torch.float32)
    compare(lambda x: torch.linalg.det(x), a, grad=True, **TOL)
    compare(lambda x: torch.det(x), a, **TOL)
    compare(lambda x: torch.linalg.slogdet(x), a, grad=True, **TOL)
    spd = well_conditioned((3, 3)) @ well_conditioned((3, 3)).mT
    compare(lambda x: torch.logdet(x), spd, grad=True, **TOL)
    # a row swap flips the sign; a singular matrix has det 0, sign 0, logabsdet -inf
    compare(lambda x: torch.linalg.det(x), torch.tensor([[0.0, 1.0], [1.0, 0.0]]))
    sing = torch.tensor([[1.0, 2.0], [2.0, 4.0]])
    compare(lambda x: torch.linalg.det(x), sing)
    compare(lambda x: torch.linalg.slogdet(x), sing)
    compare(lambda x: torch.linalg.det(x), torch.zeros(0, 0))


def test_errors():
    with pytest.raises(RuntimeError, match="square"):
        torch.linalg.inv(to_tpu(torch.ones(2, 3)))
    with pytest.raises(RuntimeError, match="Incompatible shapes"):
        torch.linalg.solve(to_tpu(torch.eye(3)), to_tpu(torch.ones(4)))
    with pytest.raises(NotImplementedError):
        torch.linalg.lu_factor(to_tpu(torch.ones(3, 3, dtype=torch.int64)))
    with pytest.raises(RuntimeError, match="without pivoting"):
        torch.linalg.lu_factor(to_tpu(torch.ones(3, 3)), pivot=False)


def test_eye():
    compare(lambda: torch.eye(3, device="cpu"), )
    assert torch.equal(torch.eye(3, 4, device="tpu").cpu(), torch.eye(3, 4))
    assert torch.equal(torch.eye(2, dtype=torch.int32, device="tpu").cpu(), torch.eye(2, dtype=torch.int32))
    out = torch.empty(2, 5, device="tpu")
    torch.eye(2, 5, out=out)
    assert torch.equal(out.cpu(), torch.eye(2, 5))
