"""Wrong answers of the fourth fuzzing session's brief, each checked against
CPU: logsumexp into a wider out computes in out's type as CPU's
logsumexp_out does, complex matrix products with infinities give CPU's
inf/NaN pattern, and the _foreach binary ops compute on complex lists."""
import pytest
import torch

from cpu_same import same_as_cpu


@pytest.mark.parametrize("din,dout", [(torch.bfloat16, torch.float32), (torch.float16, torch.float32),
                                      (torch.bfloat16, torch.float64), (torch.int64, torch.float64)])
@pytest.mark.parametrize("dim,keepdim", [((1,), False), ((0, 2), True)])
def test_logsumexp_out_wider_than_input_keeps_outs_precision(din, dout, dim, keepdim):
    # CPU sums the (rounded) exp terms into out's type and takes the log there:
    # bfloat16 input into a float32 out gives float32 digits, not bfloat16 ones
    g = torch.Generator().manual_seed(3)
    x = (torch.randn(3, 5, 6, generator=g) * 4).to(din)
    if din.is_floating_point:
        x[0, 1, :] = float("-inf")
        x[1, 2, 3] = float("inf")

    def f(d):
        out = torch.empty(0, dtype=dout, device=d)
        return torch.logsumexp(x.to(d), dim, keepdim, out=out)

    same_as_cpu(f, atol=1e-6, rtol=1e-6)


INF, NAN = float("inf"), float("nan")


def _term_by_term(a, b):
    # sum over k of the c10::complex products a[..., i, k] * b[..., k, j], from real
    # parts only: (ar br - ai bi) + i (ar bi + ai br), each term's parts summed
    ar, ai = a.real.double()[..., None], a.imag.double()[..., None]
    br, bi = b.real.double()[..., None, :, :], b.imag.double()[..., None, :, :]
    re = (ar * br - ai * bi).sum(-2)
    im = (ar * bi + ai * br).sum(-2)
    return torch.complex(re, im).to(a.dtype)


def _pattern(x):
    v = torch.view_as_real(x)
    return torch.where(v.isnan(), 7.0, torch.where(v.isinf(), torch.sign(v) * 5, 0.0))


def _special(g, *shape):
    # small integers with a quarter of the parts infinite, NaN or zero
    n = torch.Size(shape).numel()
    pick = torch.tensor([0.0, INF, -INF, NAN])[torch.randint(0, 4, (2, n), generator=g)]
    base = torch.randint(-3, 4, (2, n), generator=g).double()
    parts = torch.where(torch.rand(2, n, generator=g) < 0.25, pick, base)
    return torch.complex(parts[0], parts[1]).reshape(shape)


BRIEF_CASES = [  # a[0][0] of [[a, 1], [1, 1]], b[0][0] of [[b, 0], [0, 1]]
    (complex(INF, 0), 1), (complex(0, INF), 1), (complex(INF, INF), 1), (complex(INF, 0), 1j),
    (complex(INF, 1), 2 + 3j), (complex(INF, 0), 0), (complex(NAN, 0), 1)]


@pytest.mark.parametrize("dtype", [torch.complex64, torch.complex128])
@pytest.mark.parametrize("a00,b00", BRIEF_CASES)
def test_complex_bmm_with_infinities_like_cpu(dtype, a00, b00):
    # CPU's bmm sums c10::complex products term by term ((inf+0j)*(1+0j) + 1*0 is
    # inf+nanj); XLA's complex dot gave nan+nanj
    def f(d):
        a = torch.tensor([[[a00, 1], [1, 1]]], dtype=dtype, device=d)
        b = torch.tensor([[[b00, 0], [0, 1]]], dtype=dtype, device=d)
        return torch.bmm(a, b)
    same_as_cpu(f)


@pytest.mark.parametrize("dtype", [torch.complex64, torch.complex128])
def test_complex_bmm_random_specials_same_pattern_as_cpu(dtype):
    # sizes under CPU's threshold for its own kernel (rows * cols * k < 400):
    # past it CPU's complex128 bmm goes to its BLAS and its pattern is the BLAS's
    # (3 x 12 x 10 @ 3 x 10 x 9: nan+nanj where the term-by-term sum has inf+nanj)
    g = torch.Generator().manual_seed(5)
    for shape_a, shape_b in [((4, 3, 5), (4, 5, 2)), ((3, 6, 5), (3, 5, 6))]:
        a, b = _special(g, *shape_a).to(dtype), _special(g, *shape_b).to(dtype)
        got = torch.bmm(a.to("tpu"), b.to("tpu")).cpu()
        assert torch.equal(_pattern(got), _pattern(torch.bmm(a, b)))


@pytest.mark.parametrize("op", ["mm", "matmul", "mv", "dot", "bmm"])
def test_complex_products_with_infinities_sum_term_by_term(op):
    # CPU's mm/matmul/mv/dot go to its BLAS (MKL here), whose inf/NaN pattern is
    # its own (MKL's cgemm gives nan+nanj for [[inf, 1], [1, 1]] @ eye(2), where
    # its bmm kernel and the term-by-term sum give inf+nanj; OpenBLAS may differ
    # again), so these are checked against the term-by-term sum that CPU's bmm
    # computes: the one answer that does not depend on the BLAS.
    g = torch.Generator().manual_seed(7)
    for _ in range(30):
        m, k, n = (int(v) for v in torch.randint(1, 6, (3,), generator=g))
        a = _special(g, m, k).to(torch.complex64)
        b = _special(g, k, n).to(torch.complex64)
        if op in ("mv", "dot"):
            b = b[:, :1]
        if op == "dot":
            a = a[:1]
        want = _term_by_term(a, b)
        at, bt = a.to("tpu"), b.to("tpu")
        got = {"mm": lambda: torch.mm(at, bt), "matmul": lambda: at @ bt,
               "mv": lambda: torch.mv(at, bt[:, 0])[:, None], "dot": lambda: torch.dot(at[0], bt[:, 0]).reshape(1, 1),
               "bmm": lambda: torch.bmm(at[None], bt[None])[0]}[op]().cpu()
        assert torch.equal(_pattern(got), _pattern(want)), (a, b, got, want)
        torch.testing.assert_close(got[want.isfinite()], want[want.isfinite()])


def _clists(d):
    g = torch.Generator().manual_seed(11)
    a = [torch.randn(3, generator=g, dtype=torch.complex64), torch.randn(2, 2, generator=g, dtype=torch.complex128)]
    b = [torch.randn(3, generator=g, dtype=torch.complex64), torch.randn(2, 2, generator=g, dtype=torch.complex128)]
    return [t.to(d) for t in a], [t.to(d) for t in b]


@pytest.mark.parametrize("op", ["add", "sub", "mul", "div", "pow", "maximum", "minimum", "clamp_min", "clamp_max"])
@pytest.mark.parametrize("other", ["list", "scalar", "complex_scalar", "scalar_list", "tensor"])
@pytest.mark.parametrize("inplace", [False, True])
def test_foreach_binary_ops_on_complex_lists_like_cpu(op, other, inplace):
    # _foreach_add/sub/mul/div/pow compute on complex lists as CPU does (they were
    # refused); maximum/minimum/clamp_* are refused in CPU's words
    def f(d):
        a, b = _clists(d)
        o = {"list": b, "scalar": 2.5, "complex_scalar": 1.5 - 0.5j, "scalar_list": [2.0, 0.5 + 1j],
             "tensor": torch.tensor(0.5 + 2j, device=d)}[other]
        fn = getattr(torch, f"_foreach_{op}{'_' if inplace else ''}")
        r = fn(a, o)
        return tuple(a if inplace else r)
    same_as_cpu(f)


def test_foreach_inplace_complex_scalar_into_real_list_refused_like_cpu():
    def f(d):
        a = [torch.ones(3, device=d)]
        torch._foreach_add_(a, 1 + 1j)
        return a[0]
    same_as_cpu(f)


@pytest.mark.parametrize("op", ["neg", "abs", "exp", "sqrt", "reciprocal", "sigmoid", "tanh", "zero"])
def test_foreach_unary_ops_on_complex_lists_like_cpu(op):
    def f(d):
        a, _ = _clists(d)
        if op == "zero":
            torch._foreach_zero_(a)
            return tuple(a)
        return tuple(getattr(torch, f"_foreach_{op}")(a))
    same_as_cpu(f)


@pytest.mark.parametrize("inplace", [False, True])
def test_foreach_scalar_list_keeps_each_entrys_type(inplace):
    # [2.0, 0.5j]: a float for the first tensor (a real result), a complex for the second
    def f(d):
        a = [torch.arange(3.0, device=d), torch.ones(2, device=d), torch.ones(2, dtype=torch.complex64, device=d)]
        r = (torch._foreach_mul_ if inplace else torch._foreach_mul)(a, [2.0, 3, 0.5j])
        return tuple(a if inplace else r)
    same_as_cpu(f)


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float32, torch.complex64, torch.complex128])
@pytest.mark.parametrize("y", [complex(-1.15, -1.89), complex(-1.15, 0), complex(2.5, 1), complex(0, 2), 0j, 0])
def test_pow_of_infinite_base_to_complex_power_like_cpu(dtype, y):
    # fuzz 122:1421: bfloat16 inf ** (-1.15-1.89j) is 0 on CPU (exp of a complex
    # whose real part is -inf), XLA's exp(y log x) gave nan+nanj
    inf, nan = float("inf"), float("nan")
    if dtype.is_complex:
        vals = [complex(inf, 0), complex(-inf, 0), complex(inf, inf), complex(2, -inf), complex(inf, nan),
                complex(-inf, nan), complex(2, 1), 0j]
    else:
        vals = [inf, -inf, 2.0, -3.0, 0.0]

    def f(d):
        return torch.pow(torch.tensor(vals, device=d).to(dtype), y)
    expected, actual = f("cpu"), f("tpu").cpu()
    assert actual.dtype == expected.dtype
    assert torch.equal(_pattern(actual.to(torch.complex128)), _pattern(expected.to(torch.complex128))), (expected, actual)
    ok = expected.isfinite()
    torch.testing.assert_close(actual[ok], expected[ok], rtol=1e-2, atol=1e-5)


def _z(d, dt=torch.complex64, shape=(3, 4), seed=0):
    x = torch.randn(*shape, generator=torch.Generator().manual_seed(seed), dtype=dt)
    x.view(-1)[::3] = 0  # zeros for the nonzero tests
    return x.to(d)


COMPLEX_ELEMENTWISE = {
    "logical_and": lambda d: torch.logical_and(_z(d), _z(d, torch.complex128, (4,), 1)),
    "logical_or_real": lambda d: torch.logical_or(_z(d), _z(d, torch.float32, seed=2)),
    "logical_xor": lambda d: torch.logical_xor(_z(d, torch.complex128), _z(d, torch.float64, seed=3)),
    "logical_not_": lambda d: _z(d).logical_not_(),
    "logical_and_": lambda d: _z(d).logical_and_(_z(d, torch.float32, seed=4)),
    "logical_or_out": lambda d: torch.logical_or(_z(d), _z(d, seed=5), out=torch.empty(3, 4, dtype=torch.complex64, device=d)),
    "addcmul": lambda d: torch.addcmul(_z(d), _z(d, shape=(4,), seed=1), _z(d, shape=(3, 1), seed=2), value=0.5 - 2j),
    "addcmul_mixed": lambda d: torch.addcmul(_z(d, torch.float32), _z(d, torch.complex128, (4,), 1), _z(d, torch.float32, (3, 1), 2)),
    "addcdiv": lambda d: torch.addcdiv(_z(d, torch.complex128), _z(d, torch.complex128, (4,), 1),
                                       _z(d, torch.complex128, (3, 1), 2) + 1, value=3),
    "addcdiv_": lambda d: _z(d).addcdiv_(_z(d, seed=1), _z(d, seed=2) + 1, value=1j),
    "addcmul_real_self_": lambda d: _z(d, torch.float32).addcmul_(_z(d, seed=1), _z(d, seed=2)),
    "addcmul_complex_value_real": lambda d: torch.addcmul(_z(d, torch.float32), _z(d, torch.float32, seed=1),
                                                          _z(d, torch.float32, seed=2), value=1j),
}


@pytest.mark.parametrize("case", sorted(COMPLEX_ELEMENTWISE))
def test_complex_logical_and_addc_ops_like_cpu(case):
    # fuzz 116-123: logical_and/or/xor, logical_not_, addcmul and addcdiv refused
    # complex tensors where CPU computes
    same_as_cpu(COMPLEX_ELEMENTWISE[case])


@pytest.mark.parametrize("dtype", [torch.float32, torch.complex64])
def test_inplace_addcmul_into_smaller_self_says_cpus_shape_error(dtype):
    # the result [2, 5] does not fit self [5]: CPU's TensorIterator message, not
    # the lowering's own ("broadcast_to: rank shrinks")
    def f(d):
        return torch.ones(5, dtype=dtype, device=d).addcmul_(torch.ones(2, 5, dtype=dtype, device=d),
                                                             torch.ones(5, dtype=dtype, device=d))
    same_as_cpu(f)


def _r(d, *shape, dt=torch.complex64, seed=0):
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed), dtype=dt).to(d)


_NANS = complex(float("nan"), 0)
COMPLEX_ADD_PRODUCTS = {
    "addmm": lambda d: torch.addmm(_r(d, 3, 4), _r(d, 3, 5, seed=1), _r(d, 5, 4, seed=2)),
    "addmm_beta_alpha": lambda d: torch.addmm(_r(d, 4), _r(d, 3, 5, seed=1), _r(d, 5, 4, seed=2), beta=0.5 - 1j, alpha=2j),
    "addmm_beta0_ignores_nan_self": lambda d: torch.addmm(torch.full((3, 4), _NANS, device=d), _r(d, 3, 5, seed=1),
                                                          _r(d, 5, 4, seed=2), beta=0j),
    "addmm_": lambda d: _r(d, 3, 4, dt=torch.complex128).addmm_(_r(d, 3, 5, dt=torch.complex128, seed=1),
                                                                _r(d, 5, 4, dt=torch.complex128, seed=2), alpha=3),
    "addmm_k0": lambda d: torch.addmm(_r(d, 3, 4), _r(d, 3, 0, seed=1), _r(d, 0, 4, seed=2), beta=2 + 1j),
    "baddbmm": lambda d: torch.baddbmm(_r(d, 2, 3, 4), _r(d, 2, 3, 5, seed=1), _r(d, 2, 5, 4, seed=2), beta=1j, alpha=-1),
    "addbmm": lambda d: torch.addbmm(_r(d, 3, 4), _r(d, 2, 3, 5, seed=1), _r(d, 2, 5, 4, seed=2), alpha=0.5j),
    "addmv": lambda d: torch.addmv(_r(d, 3), _r(d, 3, 5, seed=1), _r(d, 5, seed=2), beta=2, alpha=1 - 1j),
    # fuzz 119:229 / 121:593: a fractional float beta/alpha was truncated (0.5 acted as 0: self ignored)
    "addmm_float_beta_alpha": lambda d: torch.addmm(_r(d, 1, 7, dt=torch.complex128), _r(d, 1, 1, dt=torch.complex128, seed=1).expand(1, 1),
                                                    _r(d, 1, 7, dt=torch.complex128, seed=2), beta=0.5, alpha=-0.5),
    "baddbmm_k0_float_beta": lambda d: torch.baddbmm(_r(d, 1, 8, 7), _r(d, 1, 8, 0, seed=1), _r(d, 1, 0, 7, seed=2),
                                                     beta=0.5, alpha=2),
    "addmv_float_alpha": lambda d: torch.addmv(_r(d, 3), _r(d, 3, 5, seed=1), _r(d, 5, seed=2), alpha=0.25),
    "real_addmm_complex_beta": lambda d: torch.addmm(_r(d, 3, 4, dt=torch.float32), _r(d, 3, 5, seed=1, dt=torch.float32),
                                                     _r(d, 5, 4, seed=2, dt=torch.float32), beta=1j),
}


@pytest.mark.parametrize("case", sorted(COMPLEX_ADD_PRODUCTS))
def test_complex_addmm_family_like_cpu(case):
    # fuzz 116-123: addmm/baddbmm refused complex tensors where CPU computes
    same_as_cpu(COMPLEX_ADD_PRODUCTS[case], atol=1e-5, rtol=1e-5)


COMPLEX_LERP_EYE = {
    "lerp_small_weight": lambda d: torch.lerp(_r(d, 3, 4), _r(d, 3, 4, seed=1), 0.3),
    "lerp_large_weight": lambda d: torch.lerp(_r(d, 3, 4), _r(d, 3, 4, seed=1), 0.7),
    "lerp_complex_weight": lambda d: torch.lerp(_r(d, 3, 4), _r(d, 3, 4, seed=1), 0.3 + 0.5j),
    "lerp_tensor_weight": lambda d: torch.lerp(_r(d, 3, 4, dt=torch.complex128), _r(d, 4, dt=torch.complex128, seed=1),
                                               _r(d, 3, 1, dt=torch.complex128, seed=2)),
    "lerp_": lambda d: _r(d, 3, 4).lerp_(_r(d, 3, 4, seed=1), _r(d, 3, 4, seed=2)),
    "lerp_mixed_refused": lambda d: torch.lerp(_r(d, 3, 4), _r(d, 3, 4, seed=1, dt=torch.float32), 0.5),
    "lerp_real_complex_weight_refused": lambda d: torch.lerp(_r(d, 3, 4, dt=torch.float32),
                                                             _r(d, 3, 4, seed=1, dt=torch.float32), 0.5j),
    "eye": lambda d: torch.eye(3, dtype=torch.complex64, device=d),
    "eye_m": lambda d: torch.eye(3, 5, dtype=torch.complex128, device=d),
    "eye_out": lambda d: torch.eye(2, 3, out=torch.empty(2, 3, dtype=torch.complex64, device=d)),
}


@pytest.mark.parametrize("case", sorted(COMPLEX_LERP_EYE))
def test_complex_lerp_and_eye_like_cpu(case):
    # fuzz 116-123: lerp and eye refused complex dtypes where CPU computes
    same_as_cpu(COMPLEX_LERP_EYE[case], atol=1e-5, rtol=1e-5)


COMPLEX_VARIANCE = {
    "var": lambda d: torch.var(_r(d, 3, 4) * 3),
    "std_dim": lambda d: torch.std(_r(d, 3, 4, dt=torch.complex128), 1),
    "var_keepdim_correction0": lambda d: torch.var(_r(d, 3, 4, 5), (0, 2), correction=0, keepdim=True),
    "std_correction2": lambda d: torch.std(_r(d, 6, 4), 0, correction=2),
    "var_out": lambda d: torch.var(_r(d, 3, 4), 1, out=torch.empty(3, device=d)),
    "var_near_float_max": lambda d: torch.var(_r(d, 3, 4) * 1e37, 1),
    "var_mean": lambda d: torch.var_mean(_r(d, 3, 4), 1),
    "var_mean_keepdim": lambda d: torch.var_mean(_r(d, 3, 4, dt=torch.complex128), 0, keepdim=True),
    "std_mean": lambda d: torch.std_mean(_r(d, 3, 4)),
}


@pytest.mark.parametrize("case", sorted(COMPLEX_VARIANCE))
def test_complex_std_var_like_cpu(case):
    # fuzz 116-123 (116:180): std/var refused complex tensors; CPU's is
    # var(real) + var(imag), real typed, with a complex mean for the _mean forms
    same_as_cpu(COMPLEX_VARIANCE[case], atol=1e-5, rtol=1e-5)


COMPLEX_LOGSUMEXP = {
    "dim": lambda d: torch.logsumexp(_r(d, 3, 4) * 3, 1),
    "complex128_keepdim": lambda d: torch.logsumexp(_r(d, 3, 4, 5, dt=torch.complex128), (0, 2), keepdim=True),
    "large_real_parts": lambda d: torch.logsumexp(_r(d, 3, 4) * 300, 0),
    "empty": lambda d: torch.logsumexp(_r(d, 0, 4), 0),
    "out": lambda d: torch.logsumexp(_r(d, 3, 4), 1, out=torch.empty(3, dtype=torch.complex64, device=d)),
}


@pytest.mark.parametrize("case", sorted(COMPLEX_LOGSUMEXP))
def test_complex_logsumexp_like_cpu(case):
    # fuzz 116:905: logsumexp refused complex tensors; CPU shifts by the max real part
    same_as_cpu(COMPLEX_LOGSUMEXP[case], atol=1e-4, rtol=1e-5)


ONE_ELEMENT_FILLS = {
    "fill_0dim_bf16": lambda d: torch.zeros((), dtype=torch.bfloat16, device=d).fill_(1e300),
    "fill_1x1_f16": lambda d: torch.zeros(1, 1, dtype=torch.float16, device=d).fill_(-1e10),
    "fill_2_bf16_refused": lambda d: torch.zeros(2, dtype=torch.bfloat16, device=d).fill_(1e300),
    "full_0dim_f32_refused": lambda d: torch.full((), 1e300, dtype=torch.float32, device=d),
    "fill_0dim_int8_refused": lambda d: torch.zeros((), dtype=torch.int8, device=d).fill_(1000),
    "where_scalar_other": lambda d: torch.where(torch.tensor([True, False], device=d),
                                                torch.ones(1, dtype=torch.bfloat16, device=d), 1e300),
}


@pytest.mark.parametrize("case", sorted(ONE_ELEMENT_FILLS))
def test_one_element_float_fill_unchecked_like_cpu(case):
    # fuzz 117:126: CPU fills a one-element floating tensor without the overflow
    # check (its scalar_fill path), so where(mask, bf16, 1e300) gives inf
    same_as_cpu(ONE_ELEMENT_FILLS[case])


@pytest.mark.parametrize("op", ["square", "pow2", "pow3"])
def test_complex_square_and_cube_multiply_like_cpu(op):
    # fuzz 124:1446, 126:1345: CPU's pow kernel computes z**2 and z**3 as products;
    # XLA's pow rounded the real part of a cancelling a*a - b*b differently
    # (component error 1.7e-5 at |z|**2 ~ 3400); now within rounding of |z|**k
    z = torch.randn(4000, dtype=torch.complex64, generator=torch.Generator().manual_seed(1)) * 5
    f = {"square": torch.square, "pow2": lambda t: torch.pow(t, 2), "pow3": lambda t: torch.pow(t, 3.0)}[op]
    want, got = f(z), f(z.to("tpu")).cpu()
    rel = ((want - got).abs() / want.abs()).max().item()
    assert rel < 4e-7, rel


@pytest.mark.parametrize("din", [torch.float16, torch.bfloat16, torch.float32])
@pytest.mark.parametrize("op", ["std", "var"])
def test_std_var_one_element_result_into_complex_out_like_cpu(din, op):
    # fuzz 125:1301: CPU's all-reduce path has no Half/BFloat16 case, into a complex out too
    def f(d):
        x = torch.tensor([1.0, 2.0, 4.0, 8.0, 3.0], dtype=din, device=d)
        return getattr(torch, op)(x, [0], out=torch.empty(0, dtype=torch.complex64, device=d))
    same_as_cpu(f)
