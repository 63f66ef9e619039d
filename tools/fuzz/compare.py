"""CPU vs tpu outcome of one call: the first difference found, by kind.

Kinds: ok; refused (tpu raised on a dtype it refuses); exc_type (both raised,
different types); cpu_raised (CPU raised, tpu computed: a silent answer where
PyTorch refuses; extension when CPU merely lacks the dtype's kernel); tpu_raised (tpu raised, CPU computed); no_raise (a CPU
non-scalar beside a tpu tensor must raise); dtype; shape; value; stride; device.
Tolerances are OpInfo's (torch.testing.assert_close defaults per dtype); ops
that accumulate (reductions, matmul, cumulative) widen atol by the usual error
bound rtol * sqrt(terms) * max|input|, nothing else.
"""
import math

import torch

TOL = {torch.float16: (1e-3, 1e-5), torch.bfloat16: (1.6e-2, 1e-5), torch.float32: (1.3e-6, 1e-5),
       torch.float64: (1e-7, 1e-7), torch.complex64: (1.3e-6, 1e-5), torch.complex128: (1e-7, 1e-7)}


def _nod(t):
    """Dense and non-overlapping: the case where PyTorch defines the result's strides."""
    if not isinstance(t, torch.Tensor) or t.numel() == 0:
        return False
    dims = sorted((st, sz) for st, sz in zip(t.stride(), t.size()) if sz != 1)
    expect = 1
    for st, sz in dims:
        if st != expect:
            return False
        expect *= sz
    return True


def _maxabs(args):
    m = 0.0
    for a in args:
        ts = a if isinstance(a, (list, tuple)) else [a]
        for t in ts:
            if isinstance(t, torch.Tensor) and t.numel() and (t.is_floating_point() or t.is_complex()):
                v = t.detach().cpu().abs().double()
                v = v[torch.isfinite(v)]
                if v.numel():
                    m = max(m, float(v.max()))
    return m


def _tensors(args):
    for a in args:
        for t in (a if isinstance(a, (list, tuple)) else [a]):
            if isinstance(t, torch.Tensor):
                yield t


def _values(a, b, spec, host_args, which):
    """None if equal within tolerance, else a short description."""
    if spec.get("novalues"):
        return None
    if spec.get("nondet") or (spec.get("ties") and a.dtype == torch.int64 and which != 0):
        return None
    if spec.get("ties") and a.dtype == torch.int64 and spec["fn"] in ("torch.argsort", "Tensor.argsort"):
        return None
    if a.numel() == 0:
        return None
    if a.dtype == torch.bool or not (a.is_floating_point() or a.is_complex()):
        if torch.equal(a, b):
            return None
        bad = (a != b).nonzero()[0].tolist()
        return f"at {bad}: cpu {a[tuple(bad)].item()} tpu {b[tuple(bad)].item()}"
    rtol, atol = TOL[a.dtype]
    if spec.get("form") == "out":  # computed in the inputs' type, then cast into out's: that type's rounding
        for t in _tensors(host_args):
            if t.dtype in TOL:
                rtol, atol = max(rtol, TOL[t.dtype][0]), max(atol, TOL[t.dtype][1])
    if spec.get("acc"):
        atol = atol + rtol * math.sqrt(spec["acc"]) * _maxabs(host_args)
    parts = [(a.real, b.real), (a.imag, b.imag)] if a.is_complex() else [(a, b)]
    for x, y in parts:
        x, y = x.double(), y.double()
        nan = torch.isnan(x) != torch.isnan(y)
        fin = torch.isfinite(x) & torch.isfinite(y)
        inf = (~torch.isnan(x)) & (~torch.isnan(y)) & (~fin) & (x != y)
        close = (x - y).abs() <= atol + rtol * y.abs()
        bad = nan | inf | (fin & ~close)
        if bad.any():
            i = tuple(bad.nonzero()[0].tolist())
            return f"at {list(i)}: cpu {a[i].item()} tpu {b[i].item()} ({int(bad.sum())} of {a.numel()})"
    return None


def _number_same(x, y):
    """Python numbers (item(), tolist()) equal, NaN equal to NaN, floats within float32's tolerance."""
    same = x == y or (isinstance(x, float) and isinstance(y, float) and math.isnan(x) and math.isnan(y))
    if isinstance(x, float) and isinstance(y, float) and not same and math.isfinite(x) and math.isfinite(y):
        same = abs(x - y) <= 1e-5 + 1.3e-6 * abs(x)
    return same


def _tree(a, b, spec, host_args, path, which=0):
    if a[0] != b[0]:
        return "value", f"{path}: cpu {a[0]} tpu {b[0]}"
    if a[0] == "V":
        x, y = a[1], b[1]
        if isinstance(x, complex) and isinstance(y, complex):  # part by part: nanj == nanj
            same = _number_same(x.real, y.real) and _number_same(x.imag, y.imag)
        else:
            same = _number_same(x, y)
        if type(x) is not type(y):
            return "dtype", f"{path}: cpu {type(x).__name__} {x!r} tpu {type(y).__name__} {y!r}"
        return None if same else ("value", f"{path}: cpu {x!r} tpu {y!r}")
    if a[0] == "L":
        if len(a[1]) != len(b[1]):
            return "shape", f"{path}: cpu {len(a[1])} items tpu {len(b[1])}"
        for j, (x, y) in enumerate(zip(a[1], b[1])):
            r = _tree(x, y, spec, host_args, f"{path}[{j}]", j)
            if r:
                return r
        return None
    _, x, dev_a, st_a = a
    _, y, dev_b, st_b = b
    if x.dtype != y.dtype:
        return "dtype", f"{path}: cpu {x.dtype} tpu {y.dtype}"
    if x.shape != y.shape:
        return "shape", f"{path}: cpu {tuple(x.shape)} tpu {tuple(y.shape)}"
    v = _values(x, y, spec, host_args, which)
    if v:
        return "value", f"{path}: {v}"
    if dev_b == "cpu" and spec.get("expect_tpu", True):
        return "device", f"{path}: the tpu run's result is on cpu"
    if spec.get("strides") and all(_nod(t) for t in host_args if isinstance(t, torch.Tensor)) and st_a and st_b:
        sa = [s for s, n in zip(st_a, x.shape) if n > 1]
        sb = [s for s, n in zip(st_b, x.shape) if n > 1]
        if sa != sb and x.numel() > 1:
            return "stride", f"{path}: cpu {st_a} tpu {st_b}"
    return None


def compare(spec, cpu, tpu):
    """cpu, tpu: execute.run outcomes. Returns (kind, detail)."""
    if cpu[0] == "raise" and tpu[0] == "raise":
        if cpu[1] == tpu[1]:
            return "ok", ""
        return "exc_type", f"cpu {cpu[1]}: {cpu[2]} | tpu {tpu[1]}: {tpu[2]}"
    if tpu[0] == "raise":
        if spec.get("tpu_must_raise") or spec.get("tpu_may_raise"):
            return ("refused" if spec.get("tpu_may_raise") else "ok"), f"tpu {tpu[1]}: {tpu[2]}"
        return "tpu_raised", f"tpu {tpu[1]}: {tpu[2]}"
    if spec.get("tpu_must_raise"):
        return "no_raise", "a CPU tensor of more than 0 dims beside tpu tensors was accepted"
    if cpu[0] == "raise":
        if cpu[1] == "NotImplementedError" and "not implemented for" in cpu[2]:
            return "extension", f"cpu {cpu[1]}: {cpu[2]}"  # a dtype CPU lacks a kernel for: not a wrong answer
        return "cpu_raised", f"cpu {cpu[1]}: {cpu[2]}"
    host_args = cpu[2]
    for key in ("result", "out", "self"):
        if key in cpu[1]:
            r = _tree(cpu[1][key], tpu[1][key], spec, host_args, key)
            if r:
                return r
    if cpu[1].get("same") != tpu[1].get("same"):
        return "value", f"in-place call returned self on cpu: {cpu[1].get('same')}, tpu: {tpu[1].get('same')}"
    return "ok", ""
