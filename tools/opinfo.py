"""ATen coverage measured by PyTorch's OpInfo suite: every op_db entry and
every entry of the foreach databases (foreach_unary/binary/pointwise/reduce/
other_op_db, the ForeachFuncInfos of PyTorch's test_foreach.py), every dtype
it supports on CPU among float32, bfloat16, float16, int32, int64, bool, run on
"tpu" and on CPU from the same fresh CPU samples and compared with
assert_close at OpInfo's tolerances (forward; backward for float32 where the
op supports autograd). Writes docs/op_coverage.md and a JSON-lines log.

A foreach entry (named as its ForeachFuncInfo is, e.g. _foreach_add) runs its
out-of-place op and its in-place variant (on clones of the input list) from
each sample; both results must match CPU's, and an in-place call CPU rejects
(an integer list given a float result) must be rejected on tpu as well.

Tolerances follow PyTorch's own device-vs-CPU test (TestCommon.test_compare_cpu):
atol = rtol = 1e-3 for floating results, loosened by the OpInfo's
toleranceOverride for that test; integer and bool results compare exactly. The
OpInfo's own skips of test_compare_cpu (e.g. nondeterministic outputs) are
honored and listed with their written reason; so are its expected failures
of test_compare_cpu (for any device, or for cuda) when the entry fails here
too. Results pass through the sample's output_process_fn_grad first, as in
test_compare_cpu.

Work runs in worker processes (--jobs), so a crash (segfault) or a hang in one
entry is recorded and the run goes on.

  python tools/opinfo.py                       # the full run -> docs/op_coverage.md
  python tools/opinfo.py --ops add,mm --dtypes float32 --out -   # a few entries
  python tools/opinfo.py --skip-done build/opinfo.jsonl --json build/opinfo2.jsonl --out ''   # resume
  python tools/opinfo.py --merge build/opinfo.jsonl build/opinfo2.jsonl    # report from logs

--compile measures torch.compile(backend="tpu") instead (forward only, 4 samples per entry by default): each
sample's call compiled with dynamic=False, captured and replayed, compared with CPU eager at the same
tolerances, and run in eager tpu too so that a failure eager shares is told apart (_compiled_forward);
its report is docs/op_coverage_compile.md, its log build/opinfo_compile.jsonl.

  python tools/opinfo.py --compile --dtypes float32    # make opinfo-compile
"""
import argparse
import contextlib
import json
import os
import select
import subprocess
import sys
import time
from types import SimpleNamespace

if os.path.dirname(os.path.abspath(__file__)) not in sys.path:  # for tools/opinfo_props.py when loaded by path
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

DTYPE_NAMES = ("float32", "bfloat16", "float16", "int32", "int64", "bool")
TEST = ("TestCommon", "test_compare_cpu")
# Random factories whose OpInfo does not mark test_compare_cpu as non-deterministic, although their
# values come from the device's generator (their *_like siblings are marked so by PyTorch).
RANDOM_STREAM = {"randn": "randn_like", "randint": "randint_like"}


FOREACH_DBS = ("foreach_unary_op_db", "foreach_binary_op_db", "foreach_pointwise_op_db", "foreach_reduce_op_db",
               "foreach_other_op_db")


def entry_name(op):
    return op.name + (f".{op.variant_test_name}" if op.variant_test_name else "")


_ENTRIES = None


def entries():
    """op_db, then the foreach databases: a unit's index is its position here (the same in driver and workers)."""
    global _ENTRIES
    if _ENTRIES is None:
        from torch.testing._internal import common_methods_invocations as cmi

        _ENTRIES = list(cmi.op_db) + [op for db in FOREACH_DBS for op in getattr(cmi, db)]
    return _ENTRIES


def is_foreach(op):
    from torch.testing._internal.opinfo.core import ForeachFuncInfo

    return isinstance(op, ForeachFuncInfo)


def foreach_entry_names():
    return {entry_name(op) for op in entries() if is_foreach(op)}


class _Raised(str):
    """The result of a call that raised (not NotImplementedError): compared by exception type."""


class ForeachUnit:
    """A foreach entry as the harness runs it: the out-of-place op and the in-place variant (on clones of the
    input list, so the sample stays intact), their results as one tuple. Samples lose test_foreach's
    `disable_fastpath` (a CUDA expectation, not an argument of the op)."""

    def __init__(self, op):
        self.op_info = op

    def __getattr__(self, name):
        return getattr(self.op_info, name)

    def sample_inputs(self, *a, **k):
        for s in self.op_info.sample_inputs(*a, **k):
            s.kwargs.pop("disable_fastpath", None)
            yield s

    def __call__(self, inp, *args, **kwargs):
        import torch

        op = self.op_info
        grad = any(isinstance(t, torch.Tensor) and t.requires_grad for t in inp)
        out = []
        if op.supports_out:  # else op.op is the in-place variant itself (_foreach_zero_, _foreach_copy_)
            out.append(op.op(inp, *args, **kwargs))
        if op.inplace_variant is not None and (not grad or op.supports_inplace_autograd):
            selfs = [t.clone() for t in inp]
            try:
                op.inplace_variant(selfs, *args, **kwargs)
                out.append(selfs)
            except NotImplementedError:
                raise
            except Exception as e:  # CPU rejects some in-place calls (a float result into an integer list)
                out.append(_Raised(f"in-place variant raised {type(e).__name__}"))
        return tuple(out)


# ---------------------------------------------------------------- worker side


def _first_line(e):
    text = str(e).strip().splitlines()
    return f"{type(e).__name__}: {text[0][:300] if text else ''}"


def _tally(counts, missing, e, msg):
    """Counts a sample's failure on tpu: NotImplementedError as "notimpl" (the
    operator it names added to missing), any other as "fail". Returns the
    message the unit keeps: the first failure's, else the first notimpl's."""
    if isinstance(e, NotImplementedError):
        counts["notimpl"] += 1
        m = str(e)
        if "operator '" in m:
            missing.add(m.split("operator '", 1)[1].split("'", 1)[0])
        return msg or _first_line(e)
    counts["fail"] += 1
    return msg if msg and counts["fail"] > 1 else _first_line(e)


def _decorations(op, dtype):
    """(skip reason or None, (atol, rtol) override or None) from the OpInfo's decorators for test_compare_cpu.

    An expectedFailure of test_compare_cpu (PyTorch expects a non-CPU device to differ from CPU there) counts
    as a skip with that reason: the entry is listed, not counted as a pass or a failure."""
    import unittest

    from torch.testing._internal.common_device_type import toleranceOverride

    if entry_name(op) in RANDOM_STREAM:
        return (f"output is non-deterministic (values come from the device's random generator; "
                f"the OpInfo of {RANDOM_STREAM[entry_name(op)]} says so)"), None
    skip, tol = None, None
    for info in list(op.decorators) + list(getattr(op, "skips", ())):
        if not hasattr(info, "is_active"):
            continue
        try:
            active = info.is_active(TEST[0], TEST[1], "tpu", dtype, {})
        except Exception:
            active = False
        if not active:
            continue
        for dec in info.decorators:
            if isinstance(dec, toleranceOverride) and dtype in dec.d:
                tol = (dec.d[dtype].atol, dec.d[dtype].rtol)
            elif getattr(dec, "__qualname__", "").startswith("skip."):
                reasons = [c.cell_contents for c in dec.__closure__ or () if isinstance(c.cell_contents, str)]
                skip = reasons[0] if reasons else "skipped by the OpInfo"
    return skip, tol


def _expected_failure(op, dtype):
    """The reason when the OpInfo expects test_compare_cpu to fail on an accelerator (for any device, or for
    cuda, whose reasons -- e.g. a different random stream -- hold for every non-CPU device); else None."""
    import unittest

    for info in list(op.decorators) + list(getattr(op, "skips", ())):
        if not hasattr(info, "is_active") or unittest.expectedFailure not in info.decorators:
            continue
        for dev in ("tpu", "cuda"):
            try:
                if info.is_active(TEST[0], TEST[1], dev, dtype, {}):
                    return f"the OpInfo expects test_compare_cpu to fail on {dev if dev == 'cuda' else 'any device'}"
            except Exception:
                pass
    return None


class _Recorder:
    """Records the ATen ops that reach a "tpu" kernel (after autograd and decompositions)."""

    def __init__(self):
        from torch.utils._python_dispatch import TorchDispatchMode

        seen = self.seen = set()

        class Mode(TorchDispatchMode):
            def __torch_dispatch__(self, func, types, args=(), kwargs=None):
                seen.add(f"{func._schema.name}.{func._overloadname}")
                return func(*args, **(kwargs or {}))

        self.mode = Mode()


def _run_unit(op, dtype_name, max_samples, backward, compiled=False):
    import torch

    import opinfo_props
    from torch.utils._pytree import tree_flatten, tree_map

    dtype = getattr(torch, dtype_name)
    skip, tol = _decorations(op, dtype)
    res = {"entry": entry_name(op), "dtype": dtype_name}
    # random values cannot match CPU's: checked by their properties instead (tools/opinfo_props.py)
    random_values = bool(skip) and "non-deterministic" in skip
    if random_values:
        res["random_reason"], skip = skip, None
    if skip:
        res.update(fwd="skip", fwd_msg=skip)
        return res
    atol, rtol = max(1e-3, tol[0]) if tol else 1e-3, max(1e-3, tol[1]) if tol else 1e-3
    res["tol"] = [atol, rtol]

    def to_tpu(x):
        if isinstance(x, torch.Tensor):
            return x.detach().to("tpu").requires_grad_(x.requires_grad)
        if isinstance(x, torch.device) or (isinstance(x, str) and x == "cpu"):
            return torch.device("tpu") if isinstance(x, torch.device) else "tpu"
        return x

    def to_cpu(x):
        return x.cpu() if isinstance(x, torch.Tensor) and x.device.type == "tpu" else x

    def samples(requires_grad):
        torch.manual_seed(0)
        out = []
        try:
            for i, s in enumerate(op.sample_inputs("cpu", dtype, requires_grad=requires_grad)):
                if i >= max_samples:
                    break
                out.append(s)
        except Exception as e:
            res["sample_error"] = _first_line(e)
        return out

    def device_args(s):
        args = tree_map(to_tpu, (s.input, s.args))
        kwargs = {k: (to_tpu(v) if k != "device" or v in ("cpu", torch.device("cpu")) else v)
                  for k, v in s.kwargs.items()}
        return args[0], args[1], tree_map(to_tpu, kwargs)

    def check(got, want):
        """Floating and complex results within (atol, rtol); integer and bool results, and everything else, exact."""
        got, gspec = tree_flatten(tree_map(to_cpu, got))
        want, wspec = tree_flatten(want)
        if gspec != wspec:
            raise AssertionError(f"result structure differs: {gspec} vs {wspec}")
        for g, w in zip(got, want):
            if isinstance(w, str) or isinstance(g, str):
                if g != w:
                    raise AssertionError(f"{g!r} vs {w!r}")
                continue
            inexact = isinstance(w, torch.Tensor) and (w.dtype.is_floating_point or w.dtype.is_complex)
            exact = not (inexact or isinstance(w, (float, complex)))
            torch.testing.assert_close(g, w, atol=0 if exact else atol, rtol=0 if exact else rtol, equal_nan=True,
                                       check_device=False, check_stride=False, check_layout=False)

    if compiled:
        _compiled_forward(op, res, samples(False), device_args, check, random_values)
        if backward and res["fwd"] not in ("skip", "prop") and op.supports_autograd and dtype == torch.float32:
            _compiled_backward(op, res, samples(True), device_args, check)
        return res
    rec = _Recorder() if dtype == torch.float32 else None
    fwd = {"pass": 0, "fail": 0, "notimpl": 0, "cpu_error": 0}
    msg = None
    missing = set()
    for s in samples(False):
        if "device" not in s.kwargs and not any(isinstance(t, torch.Tensor) for t in tree_flatten(
                (s.input, s.args, s.kwargs))[0]):
            fwd["no_tpu_input"] = fwd.get("no_tpu_input", 0) + 1  # nothing would run on tpu
            continue
        try:
            torch.manual_seed(1)
            want = op(s.input, *s.args, **s.kwargs)
        except Exception:
            fwd["cpu_error"] += 1
            continue
        try:
            x, a, k = device_args(s)
            torch.manual_seed(1)
            with rec.mode if rec else contextlib.nullcontext():
                got = op(x, *a, **k)
            flat, _ = tree_flatten(got)
            if not any(isinstance(t, torch.Tensor) and t.device.type == "tpu" for t in flat) and any(
                    isinstance(t, torch.Tensor) for t in flat):
                raise AssertionError("the result is not on tpu")
            if random_values:
                torch.manual_seed(1)
                opinfo_props.check(res["entry"], s, got, op(x, *a, **k), want)
            else:
                # PyTorch's test_compare_cpu compares after output_process_fn_grad, which makes results that
                # are not unique (signs of singular vectors, ...) comparable.
                check(s.output_process_fn_grad(got), s.output_process_fn_grad(want))
            fwd["pass"] += 1
        except Exception as e:
            msg = _tally(fwd, missing, e, msg)
    res["fwd_counts"] = fwd
    res["missing"] = sorted(missing)
    if rec:
        res["aten"] = sorted(rec.seen)
    ran = fwd["pass"] + fwd["fail"] + fwd["notimpl"]
    if ran == 0:
        res.update(fwd="skip", fwd_msg=res.get("sample_error") or "no sample runs on CPU for this dtype")
        return res
    res["fwd"] = "fail" if fwd["fail"] else "notimpl" if fwd["notimpl"] else "prop" if random_values else "pass"
    if msg:
        res["fwd_msg"] = msg
    xfail = _expected_failure(op, dtype)
    if xfail and res["fwd"] == "fail":
        # run anyway: a pass counts as a pass; a failure PyTorch expects is listed with the skips
        res.update(fwd="skip", fwd_msg=f"expected failure: {xfail}; here: {msg}")
        return res
    if random_values or not (backward and op.supports_autograd and dtype == torch.float32):
        return res

    bwd = {"pass": 0, "fail": 0, "notimpl": 0, "cpu_error": 0}
    bmsg = None
    bwd_rec = _Recorder()
    for s in samples(True):
        try:
            inputs = [t for t in tree_flatten((s.input, s.args, s.kwargs))[0]
                      if isinstance(t, torch.Tensor) and t.requires_grad]
            torch.manual_seed(1)
            outs = [t for t in tree_flatten(s.output_process_fn_grad(op(s.input, *s.args, **s.kwargs)))[0]
                    if isinstance(t, torch.Tensor) and t.requires_grad]
            if not inputs or not outs:
                continue
            torch.manual_seed(2)
            gos = [torch.randn_like(t) for t in outs]
            want = torch.autograd.grad(outs, inputs, gos, allow_unused=True)
        except Exception:
            bwd["cpu_error"] += 1
            continue
        try:
            x, a, k = device_args(s)
            dev_inputs = [t for t in tree_flatten((x, a, k))[0] if isinstance(t, torch.Tensor) and t.requires_grad]
            torch.manual_seed(1)
            with bwd_rec.mode:
                douts = [t for t in tree_flatten(s.output_process_fn_grad(op(x, *a, **k)))[0]
                         if isinstance(t, torch.Tensor) and t.requires_grad]
                got = torch.autograd.grad(douts, dev_inputs, [g.to("tpu") for g in gos], allow_unused=True)
            check(got, want)
            bwd["pass"] += 1
        except Exception as e:
            bmsg = _tally(bwd, missing, e, bmsg)
    res["missing"] = sorted(missing)
    res["bwd_counts"] = bwd
    if bwd["pass"] + bwd["fail"] + bwd["notimpl"]:
        res["bwd"] = "fail" if bwd["fail"] else "notimpl" if bwd["notimpl"] else "pass"
        res["aten_bwd"] = sorted(bwd_rec.seen)
        if bmsg:
            res["bwd_msg"] = bmsg
    return res


# --compile: how a unit ends, worst first (eager_fail: every sample that fails compiled fails in eager tpu too)
# cpu_graph: the compiled results differ from CPU eager's as the same graph's do on CPU (backend="aot_eager"): the
# graph Dynamo makes computes something else (a decomposition that rounds low-precision intermediates); or the
# compiled call raises and so does the same function compiled with aot_eager on CPU
# excess_precision: they differ, but match CPU eager once compiled with torch.tpu.allow_excess_precision(False) (a
# fused bfloat16/float16 chain keeps its intermediates in float32 by default, as inductor's kernels do: README)
COMPILE_KINDS = ("mismatch", "error", "cpu_graph", "excess_precision", "eager_fail", "pass")


def _run_as(fn, run, backend, exact=False):
    """run(fn compiled with `backend`), on tpu with torch.tpu.allow_excess_precision(False) if exact; None if it
    raised."""
    import torch

    torch._dynamo.reset()
    was = torch.tpu.allow_excess_precision(False) if exact else None
    try:
        torch.manual_seed(1)
        return run(torch.compile(fn, backend=backend, dynamic=False))
    except Exception:
        return None
    finally:
        if exact:
            torch.tpu.allow_excess_precision(was)


def _within_one_ulp(got, ref):
    """Whether every floating tensor of `got` is within one unit in the last place (of its dtype) of `ref`'s, and
    every other tensor equal: a graph that computes in float32 and rounds to bfloat16 at its end gives the other
    neighbour where the two float32 results straddle a rounding tie (XLA's float32 arithmetic differs from CPU's
    in the last bit, e.g. a contracted multiply-add), while the tolerances of a bfloat16 OpInfo can be tighter
    than one ulp."""
    import torch
    from torch.utils._pytree import tree_flatten

    a, b = tree_flatten(got)[0], tree_flatten(ref)[0]
    if len(a) != len(b):
        return False
    for x, y in zip(a, b):
        if not isinstance(x, torch.Tensor) or not isinstance(y, torch.Tensor):
            if x != y:
                return False
            continue
        x = x.detach().cpu()
        if x.shape != y.shape or x.dtype != y.dtype:
            return False
        if not x.dtype.is_floating_point:
            if not torch.equal(x, y):
                return False
            continue
        xd, yd = x.double(), y.double()
        same = (xd == yd) | (xd.isnan() & yd.isnan())
        ulp = (torch.nextafter(y, torch.full_like(y, float("inf"))).double() - yd).abs()
        if not bool((same | ((xd - yd).abs() <= ulp)).all()):
            return False
    return True


def _explained(compare, got, want, low, on_cpu_graph, exact):
    """How a compiled result `got` that differs from CPU eager's `want` is explained: "cpu_graph" when it matches
    the same graph run on CPU (aot_eager), at the entry's tolerances or within one ulp of it (_within_one_ulp), for bfloat16/float16 also when compiled with allow_excess_precision(False);
    "excess_precision" when that exact compile matches `want`; else "mismatch" (a wrong answer)."""

    def matches(a, b):
        try:
            compare(a, b)
            return True
        except Exception:
            return False

    cpu_graph = on_cpu_graph()
    if cpu_graph is not None and (matches(got, cpu_graph) or _within_one_ulp(got, cpu_graph)):
        return "cpu_graph"
    strict = exact() if low else None
    if strict is not None and matches(strict, want):
        return "excess_precision"
    if strict is not None and cpu_graph is not None and matches(strict, cpu_graph):
        return "cpu_graph"
    return "mismatch"




def _strided_into(x):
    """(base, view): a view of x's values with a storage offset and, on its last dim, stride 2 in a larger
    tensor filled with 5s, on x's device: an in-place op on the view writes into part of base's storage."""
    import torch

    shape = tuple(x.shape)
    base = torch.full(shape[:-1] + (2 * shape[-1] + 1,) if shape else (2,), 5, dtype=x.dtype, device=x.device)
    view = base[..., 1::2] if shape else base[1]
    view.copy_(x.detach())
    return base, view


def _compiled_forward(op, res, samples, device_args, check, random_values):
    """--compile: each sample's call op(input, *args, **kwargs) compiled with torch.compile(backend="tpu",
    dynamic=False) after a fresh torch._dynamo.reset(), called twice on tpu copies of the sample (the first
    call captures the graph's plan, the second replays it); both results are compared with CPU's. Where the
    entry has an in-place variant (and its values are not random), the sample also runs it compiled on a
    strided, offset view of a larger tensor (_strided_into: the graph writes its input back into part of a
    storage), compared as the whole larger tensor. Each call also runs in eager tpu, so that a failure of the
    compiled call is told apart from one eager has too. A call fails as a mismatch (values differ: a wrong
    answer) or an error (it raised)."""
    import torch

    import opinfo_props
    from torch._dynamo.utils import counters
    from torch.utils._pytree import tree_flatten, tree_map

    low = res["dtype"] in ("bfloat16", "float16")
    inplace = None if random_values or is_foreach(op) else op.inplace_variant

    def call(x, *a, **k):
        return op(x, *a, **k)

    def call_inplace(x, *a, **k):
        return inplace(x, *a, **k)

    def on_tpu(got):
        flat, _ = tree_flatten(got)
        if not any(isinstance(t, torch.Tensor) and t.device.type == "tpu" for t in flat) and any(
                isinstance(t, torch.Tensor) for t in flat):
            raise AssertionError("the result is not on tpu")

    def variants(s):
        """(label, CPU run, tpu run given the function to call) per call of the sample."""
        # a copy made before the CPU run (an op that writes its input would change the CPU sample), from which
        # each tpu run takes its device copies
        kept = SimpleNamespace(**dict(zip(("input", "args", "kwargs"), tree_map(
            lambda t: t.detach().clone().requires_grad_(t.requires_grad) if isinstance(t, torch.Tensor) else t,
            (s.input, s.args, s.kwargs)))))

        def on_dev(f):
            x, a, k = device_args(kept)
            return f(x, *a, **k)

        def on_cpu(f):
            x, a, k = tree_map(lambda t: t.detach().clone() if isinstance(t, torch.Tensor) else t,
                               (s.input, s.args, s.kwargs))
            return f(x, *a, **k)

        yield "", on_cpu, on_dev, call, op
        if inplace is None or not isinstance(s.input, torch.Tensor):
            return

        def ip_cpu(f):
            base, view = _strided_into(s.input)
            f(view, *s.args, **s.kwargs)
            return base

        def ip_dev(f):
            x, a, k = device_args(s)
            base, view = _strided_into(x)
            f(view, *a, **k)
            return base

        yield "in-place ", ip_cpu, ip_dev, call_inplace, inplace

    def compare(s, got, again, want, inplace_call):
        on_tpu(got)
        if random_values:
            opinfo_props.check(res["entry"], s, got, again, want)
        elif inplace_call:
            check(got, want)
        else:
            check(s.output_process_fn_grad(got), s.output_process_fn_grad(want))

    n = {"pass": 0, "mismatch": 0, "error": 0, "eager_fail": 0, "cpu_graph": 0, "excess_precision": 0, "cpu_error": 0,
         "no_graph": 0}
    msgs = {}
    for i, s in enumerate(samples):
        if "device" not in s.kwargs and not any(isinstance(t, torch.Tensor) for t in tree_flatten(
                (s.input, s.args, s.kwargs))[0]):
            n["no_tpu_input"] = n.get("no_tpu_input", 0) + 1  # nothing would run on tpu
            continue
        for label, on_cpu, on_dev, compiled, eager in variants(s):
            try:
                torch.manual_seed(1)
                want = on_cpu(eager)
            except Exception:
                n["cpu_error"] += 1
                continue
            try:
                outs = []
                for _ in range(2):
                    torch.manual_seed(1)
                    outs.append(on_dev(eager))
                compare(s, outs[0], outs[1], want, bool(label))
                eager_ok = True
            except Exception:
                eager_ok = False
            torch._dynamo.reset()
            fn = torch.compile(compiled, backend="tpu", dynamic=False)
            kind, outs = None, []
            try:
                for _ in range(2):
                    torch.manual_seed(1)
                    outs.append(on_dev(fn))
            except Exception as e:
                inner = getattr(e, "inner_exception", None)  # BackendCompilerFailed: what the backend raised
                kind, m = "error", f"{('capture', 'replay')[len(outs)]}: {_first_line(e)}" + (
                    f" <- {_first_line(inner)}" if inner is not None else "")
                if _run_as(compiled, on_cpu, "aot_eager") is None:  # PyTorch's own: it raises on CPU too
                    kind = "cpu_graph"
            graphs = counters["stats"]["unique_graphs"]
            if kind is None:
                try:
                    compare(s, outs[0], outs[1], want, bool(label))
                    if not random_values:
                        compare(s, outs[1], outs[0], want, bool(label))
                except Exception as e:
                    kind, m = "mismatch", _first_line(e)
                    if not random_values:
                        kind = _explained(lambda got, w: compare(s, got, None, w, bool(label)), outs[0], want, low,
                                          lambda: _run_as(compiled, on_cpu, "aot_eager"),
                                          lambda: _run_as(compiled, on_dev, "tpu", exact=True))
            if kind is None:
                kind = "pass" if graphs else "no_graph"  # no graph: Dynamo ran it all eagerly, nothing compiled
            elif not eager_ok:
                kind = "eager_fail"
            n[kind] += 1
            if kind in ("mismatch", "error", "eager_fail", "cpu_graph", "excess_precision") and kind not in msgs:
                shapes = [tuple(t.shape) for t in tree_flatten((s.input, s.args))[0] if isinstance(t, torch.Tensor)]
                msgs[kind] = f"{label}sample {i} {shapes}: {m}"
    res["fwd_counts"] = n
    kind = next((k for k in COMPILE_KINDS if n[k]), None)
    if kind is None:
        res.update(fwd="skip", fwd_msg=res.get("sample_error") or (
            "no sample compiled a graph (Dynamo ran them eagerly)" if n["no_graph"] else
            "no sample runs on CPU for this dtype"))
        return res
    res["fwd"] = "prop" if kind == "pass" and random_values else kind
    if kind in msgs:
        res["fwd_msg"] = msgs[kind]
    return res


def _compiled_backward(op, res, samples, device_args, check):
    """--compile, float32: the gradients of every differentiable input, through AOTAutograd's backward graph of the
    compiled call (torch.autograd.grad outside it, twice: capture and replay), vs CPU eager's; classified as the
    forward is (eager tpu's gradients, and the function compiled with aot_eager on CPU, explain a failure)."""
    import torch

    from torch.utils._pytree import tree_flatten

    def call(x, *a, **k):
        return op(x, *a, **k)

    def grads(f, x, a, k, gos):
        inputs = [t for t in tree_flatten((x, a, k))[0] if isinstance(t, torch.Tensor) and t.requires_grad]
        torch.manual_seed(1)
        outs = [t for t in tree_flatten(s.output_process_fn_grad(f(x, *a, **k)))[0]
                if isinstance(t, torch.Tensor) and t.requires_grad]
        if gos is None:
            torch.manual_seed(2)
            gos = [torch.randn_like(t) for t in outs]
        return torch.autograd.grad(outs, inputs, [g.to(outs[0].device) for g in gos], allow_unused=True), gos

    def on_cpu(f):
        x, a, k = device_args(s)
        return grads(f, *tree_cpu((x, a, k)), gos)[0]

    def tree_cpu(t):
        from torch.utils._pytree import tree_map

        return tree_map(lambda v: v.detach().cpu().requires_grad_(v.requires_grad) if isinstance(v, torch.Tensor)
                        else torch.device("cpu") if isinstance(v, torch.device) else "cpu" if v == "tpu" else v, t)

    n = {"pass": 0, "mismatch": 0, "error": 0, "eager_fail": 0, "cpu_graph": 0, "cpu_error": 0, "no_graph": 0}
    msg = {}
    for i, s in enumerate(samples):
        try:
            inputs = [t for t in tree_flatten((s.input, s.args, s.kwargs))[0]
                      if isinstance(t, torch.Tensor) and t.requires_grad]
            if not inputs:
                continue
            want, gos = grads(op, s.input, s.args, s.kwargs, None)
        except Exception:
            n["cpu_error"] += 1
            continue
        try:
            check(grads(op, *device_args(s), gos)[0], want)
            eager_ok = True
        except Exception:
            eager_ok = False
        torch._dynamo.reset()
        fn = torch.compile(call, backend="tpu", dynamic=False)
        kind, got = None, []
        try:
            for _ in range(2):
                got.append(grads(fn, *device_args(s), gos)[0])
        except Exception as e:
            inner = getattr(e, "inner_exception", None)
            kind, m = "error", f"backward {('capture', 'replay')[len(got)]}: {_first_line(e)}" + (
                f" <- {_first_line(inner)}" if inner is not None else "")
            if _run_as(call, on_cpu, "aot_eager") is None:
                kind = "cpu_graph"
        if kind is None:
            try:
                for g in got:
                    check(g, want)
            except Exception as e:
                kind, m = "mismatch", "backward: " + _first_line(e)
                c = _run_as(call, on_cpu, "aot_eager")
                try:
                    if c is None:
                        raise AssertionError
                    check(got[0], c)
                    kind = "cpu_graph"
                except Exception:
                    pass
        kind = kind or "pass"
        if kind != "pass" and not eager_ok:
            kind = "eager_fail"
        n[kind] += 1
        if kind != "pass" and kind not in msg:
            shapes = [tuple(t.shape) for t in tree_flatten((s.input, s.args))[0] if isinstance(t, torch.Tensor)]
            msg[kind] = f"sample {i} {shapes}: {m}"
    res["bwd_counts"] = n
    kind = next((k for k in COMPILE_KINDS if n.get(k)), None)
    if kind:
        res["bwd"] = kind
        if kind in msg:
            res["bwd_msg"] = msg[kind]


def worker(args):
    """Reads unit ids ("index dtype") from stdin, prints one JSON line per unit."""
    import warnings

    warnings.simplefilter("ignore")
    import torch

    torch.set_default_dtype(torch.float32)
    for line in sys.stdin:
        i, dtype_name = line.split()
        t0 = time.time()
        op = entries()[int(i)]
        try:
            res = _run_unit(ForeachUnit(op) if is_foreach(op) else op, dtype_name, args.max_samples,
                            not args.no_backward, args.compile)
        except Exception as e:  # a bug in the harness for this entry: recorded, not fatal
            res = {"entry": entry_name(op), "dtype": dtype_name, "fwd": "fail",
                   "fwd_msg": "harness: " + _first_line(e)}
        res["seconds"] = round(time.time() - t0, 2)
        print(json.dumps(res), flush=True)


# ---------------------------------------------------------------- driver side


def units(args, foreach=True):
    import torch

    want_ops = set(args.ops.split(",")) if args.ops else None
    want_dtypes = args.dtypes.split(",") if args.dtypes else DTYPE_NAMES
    out = []
    for i, op in enumerate(entries()):
        if want_ops and op.name not in want_ops and entry_name(op) not in want_ops:
            continue
        if is_foreach(op) and not foreach:
            continue
        supported = op.supported_dtypes("cpu")
        for d in want_dtypes:
            if getattr(torch, d) in supported:
                out.append((i, d, entry_name(op)))
    return out


class _Worker:
    def __init__(self, args):
        cmd = [sys.executable, os.path.abspath(__file__), "--worker", "--max-samples", str(args.max_samples)]
        if args.no_backward:
            cmd.append("--no-backward")
        if args.compile:
            cmd.append("--compile")
        env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3")
        self.p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                  text=True, bufsize=1, env=env)
        self.unit = None
        self.since = 0.0

    def give(self, unit):
        self.unit, self.since = unit, time.time()
        self.p.stdin.write(f"{unit[0]} {unit[1]}\n")
        self.p.stdin.flush()

    def stop(self):
        if self.p.poll() is None:
            self.p.kill()
        self.p.wait()


def drive(args):
    todo = units(args)
    if args.skip_done:
        done = {(r["entry"], r["dtype"]) for r in map(json.loads, open(args.skip_done))}
        todo = [u for u in todo if (u[2], u[1]) not in done]
    total = len(todo)
    todo.reverse()
    results = []
    log = open(args.json, "w") if args.json else None
    workers = [_Worker(args) for _ in range(min(args.jobs, total) or 1)]
    t0 = time.time()

    def record(res):
        results.append(res)
        if log:
            log.write(json.dumps(res) + "\n")
            log.flush()
        if args.verbose or len(results) % 50 == 0:
            print(f"[{len(results)}/{total} {time.time() - t0:.0f}s] {res['entry']} {res['dtype']}: {res.get('fwd')}"
                  f" {res.get('bwd', '')} {res.get('fwd_msg', '')[:100]}", file=sys.stderr, flush=True)

    for w in workers:
        if todo:
            w.give(todo.pop())
    while any(w.unit for w in workers):
        if args.time_limit and time.time() - t0 > args.time_limit:
            for w in workers:
                w.stop()
            break
        busy = [w for w in workers if w.unit]
        ready, _, _ = select.select([w.p.stdout for w in busy], [], [], 5.0)
        for w in busy:
            line = None
            if w.p.stdout in ready:
                line = w.p.stdout.readline()
            elif time.time() - w.since < args.entry_timeout:
                continue
            unit = w.unit
            if line:
                record(json.loads(line))
            else:  # died (crash) or hung: record and replace the worker
                died = w.p.poll() is not None
                w.stop()
                rc = w.p.returncode
                record({"entry": unit[2], "dtype": unit[1], "fwd": ("crash" if died else "hang") if args.compile
                        else "fail",
                        "fwd_msg": f"worker process crashed (exit status {rc})" if died
                        else f"timed out after {args.entry_timeout}s", "crash": died})
                workers[workers.index(w)] = w = _Worker(args)
            w.unit = None
            if todo:
                w.give(todo.pop())
    for w in workers:
        w.stop()
    elapsed = time.time() - t0
    not_run = [(u[2], u[1]) for u in reversed(todo)]
    if args.out:
        text = (report_compile if args.compile else report)(results, total, not_run, elapsed, args)
        if args.out == "-":
            print(text)
        else:
            with open(args.out, "w") as f:
                f.write(text)
    return results


def _packets(names):
    # an overload packet is the op without its overload name: aten::add for add.Tensor and add.Scalar
    return {n.rsplit(".", 1)[0] for n in names}


def summarize(results):
    fwd = [r for r in results if r.get("fwd") != "skip" and "random_reason" not in r]
    rnd = [r for r in results if r.get("fwd") != "skip" and "random_reason" in r]
    f32 = [r for r in fwd if r["dtype"] == "float32"]
    aten_pass, aten_prop, aten_bwd = set(), set(), set()
    for r in f32:
        if r["fwd"] == "pass":
            aten_pass.update(r.get("aten", ()))
        if r.get("bwd") == "pass":
            aten_bwd.update(r.get("aten_bwd", ()))
    for r in rnd:
        if r["fwd"] == "prop" and r["dtype"] == "float32":
            aten_prop.update(r.get("aten", ()))
    bwd = [r for r in results if "bwd" in r]
    missing = {}
    for r in results:
        for m in r.get("missing", ()):
            missing.setdefault(m, set()).add(r["entry"])
    return {
        "units": len(results),
        "skipped": sum(r.get("fwd") == "skip" for r in results),
        "fwd_run": len(fwd),
        "fwd_pass": sum(r["fwd"] == "pass" for r in fwd),
        "fwd_fail": sum(r["fwd"] == "fail" for r in fwd),
        "fwd_notimpl": sum(r["fwd"] == "notimpl" for r in fwd),
        "f32_run": len(f32),
        "f32_pass": sum(r["fwd"] == "pass" for r in f32),
        "aten_f32_pass": len(aten_pass),
        "aten_f32_packets": len(_packets(aten_pass)),
        "aten_f32_pass_names": sorted(aten_pass),
        "rnd_run": len(rnd),
        "rnd_pass": sum(r["fwd"] == "prop" for r in rnd),
        "aten_prop_extra_names": sorted(_packets(aten_prop) - _packets(aten_pass)),
        "aten_fwd_bwd_packets": len(_packets(aten_pass | aten_bwd)),
        "aten_bwd_extra_names": sorted(_packets(aten_bwd) - _packets(aten_pass)),
        "bwd_logged": sum("aten_bwd" in r for r in bwd),
        "bwd_run": len(bwd),
        "bwd_pass": sum(r["bwd"] == "pass" for r in bwd),
        "bwd_fail": sum(r["bwd"] == "fail" for r in bwd),
        "bwd_notimpl": sum(r["bwd"] == "notimpl" for r in bwd),
        "crashes": sorted({(r["entry"], r["dtype"]) for r in results if r.get("crash")}),
        "missing": sorted(missing.items(), key=lambda kv: (-len(kv[1]), kv[0])),
    }


def _pct(a, b):
    return f"{100.0 * a / b:.1f}%" if b else "n/a"


def _split(results, not_run):
    """(label, results, not_run) for op_db, the foreach databases and both; only op_db when no foreach unit is in
    the run (an older log, or --ops naming op_db entries only)."""
    fe = foreach_entry_names()
    groups = [("op_db", [r for r in results if r["entry"] not in fe], [u for u in not_run if u[0] not in fe])]
    fe_res, fe_not = [r for r in results if r["entry"] in fe], [u for u in not_run if u[0] in fe]
    if fe_res or fe_not:
        groups += [("foreach databases", fe_res, fe_not), ("op_db + foreach databases", results, not_run)]
    return groups


def _totals(groups):
    """The totals table: one column per group of entries."""
    ss = [(summarize(res), len(res) + len(nr)) for _, res, nr in groups]

    def row(label, f):
        return f"| {label} | " + " | ".join(f(s, total) for s, total in ss) + " |"

    def frac(a, b):
        return lambda s, _: f"{s[a]} / {s[b]} ({_pct(s[a], s[b])})"

    lines = ["| measure | " + " | ".join(g[0] for g in groups) + " |", "| --- |" + " --- |" * len(groups),
             row("(entry, dtype) units", lambda s, total: f"{total} ({s['units']} run)")]
    lines += [
        row("skipped (with reason)", lambda s, _: str(s["skipped"])),
        row("forward pass", frac("fwd_pass", "fwd_run")),
        row("forward fail", lambda s, _: str(s["fwd_fail"])),
        row("forward not implemented", lambda s, _: str(s["fwd_notimpl"])),
        row("float32 entries passing forward", frac("f32_pass", "f32_run")),
        row("distinct ATen ops (overload packets) run by passing float32 forward entries",
            lambda s, _: f"**{s['aten_f32_packets']}**"),
        row("distinct ATen overloads run by passing float32 forward entries", lambda s, _: str(s["aten_f32_pass"])),
        row("float32 backward pass", frac("bwd_pass", "bwd_run")),
        row("float32 backward fail / not implemented", lambda s, _: f"{s['bwd_fail']} / {s['bwd_notimpl']}"),
        row("distinct ATen ops (overload packets) run by passing float32 forward or backward entries",
            lambda s, _: f"{s['aten_fwd_bwd_packets']} (backward ops recorded for {s['bwd_logged']} of "
                         f"{s['bwd_run']} backward units)"),
        row("random-valued (entry, dtype) units passing the property check (not counted above)",
            frac("rnd_pass", "rnd_run")),
        row("further ATen ops run only by passing float32 random-valued entries (not counted above)",
            lambda s, _: str(len(s["aten_prop_extra_names"]))),
        row("worker crashes (process died)", lambda s, _: str(len(s["crashes"]))),
    ]
    return lines


def _per_entry(results, cell):
    lines = ["| entry | " + " | ".join(DTYPE_NAMES) + " | backward f32 | first failure |",
             "| --- | " + " | ".join("---" for _ in DTYPE_NAMES) + " | --- | --- |"]
    by_entry = {}
    for r in results:
        by_entry.setdefault(r["entry"], {})[r["dtype"]] = r
    for entry in sorted(by_entry):
        row = by_entry[entry]
        cells = [cell.get(row[d].get("fwd"), "?") if d in row else "" for d in DTYPE_NAMES]
        f32 = row.get("float32", {})
        bwd = cell.get(f32.get("bwd"), "") if f32 else ""
        first = next((f"{d}: {row[d]['fwd_msg']}" for d in DTYPE_NAMES
                      if d in row and row[d].get("fwd") in ("fail", "notimpl") and row[d].get("fwd_msg")), "")
        if not first and f32.get("bwd") in ("fail", "notimpl"):
            first = "backward: " + f32.get("bwd_msg", "")
        first = first.replace("|", "\\|").replace("\n", " ")[:160]
        lines.append(f"| {entry} | " + " | ".join(cells) + f" | {bwd} | {first} |")
    return lines


def report(results, total, not_run, elapsed, args):
    s = summarize(results)
    groups = _split(results, not_run)
    with_foreach = len(groups) > 1
    cell = {"pass": "pass", "fail": "FAIL", "notimpl": "n/i", "skip": "skip", "prop": "prop"}
    scope = ("Every entry of PyTorch's `op_db` and of its foreach databases (`" + "`, `".join(FOREACH_DBS) +
             "`, the ForeachFuncInfos PyTorch's test_foreach.py runs)" if with_foreach else
             "Every entry of PyTorch's `op_db` (the foreach databases are not part of this report)")
    lines = [
        "# ATen op coverage (OpInfo)",
        "",
        "Generated by `make opinfo` (`python tools/opinfo.py`); do not edit by hand.",
        f"{scope} and every dtype it supports on CPU among "
        f"{', '.join(DTYPE_NAMES)}: its sample inputs (at most {args.max_samples} per entry) run on \"tpu\" and "
        "on CPU from the same fresh CPU samples, compared with `torch.testing.assert_close` at the tolerances "
        "of PyTorch's device-vs-CPU test (`TestCommon.test_compare_cpu`: results passed through the sample's "
        "`output_process_fn_grad` as that test does; atol = rtol = 1e-3 for floating results, "
        "or the OpInfo's `toleranceOverride` for that test if looser; exact for integer and bool results). Backward (float32, "
        "where the OpInfo supports autograd) compares the gradients of all differentiable inputs.",
        "",
    ]
    if with_foreach:
        lines += [
            "Foreach entries (named as their ForeachFuncInfo is, `_foreach_<op>`; listed in their own tables "
            "below) run, from each sample, the out-of-place op and the in-place variant (`_foreach_<op>_`, on "
            "clones of the input list) where each exists; a sample passes only if both results match CPU's, and "
            "an in-place call that CPU rejects (a float result into an integer list) must raise the same "
            "exception type on tpu. Their ATen ops are those of both calls (and the harness's `clone` of the input "
            "list). In-place variants are overload packets of their own (`aten::_foreach_add_`), as ATen defines "
            "them. ForeachFuncInfo declares every "
            "dtype; a dtype whose samples all raise on CPU is a skip. test_foreach's CUDA fast-path "
            "expectations are not checked. Totals are given for `op_db` alone, the foreach databases alone, "
            "and both: the `op_db` column is the measure without foreach entries.",
            "",
        ]
    lines += [
        "pass = every sample matches; FAIL = a wrong result or an error other than not-implemented (first "
        "message shown); n/i = NotImplementedError (an ATen op with no lowering); skip = the OpInfo skips "
        "test_compare_cpu for it (its reason is listed), or expects it to fail on an accelerator and it failed "
        "here too (an expected failure that passes counts as a pass), or no sample runs on CPU. randn and "
        "randint are counted as non-deterministic like their *_like siblings.",
        "",
        "prop = an entry whose values are random (the OpInfo skips test_compare_cpu as non-deterministic): "
        "its samples ran on tpu and the results have CPU's structure, shapes and dtypes, are reproducible under "
        "the same seed, finite where CPU's are, and lie in the distribution's support "
        "(tools/opinfo_props.py). These are counted apart, not as passes.",
        "",
        "Known harness limits: samples are made on CPU and every tensor in them is moved to tpu, so an op that "
        "requires a CPU tensor argument (tensor_split's indices tensor) fails here for that reason; samples "
        "with no tensor and no device argument cannot run on tpu and are not counted.",
        "",
        f"Run: torch {__import__('torch').__version__}, {elapsed / 60:.1f} min with {args.jobs} worker(s), "
        f"{time.strftime('%Y-%m-%d')}.",
        "",
    ]
    if not_run:
        lines += [f"**Partial run**: {len(not_run)} of {total} (entry, dtype) units did not run within the time "
                  "limit; they are not counted below.", ""]
    lines += ["## Totals", ""] + _totals(groups) + [""]
    if s["crashes"]:
        lines += ["Crashed: " + ", ".join(f"{e} ({d})" for e, d in s["crashes"]), ""]
    lines += ["## Missing ATen ops, by entries blocked", "",
              "| ATen op | entries | e.g. |", "| --- | --- | --- |"]
    for name, blocked in s["missing"]:
        lines.append(f"| `{name}` | {len(blocked)} | {', '.join(sorted(blocked)[:3])} |")
    lines += ["", "## Per entry" + (": op_db" if with_foreach else ""), ""] + _per_entry(groups[0][1], cell)
    if with_foreach:
        lines += ["", "## Per entry: foreach databases (out-of-place and in-place variant)", ""]
        lines += _per_entry(groups[1][1], cell)
    skips = [(r["entry"], r["dtype"], r.get("fwd_msg", "")) for r in results if r.get("fwd") == "skip"]
    lines += ["", f"## Skips ({len(skips)})", ""]
    for e, d, why in sorted(skips):
        lines.append(f"- {e} ({d}): {why}")
    if not_run:
        lines += ["", f"## Not run ({len(not_run)})", "", ", ".join(f"{e} ({d})" for e, d in not_run)]
    op_names = summarize(groups[0][1])["aten_f32_pass_names"]
    lines += ["", "## ATen ops run by passing float32 forward entries" + (" of op_db" if with_foreach else ""), "",
              ", ".join(f"`{n}`" for n in op_names), ""]
    if with_foreach:
        extra = sorted(_packets(s["aten_f32_pass_names"]) - _packets(op_names))
        lines += ["## Further ATen ops (packets) run only by passing float32 forward foreach entries", "",
                  ", ".join(f"`{n}`" for n in extra), ""]
    lines += ["## Further ATen ops (packets) run only by passing float32 backward entries", "",
              ", ".join(f"`{n}`" for n in s["aten_bwd_extra_names"]), ""]
    lines += ["## Further ATen ops (packets) run only by float32 random-valued entries passing the property check",
              "", ", ".join(f"`{n}`" for n in s["aten_prop_extra_names"]), ""]
    return "\n".join(lines)


def report_compile(results, total, not_run, elapsed, args):
    """The --compile report: per dtype, how units end under torch.compile(backend="tpu"); every wrong answer,
    error, crash and hang listed with its first message."""
    kinds = ("pass", "prop", "mismatch", "error", "crash", "hang", "cpu_graph", "excess_precision", "eager_fail",
             "skip")
    label = {"pass": "pass", "prop": "prop (random values)", "mismatch": "**MISMATCH (wrong answer)**",
             "error": "error (raised; eager tpu passes)", "crash": "crash (process died)", "hang": "hang",
             "cpu_graph": "differs or raises as the same function compiled on CPU (aot_eager) does",
             "excess_precision": "differs, matches with allow_excess_precision(False)",
             "eager_fail": "eager-also-fails", "skip": "skip"}
    dtypes = [d for d in DTYPE_NAMES if any(r["dtype"] == d for r in results)]

    def esc(m):
        return (m or "").replace("|", "\\|").replace("\n", " ")[:240]

    lines = [
        "# ATen op coverage under torch.compile (OpInfo)",
        "",
        "Generated by `make opinfo-compile` (`python tools/opinfo.py --compile`); do not edit by hand. Every entry "
        "of PyTorch's `op_db` (and of its foreach databases when run) and every dtype it supports on CPU among "
        f"{', '.join(dtypes) or ', '.join(DTYPE_NAMES)}: each of its sample inputs (at most {args.max_samples} per "
        "entry) is called as `op(input, *args, **kwargs)` inside a function compiled with "
        "`torch.compile(fn, backend=\"tpu\", dynamic=False)` (after `torch._dynamo.reset()`), twice on tpu "
        "copies of the sample (the first call captures the plan, the second replays it), and both results are "
        "compared with CPU eager at the tolerances of the eager report ([op_coverage.md](op_coverage.md)). The same "
        "sample runs in eager tpu too. Backward in float32 (unless --no-backward): see its section.",
        "",
        "pass = every sample matches (and at least one compiled a graph); MISMATCH = a compiled result differs "
        "from CPU's where eager tpu matches (a wrong answer) and the same compiled function on CPU (`backend=\"aot_eager\"`) does not give the tpu result; differs or raises as on CPU = the compiled result differs from CPU eager but matches the same graph run on CPU by `aot_eager`, at the entry's tolerances or within one unit in the last place of its dtype (a float32 result rounded to bfloat16 where CPU's and XLA's float32 values straddle a tie) (Dynamo's graph computes something else, e.g. a decomposition rounding bfloat16 intermediates), or the compiled call raises and so does the same function compiled with `aot_eager` on CPU (a limit of PyTorch's tracing); matches with allow_excess_precision(False) = a bfloat16/float16 result that differs from CPU's but matches it when compiled with `torch.tpu.allow_excess_precision(False)` (by default a fused chain keeps its intermediates in float32, as inductor's kernels do: see the README); error = a compiled call raised where eager tpu "
        "passes; eager-also-fails = every failing sample fails in eager tpu as well; crash / hang = the worker "
        "died / timed out; skip = the OpInfo skips test_compare_cpu, or no sample ran on CPU, or Dynamo compiled "
        "no graph for any sample; prop = random values checked by their properties (tools/opinfo_props.py).",
        "",
        f"Run: torch {__import__('torch').__version__}, {elapsed / 60:.1f} min with {args.jobs} worker(s), "
        f"{time.strftime('%Y-%m-%d')}.",
        "",
    ]
    if not_run:
        lines += [f"**Partial run**: {len(not_run)} of {total} (entry, dtype) units did not run within the time "
                  "limit; they are not counted below.", ""]
    lines += ["## Totals", "", "| units | " + " | ".join(dtypes) + " |", "| --- |" + " --- |" * len(dtypes)]
    for k in kinds:
        lines.append(f"| {label[k]} | " + " | ".join(
            str(sum(r["dtype"] == d and r.get("fwd") == k for r in results)) for d in dtypes) + " |")
    lines.append("| total run | " + " | ".join(str(sum(r["dtype"] == d for r in results)) for d in dtypes) + " |")
    for k in ("mismatch", "error", "crash", "hang", "cpu_graph", "excess_precision", "eager_fail"):
        rs = sorted((r for r in results if r.get("fwd") == k), key=lambda r: (r["entry"], r["dtype"]))
        lines += ["", f"## {label[k]}: {len(rs)}", ""]
        if rs:
            lines += ["| entry | dtype | first message |", "| --- | --- | --- |"]
            lines += [f"| {r['entry']} | {r['dtype']} | {esc(r.get('fwd_msg'))} |" for r in rs]
    bwd = [r for r in results if "bwd" in r]
    if bwd:
        lines += ["", "## Backward (float32)", "",
                  "The gradients of every differentiable input through AOTAutograd's backward graph of the compiled "
                  "call (`torch.autograd.grad` outside it, captured then replayed) vs CPU eager's, where the forward "
                  "passed. A crash while tracing the backward kills the unit: it is counted as a forward crash above.",
                  "", "| backward | float32 |", "| --- | --- |"]
        lines += [f"| {label[k]} | {sum(r['bwd'] == k for r in bwd)} |" for k in COMPILE_KINDS]
        lines.append(f"| total run | {len(bwd)} |")
        bad = sorted((r for r in bwd if r["bwd"] != "pass"), key=lambda r: r["entry"])
        if bad:
            lines += ["", "| entry | backward | first message |", "| --- | --- | --- |"]
            lines += [f"| {r['entry']} | {label[r['bwd']]} | {esc(r.get('bwd_msg'))} |" for r in bad]
    skips = sorted((r["entry"], r["dtype"], r.get("fwd_msg", "")) for r in results if r.get("fwd") == "skip")
    lines += ["", f"## Skips ({len(skips)})", ""] + [f"- {e} ({d}): {why}" for e, d, why in skips]
    if not_run:
        lines += ["", f"## Not run ({len(not_run)})", "", ", ".join(f"{e} ({d})" for e, d in not_run)]
    return "\n".join(lines) + "\n"


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--ops", help="comma-separated entry names, of op_db or the foreach databases (default: all)")
    p.add_argument("--dtypes", help=f"comma-separated, among {','.join(DTYPE_NAMES)}")
    p.add_argument("--jobs", type=int, default=2, help="worker processes")
    p.add_argument("--max-samples", type=int, help="sample inputs per entry at most (default 1000; 4 with --compile)")
    p.add_argument("--no-backward", action="store_true")
    p.add_argument("--entry-timeout", type=float, default=300.0, help="seconds before a unit counts as hung")
    p.add_argument("--time-limit", type=float, default=0.0, help="stop after this many seconds (partial report)")
    p.add_argument("--out", help="report path, '-' for stdout, '' for none (default docs/op_coverage.md; "
                                 "docs/op_coverage_compile.md with --compile)")
    p.add_argument("--json", help="per-unit results, JSON lines (default build/opinfo.jsonl; "
                                  "build/opinfo_compile.jsonl with --compile)")
    p.add_argument("--compile", action="store_true",
                   help="forward under torch.compile(backend=\"tpu\", dynamic=False) vs CPU, beside eager tpu")
    p.add_argument("-v", "--verbose", action="store_true")
    p.add_argument("--skip-done", metavar="JSONL", help="resume: skip the units this earlier log has")
    p.add_argument("--merge", nargs="+", metavar="JSONL",
                   help="no run: write the report from these logs (a later log's unit replaces an earlier one's)")
    p.add_argument("--elapsed", type=float, default=0.0, help="with --merge: the runs' wall time in seconds")
    args = p.parse_args()
    if args.max_samples is None:
        args.max_samples = 4 if args.compile else 1000
    if args.out is None:
        args.out = "docs/op_coverage_compile.md" if args.compile else "docs/op_coverage.md"
    if args.json is None:
        args.json = "build/opinfo_compile.jsonl" if args.compile else "build/opinfo.jsonl"
    if args.worker:
        worker(args)
        return
    if args.merge:
        merged = {}
        for path in args.merge:
            for line in open(path):
                r = json.loads(line)
                merged[(r["entry"], r["dtype"])] = r
        # logs from before the foreach databases joined the harness: report op_db alone
        with_foreach = any(e in foreach_entry_names() for e, _ in merged)
        todo = units(args, foreach=with_foreach)
        results = [merged[(u[2], u[1])] for u in todo if (u[2], u[1]) in merged]
        not_run = [(u[2], u[1]) for u in todo if (u[2], u[1]) not in merged]
        with open(args.out, "w") as f:
            f.write((report_compile if args.compile else report)(results, len(todo), not_run, args.elapsed, args))
        return
    if args.json:
        os.makedirs(os.path.dirname(args.json) or ".", exist_ok=True)
    drive(args)


if __name__ == "__main__":
    main()
