"""_foreach ops on "tpu" against PyTorch's CPU: the overloads lowered per
element in csrc/ops/foreach.c (out-of-place and in-place, one program per
call), their dtype rules and backward, and the OpInfo harness picking up
PyTorch's foreach databases (tools/opinfo.py)."""
import importlib.util
import os

import pytest
import torch

from conftest import DTYPES_ALL, make

SHAPES = [(3,), (2, 4), (5,), (1, 2, 3)]
UNARY = ["acos", "asin", "atan", "cosh", "sinh", "tan", "log10", "log2", "lgamma", "frac", "erfc",
         "sign", "abs", "trunc"]


def _list(dtype, seed=0, shapes=SHAPES):
    return [make(s, dtype, seed + i) for i, s in enumerate(shapes)]


def _tpu(ts):
    return [t.to("tpu") for t in ts]


def _close(got, want, **tol):
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.device.type == "tpu"
        torch.testing.assert_close(g.cpu(), w, equal_nan=True, **tol)


def _programs(fn):
    """How many programs fn launched (compile-cache requests) in strict mode."""
    torch.tpu.synchronize()
    before = torch.tpu.cache_stats()["requests"]
    out = fn()
    torch.tpu.synchronize()
    return torch.tpu.cache_stats()["requests"] - before, out


def _raises_like_cpu(fn, cpu_args, tpu_args):
    """fn raises on tpu exactly when it raises on CPU, the same exception type (CPU's NotImplementedError for a
    dtype its kernel lacks, "frac_cpu" not implemented for 'Int', included); else returns both results."""
    try:
        want = fn(*cpu_args)
    except Exception as e:
        with pytest.raises(type(e)) as got:
            fn(*tpu_args)
        assert type(got.value) is type(e), f"CPU {e!r}; tpu {got.value!r}"
        return None, None
    return fn(*tpu_args), want


@pytest.mark.parametrize("dtype", DTYPES_ALL, ids=str)
@pytest.mark.parametrize("name", UNARY)
def test_unary_out_of_place_and_inplace(name, dtype):
    xs = _list(dtype)
    op, op_ = getattr(torch, f"_foreach_{name}"), getattr(torch, f"_foreach_{name}_")
    got, want = _raises_like_cpu(op, (xs,), (_tpu(xs),))
    if want is not None:
        _close(got, want)
    # in-place: an integer list given a float result is rejected ("can't be cast"), as on CPU
    cpu_self, tpu_self = [t.clone() for t in xs], _tpu(xs)
    res, _ = _raises_like_cpu(op_, (cpu_self,), (tpu_self,))
    if res is not None or want is not None:
        _close(tpu_self, cpu_self)


def test_unary_integer_promotes_and_inplace_cast_error():
    xs = _list(torch.int64)
    _close(torch._foreach_log2(_tpu(xs)), torch._foreach_log2(xs))
    assert torch._foreach_log2(_tpu(xs))[0].dtype == torch.float32
    with pytest.raises(RuntimeError, match="can't be cast to the desired output type"):
        torch._foreach_acos_(_tpu(xs))


@pytest.mark.parametrize("name", ["acos", "lgamma", "frac", "tan"])
def test_unary_is_one_program(name):
    xs = _tpu(_list(torch.float32))
    n, out = _programs(lambda: getattr(torch, f"_foreach_{name}")(xs))
    assert n == 1 and len(out) == len(xs)
    n, _ = _programs(lambda: getattr(torch, f"_foreach_{name}_")(xs))
    assert n == 1


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.float16], ids=str)
@pytest.mark.parametrize("ord", [0, 1, 2, -1, 3.5, float("inf"), float("-inf")])
def test_norm(ord, dtype):
    xs = _list(dtype)
    _close(torch._foreach_norm(_tpu(xs), ord), torch._foreach_norm(xs, ord))


def test_norm_dtype_nan_and_integer_error():
    xs = _list(torch.float32)
    got = torch._foreach_norm(_tpu(xs), 2, dtype=torch.float64)
    assert got[0].dtype == torch.float64
    _close(got, torch._foreach_norm(xs, 2, dtype=torch.float64))
    nan = [torch.tensor([1.0, float("nan"), -2.0]), torch.tensor([3.0, 4.0])]
    for ord in (1, 2, float("inf")):
        _close(torch._foreach_norm(_tpu(nan), ord), torch._foreach_norm(nan, ord))
    with pytest.raises(RuntimeError):
        torch._foreach_norm(_tpu(_list(torch.int64)))
    n, _ = _programs(lambda: torch._foreach_norm(_tpu(xs)))
    assert n == 1


@pytest.mark.parametrize("dtype", DTYPES_ALL, ids=str)
def test_max_clone_zero_copy(dtype):
    xs, ys = _list(dtype), _list(dtype, seed=10)
    _close(torch._foreach_max(_tpu(xs)), torch._foreach_max(xs))
    clones = torch._foreach_clone(_tpu(xs))
    _close(clones, xs)
    # the functional forms (what functionalization emits) and the in-place ones
    _close(torch.ops.aten._foreach_zero(_tpu(xs)), torch.ops.aten._foreach_zero(xs))
    _close(torch.ops.aten._foreach_copy(_tpu(xs), _tpu(ys)), torch.ops.aten._foreach_copy(xs, ys))
    t = _tpu(xs)
    torch._foreach_zero_(t)
    _close(t, [torch.zeros_like(x) for x in xs])
    torch._foreach_copy_(t, _tpu(ys))
    _close(t, ys)


def test_copy_converts_and_broadcasts():
    dst = [torch.zeros(2, 3), torch.zeros(4, dtype=torch.int32)]
    src = [torch.randn(3), torch.tensor([1.7, -2.2, 3.9, 0.1])]
    _close(torch.ops.aten._foreach_copy(_tpu(dst), _tpu(src)), torch.ops.aten._foreach_copy(dst, src))
    t = _tpu(dst)
    torch._foreach_copy_(t, _tpu(src))
    cpu = [d.clone() for d in dst]
    torch._foreach_copy_(cpu, src)
    _close(t, cpu)


def test_max_empty_tensor_raises_like_cpu():
    with pytest.raises(RuntimeError):
        torch._foreach_max([torch.zeros(0)])
    with pytest.raises(RuntimeError):
        torch._foreach_max([torch.zeros(0, device="tpu")])


def test_mm():
    a = [torch.randn(2, 3), torch.randn(4, 1)]
    b = [torch.randn(3, 5), torch.randn(1, 2)]
    _close(torch._foreach_mm(_tpu(a), _tpu(b)), torch._foreach_mm(a, b), atol=1e-5, rtol=1e-5)
    n, _ = _programs(lambda: torch._foreach_mm(_tpu(a), _tpu(b)))
    assert n == 1


def test_addcmul_addcdiv_tensor_scalars_from_cpu():
    """The .Tensor overloads take their scalars as a 1-D CPU tensor (as on CUDA): PyTorch reads them on the host
    and calls the ScalarList lowering."""
    s, t1, t2 = _list(torch.float32), _list(torch.float32, 5), [x.abs() + 0.5 for x in _list(torch.float32, 9)]
    scalars = torch.tensor([0.5, -2.0, 3.0, 1.5])
    for op in (torch._foreach_addcmul, torch._foreach_addcdiv):
        _close(op(_tpu(s), _tpu(t1), _tpu(t2), scalars), op(s, t1, t2, scalars))
    with pytest.raises(RuntimeError, match="Expected scalars to be on CPU"):
        torch._foreach_addcmul(_tpu(s), _tpu(t1), _tpu(t2), scalars.to("tpu"))


@pytest.mark.parametrize("name", ["acos", "asin", "atan", "cosh", "sinh", "tan", "log10", "log2", "lgamma",
                                  "frac", "erfc"])
def test_unary_backward(name):
    xs = [(torch.rand(s) * 0.8 + 0.1) for s in SHAPES]  # inside every domain (acos, asin, log*)
    cpu = [x.clone().requires_grad_() for x in xs]
    tpu = [x.to("tpu").requires_grad_() for x in xs]
    op = getattr(torch, f"_foreach_{name}")
    ws = [torch.randn(s) for s in SHAPES]
    sum(((o * w).sum() for o, w in zip(op(cpu), ws))).backward()
    sum(((o * w.to("tpu")).sum() for o, w in zip(op(tpu), ws))).backward()
    _close([t.grad for t in tpu], [c.grad for c in cpu])


def test_norm_and_max_backward():
    xs = [torch.randn(s) for s in SHAPES]
    for fn in (lambda l: torch._foreach_norm(l, 2), lambda l: torch._foreach_norm(l, 1), torch._foreach_max):
        cpu = [x.clone().requires_grad_() for x in xs]
        tpu = [x.to("tpu").requires_grad_() for x in xs]
        sum(o * (i + 1) for i, o in enumerate(fn(cpu))).backward()
        sum(o * (i + 1) for i, o in enumerate(fn(tpu))).backward()
        _close([t.grad for t in tpu], [c.grad for c in cpu])


# ---- the single-tensor ops the foreach overloads lower to: CPU's reduced-precision rules ----

_S = 0.8831494822540025  # not a bfloat16/float16 value: rounding it first changes products


def _inplace(fn):
    return lambda x: (lambda y: (fn(y), y)[1])(x.clone())


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16], ids=str)
def test_reduced_float_scalar_products_round_like_cpu(dtype):
    # 1024 elements: a multiple of CPU's vector width, whose scalar tail loop rounds differently
    x = (torch.randn(1024, generator=torch.Generator().manual_seed(3)) * 5).to(dtype)
    y = (torch.randn(1024, generator=torch.Generator().manual_seed(4)) * 5).to(dtype)
    cases = {
        "mul number (float32 product)": lambda a: a * _S,
        "div number": lambda a: a / _S,
        "mul 0-dim float32": lambda a: a * torch.tensor(_S, device=a.device),
        "Tensor.mul_(number)": _inplace(lambda a: a.mul_(_S)),
        "aten mul_.Scalar (scalar rounded first)": _inplace(lambda a: torch.ops.aten.mul_.Scalar(a, _S)),
        "add number (rounded first)": lambda a: a + _S,
        "foreach mul": lambda a: torch._foreach_mul([a], _S)[0],
        "foreach mul_ (scalar rounded first)": lambda a: (lambda l: (torch._foreach_mul_(l, [_S]), l[0])[1])([a.clone()]),
        "foreach div_": lambda a: (lambda l: (torch._foreach_div_(l, _S), l[0])[1])([a.clone()]),
    }
    # Whether the scalar is rounded to the tensor's dtype before the product,
    # or a*alpha*b fused in float32, is CPU's implementation (scalar tail loop
    # vs vector loop, which also differ between x86 hosts, e.g. with
    # AVX512-FP16), not a semantics PyTorch defines: both sides must agree
    # within OpInfo's tolerance plus one rounding (eps) of the scaled operand.
    eps = torch.finfo(dtype).eps
    rtol = 1.6e-2 if dtype == torch.bfloat16 else 1e-3
    for name, fn in cases.items():
        want, got = fn(x), fn(x.to("tpu")).cpu()
        atol = 1e-5 + eps * (x.float() * _S).abs().max().item()
        assert got.dtype == want.dtype, name
        torch.testing.assert_close(got, want, rtol=rtol, atol=atol, msg=name)
    for fn, alpha in ((lambda a, b: torch.add(a, b, alpha=3.14), 3.14), (lambda a, b: torch.sub(a, b, alpha=-2.7), 2.7)):
        want, got = fn(x[:15], y[:15]), fn(x[:15].to("tpu"), y[:15].to("tpu")).cpu()
        atol = 1e-5 + eps * (y[:15].float() * alpha).abs().max().item()
        torch.testing.assert_close(got, want, rtol=rtol, atol=atol)


def test_bool_pow_and_rounding_like_cpu():
    b = torch.tensor([True, False])
    for e in (True, False):
        torch.testing.assert_close(torch.pow(b.to("tpu"), e).cpu(), torch.pow(b, e))
        torch.testing.assert_close(torch._foreach_pow([b.to("tpu")], e)[0].cpu(), torch._foreach_pow([b], e)[0])
    with pytest.raises(RuntimeError, match="not implemented for 'Bool'"):  # a bool exponent tensor is not special
        torch.pow(b.to("tpu"), b.to("tpu"))
    for name in ("floor", "ceil", "round", "trunc"):
        with pytest.raises(RuntimeError, match=f"{name}_vml_cpu\" not implemented for 'Bool'"):
            getattr(torch, name)(b.to("tpu"))


# ---- the OpInfo harness (tools/opinfo.py) runs the foreach databases ----

_spec = importlib.util.spec_from_file_location(
    "opinfo_harness", os.path.join(os.path.dirname(__file__), "..", "..", "tools", "opinfo.py"))
harness = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(harness)


def _foreach_entry(name):
    return next(op for op in harness.entries() if harness.is_foreach(op) and harness.entry_name(op) == name)


def test_harness_lists_foreach_entries_apart_from_op_db():
    from torch.testing._internal.common_methods_invocations import op_db

    names = harness.foreach_entry_names()
    assert {"_foreach_add", "_foreach_acos", "_foreach_norm", "_foreach_zero", "_foreach_lerp"} <= names
    assert not names & {harness.entry_name(op) for op in op_db}
    args = type("A", (), {"ops": "_foreach_acos", "dtypes": "float32,int64"})()
    assert [(u[1], u[2]) for u in harness.units(args)] == [("float32", "_foreach_acos"), ("int64", "_foreach_acos")]
    assert harness.units(args, foreach=False) == []


def test_harness_runs_out_of_place_and_inplace():
    unit = harness.ForeachUnit(_foreach_entry("_foreach_acos"))
    res = harness._run_unit(unit, "float32", max_samples=1, backward=True)
    assert res["fwd"] == "pass" and res.get("bwd") == "pass", res
    assert {"aten::_foreach_acos.default", "aten::_foreach_acos_.default"} <= set(res["aten"]), res["aten"]
    # int64: out-of-place promotes; the in-place variant must raise as on CPU
    res = harness._run_unit(unit, "int64", max_samples=1, backward=False)
    assert res["fwd"] == "pass", res


class _Patched:
    """A foreach OpInfo with some attributes replaced."""

    def __init__(self, entry, **over):
        self._entry = entry
        self.__dict__.update(over)

    def __getattr__(self, name):
        return getattr(self._entry, name)


def test_harness_fails_a_wrong_or_missing_inplace_error():
    entry = _foreach_entry("_foreach_neg")

    def wrong_on_tpu(xs):
        for x in xs:
            x.neg_() if x.device.type == "cpu" else x.mul_(-2)
    res = harness._run_unit(harness.ForeachUnit(_Patched(entry, inplace_variant=wrong_on_tpu)), "float32",
                            max_samples=1, backward=False)
    assert res["fwd"] == "fail", res

    def raises_on_cpu_only(xs):
        if xs[0].device.type == "cpu":
            raise RuntimeError("result type Float can't be cast to the desired output type Long")
        torch._foreach_neg_(xs)
    res = harness._run_unit(harness.ForeachUnit(_Patched(entry, inplace_variant=raises_on_cpu_only)), "float32",
                            max_samples=1, backward=False)
    assert res["fwd"] == "fail", res  # a list on tpu where CPU raised


def test_harness_report_keeps_op_db_numbers_apart():
    rows = [{"entry": "abs", "dtype": "float32", "fwd": "pass", "aten": ["aten::abs.default"]},
            {"entry": "_foreach_abs", "dtype": "float32", "fwd": "pass",
             "aten": ["aten::_foreach_abs.default", "aten::abs.default"]}]
    args = type("A", (), {"max_samples": 1, "jobs": 1})()
    text = harness.report(rows, 2, [], 0.0, args)
    assert "| measure | op_db | foreach databases | op_db + foreach databases |" in text
    line = next(l for l in text.splitlines() if l.startswith("| distinct ATen ops (overload packets) run by passing "
                                                               "float32 forward entries |"))
    assert line.endswith("| **1** | **2** | **2** |"), line
    assert "## Per entry: foreach databases" in text
    # a log with no foreach entry: op_db alone, said so
    text = harness.report(rows[:1], 1, [], 0.0, args)
    assert "foreach databases are not part of this report" in text and "| measure | op_db |" in text
