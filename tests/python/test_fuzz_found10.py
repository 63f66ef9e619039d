"""Differences of the tenth fuzzing session (seeds 411-), each checked against CPU.

Errors raised in another order than CPU's and calls tpu refused where CPU
computes."""

import pytest
import torch

from test_fuzz_found9 import _run, _tpu  # calls on each device, exceptions as values


def _close(c, t, tol):
    if c.dtype != t.dtype or c.shape != t.shape:
        return False
    if c.dtype.is_floating_point or c.dtype.is_complex:
        return torch.allclose(c, t, rtol=tol, atol=tol, equal_nan=True)
    return torch.equal(c, t)


def _same(c, t, tol=0.0):
    """CPU's dtype, shape and values (within tol; NaN where CPU's is), or
    CPU's exception type and message (tpu's may carry an 'aten::op: ' prefix)."""
    if isinstance(c, Exception) or isinstance(t, Exception):
        return type(c) is type(t) and str(c).split("\n")[0] in str(t)
    return _close(c, t, tol)


def _check(bad, tag, f, args, kwargs=None, outs=None, tol=0.0):
    """f(*args, **kwargs) on CPU and on tpu; `outs`: kwargs holding tensors
    made fresh for each device (out= tensors)."""
    kwargs = kwargs or {}
    outs = outs or {}
    c = _run(f, args, {**kwargs, **{k: v() for k, v in outs.items()}})
    t = _run(f, _tpu(args), {**_tpu(kwargs), **{k: v().to("tpu") for k, v in outs.items()}})
    if not _same(c, t, tol):
        bad.append(f"{tag}: cpu {c!r} tpu {t!r}")


def test_logsumexp_out_dtype_before_dims():
    # fuzz 413:14: logsumexp(int32 (5,), 2, out=int32): CPU's logsumexp_out
    # checks out's dtype before the dims ('Expected floating point type for
    # result tensor, but got: Int'); tpu raised the IndexError
    bad = []
    x = torch.arange(5, dtype=torch.int32)
    for od in (torch.int32, torch.bool, torch.int64, torch.float32, torch.complex64):
        _check(bad, f"out={od}", torch.logsumexp, (x, 2), outs={"out": lambda od=od: torch.empty(0, dtype=od)})
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("cdt", [torch.complex64, torch.complex128])
def test_logsumexp_complex_into_real_out(cdt):
    # logsumexp(complex, out=float) computes on CPU: its sum_out reads the
    # terms exp(x - max Re x) in out's type, by their real parts
    # (log(Re e^(-1+1j) + Re e^(-0.5j)) + 2 for [1+1j, 2-0.5j]); tpu raised
    # "result type ComplexFloat can't be cast to the desired output type Float"
    bad = []
    g = torch.Generator().manual_seed(5)
    x = torch.complex(torch.randn(3, 4, generator=g), torch.randn(3, 4, generator=g)).to(cdt) * 3
    x[0, 0] = complex(float("inf"), 1.0)
    x[1, 2] = complex(1.0, float("nan"))
    for od in (torch.float16, torch.bfloat16, torch.float32, torch.float64):
        tol = 1e-2 if od in (torch.float16, torch.bfloat16) else 1e-5
        for dim, kd in ((1, False), ((0, 1), False), (0, True)):
            _check(bad, f"{od} dim={dim}", torch.logsumexp, (x, dim), {"keepdim": kd},
                   outs={"out": lambda od=od: torch.empty(0, dtype=od)}, tol=tol)
        _check(bad, f"{od} empty", torch.logsumexp, (x[:0], 0), outs={"out": lambda od=od: torch.empty(0, dtype=od)})
    assert not bad, "\n".join(bad)


def test_logsumexp_complex_into_real_out_warns():
    # CPU's iterator warns as it drops the imaginary parts
    x = torch.tensor([1 + 1j, 2 - 0.5j], device="tpu")
    with pytest.warns(UserWarning, match="discards the imaginary part"):
        torch.logsumexp(x, 0, out=torch.empty((), device="tpu"))


def test_clamp_complex_without_bounds():
    # fuzz 412:545: clamp(complex128, None, None): CPU's meta function asks
    # for a bound first ('torch.clamp: At least one of 'min' or 'max' must not
    # be None'); tpu raised 'clamp is not supported for complex types'
    bad = []
    x = torch.tensor([1 + 2j, -3j], dtype=torch.complex128)
    _check(bad, "clamp", torch.clamp, (x, None, None))
    _check(bad, "clamp kw", torch.clamp, (x,))
    _check(bad, "clamp_", lambda t, *a: t.clone().clamp_(*a), (x, None, None))
    _check(bad, "clamp out", torch.clamp, (x, None, None), outs={"out": lambda: torch.empty(2, dtype=torch.complex128)})
    _check(bad, "clamp min", torch.clamp, (x, 1.0, None))  # a bound: the complex refusal
    _check(bad, "clamp Tensor", torch.clamp, (x, torch.tensor([1.0, 2.0], dtype=torch.complex128), None))
    assert not bad, "\n".join(bad)


def test_floor_divide_complex_iterator_checks_first():
    # fuzz 413:247: complex [33, 17] // [257] is CPU's size error (its
    # iterator broadcasts before div_floor_cpu refuses complex values);
    # 413:1150: an expanded complex self's floor_divide_ is the
    # internal-overlap error. tpu raised the dtype refusal for both
    bad = []
    a = torch.ones(3, 4, dtype=torch.complex64)
    _check(bad, "broadcast", torch.floor_divide, (a, torch.ones(5, dtype=torch.complex64)))
    _check(bad, "refusal", torch.floor_divide, (a, torch.ones(4, dtype=torch.complex64)))
    e = torch.ones(1, 3, dtype=torch.complex64)  # expanded on each device: .to() would copy it dense
    _check(bad, "overlap", lambda s, o: s.expand(2, 3).floor_divide_(o), (e, torch.ones(2, 3, dtype=torch.complex64)))
    _check(bad, "overlap sub_", lambda s, o: s.expand(2, 3).sub_(o), (torch.ones(1, 3), torch.ones(2, 3)))
    _check(bad, "refusal_", lambda s, o: s.floor_divide_(o), (a.clone(), torch.ones(3, 4, dtype=torch.complex64)))
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("dt", [torch.complex64, torch.complex128])
def test_sigmoid_complex_at_plus_infinity(dt):
    # fuzz 425:879: sigmoid_ of inf+infj is 1 on CPU (1 / (1 + exp(-z)),
    # C99's exp(-inf + iy) a signed zero for any y); XLA's logistic gave
    # nan+nanj. Finite parts and -inf keep XLA's (CPU's NaNs there are the
    # known complex special values)
    bad = []
    inf, nan = float("inf"), float("nan")
    x = torch.tensor([complex(inf, inf), complex(inf, -inf), complex(inf, nan), complex(inf, 1.0), complex(-inf, 0.0),
                      complex(2.0, -1.0), complex(0.0, 0.0)], dtype=dt)
    _check(bad, "sigmoid", torch.sigmoid, (x,), tol=1e-6)
    _check(bad, "sigmoid_", lambda t: t.clone().sigmoid_(), (x[:1].reshape(()),), tol=1e-6)
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("op", [torch.cumprod, torch.cumsum])
def test_cumulative_complex_bool_dtype_without_kernel(op):
    # fuzz 435:396: cumprod of a complex128 (0, 3) with dtype=bool is an empty
    # bool tensor on CPU (no kernel runs; a 0-dim input is copied, z != 0);
    # tpu refused '"cumprod_out_cpu" not implemented for 'Bool''
    bad = []
    for x in (torch.ones(0, 3, dtype=torch.complex128), torch.tensor(0.5j), torch.tensor(0j, dtype=torch.complex128),
              torch.tensor([1j, 0j])):
        _check(bad, f"{tuple(x.shape)}", op, (x, -1), {"dtype": torch.bool})
    assert not bad, "\n".join(bad)


def test_mean_dtype_out_input_cast():
    # fuzz 420:1403: mean(complex128 (257,), out=float32) is refused on CPU
    # (mean_dtype_out's canCast(self, out): 'mean.dtype_out(): input types
    # can't be cast to the desired output type Float'); tpu computed the real
    # part's mean. Over a dim (mean.out) CPU computes. Also CPU's order: that
    # check before a dtype= is compared with out's, and mean's own refusal
    # of an integral dtype= before that comparison
    bad = []
    x = torch.tensor([1 + 2j, -3 + 0.5j, 2 - 1j], dtype=torch.complex128)
    for od in (torch.float32, torch.float64, torch.float16, torch.int32, torch.complex64):
        _check(bad, f"out={od}", torch.mean, (x,), outs={"out": lambda od=od: torch.empty((), dtype=od)}, tol=1e-3)
        if od != torch.int32:  # (CPU's integral out over a dim fails in its div_: "result type Float", open)
            _check(bad, f"dim out={od}", torch.mean, (x, 0), outs={"out": lambda od=od: torch.empty((), dtype=od)},
                   tol=1e-3)
    _check(bad, "dtype=bf16 out=f32", torch.mean, (x,), {"dtype": torch.bfloat16},
           outs={"out": lambda: torch.empty((), dtype=torch.float32)})
    r = x.real.float()
    _check(bad, "real out=int32", torch.mean, (r,), outs={"out": lambda: torch.empty((), dtype=torch.int32)})
    _check(bad, "real out=f16", torch.mean, (r,), outs={"out": lambda: torch.empty((), dtype=torch.float16)}, tol=1e-3)
    for dim in ((), (0,)):
        _check(bad, f"dtype=int64 {dim}", torch.mean, (r, *dim), {"dtype": torch.int64},
               outs={"out": lambda: torch.empty((), dtype=torch.float32)})
    assert not bad, "\n".join(bad)


def test_inplace_unary_overlap_before_dtype_refusal():
    # fuzz 419:441: ceil_ of an expanded bool self is CPU's internal-overlap
    # error (TensorIterator's check, before ceil_vml_cpu's dispatch refuses
    # Bool); tpu raised the refusal. An op's own check keeps its place:
    # clamp_() without bounds on an expanded self is clamp's error
    bad = []
    _check(bad, "ceil_", lambda s: s.expand(2, 3).ceil_(), (torch.tensor([[True, False, True]]),))
    _check(bad, "clamp_", lambda s: s.expand(2, 3).clamp_(), (torch.ones(1, 3),))
    _check(bad, "ceil_ dense", lambda s: s.ceil_(), (torch.tensor([True, False]),))
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("op", [torch.amin, torch.amax])
def test_amax_amin_empty_dim_before_duplicates(op):
    # fuzz 421:297, 428:368: amin of a (0,) float64 over dim=[-1, -1] is
    # CPU's 'amin(): Expected reduction dim -1 to have non-zero size.'
    # (zero_numel_check_dims before the dim mask); tpu said 'dim 0 appears
    # multiple times'. A non-empty input keeps the duplicate error, a dim
    # out of range its IndexError
    bad = []
    for shape, dims in (((0,), [-1, -1]), ((2, 0), [1, 1]), ((2, 0), [0, 0]), ((2, 3), [1, 1]), ((0, 3), [5, 0]),
                        ((0, 3), [1, 0]), ((0, 3), [1, 7])):
        _check(bad, f"{shape} {dims}", op, (torch.ones(shape, dtype=torch.float64),), {"dim": dims, "keepdim": True})
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("dt", [torch.complex64, torch.complex128])
def test_scatter_reduce_str_complex(dt):
    # fuzz 416:494: scatter(complex128 (5,), 0, index, src, reduce="add")
    # computes on CPU; tpu refused 'scatter.reduce: complex dtype complex128
    # is not supported on TPU yet'. Also reduce="multiply", a value, in place
    bad = []
    g = torch.Generator().manual_seed(3)
    x = torch.randn(4, 5, dtype=dt, generator=g)
    src = torch.randn(3, 5, dtype=dt, generator=g)
    idx = torch.randint(0, 4, (3, 5), generator=g)
    for red in ("add", "multiply"):
        _check(bad, f"{red} src", torch.scatter, (x, 0, idx, src), {"reduce": red}, tol=1e-5)
        _check(bad, f"{red} value", torch.scatter, (x, 0, idx, 1.5 - 2j), {"reduce": red}, tol=1e-5)
        _check(bad, f"{red} in place", lambda s, *a, **k: s.clone().scatter_(*a, **k), (x, 0, idx, src), {"reduce": red},
               tol=1e-5)
    # an invalid reduce is refused after the dtype check (CPU's meta order)
    _check(bad, "mean real src", torch.scatter, (x, 0, idx, src.real), {"reduce": "mean"})
    _check(bad, "mean", torch.scatter, (x, 0, idx, src), {"reduce": "mean"})
    assert not bad, "\n".join(bad)


def test_pow_bool_out_result_type():
    # fuzz 450:27: pow(bool, bool, out=bool) is CPU's '"pow" not implemented
    # for 'Bool'' (its meta takes result_type(self, exponent): bool);
    # PyTorch's Python meta kernel says int64, so tpu raised 'result type Long
    # can't be cast to the desired output type Bool'. A bool scalar base too
    bad = []
    b = torch.tensor([True, False, True])
    for od in (torch.bool, torch.int64, torch.uint8):
        out = {"out": lambda od=od: torch.empty(0, dtype=od)}
        _check(bad, f"TT {od}", torch.pow, (b, b), outs=out)
        _check(bad, f"ST {od}", torch.pow, (True, b), outs=out)
        _check(bad, f"TS {od}", torch.pow, (b, True), outs=out)
        _check(bad, f"TT int {od}", torch.pow, (b, torch.tensor([1, 2, 0])), outs=out)
    assert not bad, "\n".join(bad)


def test_sign_complex_refused_before_out_dtype():
    # fuzz 455:44: sign(complex128, out=bfloat16): CPU's meta refuses complex
    # input first ('Unlike NumPy, torch.sign is not intended to support
    # complex numbers. Please use torch.sgn instead.'); tpu raised the out
    # dtype rule ('Found dtype BFloat16 but expected ComplexDouble')
    bad = []
    x = torch.tensor([1 + 1j, -2j], dtype=torch.complex128)
    _check(bad, "out", torch.sign, (x,), outs={"out": lambda: torch.empty(2, dtype=torch.bfloat16)})
    _check(bad, "fn", torch.sign, (x,))
    _check(bad, "sign_", lambda t: t.clone().sign_(), (x,))
    assert not bad, "\n".join(bad)


def test_inplace_binary_cast_before_dtype_refusal():
    # fuzz 440:277: bool.nextafter_(uint8) is CPU's 'result type Byte can't be
    # cast to the desired output type Bool' (the iterator's safe-cast check,
    # before nextafter_cpu refuses the dtype); tpu raised the refusal.
    # Comparisons cast without that check: int.lt_(complex) is lt_cpu's
    # refusal. Real-only kernels refuse complex values in CPU's words
    bad = []
    _check(bad, "nextafter_", lambda s, o: s.clone().nextafter_(o),
           (torch.tensor([True, False]), torch.tensor([2, 1], dtype=torch.uint8)))
    _check(bad, "lt_", lambda s, o: s.clone().lt_(o), (torch.tensor([1, 2]), torch.tensor([1j, 2j])))
    _check(bad, "bitwise_and_ float", lambda s, o: s.clone().bitwise_and_(o), (torch.tensor([1.5]), torch.tensor([2])))
    _check(bad, "bitwise_and_ int", lambda s, o: s.clone().bitwise_and_(o), (torch.tensor([1]), torch.tensor([2.0])))
    c = torch.tensor([1 + 1j])
    for op in ("atan2", "hypot", "nextafter", "bitwise_and", "gcd", "xlogy", "bitwise_left_shift"):
        _check(bad, op, getattr(torch, op), (c, c))
    for op in ("erf", "erfinv", "lgamma", "digamma", "frac", "logit", "bitwise_not", "i0"):
        _check(bad, op, getattr(torch, op), (c,))
    assert not bad, "\n".join(bad)


def test_cat_out_cast_before_shapes():
    # fuzz 437:1181, 438:1017: cat of int8 (4, 5) and (257,) into a bool out
    # is CPU's TypeError 'torch.cat(): input types can't be cast to the
    # desired output type Bool' (its meta checks the cast before the shapes);
    # tpu raised 'Tensors must have same number of dimensions'. A 0-dim
    # tensor or a dim out of range keeps its earlier error
    bad = []
    for sh, dim in (([(4, 5), (257,)], -1), ([(2, 3), (3,)], 0), ([(), (2,)], 0), ([(2, 3), (2, 3)], 3),
                    ([(0,), (2, 3)], 1), ([(2, 3), (2, 4)], 0)):
        for dt, od in ((torch.int8, torch.bool), (torch.complex128, torch.int32), (torch.float32, torch.float64)):
            _check(bad, f"{sh} {dim} {dt}->{od}", lambda a, b, d: torch.cat([a, b], d, out=torch.empty(0, dtype=od, device=a.device)),
                   (torch.ones(sh[0], dtype=dt), torch.ones(sh[1], dtype=dt), dim))
    assert not bad, "\n".join(bad)


def test_reduction_dtype_arg_order_and_nansum_integral():
    # fuzz 455:110: cumprod(uint8 (33, 17), 3, dtype=float32, out=uint8) is
    # CPU's IndexError (its meta wraps the dim before set_output compares
    # dtype= with out's); tpu raised 'Expected out tensor to have dtype
    # float'. nansum of a floating input checks dtype= first, in its own
    # words ('nansum: provided dtype must match dtype of result. Got Half and
    # Float.'); an integral input or dtype= is sum's (nansum(int64,
    # dtype=complex64, out=complex64) computes on CPU: tpu refused
    # nansum_cpu for ComplexFloat). A grid of sum/prod/cumsum/cumprod/nansum/
    # mean/logcumsumexp out= calls went from 496 to 1 difference from CPU
    bad = []
    x = torch.tensor([[1.5, -2.0], [3.25, 0.5]])
    out = lambda od: {"out": lambda: torch.empty(0, dtype=od)}  # noqa: E731
    _check(bad, "cumprod dim", torch.cumprod, (x.to(torch.uint8), 3), {"dtype": torch.float32}, outs=out(torch.uint8))
    _check(bad, "sum dim", torch.sum, (x, 3), {"dtype": torch.float64}, outs=out(torch.float32))
    _check(bad, "sum", torch.sum, (x, 0), {"dtype": torch.float64}, outs=out(torch.float32))
    for dim in ((0,), (3,), ()):
        _check(bad, f"nansum f {dim}", torch.nansum, (x, *dim), {"dtype": torch.float32}, outs=out(torch.float16))
        _check(bad, f"nansum f int dtype {dim}", torch.nansum, (x, *dim), {"dtype": torch.int32}, outs=out(torch.float32))
        _check(bad, f"nansum i {dim}", torch.nansum, (x.long(), *dim), {"dtype": torch.complex64},
               outs=out(torch.complex64))
        _check(bad, f"nansum i mismatch {dim}", torch.nansum, (x.long(), *dim), {"dtype": torch.float32},
               outs=out(torch.float64))
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("op", ["logical_and", "logical_or", "logical_xor"])
def test_logical_ops_read_operands_in_common_dtype(op):
    # fuzz 461:89: logical_and(int16 (3, 1), int64 0-dim -2^63) is False on CPU:
    # its kernel reads both in their common dtype, int16, where -2^63 is 0;
    # tpu tested the int64 value and said True (a wrong value). Likewise a
    # float64 1e-50 is 0 next to a float32 tensor, 70000 inf in float16
    bad = []
    x16 = torch.tensor([[-2], [1], [0]], dtype=torch.int16)
    _check(bad, "int16 & int64 0-dim", getattr(torch, op), (x16, torch.tensor(-2**63)))
    _check(bad, "int16 & int64 65536 0-dim", getattr(torch, op), (x16, torch.tensor(65536)))
    _check(bad, "0-dim first", getattr(torch, op), (torch.tensor(65536), x16))
    _check(bad, "f32 & f64 0-dim", getattr(torch, op), (torch.tensor([0.0, 1.0]), torch.tensor(1e-50, dtype=torch.float64)))
    _check(bad, "in place", lambda s, o: getattr(s.clone(), op + "_")(o), (x16, torch.tensor(65536)))
    assert not bad, "\n".join(bad)
