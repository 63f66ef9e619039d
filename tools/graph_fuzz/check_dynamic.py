"""One shape-polymorphic program (dynamic.py) compiled once and called at each
of its lengths on tpu, every call compared with CPU eager at that length by
check.py's rule (perturbation spread, float64 reference).

How the dynamic dim reaches Dynamo (the spec's "how"): torch.compile(...,
dynamic=True) (every dim symbolic, static ones bucketed too);
torch._dynamo.mark_dynamic on the dims of length n (default dynamic); or
"auto" (default dynamic, no marks: the first length static, Dynamo's
automatic dynamic shapes from the second). A "poisoned" argument is a view
narrowing a tpu tensor laid out at the bucket's bound (each dim Dynamo may
make symbolic), its tail a huge, infinite or NaN value: bounded dynamism
widens such a view back with no copy, so a missing mask reads the poison.

The record counts the calls, those that ran padded to a bucket and those
that ran per size (torch.tpu.plan_stats()), and why graphs could not run
padded (each graph's reason, from torchtpu._compile). A wrong answer that
the same function compiled by aot_eager on CPU gives too (PyTorch's own,
e.g. AOTAutograd regenerating an output that aliases a mutated strided input
from the compiled output's strides under symbolic shapes,
pytorch/pytorch#103650) is "pytorch": reported, not counted as ours.

A program drawn with "errors" (dynamic.py's bad_index) may raise on CPU at
some of its lengths (elsewhere CPU raising makes a program "invalid"): there
tpu must raise the same exception type with CPU's message inside its own (an
asynchronously raised device check appends a parenthesised note), at the
call or at the .cpu() of its results (compare_raise); returning, another
error, or one read only at the synchronize after the results is "wrong",
unless aot_eager on CPU does the same (PyTorch's). The record's "cpu_raised"
counts those lengths."""
import gc
import zlib

from . import check as C
from .dynamic import shape_at, size

POISON = (3e4, -3e4, float("nan"), float("inf"))


def spec_at(spec, n):
    """The spec at length n: shapes and index bounds evaluated, its own id (its own input values)."""
    inputs = [[name, list(shape_at(shape, n)), kind, size(high, n) if kind == "index" else high, layout,
               {**special, "bad": size(special["bad"], n)} if isinstance(special, dict) and "bad" in special
               else special]
              for name, shape, kind, high, layout, special in spec["inputs"]]
    return {**spec, "id": f"{spec['id']}@{n}", "inputs": inputs}


def _dyn_dims(shape):
    return [i for i, d in enumerate(shape) if not isinstance(d, int)]


def placer(spec, n, poison_all):
    """Places the arguments at length n: check.place, except that a poisoned
    argument on tpu narrows a larger tensor whose tail holds poison."""
    import torch
    from torchtpu._dynamic_buckets import bound_of
    at = spec_at(spec, n)

    def place(_spec, values, device):
        args = C.place(at, values, device)
        if device == "cpu":
            return args
        for k, ((_name, shape, kind, _high, layout, _sp), v) in enumerate(zip(spec["inputs"], values)):
            if layout != "poisoned" or kind != "float":
                continue
            dyn = set(_dyn_dims(shape))
            big = tuple((bound_of(s) or s) if (i in dyn or (poison_all and s >= 2)) else s
                        for i, s in enumerate(v.shape))
            val = POISON[zlib.crc32(at["id"].encode()) % len(POISON)]
            full = torch.full(big, val, dtype=v.dtype)
            full[tuple(slice(0, s) for s in v.shape)] = v
            args[k] = full.to(device)[tuple(slice(0, s) for s in v.shape)]
        return args
    return place


def _compiled(fn, spec, backend):
    """fn compiled as the spec says; with "mark", a wrapper marks the dims of length n of each argument."""
    import torch
    how = spec.get("how", "dynamic")
    cf = torch.compile(fn, backend=backend, dynamic=True if how == "dynamic" else None)
    if how != "mark":
        return cf
    marks = [_dyn_dims(shape) for _n, shape, _k, _h, _l, _s in spec["inputs"]]

    def marked(*args):
        for a, dims in zip(args, marks):
            if isinstance(a, torch.Tensor):
                for d in dims:
                    torch._dynamo.mark_dynamic(a, d)
        return cf(*args)
    return marked


def _graphs():
    from torchtpu import _compile
    return [g for g in gc.get_objects() if type(g) is _compile._Graph]


def _sweep(fn, spec, grad, device, backend):
    """Calls the compiled fn at each length in order: {length index: outputs or a raise}."""
    import torch
    cf = _compiled(fn, spec, backend)
    out = {}
    for k, n in enumerate(spec["lengths"]):
        at = spec_at(spec, n)
        inputs = C.make_inputs(at)
        pl = placer(spec, n, spec.get("how", "dynamic") == "dynamic") if device == "tpu" else None
        out[k] = C.run(cf, at, inputs, device, grad, pl)
        if device == "tpu":
            try:
                torch.tpu.synchronize()
            except Exception as e:  # noqa: BLE001 - a device check read only after the results were
                if not isinstance(out[k], tuple):
                    out[k] = ("raise", type(e).__name__, str(e).split("\n")[0][:300], "late")
    return out


def compare_raise(want, got):
    """None when tpu raised as CPU did (`want`: run's ("raise", type, message)) at the call or at the .cpu()
    of its results: the same exception type, CPU's message inside tpu's (tpu appends a parenthesised note
    to an asynchronously raised one); else what differs (never starting "raised": a wrong answer)."""
    if not isinstance(got, tuple):
        return f"returned where CPU raised {want[1]}: {want[2]}"
    if len(got) > 3:
        return f"late error: raised only at the synchronize after its results were read: {got[1]}: {got[2]}"
    if got[1] != want[1] or want[2] not in got[2]:
        return f"wrong error {got[1]}: {got[2]} (CPU raised {want[1]}: {want[2]})"
    return None


def check(spec):
    """{"id", "kind": pass|wrong|error|invalid|pytorch|subnormal, "detail": {"n=<length>#<call>[-grad]": message}, "calls",
    "padded", "size_calls", "unbounded": [why a graph ran per size]}."""
    import torch
    import torchtpu  # noqa: F401
    fn, fn64 = C.build(spec, torch.float32), C.build(spec, torch.float64)
    detail, pytorch, sub, calls, padded, per_size, reasons = {}, {}, {}, 0, 0, 0, set()
    first = {}  # {length index: CPU's raise} without grad (an errors program's indices out of range there)
    old = {id(g) for g in _graphs()}
    for grad in (False, True) if spec.get("grad") else (False,):
        suffix = "-grad" if grad else ""
        wants, raises = {}, {}  # raises: {length index: CPU's raise}
        for k, n in enumerate(spec["lengths"]):
            at = spec_at(spec, n)
            inputs = C.make_inputs(at)
            want = C.run(fn, at, inputs, "cpu", grad)
            if isinstance(want, tuple) and spec.get("errors") and (not grad or k in first):
                # an index out of range at this length (bad_index): tpu must raise CPU's error
                raises[k] = want
                if not grad:
                    first[k] = want
                wants[k] = (want, None, None)
                continue
            if isinstance(want, tuple):
                if not grad:
                    return {"id": spec["id"], "kind": "invalid", "detail": {f"cpu n={n}": f"{want[1]}: {want[2]}"}}
                break  # autograd refuses this program
            spreads = C._spread(want, [C.run(fn, at, C._perturbed(inputs, j), "cpu", grad) for j in range(2)])
            spreads = C.with_moment_spread(spreads, want, at, inputs, grad)
            ref = C.run(fn64, at, [t.double() if t.is_floating_point() else t for t in inputs], "cpu", grad)
            wants[k] = (want, spreads, ref)
        if len(wants) < len(spec["lengths"]):
            continue
        torch._dynamo.reset()
        before = torch.tpu.plan_stats()
        got = _sweep(fn, spec, grad, "tpu", "tpu")
        after = torch.tpu.plan_stats()
        calls += len(spec["lengths"])
        padded += after.get("padded_calls", 0) - before.get("padded_calls", 0)
        per_size += after.get("size_calls", 0) - before.get("size_calls", 0)
        for g in _graphs():
            if id(g) not in old and g.sizes and g.unbounded:
                reasons.add(g.unbounded.split("\n")[0][:120])
        torch._dynamo.reset()
        bads = {k: compare_raise(wants[k][0], got[k]) if k in raises else C.compare(*wants[k][:2], got[k], wants[k][2])
                for k in got}
        if any(bads.values()):
            # PyTorch's own limit when the same function compiled by aot_eager on CPU (the same
            # arguments' layouts, the same dynamism) raises too, or gives tpu's answer where eager's differs
            cpu = _sweep(fn, spec, grad, "cpu", "aot_eager")
            torch._dynamo.reset()
            for k, b in bads.items():
                if b and k in raises:
                    # where CPU eager raised: aot_eager's outcome is tpu's (its error, or no error: the op
                    # dropped from the graph) -- PyTorch's
                    if isinstance(cpu[k], tuple) and isinstance(got[k], tuple) and len(got[k]) == 3 \
                            and compare_raise(cpu[k], got[k]) is None:
                        bads[k] = None
                        pytorch[f"n={spec['lengths'][k]}#{k}{suffix}"] = "aot_eager on CPU raises it too: " + b
                    elif not isinstance(cpu[k], tuple) and not isinstance(got[k], tuple):
                        bads[k] = None
                        pytorch[f"n={spec['lengths'][k]}#{k}{suffix}"] = "aot_eager on CPU returns too: " + b
                elif b and b.startswith("raised") and isinstance(cpu[k], tuple):
                    bads[k] = None
                elif (b and not isinstance(cpu[k], tuple) and not isinstance(got[k], tuple)
                      and C.compare(*wants[k][:2], cpu[k], wants[k][2])
                      and C.compare(cpu[k], wants[k][1], got[k]) is None):
                    bads[k] = None
                    pytorch[f"n={spec['lengths'][k]}#{k}{suffix}"] = "aot_eager on CPU gives it too: " + b
        for k, b in bads.items():
            if b and not b.startswith("raised") and k not in raises:
                n = spec["lengths"][k]
                at = spec_at(spec, n)
                one = {k: b}
                for m, why in C.subnormal(one, got, fn, at, C.make_inputs(at), grad, *wants[k][1:]).items():
                    sub[f"n={n}#{m}{suffix}"] = why
                bads[k] = one[k]
        for k, b in bads.items():
            if b:
                detail[f"n={spec['lengths'][k]}#{k}{suffix}"] = b
    kind = "pass"
    if detail:
        kind = "wrong" if any(not m.startswith("raised") for m in detail.values()) else "error"
    elif pytorch:
        kind, detail = "pytorch", pytorch
    elif sub:
        kind, detail = "subnormal", sub
    return {"id": spec["id"], "kind": kind, "detail": detail, "calls": calls, "padded": padded,
            "size_calls": per_size, "unbounded": sorted(reasons), "cpu_raised": len(first)}
