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
