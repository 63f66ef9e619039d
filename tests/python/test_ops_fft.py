"""FFT ops on "tpu" (ATen's _fft_r2c/_fft_c2r/_fft_c2c through torch.fft)
against CPU: shapes incl. non-power-of-2 lengths, dims, n (cut and
zero-padded), the three norms, more dims than one stablehlo.fft takes, and
float32 backward."""
import pytest
import torch

from conftest import compare


def cmake(shape, dtype=torch.complex64, seed=0):
    g = torch.Generator().manual_seed(seed)
    return torch.complex(torch.randn(shape, generator=g, dtype=torch.float64),
                         torch.randn(shape, generator=g, dtype=torch.float64)).to(dtype)


def rmake(shape, dtype=torch.float32, seed=0):
    return torch.randn(shape, generator=torch.Generator().manual_seed(seed), dtype=dtype)


TOL = {"atol": 1e-4, "rtol": 1e-4}
ONE_DIM = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft"]
REAL_IN = {"rfft", "ihfft", "rfft2", "rfftn", "ihfft2", "ihfftn"}


def arg(name, shape, dtype=torch.float32, seed=0):
    if name in REAL_IN:
        return rmake(shape, dtype, seed)
    return cmake(shape, torch.complex128 if dtype == torch.float64 else torch.complex64, seed)


@pytest.mark.parametrize("norm", [None, "ortho", "forward", "backward"])
@pytest.mark.parametrize("name", ONE_DIM)
def test_one_dim_norms(name, norm):
    fn = getattr(torch.fft, name)
    compare(lambda x: fn(x, norm=norm), arg(name, (3, 10)), **TOL)


@pytest.mark.parametrize("name", ONE_DIM)
@pytest.mark.parametrize("n,dim", [(None, 0), (7, -1), (16, 1), (5, 0), (1, -1)])
def test_one_dim_n_and_dim(name, n, dim):
    fn = getattr(torch.fft, name)
    compare(lambda x: fn(x, n=n, dim=dim), arg(name, (6, 9, 4), seed=1), **TOL)


@pytest.mark.parametrize("name", ["fft", "ifft"])
def test_c2c_of_real_input(name):
    compare(getattr(torch.fft, name), rmake((4, 11)), **TOL)


@pytest.mark.parametrize("name", ["fft2", "ifft2", "rfft2", "irfft2", "hfft2", "ihfft2",
                                  "fftn", "ifftn", "rfftn", "irfftn", "hfftn", "ihfftn"])
@pytest.mark.parametrize("kw", [{}, {"dim": (0, 2)}, {"s": (4, 6), "dim": (-1, 0)}, {"norm": "ortho"}])
def test_multi_dim(name, kw):
    fn = getattr(torch.fft, name)
    compare(lambda x: fn(x, **kw), arg(name, (5, 3, 6), seed=2), **TOL)


@pytest.mark.parametrize("name", ["fftn", "rfftn", "irfftn", "ifftn"])
def test_more_dims_than_one_hlo_fft(name):
    # 5 transformed dims: done as two stablehlo.fft groups
    compare(getattr(torch.fft, name), arg(name, (2, 3, 4, 5, 3), seed=3), **TOL)


def test_float64():
    compare(torch.fft.rfft, rmake((4, 13), torch.float64))
    compare(torch.fft.irfft, cmake((4, 7), torch.complex128))
    compare(lambda x: torch.fft.fftn(x, norm="ortho"), cmake((3, 5, 6), torch.complex128))


def test_fft_of_conj_view_and_stft():
    compare(lambda x: torch.fft.fft(x.conj()), cmake((4, 8)), **TOL)
    compare(lambda x: torch.stft(x, 8, hop_length=3, return_complex=True), rmake((2, 40)), **TOL)


@pytest.mark.parametrize("name", ["fft", "ifft", "rfft", "ihfft", "rfft2", "fftn", "ihfftn"])
def test_backward_real_input(name):
    fn = getattr(torch.fft, name)
    compare(lambda x: torch.view_as_real(fn(x).resolve_conj()), rmake((4, 6)), grad=True, **TOL)


@pytest.mark.parametrize("name", ["irfft", "hfft", "irfftn", "fft", "ifft2"])
def test_backward_through_complex_input(name):
    # float32 leaf -> complex (view_as_complex) -> transform: grads flow through c2r / c2c
    fn = getattr(torch.fft, name)
    def f(x):
        y = fn(torch.view_as_complex(x))
        return torch.view_as_real(y) if y.is_complex() else y
    compare(f, rmake((4, 6, 2), seed=4), grad=True, **TOL)


def test_half_input_is_refused_like_cpu():
    with pytest.raises((RuntimeError, NotImplementedError)):
        torch.fft.rfft(torch.randn(8, device="tpu").half())
