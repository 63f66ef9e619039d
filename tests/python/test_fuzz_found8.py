"""Differences of the eighth fuzzing session, each checked against CPU.

An operand of another dtype beside a float16/bfloat16 result (fuzz 277:436:
floor_divide of an int32 tensor by a float16 one): CPU's TensorIterator casts
it to the result type before the kernel, so an int32 70000 beside float16 is
inf, -2**31 is -inf and 2049 is 2048; tpu widened it straight to the float32
math type. Values chosen so that the rounding through the half type shows."""
import pytest
import torch

INF = float("inf")
# integers the half types round (2049 -> 2048 in float16, 257 -> 256 in
# bfloat16) or overflow (70000, -2**31 in float16)
INTS = [2049, 4097, 70000, -2**31, 65519, 65520, 257, -3, 0, 1, 2**31 - 1, -2049, 65505, 32769, 259, 513]
INTS64 = [2**40 + 1, 2**32 + 2**24 + 1, -(2**40 + 2**32 + 1), 2**62 + 2**40 + 1]
HALFS = [3.0, 1.0, -0.5, 0.3, INF, -INF, 7.0, 2.5, -1.0, 0.1, 1000.0, 65504.0, -2.0, 1e-3, 0.0, -0.0]
FLOATS = [2049.0, 70000.0, 65519.0, 0.1, 257.0, 1e300, -3.4e38]
HALF_DTYPES = [torch.float16, torch.bfloat16]
INT_DTYPES = [torch.int32, torch.int64, torch.int16, torch.bool]

BINARY = {
    "add": torch.add, "sub": torch.sub, "mul": torch.mul, "div": torch.div, "true_divide": torch.true_divide,
    "div_trunc": lambda a, b: torch.div(a, b, rounding_mode="trunc"),
    "div_floor": lambda a, b: torch.div(a, b, rounding_mode="floor"),
    "floor_divide": torch.floor_divide, "remainder": torch.remainder, "fmod": torch.fmod, "pow": torch.pow,
    "atan2": torch.atan2, "hypot": torch.hypot, "maximum": torch.maximum, "minimum": torch.minimum,
    "fmax": torch.fmax, "fmin": torch.fmin, "copysign": torch.copysign, "nextafter": torch.nextafter,
    "eq": torch.eq, "ne": torch.ne, "lt": torch.lt, "ge": torch.ge, "xlogy": torch.xlogy,
    "logaddexp": torch.logaddexp, "logaddexp2": torch.logaddexp2, "xlog1py": torch.special.xlog1py,
    "clamp_min": lambda a, b: torch.clamp(a, min=b), "clamp_max": lambda a, b: torch.clamp(a, max=b),
    "rsub": torch.rsub,
}
# ops that take a Python number as their second argument
SCALAR_OK = {"add", "sub", "mul", "div", "true_divide", "div_trunc", "div_floor", "floor_divide", "remainder", "fmod",
             "pow", "eq", "ne", "lt", "ge", "xlogy", "xlog1py", "clamp_min", "clamp_max", "rsub", "copysign"}
# the sign of a zero from max/min of 0 and -0.0 is not what these tests are about
NO_SIGNED_ZERO = {"maximum", "minimum", "fmax", "fmin", "clamp_min", "clamp_max"}


def _tpu(a):
    return a.to("tpu") if isinstance(a, torch.Tensor) else a


def _same(c, t, signed_zero=True, rtol=0.0):
    """Exactly CPU's: dtype, shape, values, NaN positions, signs of zeros
    (within rtol of CPU's value when rtol is given)."""
    if c.dtype != t.dtype or c.shape != t.shape:
        return False
    if c.dtype == torch.bool or not (c.dtype.is_floating_point or c.dtype.is_complex):
        return torch.equal(c, t)
    c, t = c.double(), t.double()
    cn, tn = c.isnan(), t.isnan()
    if not torch.equal(cn, tn):
        return False
    c, t = c.masked_fill(cn, 0), t.masked_fill(tn, 0)
    if rtol:
        return bool(torch.isclose(t, c, rtol=rtol, atol=0).all())
    return torch.equal(c, t) and (not signed_zero or torch.equal(torch.signbit(c), torch.signbit(t)))


def _describe(args, c, t):
    d = c.double().nan_to_num(7.5) != t.double().nan_to_num(7.5) if c.shape == t.shape else torch.ones(1, dtype=torch.bool)
    i = int(d.flatten().nonzero()[0]) if d.any() else 0
    at = []
    for a in args:
        if isinstance(a, torch.Tensor) and a.dim() > 0 and c.shape == t.shape:
            at.append(a.broadcast_to(c.shape).flatten()[i].item())
        elif isinstance(a, torch.Tensor):
            at.append(f"0-dim {a.dtype} {a.item()}")
        else:
            at.append(a)
    cv = c.flatten()[i].item() if c.numel() else None
    tv = t.flatten()[i].item() if t.numel() else None
    return f"at [{i}] args {at}: cpu {cv} ({c.dtype}) tpu {tv} ({t.dtype})"


def _check(bad, tag, f, *args, signed_zero=True, rtol=0.0):
    try:
        c = f(*args)
    except Exception as e:  # noqa: BLE001 - compared with tpu's
        c = e
    try:
        t = f(*[_tpu(a) for a in args])
        t = t.cpu() if isinstance(t, torch.Tensor) else t
    except Exception as e:  # noqa: BLE001
        t = e
    if isinstance(c, Exception) or isinstance(t, Exception):
        if type(c) is not type(t):
            bad.append(f"{tag}: cpu {c!r} tpu {t!r}")
        return
    if not _same(c, t, signed_zero, rtol):
        bad.append(f"{tag}: {_describe(args, c, t)}")


def _ints(idt):
    if idt == torch.bool:
        return [True, False]
    info = torch.iinfo(idt)
    return [v for v in INTS + (INTS64 if idt == torch.int64 else []) if info.min <= v <= info.max]


@pytest.mark.parametrize("hd", HALF_DTYPES, ids=str)
@pytest.mark.parametrize("name", sorted(BINARY))
def test_integer_operand_rounds_through_half(name, hd):
    f = BINARY[name]
    sz = name not in NO_SIGNED_ZERO
    bad = []
    for idt in INT_DTYPES:
        ivals = _ints(idt)
        xi = torch.tensor([v for v in ivals for _ in HALFS], dtype=idt)
        yh = torch.tensor([h for _ in ivals for h in HALFS], dtype=hd)
        pre = f"{name}({idt}, {hd})"
        _check(bad, pre + " tensor, tensor", f, xi, yh, signed_zero=sz)
        _check(bad, pre + " half tensor, int tensor", f, yh, xi, signed_zero=sz)
        for h in [3.0, 1.0, -0.5, 0.3, INF, 1e-3]:
            h0 = torch.tensor(h, dtype=hd)
            _check(bad, pre + f" int tensor, 0-dim {h}", f, xi, h0, signed_zero=sz)
            _check(bad, pre + f" 0-dim {h}, int tensor", f, h0, xi, signed_zero=sz)
        yy = torch.tensor(HALFS, dtype=hd)
        for v in ivals:
            i0 = torch.tensor(v, dtype=idt)
            _check(bad, pre + f" half tensor, 0-dim {v}", f, yy, i0, signed_zero=sz)
            _check(bad, pre + f" 0-dim {v}, half tensor", f, i0, yy, signed_zero=sz)
            _check(bad, pre + f" 0-dim {v}, 0-dim 3.0", f, i0, torch.tensor(3.0, dtype=hd), signed_zero=sz)
            if name in SCALAR_OK and idt == torch.int64:
                _check(bad, pre + f" half tensor, number {v}", f, yy, v, signed_zero=sz)
    assert not bad, f"{len(bad)} differ from CPU:\n" + "\n".join(bad[:20])


@pytest.mark.parametrize("hd", HALF_DTYPES, ids=str)
@pytest.mark.parametrize("name", sorted(BINARY))
def test_wider_float_scalar_beside_half(name, hd):
    # a float64/float32 0-dim tensor or a Python float beside a half tensor:
    # the result is the half type; CPU casts the scalar to it, except where a
    # kernel reads the scalar at its own value (mul, true div, floor/trunc div)
    f = BINARY[name]
    sz = name not in NO_SIGNED_ZERO
    yy = torch.tensor(HALFS, dtype=hd)
    bad = []
    for fv in FLOATS:
        if hd == torch.bfloat16 and name in ("div", "true_divide") and abs(fv) > 1e38:
            continue  # 3.0 / 3.4e38 is a bfloat16 subnormal: XLA's CPU flushes it to 0 (README, Dtypes)
        for fd in (torch.float64, torch.float32):
            s = torch.tensor(fv, dtype=fd)
            _check(bad, f"{name}({hd}, 0-dim {fd} {fv})", f, yy, s, signed_zero=sz)
            _check(bad, f"{name}(0-dim {fd} {fv}, {hd})", f, s, yy, signed_zero=sz)
        if name in SCALAR_OK:
            _check(bad, f"{name}({hd}, number {fv})", f, yy, fv, signed_zero=sz)
    assert not bad, f"{len(bad)} differ from CPU:\n" + "\n".join(bad[:20])


@pytest.mark.parametrize("hd", HALF_DTYPES, ids=str)
@pytest.mark.parametrize("alpha", [2, 3, -1])
@pytest.mark.parametrize("name", ["add", "sub"])
def test_add_sub_alpha_integer_operand(name, alpha, hd):
    # In chunks of 8 elements: CPU's scalar loop (alpha * y rounded to the
    # half type first) covers them all; longer tensors reach its fused
    # vectorized loop, which differs from its own scalar loop (the
    # `torch.add` alpha rows of docs/fuzz_known.md).
    f = getattr(torch, name)
    bad = []
    for idt in (torch.int32, torch.int64):
        ivals = _ints(idt)
        xi = torch.tensor([v for v in ivals for _ in HALFS], dtype=idt)
        yh = torch.tensor([h for _ in ivals for h in HALFS], dtype=hd)
        for k in range(0, xi.numel(), 8):
            a, b = xi[k:k + 8], yh[k:k + 8]
            _check(bad, f"{name}({idt}, {hd}, alpha={alpha})", lambda p, q: f(p, q, alpha=alpha), a, b)
            _check(bad, f"{name}({hd}, {idt}, alpha={alpha})", lambda p, q: f(p, q, alpha=alpha), b, a)
    assert not bad, f"{len(bad)} differ from CPU:\n" + "\n".join(bad[:20])


def _pairs(idt, hd):
    ivals = _ints(idt)
    return (torch.tensor([v for v in ivals for _ in HALFS], dtype=idt),
            torch.tensor([h for _ in ivals for h in HALFS], dtype=hd))


@pytest.mark.parametrize("hd", HALF_DTYPES, ids=str)
def test_ternary_integer_operand(hd):
    bad = []
    for idt in (torch.int32, torch.int64, torch.int16):
        xi, yh = _pairs(idt, hd)
        cond = torch.arange(xi.numel()) % 3 == 0
        lo = torch.full_like(xi, 2049)
        pre = f"({idt}, {hd})"
        _check(bad, "where" + pre, torch.where, cond, xi, yh)
        _check(bad, "where 0-dim" + pre, torch.where, cond, torch.tensor(2049, dtype=idt), yh)
        _check(bad, "clamp" + pre, lambda a, b, c: torch.clamp(a, b, c), yh, lo, xi, signed_zero=False)
        _check(bad, "clamp int self" + pre, lambda a, b, c: torch.clamp(a, b, c), xi, yh, yh + 1, signed_zero=False)
        _check(bad, "addcmul" + pre, lambda a, b, c: torch.addcmul(a, b, c, value=0.5), yh, xi, yh)
        _check(bad, "addcmul int self" + pre, lambda a, b, c: torch.addcmul(a, b, c, value=3), xi, yh, yh)
        _check(bad, "addcdiv" + pre, lambda a, b, c: torch.addcdiv(a, b, c, value=0.5), yh, yh, xi)
        _check(bad, "addcdiv int self" + pre, lambda a, b, c: torch.addcdiv(a, b, c, value=2), xi, yh, yh)
        _check(bad, "addcmul 0-dim int" + pre, lambda a, b, c: torch.addcmul(a, b, c), yh, torch.tensor(2049, dtype=idt), yh)
    assert not bad, f"{len(bad)} differ from CPU:\n" + "\n".join(bad[:20])


INPLACE = {
    "add_": lambda a, b: a.add_(b), "sub_": lambda a, b: a.sub_(b, alpha=1), "mul_": lambda a, b: a.mul_(b),
    "div_": lambda a, b: a.div_(b), "div_floor_": lambda a, b: a.div_(b, rounding_mode="floor"),
    "div_trunc_": lambda a, b: a.div_(b, rounding_mode="trunc"), "floor_divide_": lambda a, b: a.floor_divide_(b),
    "remainder_": lambda a, b: a.remainder_(b), "fmod_": lambda a, b: a.fmod_(b), "pow_": lambda a, b: a.pow_(b),
    "atan2_": lambda a, b: a.atan2_(b), "hypot_": lambda a, b: a.hypot_(b), "copysign_": lambda a, b: a.copysign_(b),
    "xlogy_": lambda a, b: a.xlogy_(b), "clamp_min_": lambda a, b: a.clamp_(min=b),
    "nextafter_": lambda a, b: a.nextafter_(b), "addcmul_": lambda a, b: a.addcmul_(b, a),
    "addcdiv_": lambda a, b: a.addcdiv_(a, b), "lt_": lambda a, b: a.lt_(b),
}


@pytest.mark.parametrize("hd", HALF_DTYPES, ids=str)
@pytest.mark.parametrize("name", sorted(INPLACE))
def test_inplace_half_self_integer_other(name, hd):
    f = INPLACE[name]
    bad = []
    for idt in (torch.int32, torch.int64):
        xi, yh = _pairs(idt, hd)
        _check(bad, f"{name}({hd} self, {idt} tensor)", lambda a, b: f(a.clone(), b), yh, xi,
               signed_zero=not name.startswith("clamp"))
        for v in (2049, 70000, 257, -2**31):
            _check(bad, f"{name}({hd} self, 0-dim {idt} {v})", lambda a, b: f(a.clone(), b), yh, torch.tensor(v, dtype=idt),
                   signed_zero=not name.startswith("clamp"))
    assert not bad, f"{len(bad)} differ from CPU:\n" + "\n".join(bad[:20])


@pytest.mark.parametrize("hd", HALF_DTYPES, ids=str)
@pytest.mark.parametrize("out_dtype", [None, torch.float32, torch.float64])
@pytest.mark.parametrize("name", ["add", "mul", "div", "floor_divide", "remainder", "atan2", "hypot", "maximum", "pow"])
def test_out_integer_operand(name, out_dtype, hd):
    # out= of the result type or wider: CPU computes in the inputs' common
    # type (the half type) and casts the result into out
    f = getattr(torch, name)
    od = out_dtype or hd
    bad = []
    for idt in (torch.int32, torch.int64):
        xi, yh = _pairs(idt, hd)

        def g(a, b, f=f):
            out = torch.empty(a.shape if a.dim() else b.shape, dtype=od, device=a.device if a.dim() else b.device)
            return f(a, b, out=out)
        _check(bad, f"{name}({idt}, {hd}, out={od})", g, xi, yh, signed_zero=name != "maximum")
        _check(bad, f"{name}({idt}, 0-dim {hd}, out={od})", g, xi, torch.tensor(3.0, dtype=hd), signed_zero=name != "maximum")
    assert not bad, f"{len(bad)} differ from CPU:\n" + "\n".join(bad[:20])


def test_floor_divide_fuzz_277_436():
    # the fuzzer's call: int32 -2**31 // a float16 inf: CPU -inf // inf = NaN
    x = torch.tensor([-2**31, 70000, 2049, 7], dtype=torch.int32)
    y = torch.tensor([INF, 1.0, 1.0, 2.0], dtype=torch.float16)
    expected = torch.floor_divide(x, y)
    assert expected[0].isnan() and expected[1].isnan()  # CPU: -inf // inf and inf // 1
    got = torch.floor_divide(x.to("tpu"), y.to("tpu")).cpu()
    assert _same(expected, got), (expected, got)
    got0 = torch.floor_divide(x.to("tpu"), torch.tensor(1.0, dtype=torch.float16).to("tpu")).cpu()
    assert _same(torch.floor_divide(x, torch.tensor(1.0, dtype=torch.float16)), got0), got0


@pytest.mark.parametrize("name", ["xlogy", "xlog1py", "atan2", "div", "true_divide", "copysign", "hypot", "logaddexp"])
def test_integral_common_dtype_is_no_stop(name):
    # fuzz 294:761: xlogy(uint8 tensor, -4): CPU's float ops promote integer
    # inputs to float32 directly (log(-4.0) = NaN); casting -4 to the
    # integral common dtype uint8 first gave log(252) = 5.53
    f = BINARY[name]
    bad = []
    for idt, other in ((torch.uint8, -4), (torch.uint8, 300), (torch.int8, 300), (torch.int16, 2**40 + 1)):
        x = torch.tensor([0, 1, 2, 7, 100], dtype=idt)
        # float32 results: XLA's log/atan2 may be an ulp from CPU's
        _check(bad, f"{name}({idt}, 0-dim int64 {other})", f, x, torch.tensor(other), rtol=3e-7)
        _check(bad, f"{name}(0-dim int64 {other}, {idt})", f, torch.tensor(other), x, rtol=3e-7)
        if name in SCALAR_OK:
            _check(bad, f"{name}({idt}, number {other})", f, x, other, rtol=3e-7)
    assert not bad, f"{len(bad)} differ from CPU:\n" + "\n".join(bad[:20])


LDEXP_X = [0.0, -0.0, 3.0, 1e-30, 1e30, INF, -INF, float("nan"), 1.5, -7.25, 1.0]
LDEXP_E = [2049, 2**40 + 1, -5, -200, 200, 0, 127, -126, 2**31 - 1, -2**31, 2**32 + 5, 1000, -1000, 7]


@pytest.mark.parametrize("xd", [torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.int32], ids=str)
@pytest.mark.parametrize("ed", [torch.int64, torch.int32, torch.int16, torch.uint8], ids=str)
def test_ldexp_integer_exponent(xd, ed):
    # CPU's kernel is std::ldexp(x, int(e)); tpu ran PyTorch's composite
    # mul(x, pow(2, e)), whose power overflowed first: ldexp(0.0, 2049) was
    # NaN (CPU 0.0), ldexp(1e-30, 200) inf (CPU 1.6e30), ldexp(3.0, 2**40 + 1)
    # inf (CPU 6.0: the exponent wraps to int)
    info = torch.iinfo(ed)
    es = [e for e in LDEXP_E if info.min <= e <= info.max]
    xs = LDEXP_X if xd.is_floating_point else [0, 3, -7, 1, 100]
    x = torch.tensor([v for v in xs for _ in es]).to(xd)
    e = torch.tensor([v for _ in xs for v in es], dtype=ed)
    bad = []
    _check(bad, f"ldexp({xd}, {ed})", torch.ldexp, x, e)
    _check(bad, f"ldexp({xd}, 0-dim {ed})", torch.ldexp, x, e[1] if len(es) > 1 else e[0])
    if xd.is_floating_point:
        _check(bad, f"ldexp_({xd}, {ed})", lambda a, b: a.clone().ldexp_(b), x, e)
        # out= of the result type (a wider out trips an internal assert in CPU's kernel)
        _check(bad, f"ldexp({xd}, {ed}, out=)", lambda a, b: torch.ldexp(a, b, out=torch.empty(a.shape, dtype=a.dtype, device=a.device)), x, e)
    assert not bad, f"{len(bad)} differ from CPU:\n" + "\n".join(bad[:20])


def test_ldexp_other_forms():
    bad = []
    x = torch.tensor([1.0, 3.0, -2.0, 0.0, 1e30])
    ef = torch.tensor([2.5, -1.5, 2.9, 1e10, 3.0])
    _check(bad, "ldexp(float32, float32 exponent)", torch.ldexp, x, ef, rtol=3e-7)  # x * 2**e, XLA's pow
    _check(bad, "ldexp(float32, float64 exponent)", torch.ldexp, x, ef.double(), rtol=1e-15)
    _check(bad, "ldexp(float32, bool)", torch.ldexp, x, torch.tensor([True, False, True, True, False]))
    # CPU's composite rounds the power to its own type first: OpInfo's bfloat16
    # sample -7.9375 * 2**3.609375 is -96.5 on CPU (-97 when rounded once)
    xb = torch.tensor([-7.9375, 3.0, 0.5, -1.25], dtype=torch.bfloat16)
    eb = torch.tensor([3.609375, -2.75, 7.1, 0.3], dtype=torch.bfloat16)
    _check(bad, "ldexp(bfloat16, bfloat16 exponent)", torch.ldexp, xb, eb)
    _check(bad, "ldexp(float16, float16 exponent)", torch.ldexp, xb.half(), eb.half())
    # a bool exponent is refused beside a floating x only: integral and bool x take the composite
    eo = torch.tensor([True, False, True])
    _check(bad, "ldexp(int32, bool)", torch.ldexp, torch.tensor([1, 0, 5], dtype=torch.int32), eo)
    _check(bad, "ldexp(bool, bool)", torch.ldexp, torch.tensor([True, False, True]), eo)
    z = torch.tensor([1 + 1j, -2.5 + 0.5j, 3j])
    _check(bad, "ldexp(complex64, int64)", torch.ldexp, z, torch.tensor([3, -2, 10]))
    assert not bad, f"{len(bad)} differ from CPU:\n" + "\n".join(bad[:20])


@pytest.mark.parametrize("dtype", [torch.complex64, torch.complex128], ids=str)
def test_complex_tanh_near_pole(dtype):
    # fuzz 315:123: tanh(0.02766 + 1.58057j) in complex64: cpu
    # 32.147072-11.354173j, tpu 32.147133-11.354196j (XLA's formula cancels
    # in its denominator next to the pole at i pi/2)
    import math
    ys = [1.5805717706680298, math.pi / 2, 1.57, 1.5708, -1.5708, 4.71238898, 1.0, 0.0, -2.5]
    xs = [0.027661340311169624, 1e-4, -3e-3, 0.0, -0.0, 0.5, -2.0, 15.0, -19.5, 25.0, 1e-30]
    z = torch.tensor([complex(x, y) for x in xs for y in ys], dtype=dtype)
    c, t = torch.tanh(z), torch.tanh(z.to("tpu")).cpu()
    ref = torch.tanh(z.to(torch.complex128)).to(dtype)  # CPU's answer to the last digits
    tol = 1e-6 if dtype == torch.complex64 else 1e-14  # a few float32 ulps; the old formula was 2e-6 off
    for name, v in (("cpu", c), ("ref", ref)):
        d = (torch.view_as_real(t).double() - torch.view_as_real(v).double()).abs()
        scale = torch.view_as_real(v).double().abs().clamp_min(1e-30)
        bad = (d > tol * scale).any(-1)
        assert not bad.any(), f"{name}: z {z[bad][:4].tolist()} tpu {t[bad][:4].tolist()} {name} {v[bad][:4].tolist()}"
    # the special values stay XLA's/CPU's as before (NaN and infinite parts)
    sp = torch.tensor([complex(float("inf"), 1.0), complex(-float("inf"), 2.0), complex(0.0, float("inf")),
                       complex(float("nan"), 0.0), complex(30.0, 1.0), complex(-400.0, 0.5)], dtype=dtype)
    cs, ts = torch.tanh(sp), torch.tanh(sp.to("tpu")).cpu()
    fin = torch.view_as_real(cs).isfinite().all(-1)
    torch.testing.assert_close(ts[fin], cs[fin])


@pytest.mark.parametrize("od", [torch.float16, torch.bfloat16, torch.float32, torch.float64], ids=str)
@pytest.mark.parametrize("xd", [torch.float64, torch.float32, torch.float16, torch.bfloat16, torch.int64], ids=str)
@pytest.mark.parametrize("kw", [{"dim": 1}, {"dim": [0, 1]}, {}], ids=["dim", "dims", "all"])
def test_mean_out_takes_out_dtype(kw, xd, od):
    # fuzz 324:1453: mean of float64 rows holding +-finfo.max into a float16
    # out=: CPU computes mean(x, dtype=float16), summing x converted to
    # float32, where max is inf: NaN; tpu took the float64 mean (0.514) and
    # cast it. An integral x still raises CPU's "could not infer output dtype".
    m = torch.finfo(torch.float64).max
    base = torch.tensor([[m, -m, 1.0, 2.0], [1.1, 2.2, -3.3, 4.4], [0.25, 0.5, 0.125, 3.0]], dtype=torch.float64)
    x = base if xd == torch.float64 else (base[1:] * 7).to(xd)
    if "dim" in kw and kw["dim"] == [0, 1] or not kw:
        x = x[1:] if xd == torch.float64 else x  # all-element means: no cancellation of +-max (order-dependent)
    bad = []
    _check(bad, f"mean({xd}, {kw}, out={od})", lambda a: torch.mean(a, **kw, out=torch.empty(0, dtype=od, device=a.device)), x,
           rtol=0.0 if od in (torch.float16, torch.bfloat16) else 1e-6)
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("hd", [torch.float16, torch.bfloat16], ids=str)
def test_xlog_half_types_round_the_logarithm(hd):
    # CPU computes the logarithm in float and rounds it to the half type before
    # the product; XLA's own float16 log1p was an ulp off (OpInfo's sample
    # xlog1py(-7.707, 7.043): cpu -16.0625, tpu -16.078)
    g = torch.Generator().manual_seed(8)
    x = (torch.rand(400, generator=g) * 20 - 10).to(hd)
    y = (torch.rand(400, generator=g) * 12).to(hd)
    x[:3] = torch.tensor([-7.70703125, 7.890625, 257.0])
    y[:3] = torch.tensor([7.04296875, 7.54296875, 3.0])
    bad = []
    _check(bad, f"xlog1py({hd})", torch.special.xlog1py, x, y)
    _check(bad, f"xlogy({hd})", torch.xlogy, x, y)
    assert not bad, "\n".join(bad)
