"""Differences of the ninth fuzzing session (seeds 331-), each checked against CPU.

Calls tpu refused where CPU computes (an out= whose dtype PyTorch's Python
meta kernel gets wrong, empty products of mixed dtypes, a scalar CPU never
converts), and errors raised in another order than CPU's."""
import warnings

import pytest
import torch


def _tpu(a):
    if isinstance(a, torch.Tensor):
        return a.to("tpu")
    if isinstance(a, (list, tuple)):
        return type(a)(_tpu(v) for v in a)
    return a


def _run(f, args, kwargs):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # resize_output's deprecation warning
            r = f(*args, **kwargs)
        return r.cpu() if isinstance(r, torch.Tensor) else r
    except Exception as e:  # noqa: BLE001 - compared with the other device's
        return e


def _same(c, t):
    """CPU's dtype, shape and values (NaN where CPU's is), or CPU's exception
    type and message (tpu's message may carry an 'aten::op: ' prefix)."""
    if isinstance(c, Exception) or isinstance(t, Exception):
        return type(c) is type(t) and str(t).endswith(str(c).split("\n")[0].strip()) or \
            (type(c) is type(t) and str(c).split("\n")[0] in str(t))
    if c.dtype != t.dtype or c.shape != t.shape:
        return False
    if c.dtype.is_floating_point or c.dtype.is_complex:
        return torch.equal(c.isnan(), t.isnan()) and torch.equal(c.nan_to_num(0), t.nan_to_num(0))
    return torch.equal(c, t)


def _check(bad, tag, f, args, kwargs=None, outs=None):
    """f(*args, **kwargs) on CPU and on tpu; `outs`: kwargs holding tensors
    made fresh for each device (out= tensors)."""
    kwargs = kwargs or {}
    outs = outs or {}
    c = _run(f, args, {**kwargs, **{k: v() for k, v in outs.items()}})
    t = _run(f, _tpu(args), {**_tpu(kwargs), **{k: v().to("tpu") for k, v in outs.items()}})
    if not _same(c, t):
        bad.append(f"{tag}: cpu {c!r} tpu {t!r}")


B = torch.tensor([True, False, True])


@pytest.mark.parametrize("n", [0, 3])
def test_pow_bool_base_bool_exponent_out(n):
    # fuzz 345:33: pow(bool, True, out=bool) is bool on CPU (its meta takes
    # result_type(base, exp)); PyTorch's Python meta kernel says int64, so the
    # early out= check raised 'result type Long can't be cast ... Bool'
    bad = []
    b = B[:n]
    for e in [True, False, 1, 0, 2, 2.5, -1.5]:
        for od in [torch.bool, torch.int8, torch.int64, torch.float32]:
            _check(bad, f"pow(bool[{n}], {e!r}, out={od})", torch.pow, (b, e), outs={"out": lambda: torch.empty(n, dtype=od)})
    _check(bad, "pow(bool, exponent=True, out=bool)", torch.pow, (b,), {"exponent": True},
           outs={"out": lambda: torch.empty(n, dtype=torch.bool)})
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("op", [torch.amin, torch.amax])
def test_amin_amax_out_dtype_before_dims(op):
    # fuzz 333:162 (amin(int16 [257], dim=2, out=float64)) and 338:302 (amin of
    # a bfloat16 (0, 3) over its empty dim into float32): CPU's meta function
    # compares out's dtype with the input's first ('Expected the dtype for input
    # and out to match ...'); tpu raised the dim's IndexError
    bad = []
    for xd, od in [(torch.int16, torch.float64), (torch.bfloat16, torch.float32), (torch.float32, torch.float32),
                   (torch.bool, torch.uint8)]:
        for shape, dim in [((257,), 2), ((0, 3), [-2]), ((0, 3), 1), ((2, 3), 5), ((2, 3), 1), ((0, 3), ())]:
            x = torch.ones(shape, dtype=xd)
            _check(bad, f"{op.__name__}({xd} {shape}, dim={dim}, out={od})", op, (x,), {"dim": dim},
                   outs={"out": lambda: torch.empty(0, dtype=od)})
    assert not bad, "\n".join(bad)


def test_empty_reduction_dim_errors():
    # found beside fuzz 338:302: CPU's zero_numel_check_dims names amax/amin's
    # dim as given ('amin(): Expected reduction dim -2 ...', tpu said 0), and
    # aminmax over an empty dim is CPU's IndexError 'aminmax: Expected reduction
    # dim 0 ...' (tpu raised the no-identity RuntimeError of dim=None)
    bad = []
    for op in (torch.amin, torch.amax):
        for shape, dim in [((0, 3), -2), ((0, 3), (1, -2)), ((3, 0), -1), ((0, 3), ()), ((2, 0, 3), (0, 1))]:
            _check(bad, f"{op.__name__}({shape}, dim={dim})", op, (torch.ones(shape),), {"dim": dim})
    for shape, kw in [((0, 3), {"dim": -2}), ((0, 3), {"dim": 0}), ((0, 3), {}), ((0, 3), {"dim": 1}),
                      ((3,), {"dim": 0}), ((), {"dim": 0}), ((3, 0), {"dim": -1, "keepdim": True})]:
        _check(bad, f"aminmax({shape}, {kw})", lambda *a, **k: torch.stack(torch.aminmax(*a, **k)),
               (torch.ones(shape),), kw)
    assert not bad, "\n".join(bad)


def test_bmm_empty_product_complex_batch2():
    # fuzz 334:348 (bmm(float32 (1, 8, 0), complex128 (1, 0, 1))), 334:894 (bool
    # (1, 0, 0) @ complex64 (1, 0, 2)), 343:962 (bfloat16 (1, 0, 1) @ complex64
    # (1, 1, 2)): CPU's bmm returns zeros in batch2's dtype before its kernel's
    # dtype check when the product or its contraction is empty, a complex batch2
    # too; tpu raised 'expected scalar type Float but found ComplexDouble'
    bad = []
    shapes = [((1, 8, 0), (1, 0, 1)), ((1, 0, 0), (1, 0, 2)), ((1, 0, 1), (1, 1, 2)), ((2, 3, 0), (2, 0, 4)),
              ((2, 3, 1), (2, 1, 2)), ((0, 3, 1), (0, 1, 2))]
    for ad in [torch.float32, torch.bool, torch.bfloat16, torch.int16, torch.complex64]:
        for bd in [torch.complex64, torch.complex128]:
            for sa, sb in shapes:
                a, b = torch.zeros(sa, dtype=ad), torch.ones(sb, dtype=bd)
                _check(bad, f"bmm({ad} {sa}, {bd} {sb})", torch.bmm, (a, b))
                _check(bad, f"matmul({ad} {sa}, {bd} {sb})", torch.matmul, (a, b))
    assert not bad, "\n".join(bad)


def test_baddbmm_bmm_dtype_error_order():
    # found beside fuzz 333:847 (baddbmm of complex128 self and batch1 with an
    # int16 batch2): CPU's baddbmm compares self's dtype with batch1's first
    # ('Input dtypes must be the same, got: input float, batch1: int, batch2:
    # int', before an empty result returns), and bmm/baddbmm dispatch on batch1's
    # type (Bool refused, NotImplementedError) before finding batch2's another
    # dtype, after the sizes; tpu raised 'expected scalar type' or 'self and
    # mat2 must have the same dtype' for all of them
    bad = []
    i, f, b, c, h = torch.int32, torch.float32, torch.bool, torch.complex64, torch.float16
    for sd, ad, bd in [(f, i, i), (i, f, i), (f, b, f), (i, b, b), (b, f, f), (f, i, f), (b, b, f), (c, h, c),
                       (f, f, b), (i, i, f), (f, f, f)]:
        for n, k in [(3, 1), (0, 1), (3, 0)]:
            x, y, z = torch.ones(2, n, 2, dtype=sd), torch.ones(2, n, k, dtype=ad), torch.ones(2, k, 2, dtype=bd)
            for beta in (0, 1):
                _check(bad, f"baddbmm({sd}, {ad}, {bd}, n={n}, k={k}, beta={beta})", torch.baddbmm, (x, y, z),
                       {"beta": beta})
            _check(bad, f"baddbmm_({sd}, {ad}, {bd}, n={n}, k={k})", lambda s, a, b: s.clone().baddbmm_(a, b), (x, y, z))
            _check(bad, f"baddbmm({sd} (2, 1), {ad}, {bd}, n={n}, k={k})", torch.baddbmm, (x[0, :1], y, z))
        for sa, sb in [((2, 3, 1), (2, 1, 2)), ((2, 3, 1), (2, 2, 2)), ((2, 3, 1), (3, 1, 2))]:
            _check(bad, f"bmm({ad} {sa}, {bd} {sb})", torch.bmm, (torch.ones(sa, dtype=ad), torch.ones(sb, dtype=bd)))
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("dt", [torch.uint8, torch.int8, torch.int32, torch.float32])
def test_empty_contraction_scalars(dt):
    # fuzz 338:917 (addmm), 357:92 (baddbmm): uint8 with an empty contraction
    # (k = 0), beta=0, alpha=-0.5: CPU's zeros (its kernel returns before
    # converting alpha; beta only multiplies self, as mul_ does: 300 wraps);
    # tpu raised 'value cannot be converted to type uint8_t without overflow'.
    # addmv converts beta whatever the shapes. Fuzz 351:1063: baddbmm with k = 0,
    # beta=0, a bfloat16 self and an int64 batch2 is int64 zeros (tpu raised)
    bad = []
    for beta in [0, 1, 2, 300, -1, 0.5, -0.5]:
        for alpha in [1, -0.5, 300, -1, 2.5]:
            for m, k, n in [(1, 0, 2), (0, 1, 2), (1, 1, 2), (0, 0, 2)]:
                kw = {"beta": beta, "alpha": alpha}
                s = torch.full((n,), 3, dtype=dt)
                _check(bad, f"addmm {m}x{k}x{n} {kw}", torch.addmm,
                       (s, torch.ones(m, k, dtype=dt), torch.ones(k, n, dtype=dt)), kw)
                _check(bad, f"baddbmm {m}x{k}x{n} {kw}", torch.baddbmm,
                       (s, torch.ones(1, m, k, dtype=dt), torch.ones(1, k, n, dtype=dt)), kw)
                _check(bad, f"addbmm {m}x{k}x{n} {kw}", torch.addbmm,
                       (torch.full((m, n), 3, dtype=dt), torch.ones(1, m, k, dtype=dt), torch.ones(1, k, n, dtype=dt)), kw)
                _check(bad, f"addmv {m}x{k} {kw}", torch.addmv,
                       (torch.full((m,), 3, dtype=dt), torch.ones(m, k, dtype=dt), torch.ones(k, dtype=dt)), kw)
    for sd in [torch.bfloat16, torch.float32, torch.complex64, torch.int32, torch.bool]:
        for bd in [torch.int64, torch.uint8, torch.bool, torch.float16, torch.complex64]:
            for beta in [0, 1, True, 0.5, 0.0, 1.0]:
                if (beta is True or (beta == 1 and bd != torch.bool)) and (sd.is_floating_point or sd.is_complex) \
                        and not bd.is_floating_point:
                    continue  # a float self copied into an integral result: refused on purpose (fuzz 140:428)
                _check(bad, f"baddbmm({sd}, {sd}, {bd}, k=0, beta={beta})", torch.baddbmm,
                       (torch.ones(2, 1, 1, dtype=sd), torch.ones(2, 1, 0, dtype=sd), torch.ones(2, 0, 1, dtype=bd)),
                       {"beta": beta})
    assert not bad, "\n".join(bad[:20])


def test_baddbmm_empty_contraction_mixed_dtypes_beta():
    # the k = 0 path of the test above with other betas: self copied into
    # batch2's type, then times beta as CPU's result.mul_(beta) (tpu raised
    # 'expected scalar type' for every beta but 0 and 1)
    torch.manual_seed(0)
    bad = []
    for sd, bd in [(torch.bfloat16, torch.float16), (torch.float16, torch.bfloat16), (torch.float64, torch.float16),
                   (torch.int32, torch.uint8), (torch.int64, torch.int8), (torch.uint8, torch.float16),
                   (torch.int16, torch.complex64), (torch.float32, torch.complex128), (torch.bool, torch.int32),
                   (torch.complex64, torch.complex128)]:
        s = (torch.randn(2, 64, 3) * 100).to(sd)
        for beta in [0.1, 3.7, -0.3, 300, -3, 2, True, False, 0.5 + 0.25j]:
            _check(bad, f"baddbmm({sd}, {sd}, {bd}, k=0, beta={beta})", torch.baddbmm,
                   (s, torch.ones(2, 64, 0, dtype=sd), torch.ones(2, 0, 3, dtype=bd)), {"beta": beta})
    assert not bad, "\n".join(bad[:20])


@pytest.mark.parametrize("op", [torch.amin, torch.amax])
def test_amin_amax_empty_complex_result(op):
    # fuzz 331:712 (amin of a complex128 (0, 3) over dim 1), 364:9 (amax,
    # keepdim): CPU's result is empty, so its kernel (which has no complex
    # case) never runs; tpu raised '"min_values_cpu" not implemented for
    # 'ComplexDouble''. A nonempty result, an empty reduced dim and no dim
    # keep CPU's errors
    bad = []
    for dt in [torch.complex64, torch.complex128]:
        for shape, kw in [((0, 3), {"dim": 1}), ((0, 3), {"dim": 1, "keepdim": True}), ((2, 0, 3), {"dim": (0, 2)}),
                          ((0, 3), {"dim": 0}), ((2, 3), {"dim": 0}), ((0, 3), {}), ((0, 3), {"dim": (1, 1)}),
                          ((0, 3), {"dim": 5})]:
            _check(bad, f"{op.__name__}({dt} {shape}, {kw})", op, (torch.ones(shape, dtype=dt),), kw)
        _check(bad, f"{op.__name__}({dt} (0, 3), dim=1, out=)", op, (torch.ones(0, 3, dtype=dt),), {"dim": 1},
               outs={"out": lambda: torch.empty(2, dtype=dt)})
    assert not bad, "\n".join(bad)


def _tensors_of(f):
    return lambda *a, **k: torch.cat([t.reshape(-1).to(torch.complex128) for t in f(*a, **k)])


@pytest.mark.parametrize("dt", [torch.complex64, torch.complex128])
def test_complex_where_cpu_runs_no_kernel(dt):
    # fuzz 335:967, 367:279 (kthvalue of a 0-dim complex: CPU copies it),
    # 332:938, 342:49, 353:910 (median() of an empty complex: CPU's NaN): the
    # kernel whose dispatch has no complex case is never reached on CPU; tpu
    # raised its refusal ('"kthvalue_cpu" not implemented for 'ComplexDouble'')
    bad = []
    z, e = torch.tensor(1.5 + 2j, dtype=dt), torch.ones(0, 3, dtype=dt)
    cases = [("kthvalue 0-dim", torch.kthvalue, (z, 1, 0)), ("kthvalue 0-dim k=2", torch.kthvalue, (z, 2)),
             ("kthvalue (0, 3)", torch.kthvalue, (e, 1, 1)), ("mode 0-dim", torch.mode, (z, 0)),
             ("mode (0, 3) dim 1", torch.mode, (e, 1)), ("mode (0, 3) dim 0", torch.mode, (e, 0)),
             ("mode (2, 3)", torch.mode, (torch.ones(2, 3, dtype=dt), 1))]
    for tag, f, args in cases:
        _check(bad, tag, _tensors_of(f), args)
    for f in (torch.median, torch.nanmedian):
        _check(bad, f"{f.__name__} (0, 3)", f, (e,))
        _check(bad, f"{f.__name__} 0-dim", f, (z,))
        _check(bad, f"{f.__name__} (0, 3) dim 1", _tensors_of(f), (e, 1))
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("op", ["cumsum", "cumprod"])
def test_cumulative_bool_result(op):
    # fuzz 368:445 (an empty bool cumprod_), 368:839 (cumsum_): CPU fills a
    # 0-dim or empty result without its kernel, which has no Bool case; tpu
    # refused every bool out. Found beside them: cumsum(bool (2, 3),
    # dtype=torch.bool) computed on tpu where CPU raises '"cumsum_out_cpu" not
    # implemented for 'Bool''
    f = getattr(torch, op)
    bad = []
    B = torch.bool
    for x in [torch.ones(0, 3, dtype=B), torch.tensor(True), torch.tensor(False), torch.ones(2, 3, dtype=B),
              torch.tensor(2.5), torch.tensor(float("nan")), torch.ones(0), torch.ones(3), torch.tensor(0)]:
        d = min(x.dim(), 1) if x.dim() else 0
        tag = f"{op}({x.dtype} {tuple(x.shape)})"
        _check(bad, tag + " dtype=bool", f, (x, d), {"dtype": B})
        _check(bad, tag + " out=bool", f, (x, d), outs={"out": lambda: torch.empty(2, dtype=B)})
        _check(bad, tag + " out=bool, dim 4", f, (x, 4), outs={"out": lambda: torch.empty(2, dtype=B)})
        if x.dtype == B:
            _check(bad, tag + " in place", lambda t, dim: getattr(t.clone(), op + "_")(dim), (x, d))
    assert not bad, "\n".join(bad)


def test_linspace_float16_in_half_arithmetic():
    # fuzz 381:477: linspace(0.194, 3.523, 7, dtype=float16): CPU's kernel
    # computes in c10::Half (step = (end - start) / (steps - 1) from the
    # rounded ends, each operation rounded to half): [3] is 1.8574 on CPU, tpu
    # gave 1.8594 (the exact step rounded once); 84 of 400 random calls differed
    import random
    rng = random.Random(1)
    bad = []
    cases = [(0.194, 3.523, 7), (-3.1, 7.7, 16), (-3.1, 7.7, 31), (0.0, 1.0, 3000), (-1000.0, 60000.0, 5000)]
    for _ in range(200):
        cases.append((round(rng.uniform(-50, 50), rng.choice([0, 1, 2, 3])),
                      round(rng.uniform(-50, 50), rng.choice([0, 1, 2, 3])), rng.choice([2, 3, 4, 5, 7, 8, 9, 11, 15, 40])))
    for s, e, n in cases:
        c = torch.linspace(s, e, n, dtype=torch.float16)
        t = torch.linspace(s, e, n, dtype=torch.float16, device="tpu").cpu()
        if not torch.equal(c, t):
            i = int((c != t).nonzero()[0])
            bad.append(f"linspace({s}, {e}, {n}) at [{i}]: cpu {c[i].item()} tpu {t[i].item()}")
    assert not bad, f"{len(bad)} differ:\n" + "\n".join(bad[:10])


def test_nansum_empty_into_integral_out():
    # fuzz 356:897: nansum(float32 [0], out=bool (0, 3)) is False on CPU (an
    # empty input is zeroed without the kernel that refuses a float input's
    # bool or integral out); tpu raised '"nansum_cpu" not implemented for
    # 'Bool''. A nonempty input keeps the refusal, a complex one CPU's error
    bad = []
    for x, dim in [(torch.ones(0), None), (torch.ones(0, 3), 1), (torch.ones(2, 0), 1), (torch.ones(2, 0), 4),
                   (torch.ones(3), None), (torch.ones(0, dtype=torch.complex64), None),
                   (torch.ones(0, dtype=torch.float16), None), (torch.ones(0, dtype=torch.int32), None)]:
        for od in [torch.bool, torch.int32, torch.uint8, torch.float32, torch.complex64]:
            args = (x,) if dim is None else (x, dim)
            _check(bad, f"nansum({x.dtype} {tuple(x.shape)}, {dim}, out={od})", torch.nansum, args,
                   outs={"out": lambda: torch.empty(0, 3, dtype=od)})
    assert not bad, "\n".join(bad)
