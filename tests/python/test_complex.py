"""complex64/complex128 on "tpu": round trips, views (view_as_real, real/imag,
the lazy conj bit), elementwise ops against CPU, and the refusal of ops that
were not checked on complex values."""
import warnings

import pytest
import torch

from conftest import compare

CDTYPES = [torch.complex64, torch.complex128]


def cmake(shape, dtype=torch.complex64, seed=0):
    g = torch.Generator().manual_seed(seed)
    return torch.complex(torch.randn(shape, generator=g, dtype=torch.float64),
                         torch.randn(shape, generator=g, dtype=torch.float64)).to(dtype)


def same(actual, expected):
    """Values, dtype and shape as on CPU (conj/neg bits resolved on both sides)."""
    a = actual.detach().cpu().resolve_conj().resolve_neg()
    torch.testing.assert_close(a, expected.detach().resolve_conj().resolve_neg())


@pytest.mark.parametrize("dtype", CDTYPES)
def test_round_trip_item_and_print(dtype):
    x = cmake((3, 4), dtype)
    t = x.to("tpu")
    assert t.dtype == dtype and t.device.type == "tpu"
    assert torch.equal(t.cpu(), x)
    assert t[1, 2].item() == x[1, 2].item() and isinstance(t[1, 2].item(), complex)
    assert "j" in str(t)
    assert torch.equal(torch.zeros(2, dtype=dtype, device="tpu").cpu(), torch.zeros(2, dtype=dtype))


@pytest.mark.parametrize("src,dst", [(torch.float32, torch.complex64), (torch.float64, torch.complex64),
                                     (torch.int64, torch.complex128), (torch.complex64, torch.complex128),
                                     (torch.complex128, torch.complex64)])
def test_to_copy_between_real_and_complex(src, dst):
    x = cmake((5,), src) if src.is_complex else torch.arange(-2, 3).to(src)
    same(x.to("tpu").to(dst), x.to(dst))


def test_complex_to_real_keeps_real_part_and_warns():
    x = cmake((4,))
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        r = x.to("tpu").to(torch.float32)
    assert any("discards the imaginary part" in str(m.message) for m in w)
    same(r, x.real)
    b = torch.tensor([0j, 1j, 2 + 0j, 0j]).to("tpu").to(torch.bool)
    assert b.cpu().tolist() == [False, True, True, False]
    out = torch.empty(4, device="tpu")
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        out.copy_(x.to("tpu"))
    same(out, x.real)


def test_complex32_is_refused_clearly():
    with pytest.raises(NotImplementedError, match="complex32"):
        torch.zeros(2, dtype=torch.complex32, device="tpu")


def test_view_as_real_shares_storage_and_writes_through():
    x = cmake((3, 4))
    t = x.to("tpu")
    r = torch.view_as_real(t)
    assert r.shape == (3, 4, 2) and r.dtype == torch.float32
    same(r, torch.view_as_real(x))
    r[1, 2, 1] = 7.0
    torch.view_as_real(x)[1, 2, 1] = 7.0
    same(t, x)
    r[:, 0].mul_(2)
    torch.view_as_real(x)[:, 0].mul_(2)
    same(t, x)
    c = torch.view_as_complex(r)
    assert c.dtype == torch.complex64
    c[0, 0] = 5 - 2j
    x[0, 0] = 5 - 2j
    same(t, x)


def test_real_imag_views_read_and_write():
    x = cmake((2, 5), torch.complex128)
    t = x.to("tpu")
    same(t.real, x.real)
    same(t.imag, x.imag)
    t.imag[0] = 3.0
    x.imag[0] = 3.0
    t.real[:, 1] += 1.0
    x.real[:, 1] += 1.0
    same(t, x)


def test_conj_bit_is_honored():
    x = cmake((3, 3))
    t = x.to("tpu")
    c = t.conj()
    assert c.is_conj()
    same(c, x.conj())                       # download of a conj view
    same(c.clone(), x.conj())               # clone materializes
    same(c.resolve_conj(), x.conj())
    same(torch.conj_physical(t), x.conj())
    same(c * t, x.conj() * x)               # an op on a conj view
    same(c.imag, x.conj().imag)             # neg bit
    same(c.imag * 2, x.conj().imag * 2)
    host = torch.empty(3, 3, dtype=torch.complex64)
    host.copy_(c)
    same(host, x.conj())
    # writes through a conj view store the conjugate
    c[0, 1] = 1 + 2j
    xc = x.conj()
    xc[0, 1] = 1 + 2j
    same(t, x)
    c.copy_(torch.full((3, 3), 2 - 1j))
    same(t, torch.full((3, 3), 2 + 1j))
    t2 = torch.zeros(3, 3, dtype=torch.complex64, device="tpu")
    t2.conj().copy_(x)                      # host -> device into a conj view
    same(t2, x.conj())


BINARY = {"add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": torch.mul, "div": torch.div,
          "add_alpha": lambda a, b: torch.add(a, b, alpha=2 - 1j), "rsub": lambda a, b: 3 - a,
          "eq": torch.eq, "ne": torch.ne, "where": lambda a, b: torch.where(a.real > 0, a, b)}


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_vs_cpu(name, dtype):
    compare(BINARY[name], cmake((3, 4), dtype, 1), cmake((4,), dtype, 2))


@pytest.mark.parametrize("name,fn", [("real_times_complex", lambda a, b: a.real * b), ("times_j", lambda a, b: a * 1j),
                                     ("float_plus_complex_scalar", lambda a, b: a.real + (1 + 2j)),
                                     ("c64_plus_f64", lambda a, b: a + b.real.double())])
def test_mixed_real_complex_promotion(name, fn):
    compare(fn, cmake((3, 4), seed=1), cmake((3, 4), seed=2))


UNARY = {"neg": torch.neg, "exp": torch.exp, "abs": torch.abs, "angle": torch.angle, "sgn": torch.sgn,
         "reciprocal": torch.reciprocal, "sum": torch.sum, "sum_dim": lambda a: a.sum(1, keepdim=True),
         "mean": torch.mean, "mean_dim": lambda a: a.mean(0), "clone": torch.clone,
         "cat": lambda a: torch.cat([a, a], 1), "stack": lambda a: torch.stack([a, a]), "flip": lambda a: a.flip(0),
         "prod": torch.prod, "prod_dim": lambda a: a.prod(1, keepdim=True), "trace": lambda a: a[:, :3].trace(),
         "roll": lambda a: a.roll(1, 0), "t_contiguous": lambda a: a.t().contiguous(),
         "expand_contiguous": lambda a: a[:1].expand(3, 4).contiguous(), "conj_physical": torch.conj_physical,
         "real": lambda a: a.real.clone(), "imag": lambda a: a.imag.clone(), "zero_": lambda a: a.clone().zero_(),
         "fill_": lambda a: a.clone().fill_(1 - 2j), "any": torch.any, "all": lambda a: a.all(1),
         "logical_not": torch.logical_not, "count_nonzero": torch.count_nonzero, "nonzero": torch.nonzero,
         "equal": lambda a: torch.tensor(torch.equal(a, a.clone())), "mv": lambda a: a @ a[0, :4],
         "reflection_pad": lambda a: torch.nn.functional.pad(a[None], (1, 1), mode="reflect")}


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_vs_cpu(name, dtype):
    x = cmake((3, 4), dtype)
    x[0, 0] = 0
    compare(UNARY[name], x)


def test_complex_and_polar_with_backward():
    a, b = torch.randn(5), torch.randn(5)
    compare(lambda x, y: torch.view_as_real(torch.complex(x, y)), a, b, grad=True)
    compare(lambda x, y: torch.view_as_real(torch.polar(x, y)), a.abs() + 0.1, b, grad=True)
    compare(lambda x: torch.view_as_complex(x).abs(), torch.randn(4, 2), grad=True)


def test_unchecked_op_is_refused():
    t = cmake((3,)).to("tpu")
    with pytest.raises(NotImplementedError, match="scatter_reduce.two: complex dtype complex64 is not supported on TPU yet"):
        torch.scatter_reduce(t, 0, torch.tensor([0, 1], device="tpu"), t[:2], "sum")
    with pytest.raises(RuntimeError, match="ComplexFloat"):  # as on CPU: no ordering
        t < t
    with pytest.raises(NotImplementedError, match="^clamp is not supported for complex types$"):  # CPU's words
        torch.clamp(t, 0, 1)
    with pytest.raises(NotImplementedError):  # CPU refuses an in-place abs of complex values; so do we
        t.abs_()


UNORDERED_CALLS = {
    "lt": lambda t: t < t, "le": lambda t: t <= t, "gt.Scalar": lambda t: t > 0, "ge": lambda t: t >= t,
    "max": lambda t: t.max(), "min": lambda t: t.min(), "max.dim": lambda t: t.max(0), "min.dim": lambda t: t.min(0),
    "maximum": lambda t: torch.maximum(t, t), "minimum": lambda t: torch.minimum(t, t),
    "maximum.out": lambda t: torch.maximum(t, t, out=torch.empty_like(t)), "fmax": lambda t: torch.fmax(t, t),
    "fmin": lambda t: torch.fmin(t, t), "clamp": lambda t: t.clamp(0, 1), "clamp.Tensor": lambda t: t.clamp(t, t),
    "clamp_min_": lambda t: t.clamp_min_(0), "clamp_max": lambda t: t.clamp_max(0), "amax": lambda t: t.amax(),
    "amin": lambda t: t.amin(), "aminmax": lambda t: t.aminmax(), "argmax": lambda t: t.argmax(),
    "argmin": lambda t: t.argmin(), "sort": lambda t: t.sort(), "topk": lambda t: t.topk(2),
    "kthvalue": lambda t: t.kthvalue(1), "median": lambda t: t.median(), "nanmedian.dim": lambda t: t.nanmedian(0),
    "cummax": lambda t: t.cummax(0), "cummin": lambda t: t.cummin(0), "floor": torch.floor, "ceil": torch.ceil,
    "trunc": torch.trunc, "round_": lambda t: t.round_(), "round.decimals": lambda t: t.round(decimals=1),
    "remainder": lambda t: t % 2, "fmod": lambda t: torch.fmod(t, t), "floor_divide": lambda t: t // t,
    "heaviside": lambda t: torch.heaviside(t, t), "relu": torch.relu,
    "hardtanh": torch.nn.functional.hardtanh, "threshold": lambda t: torch.threshold(t, 0.0, 0.0),
}


@pytest.mark.parametrize("name", sorted(UNORDERED_CALLS))
def test_unordered_op_raises_cpu_error_type(name):
    """Ops with no complex kernel on CPU either (no ordering: rows flagged
    TT_OPF_UNORDERED / _CHECK) raise CPU's exact exception type for complex
    inputs: NotImplementedError where CPU's dtype dispatch finds no kernel,
    a plain RuntimeError where CPU checks first (NotImplementedError is a
    RuntimeError too, so the types are compared exactly), with CPU's message."""
    fn = UNORDERED_CALLS[name]
    errors = []
    for dev in ("cpu", "tpu"):
        try:
            fn(cmake((3,)).to(dev))
        except RuntimeError as e:
            errors.append(e)
        else:
            errors.append(None)
    cpu, tpu = errors
    assert cpu is not None and type(tpu) is type(cpu), (name, errors)
    assert str(cpu) in str(tpu), (name, errors)  # CPU's words too (csrc/ops/complex_refusal.c)


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("name", ["cumsum", "cumprod"])
def test_cumulative_vs_cpu(name, dtype):
    x = torch.randn(5, 7, dtype=dtype)
    for d in (0, 1, -1):
        want = getattr(x, name)(d)
        torch.testing.assert_close(getattr(x.to("tpu"), name)(d).cpu(), want)
    xc, xt = x.clone().requires_grad_(), x.to("tpu").requires_grad_()
    getattr(xc, name)(1).abs().sum().backward()
    getattr(xt, name)(1).abs().sum().backward()
    torch.testing.assert_close(xt.grad.cpu(), xc.grad)
    real = torch.randn(4)
    torch.testing.assert_close(real.to("tpu").cumsum(0, dtype=dtype).cpu(), real.cumsum(0, dtype=dtype))


ANALYTIC = ["sqrt", "rsqrt", "log", "log1p", "expm1", "sin", "cos", "tan", "tanh", "sigmoid"]


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("name", ANALYTIC)
def test_analytic_functions_vs_cpu(name, dtype):
    compare(getattr(torch, name), cmake((3, 4), dtype, 3))


def test_sqrt_branch_cut_follows_signed_zero():
    z = torch.tensor([complex(-4, 0.0), complex(-4, -0.0), complex(9, -0.0)])
    r = torch.sqrt(z.to("tpu")).cpu()
    torch.testing.assert_close(r, torch.sqrt(z))
    assert r[1].imag < 0 and r[0].imag > 0  # -2j and +2j, as on CPU
    torch.testing.assert_close(torch.rsqrt(z.to("tpu")).cpu(), torch.rsqrt(z))


@pytest.mark.parametrize("dtype", CDTYPES)
def test_pow_vs_cpu(dtype):
    x, y = cmake((3, 4), dtype, 4), cmake((3, 4), dtype, 5)
    compare(lambda a: a ** 2, x)
    compare(lambda a: a ** (1 + 1j), x)
    compare(lambda a, b: a ** b, x, y)


@pytest.mark.parametrize("dtype", CDTYPES)
def test_matmul_dot_vdot_with_conj(dtype):
    a, b = cmake((4, 5), dtype, 6), cmake((5, 3), dtype, 7)
    compare(torch.mm, a, b)
    compare(lambda x, y: x.conj() @ y, a, b)
    compare(lambda x, y: torch.bmm(x[None], y[None]), a, b)
    compare(torch.dot, a[0], a[1])
    compare(torch.vdot, a[0], a[1])
    compare(lambda x: torch.dot(x[0].conj(), x[1]), a)


def test_indexing_ops_vs_cpu():
    x = cmake((4, 5))
    idx = torch.tensor([2, 0, 1])
    compare(lambda a: a.index_select(1, idx.to(a.device)), x)
    compare(lambda a: a.gather(1, torch.tensor([[0, 1]] * 4, device=a.device)), x)
    compare(lambda a: a[idx.to(a.device)], x)
    compare(lambda a: a.masked_fill(a.real > 0, 2 - 1j), x)
    compare(lambda a: torch.tril(a) + torch.triu(a, 1), x)
    compare(lambda a: a.index_put((idx.to(a.device),), a[:3] * 1j, accumulate=True), x)
    compare(lambda a: torch.constant_pad_nd(a, (1, 2)), x)


SPECIALS = [complex(float("nan"), 0), complex(0, float("nan")), complex(float("inf"), 1), complex(1, float("-inf")),
            complex(float("nan"), float("inf")), 1 + 2j, 0j]


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("name", ["isnan", "isinf", "isfinite"])
def test_classification_looks_at_both_parts(name, dtype):
    x = torch.tensor(SPECIALS, dtype=dtype)
    r = getattr(torch, name)(x.to("tpu"))
    assert r.dtype == torch.bool
    assert r.cpu().tolist() == getattr(torch, name)(x).tolist()


def test_data_movement_ops_vs_cpu():
    x, y = cmake((4, 5), seed=8), cmake((4, 5), seed=9)
    idx = torch.tensor([2, 0, 1])
    sidx = torch.tensor([[0, 1, 2, 3, 0]])
    compare(lambda a, b: a.index_copy(0, idx.to(a.device), b[:3]), x, y)
    compare(lambda a, b: a.clone().index_copy_(1, idx.to(a.device), b[:, :3]), x, y)
    compare(lambda a: a.index_fill(0, idx.to(a.device), 1 + 2j), x)
    compare(lambda a: a.index_fill(1, idx.to(a.device), torch.tensor(3j, device=a.device)), x)
    compare(lambda a, b: a.scatter(0, sidx.to(a.device), b), x, y)
    compare(lambda a: a.scatter(0, sidx.to(a.device), 2j), x)
    compare(lambda a, b: a.scatter_add(0, sidx.to(a.device), b), x, y)
    compare(lambda a, b: a.index_add(0, idx.to(a.device), b[:3], alpha=2), x, y)
    compare(lambda a: a.take(idx.to(a.device)), x)
    compare(lambda a, b: a.clone().put_(idx.to(a.device), b[0, :3]), x, y)
    compare(lambda a, b: a.masked_scatter(a.real > 0, b), x, y)
    compare(lambda a: a.masked_select(a.real > 0), x)
    compare(lambda a: torch.where(a.real > 0, a, 0), x)


@pytest.mark.parametrize("dtype", CDTYPES)
def test_randn_rand_normal_on_complex(dtype):
    """CPU samples view_as_real(self): both parts from the real distribution,
    normal_ with std / sqrt(2) per part; the parts are independent."""
    torch.tpu.manual_seed(5)
    z = torch.randn(40000, dtype=dtype, device="tpu")
    assert z.dtype == dtype and z.device.type == "tpu"
    z = z.cpu()
    for part in (z.real, z.imag):
        assert abs(part.mean().item()) < 0.02 and abs(part.var().item() - 0.5) < 0.02
    assert abs(torch.corrcoef(torch.stack([z.real, z.imag]))[0, 1].item()) < 0.03
    assert not torch.equal(z.real, z.imag) and not torch.equal(z.real[1:], z.imag[:-1])
    u = torch.rand(40000, dtype=dtype, device="tpu").cpu()
    for part in (u.real, u.imag):
        assert part.min() >= 0 and part.max() < 1 and abs(part.mean().item() - 0.5) < 0.02
    n = torch.empty(40000, dtype=dtype, device="tpu").normal_(2.0, 3.0).cpu()
    for part in (n.real, n.imag):  # mean on both parts, std 3 / sqrt(2) each
        assert abs(part.mean().item() - 2.0) < 0.05 and abs(part.std().item() - 3.0 / 2 ** 0.5) < 0.05
    torch.tpu.manual_seed(5)
    assert torch.equal(torch.randn(40000, dtype=dtype, device="tpu").cpu(), z)


def test_factories():
    assert torch.equal(torch.ones(3, dtype=torch.complex64, device="tpu").cpu(), torch.ones(3, dtype=torch.complex64))
    assert torch.equal(torch.full((2,), 1 + 2j, device="tpu").cpu(), torch.full((2,), 1 + 2j))
    assert torch.equal(torch.full((2,), 3, dtype=torch.complex128, device="tpu").cpu(),
                       torch.full((2,), 3, dtype=torch.complex128))
    with pytest.raises(NotImplementedError, match="exponential_: complex dtype complex64"):
        torch.empty(2, dtype=torch.complex64, device="tpu").exponential_()


def test_inplace_complex_result_into_real_tensor_is_refused_like_cpu():
    with pytest.raises(RuntimeError, match="ComplexFloat can't be cast to the desired output type Float"):
        torch.zeros(3, device="tpu").add_(torch.ones(3, dtype=torch.complex64, device="tpu"))
    same(torch.zeros(3, dtype=torch.complex64, device="tpu").add_(torch.ones(3, device="tpu")),
         torch.ones(3, dtype=torch.complex64))
