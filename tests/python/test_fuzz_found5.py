"""Differences of the fifth fuzzing session, each checked against CPU:
logsumexp over dim=() raises CPU's error, the complex forms of exp2,
log2/log10, sinh/cosh and nan_to_num compute (they were refused), and
complex exp/log give C99's special values as CPU does."""
import warnings

import pytest
import torch

from cpu_same import same_as_cpu

INF, NAN = float("inf"), float("nan")


@pytest.mark.parametrize("shape", [(3, 4), (5,), (2, 1, 3)])
@pytest.mark.parametrize("out", [None, torch.float32, torch.float64])
def test_logsumexp_empty_dim_list_raises_as_cpu(shape, out):
    # CPU sums over every dim into a 0-dim result, then adds its [1, ..., 1]
    # maxes in place: "output with shape [] doesn't match the broadcast shape
    # [1, 1]"; tpu returned the all-reduce
    x = torch.randn(shape)

    def f(d):
        if out is None:
            return torch.logsumexp(x.to(d), dim=())
        return torch.logsumexp(x.to(d), dim=(), out=torch.empty(0, dtype=out, device=d))

    same_as_cpu(f)


@pytest.mark.parametrize("shape,keepdim", [((3, 4), True), ((), False), ((0, 3), False)])
def test_logsumexp_empty_dim_list_computes_where_cpu_does(shape, keepdim):
    # kept dims, a 0-dim input and an empty one reduce over everything on CPU
    x = torch.randn(shape)
    same_as_cpu(lambda d: torch.logsumexp(x.to(d), dim=(), keepdim=keepdim))


def _parts(*results):
    # compared part by part: assert_close takes a complex difference, NaN
    # wherever both have the same infinite part (inf+1j - (inf+2j))
    return tuple(torch.view_as_real(r) for r in results)


def _specials(dtype):
    g = torch.Generator().manual_seed(13)
    z = torch.complex(torch.randn(64, generator=g) * 3, torch.randn(64, generator=g) * 3)
    parts = (0.0, -0.0, 1.5, -2.0, INF, -INF, NAN, 100.0, -100.0, 800.0, 1e-5)
    sp = torch.tensor([complex(a, b) for a in parts for b in parts])
    return torch.cat([z, sp]).to(dtype)


@pytest.mark.parametrize("dtype", [torch.complex64, torch.complex128])
@pytest.mark.parametrize("op", ["exp2", "log2", "log10", "sinh", "cosh", "nan_to_num",
                                "acos", "asin", "atan", "acosh", "asinh", "atanh"])
def test_complex_unary_computes_like_cpu(op, dtype):
    # refused before ("complex dtype ... is not supported on TPU yet") where
    # CPU computes; special values (infinite and NaN parts, and sinh/cosh past
    # exp's range: 800 + 1.5j) as C99's csinh/ccosh/cexp/clog give them
    z = _specials(dtype)
    tol = {"atol": 1e-5, "rtol": 2e-6} if dtype == torch.complex64 else {}
    same_as_cpu(lambda d: _parts(getattr(torch, op)(z.to(d))), **tol)


@pytest.mark.parametrize("op", ["exp", "log"])
def test_complex_exp_log_special_values_like_cpu(op):
    # XLA's exp(inf + inf j) is nan+nanj where C99 (CPU) gives inf+nanj, its
    # exp(-inf + nan j) nan+nanj for 0j, its log(1.5 + nan j) 0.75+nanj for
    # nan+nanj (its abs drops the NaN part)
    same_as_cpu(lambda d: _parts(getattr(torch, op)(_specials(torch.complex64).to(d))), atol=1e-5, rtol=2e-6)


def test_complex_nan_to_num_arguments_inplace_and_out():
    # each part replaced, with the given values or the part type's limits
    z = _specials(torch.complex64)

    def f(d):
        y = z.to(d).clone()
        y.nan_to_num_(posinf=7.0)
        o = torch.empty(0, dtype=torch.complex64, device=d)
        return _parts(y, torch.nan_to_num(z.to(d), nan=1.0, posinf=2.0, neginf=-3.0), torch.nan_to_num(z.to(d), out=o))

    same_as_cpu(f)


def test_complex_sinh_inplace_and_real_into_complex_out():
    z = _specials(torch.complex128)

    def f(d):
        y = z.to(d).clone()
        y.sinh_()
        o = torch.empty(0, dtype=torch.complex128, device=d)
        return _parts(y, torch.log2(z.to(d), out=o))

    same_as_cpu(f)


@pytest.mark.parametrize("dtype", [torch.complex64, torch.complex128])
def test_complex_log1p_near_minus_one_and_past_overflow(dtype):
    # fuzz 135:1114: log1p(-1 + 1.2e-38j) is log|1 + z| = -87.34 on CPU, XLA's
    # log1p gave -inf; log1p(max + max j) is 89.07 (|1 + z| overflows); NaN
    # parts give nan+nanj, infinite ones inf + i arg(1 + z)
    tiny, big = torch.finfo(dtype).tiny, torch.finfo(dtype).max
    vals = [complex(-1, tiny), complex(-1, -1e-30), complex(-1 + 1e-7, 0), complex(big, big), complex(-big, 1),
            complex(INF, NAN), complex(-INF, NAN), complex(1, NAN), complex(NAN, INF), complex(INF, 1),
            complex(-INF, 1), complex(0, INF), complex(1, -INF), complex(INF, INF), complex(1e-5, 1e-5),
            complex(-0.5, 0.3), complex(0.4, 2.0)]
    g = torch.Generator().manual_seed(2)
    z = torch.cat([torch.tensor(vals), torch.randn(300, generator=g, dtype=torch.complex128) * 3]).to(dtype)
    tol = {"atol": 1e-5, "rtol": 2e-6} if dtype == torch.complex64 else {}
    same_as_cpu(lambda d: _parts(torch.log1p(z.to(d))), **tol)


@pytest.mark.parametrize("dim", [0, None])
def test_mean_over_expanded_dim_keeps_overflow(dim):
    # fuzz 133:1103: mean over a stride-0 dim of 4 copies of -finfo.max is
    # -inf on CPU (the sum overflows); XLA turned the sum of the broadcast into
    # 4 x and cancelled it against the division by 4: tpu gave -finfo.max
    m = torch.finfo(torch.float64).max
    x = torch.tensor([[-m, 1.0, m / 3]], dtype=torch.float64)

    def f(d):
        xe = x.to(d).expand(4, 3)
        return torch.mean(xe, dim=dim) if dim is not None else torch.mean(xe)

    same_as_cpu(f)


@pytest.mark.parametrize("dtype", [torch.bool, torch.int64, torch.uint8])
def test_nansum_counts_nan_as_zero_before_converting(dtype):
    # fuzz 135:286: nansum(float16 NaN, dtype=bool) is False on CPU (the NaN
    # counts as 0 before the conversion); tpu converted first: NaN is True
    x = torch.tensor([[NAN, 0.0], [NAN, 2.5], [0.0, 0.0]], dtype=torch.float16)
    same_as_cpu(lambda d: (torch.nansum(x.to(d), dim=1, dtype=dtype), torch.nansum(x.to(d)[0, 0], dim=[0], dtype=dtype)))


@pytest.mark.parametrize("dtype", [torch.complex64, torch.complex128])
@pytest.mark.parametrize("op", ["acos", "asin", "atan", "acosh", "asinh", "atanh"])
def test_complex_inverse_functions_branch_cuts_and_accuracy(op, dtype):
    # refused before; XLA's CHLO expansions ignored the sign of a zero part on
    # a branch cut (acos(1.5 - 0j) is +0.96j on CPU, XLA gave -0.96j), taken
    # here from C99's symmetries. Accuracy near the branch points and at
    # extreme scales within the fuzzer's tolerance
    g = torch.Generator().manual_seed(4)
    parts = [torch.randn(200, generator=g, dtype=torch.complex128) * s for s in (1e-30, 1e-6, 1.0, 1e5, 1e30)]
    near = torch.randn(200, generator=g, dtype=torch.complex128) * 1e-4
    parts += [near + c for c in (1, -1, 1j, -1j)]
    cut = torch.tensor([complex(a, b) for a in (1.5, -2.0, 0.0, -0.0, 0.5) for b in (0.0, -0.0, 1.5, -3.0)])
    z = torch.cat(parts + [cut]).to(dtype)
    tol = {"atol": 1e-5, "rtol": 1.3e-6} if dtype == torch.complex64 else {"atol": 1e-7, "rtol": 1e-7}
    same_as_cpu(lambda d: _parts(getattr(torch, op)(z.to(d))), **tol)


def test_complex_inverse_functions_inplace_and_out():
    z = _specials(torch.complex64)

    def f(d):
        y = z.to(d).clone()
        y.asinh_()
        o = torch.empty(0, dtype=torch.complex64, device=d)
        return _parts(y, torch.acos(z.to(d), out=o))

    same_as_cpu(f, atol=1e-5, rtol=1.3e-6)


@pytest.mark.parametrize("dtype", [torch.complex64, torch.complex128])
def test_complex_logcumsumexp_in_cpus_order(dtype):
    # refused before (fuzz 131:355, 132:191); CPU's running log-add-exp, one
    # index at a time in complex128: imaginary parts spread over several
    # multiples of pi stay on CPU's branch, special values as its helper
    g = torch.Generator().manual_seed(6)
    z = torch.complex(torch.randn(6, 40, generator=g), torch.randn(6, 40, generator=g) * 3)
    parts = (0.0, 1.5, -2.0, INF, -INF, NAN, 100.0)
    sp = torch.tensor([complex(a, b) for a in parts for b in (0.0, 1.0, -3.0, INF, NAN)])
    sp = torch.stack([sp[torch.randperm(len(sp), generator=g)] for _ in range(4)])

    def f(d):
        o = torch.empty(0, dtype=dtype, device=d)
        return _parts(torch.logcumsumexp(z.to(dtype).to(d), 1), torch.logcumsumexp(z.to(dtype).to(d), 0),
                      torch.logcumsumexp(sp.to(dtype).to(d), 1, out=o),
                      torch.logcumsumexp(torch.tensor(1 + 2j, dtype=dtype, device=d), 0))

    same_as_cpu(f, atol=1e-5, rtol=1.3e-6)



@pytest.mark.parametrize("op,kw", [(torch.sum, {"dim": 1}), (torch.sum, {}), (torch.prod, {"dim": 0}),
                                   (torch.cumsum, {"dim": 1}), (torch.cumprod, {"dim": 0}), (torch.mean, {"dim": 1}),
                                   (torch.mean, {})])
@pytest.mark.parametrize("dtype", [torch.int64, torch.float16, torch.float32, torch.bool])
def test_complex_input_reduced_into_real_dtype(op, kw, dtype):
    # refused before (fuzz 131:1310 cumprod into float16, 132:750 sum into
    # int64, 132:961, 137:23, 137:1428); CPU casts each element into dtype
    # first (its real part; for bool whether either part is nonzero) and
    # reduces there; mean into a half type sums in float32; bool cumsum and
    # cumprod, and mean into a non-floating type, raise as on CPU
    z = torch.tensor([[1.7 - 2j, -2.5 + 1j, 0.5 + 9j], [3.2 + 0j, 0 + 1j, -0.25 - 0.5j]], dtype=torch.complex64)

    def f(d):
        return op(z.to(d), dtype=dtype, **kw)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # CPU's complex-to-real cast warns once
        same_as_cpu(f, atol=2e-3, rtol=2e-3)


def test_nansum_integral_input_into_complex_dtype():
    # fuzz 136:33: an integral input sums as sum does on CPU; tpu refused
    x = torch.tensor([[1, -2, 3], [4, 0, -6]], dtype=torch.int8)
    same_as_cpu(lambda d: (torch.nansum(x.to(d), dtype=torch.complex64),
                           torch.nansum(x.to(d), dim=1, dtype=torch.complex128)))


@pytest.mark.parametrize("op", ["cummax", "cummin"])
@pytest.mark.parametrize("shape,dim", [((), 0), ((), -1), ((0, 3), 1), ((0, 3), 5), ((2, 3), 1), ((2, 3), 4)])
def test_complex_cummax_cummin_trivial_inputs_compute(op, shape, dim):
    # fuzz 131:371: CPU returns a 0-dim or empty complex input (indices 0)
    # before its kernel dispatches; others raise its dim or dtype error
    z = torch.full(shape, 1.5 - 2j, dtype=torch.complex64)
    same_as_cpu(lambda d: getattr(torch, op)(z.to(d), dim))


@pytest.mark.parametrize("call", [
    lambda x: torch.kthvalue(x, 5), lambda x: torch.kthvalue(x, 2, 0), lambda x: torch.kthvalue(x, 1, 5),
    lambda x: torch.min(x, 3), lambda x: torch.max(x, -4), lambda x: torch.amax(x, [0, 0]),
    lambda x: torch.amax(x, [5]), lambda x: torch.amax(x, [1, 1]), lambda x: torch.median(x, 2),
    lambda x: torch.signbit(x), lambda x: torch.signbit(x, out=torch.empty(3, device=x.device))])
@pytest.mark.parametrize("shape", [(3,), (2, 3), (0, 3)])
def test_complex_reductions_check_dims_and_k_before_the_dtype(call, shape):
    # CPU checks a dim's range (IndexError), a dim listed twice, kthvalue's k
    # (fuzz 131:23, 133:1261, 134:376, 136:895) and signbit's complex input
    # (136:685, before out's dtype) before its dtype refusal; tpu refused first
    z = torch.zeros(shape, dtype=torch.complex64)
    same_as_cpu(lambda d: call(z.to(d)))


@pytest.mark.parametrize("dtypes", [(torch.int32, torch.int32, torch.float32), (torch.uint8, torch.uint8, torch.float32),
                                    (torch.int16, torch.int16, torch.int32)])
@pytest.mark.parametrize("shapes", [((2, 0, 1), (2, 0, 5), (2, 5, 1)), ((1, 0, 2), (1, 0, 16), (1, 16, 2)),
                                    ((2, 3, 0), (2, 3, 4), (2, 4, 0)), ((2, 3, 1), (2, 3, 5), (2, 5, 1))])
def test_baddbmm_empty_result_skips_cpus_dtype_check(dtypes, shapes):
    # fuzz 132:292, 137:1196, 138:778: an empty result is returned (in
    # batch2's dtype) before CPU's kernel checks batch1's dtype against
    # batch2's; a non-empty one raises its "expected scalar type" error
    ts = [torch.zeros(s, dtype=d) for s, d in zip(shapes, dtypes)]
    kw = {"beta": 0.5, "alpha": -0.5} if ts[0].numel() == 0 else {}  # CPU converts these first when non-empty
    same_as_cpu(lambda d: torch.baddbmm(*(t.to(d) for t in ts), **kw))


@pytest.mark.parametrize("call", [
    lambda d: torch.linspace(1 + 2j, -3 + 0.5j, 7, device=d),
    lambda d: torch.linspace(1 + 2j, -3 + 0.5j, 7, dtype=torch.complex128, device=d),
    lambda d: torch.linspace(-2.5, 7.25, 33, dtype=torch.complex64, device=d),
    lambda d: torch.linspace(1 + 2j, -3 + 0.5j, 1, device=d),
    lambda d: torch.linspace(1 + 2j, -3 + 0.5j, 0, device=d),
    lambda d: torch.logspace(1 + 2j, -3 + 0.5j, 5, dtype=torch.complex64, device=d),
    lambda d: torch.logspace(0, 2, 3, base=2, dtype=torch.complex128, device=d)])
def test_complex_linspace_logspace_compute(call):
    # refused before (fuzz 134:1368, 134:1287, 136:262, 132:248): each part
    # spaced as CPU's kernel spaces it; logspace raises base to it
    same_as_cpu(lambda d: _parts(call(d)), atol=1e-5, rtol=1.3e-6)


@pytest.mark.parametrize("op", [torch.cumprod, torch.cumsum])
@pytest.mark.parametrize("dtype", [torch.float32, torch.complex64])
def test_float32_running_values_in_cpus_accumulation_type(op, dtype):
    # fuzz 144:867: CPU's float32 cumprod runs in float64 (acc_type), so a
    # product through 1e40 comes back into range (1222.57); tpu's float32
    # running product stayed inf. complex64 runs in complex128 likewise
    x = torch.tensor([[1e30, 1e10, 1e-20, 1e-15, 3.0], [3e38, 3e38, -3e38, -3e38, 1.0]], dtype=torch.float32)
    x = x.to(dtype) if not dtype.is_complex else torch.complex(x, x / 7)

    def f(d):
        y = x.to(d).clone()
        y.cumprod_(1) if op is torch.cumprod else y.cumsum_(1)
        return _parts(op(x.to(d), 1), y) if dtype.is_complex else (op(x.to(d), 1), y)

    same_as_cpu(f)


@pytest.mark.parametrize("dtypes", [(torch.float64, torch.float64, torch.complex64), (torch.int32, torch.int32, torch.float32),
                                    (torch.float64, torch.float64, torch.uint8)])
@pytest.mark.parametrize("shapes", [((1, 3, 2), (1, 3, 0), (1, 0, 2)), ((4,), (2, 3, 0), (2, 0, 4))])
@pytest.mark.parametrize("kw", [{}, {"beta": 0}, {"beta": 1, "alpha": 2.5}])
def test_baddbmm_empty_contraction_copies_self_into_batch2s_dtype(dtypes, shapes, kw):
    # fuzz 139:1248: with k = 0 CPU copies self into the result (batch2's
    # dtype; zeros for beta 0) before its dtype check; tpu raised. A float
    # self into an integral result stays refused (fuzz 140:428: x86 wraps
    # out-of-range values, XLA saturates): not a different answer
    g = torch.Generator().manual_seed(8)
    ts = [(torch.randn(s, generator=g) * 300).to(d) for s, d in zip(shapes, dtypes)]
    if dtypes[2] == torch.uint8 and kw.get("beta", 1) != 0:  # (beta 0 reads no self: zeros, fuzz 351:1063)
        with pytest.raises(RuntimeError, match="expected scalar type Double but found Byte"):
            torch.baddbmm(*(t.to("tpu") for t in ts), **kw)
        return
    same_as_cpu(lambda d: torch.baddbmm(*(t.to(d) for t in ts), **kw))
