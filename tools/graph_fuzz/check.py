"""One program (program.py) run every way and compared with CPU.

Runs: CPU float32 (the answer), CPU with the inputs perturbed by a few
float32 ulps (twice: how far the answer moves when the inputs move that
little: an element near a rounding or comparison edge, or amplified by
cancellation, may move by more than any tolerance and is not a defect),
and, for a program calling std/var, CPU with those moments in float64
(see MOMENTS), then on tpu in Strict eager, DeferAndFuse eager (fused regions) and under
torch.compile(backend="tpu") called three times (capture, replay, then a
replay that, when the graph was followed by other work -- the backward --
runs fused with it as one program: csrc/exec/plan_defer.h), each on fresh
copies of the inputs. Every run's returned tensors and its inputs
afterwards (in-place writes) are compared with CPU's; for a program drawn
with "grad", the same four runs again differentiate a weighted sum of the
outputs with respect to the arguments (modes named "<mode>-grad").

A result is wrong when it differs from CPU's by more than
1e-5 + 1e-4*|cpu| plus twice the perturbation spread at that element and is
further than CPU's from the same program run in float64 on CPU, or differs
in shape, dtype or NaN positions; a tpu run that raises where CPU does not is an
"error" (never wrong, but reported), unless the same function compiled with
backend="aot_eager" raises on CPU too (a limit of PyTorch's tracing). A
compiled run's wrong answer that aot_eager on CPU gives too is PyTorch's:
kind "pytorch", reported apart and not counted as ours (where aot_eager
raises instead, the reference is backend="aot_eager_default_partitioner",
AOTAutograd as torchtpu's backend configures it: see pytorch_reference). So is one CPU gives
too with float32 subnormals flushed to zero (XLA's CPU runtime flushes
them, and a TPU has none): kind "subnormal" (run_flushed)."""
import re
import zlib

RTOL, ATOL = 1e-4, 1e-5
MODES = ("strict", "defer", "compile", "replay", "fused")

# std/var over a row of equal or nearly equal values: their gradient
# grad * (x - mean) / (n * std) divides the rounding error of the mean by a
# std of the same size, so CPU's float32 answer and tpu's are both noise
# (graph fuzzer dynamic 4:77: std over a cummax row, gradient 7.05 on tpu,
# 10.34 on CPU; the float64 reference a third value). Such a program gets
# one more CPU run with the moments alone taken in float64 (same inputs,
# everything else float32): an element that moves there by more than the
# tolerance is noise and not compared (with_moment_spread). Elements that
# do not depend on the moments' rounding do not move, and keep the usual
# tolerance.
MOMENTS = re.compile(r"\btorch\.(std|var)\(")


def _moment_in_float64(op):
    def f(x, *args, **kw):
        import torch
        return getattr(torch, op)(x.double(), *args, **kw).to(x.dtype)
    return f


def build(spec, dtype):
    import torch
    env = {"torch": torch, "DT": dtype, "_std_f64": _moment_in_float64("std"), "_var_f64": _moment_in_float64("var")}
    exec(compile(spec["src"], f"<graph {spec['id']}>", "exec"), env)
    return env["f"]


def with_moment_spread(spreads, want, spec, inputs, grad):
    """spreads, for a program that calls torch.std/var (see MOMENTS), made
    infinite where CPU's answer moves by more than the tolerance when those
    are taken in float64: there CPU's value is the mean's rounding error
    over a std of its size, and tpu's, rounding its mean its own way, is
    noise of the same size (seen 5x CPU's distance from the precise value),
    so any finite value is as right. A NaN where CPU has a number (or the
    reverse) is still wrong: compare's error is NaN there."""
    import torch
    if not MOMENTS.search(spec["src"]):
        return spreads
    alt = {**spec, "src": MOMENTS.sub(lambda m: f"_{m.group(1)}_f64(", spec["src"])}
    moved = _spread(want, [run(build(alt, torch.float32), spec, inputs, "cpu", grad)])
    out = []
    for s, m, w in zip(spreads, moved, want):
        noise = m > ATOL + RTOL * w.double().abs()
        out.append(torch.where(noise, torch.full_like(s, float("inf")), s))
    return out


def make_inputs(spec):
    """The values of the program's arguments, on CPU, contiguous: `place`
    gives them their layouts and aliases on a device."""
    import torch
    g = torch.Generator().manual_seed(zlib.crc32(spec["id"].encode()))
    scale = (0.5, 1.0, 3.0)[zlib.crc32(spec["id"].encode()) % 3]
    out = []
    for _name, shape, kind, high, layout, special in spec["inputs"]:
        if kind == "float":
            t = torch.randn(shape, generator=g) * scale
            if special:
                pick = torch.rand(shape, generator=g) < special
                vals = torch.tensor([0.0, -0.0, float("inf"), -float("inf"), float("nan")])
                t = torch.where(pick, vals[torch.randint(0, 5, shape, generator=g)], t)
            out.append(t)
        else:
            # special of an index (the dynamic family's bad_index): {"neg": values in [-high, high),
            # "bad": one element's value (an int; an expression in n before check_dynamic.spec_at)}
            sp = special if isinstance(special, dict) else {}
            t = torch.randint(-high if sp.get("neg") else 0, high, shape, generator=g)
            if sp.get("bad") is not None and t.numel():
                t.view(-1)[int(torch.randint(0, t.numel(), (1,), generator=g))] = int(sp["bad"])
            out.append(t)
    return out


def place(spec, values, device):
    """The arguments on `device` in the spec's layouts: a transposed one is
    the transpose of a contiguous tensor of the reversed last two dims, a
    strided one every other element of a larger tensor's last dim, an alias
    the same tensor object as the argument it names."""
    import torch
    args = []
    for (_name, shape, kind, high, layout, _special), v in zip(spec["inputs"], values):
        if layout == "alias":
            args.append(args[high])
        elif layout == "transposed":
            # clone: contiguous() of a transpose over a size-1 dim is the tensor itself, which the
            # program's in-place writes would then change for the runs after this one
            args.append(v.transpose(-1, -2).clone(memory_format=torch.contiguous_format).to(device).transpose(-1, -2))
        elif layout == "strided":
            big = torch.full(tuple(shape[:-1]) + (2 * shape[-1],), 7.0, dtype=v.dtype).to(device)
            big[..., ::2] = v.to(device)
            args.append(big[..., ::2])
        else:
            args.append(v.clone().to(device))
    return args


def _flat(x):
    import torch
    if isinstance(x, torch.Tensor):
        return [x]
    if isinstance(x, (list, tuple)):
        return [t for v in x for t in _flat(v)]
    return []


def run(fn, spec, inputs, device, grad=False, placer=None):
    """(outputs + inputs afterwards, on CPU) or ("raise", type name, message).
    With grad: the float arguments are leaves that require grad (the program
    gets copies, its in-place writes go there), and the results are the
    outputs and the leaves' gradients of sum(nan_to_num(output) * w) over the
    float outputs, w fixed random weights. `placer` (default place) makes the
    arguments."""
    import torch
    args = (placer or place)(spec, inputs, device)
    try:
        if not grad:
            outs = _flat(fn(*args)) + args
            return [t.detach().to("cpu") for t in outs]
        leaves = [a.detach().requires_grad_() if a.is_floating_point() else a for a in args]
        outs = _flat(fn(*[x * 1 if x.requires_grad else x for x in leaves]))
        terms = [(torch.nan_to_num(o, 0.0, 0.0, 0.0) * _weight(o.shape, k).to(o.device)).sum()
                 for k, o in enumerate(outs) if o.requires_grad]
        wrt = [x for x in leaves if x.requires_grad]
        grads = torch.autograd.grad(sum(terms), wrt, allow_unused=True) if terms else [None] * len(wrt)
        grads = [torch.zeros_like(x) if gr is None else gr for x, gr in zip(wrt, grads)]
        return [t.detach().to("cpu") for t in outs + grads]
    except Exception as e:  # noqa: BLE001 - reported, never hidden
        return ("raise", type(e).__name__, str(e).split("\n")[0][:300])


def _weight(shape, k):
    import torch
    return torch.randn(shape, generator=torch.Generator().manual_seed(77 + k))


def _perturbed(inputs, k):
    import torch
    g = torch.Generator().manual_seed(1000 + k)
    return [t * (1 + 4e-7 * torch.randn(t.shape, generator=g)) if t.is_floating_point() else t for t in inputs]


def _spread(want, perturbed):
    """Per tensor: how far CPU's own answer moves under the perturbations."""
    import torch
    spreads = []
    for i, w in enumerate(want):
        s = torch.zeros(w.shape, dtype=torch.float64)
        for p in perturbed:
            if isinstance(p, tuple) or i >= len(p) or p[i].shape != w.shape:
                continue
            d = (p[i].double() - w.double()).abs()
            d = torch.where(torch.isnan(d), torch.full_like(d, float("inf")), d)
            s = torch.maximum(s, d)
        spreads.append(s)
    return spreads


def compare(want, spreads, got, ref=None):
    """None when got matches want, else what differs. An element no further
    from the float64 reference `ref` (the same program in float64 on CPU)
    than CPU's float32 answer is matches too: CPU's rounding noise amplified
    (a layer norm over one element, whose exact gradient is 0) is not the
    answer tpu must give; nor is a non-finite value that depends on CPU's
    instruction set where the reference has tpu's."""
    import torch
    if isinstance(got, tuple):
        return f"raised {got[1]}: {got[2]}"
    if len(got) != len(want):
        return f"{len(got)} results, CPU {len(want)}"
    for i, (w, g, s) in enumerate(zip(want, got, spreads)):
        if g.shape != w.shape or g.dtype != w.dtype:
            return f"result {i}: {g.dtype}{list(g.shape)}, CPU {w.dtype}{list(w.shape)}"
        if g.numel() == 0:
            continue
        wd, gd = w.double(), g.double()
        same = (wd == gd) | (torch.isnan(wd) & torch.isnan(gd))
        err = (gd - wd).abs()
        ok = same | (err <= ATOL + RTOL * wd.abs() + 2 * s)
        if ref is not None and not isinstance(ref, tuple) and i < len(ref) and ref[i].shape == w.shape:
            rd = ref[i].double()
            ok |= (gd - rd).abs() <= (wd - rd).abs() + ATOL + RTOL * rd.abs()
            # equal to it, infinities included: CPU's vectorized GELU(+inf) is NaN with AVX-512 (30:55), inf
            # with AVX2, in its scalar path and in float64
            ok |= (gd == rd) | (torch.isnan(gd) & torch.isnan(rd))
        if not bool(ok.all()):
            j = int((~ok).flatten().nonzero()[0])
            return (f"result {i} {w.dtype}{list(w.shape)}: {int((~ok).sum())} of {w.numel()} elements differ, "
                    f"e.g. flat index {j}: tpu {gd.flatten()[j].item()!r}, CPU {wd.flatten()[j].item()!r}")
    return None


def run_flushed(fn, spec, inputs, grad):
    """CPU's answer with float32 subnormals flushed to zero
    (torch.set_flush_denormal), as XLA's CPU runtime computes them (and as a
    TPU, which has none, does); None where the CPU cannot flush. An answer
    that differs from CPU's only through a subnormal (dynamic 33:55: a
    softmax weight of 1.8e-39 times -inf is -inf on CPU, 0 * -inf NaN
    flushed) is the platform's, kind "subnormal": reported, not counted."""
    import torch
    threads = torch.get_num_threads()
    if not torch.set_flush_denormal(True):
        return None
    torch.set_num_threads(1)  # the flag is the calling thread's (MXCSR): no worker threads
    try:
        return run(fn, spec, inputs, "cpu", grad)
    finally:
        torch.set_flush_denormal(False)
        torch.set_num_threads(threads)


def subnormal(bads, gots, fn, spec, inputs, grad, spreads, ref):
    """{mode: message} of the wrong answers CPU gives too with subnormals
    flushed (removed from bads)."""
    if not any(b and not b.startswith("raised") for b in bads.values()):
        return {}
    flushed = run_flushed(fn, spec, inputs, grad)
    if flushed is None or isinstance(flushed, tuple):
        return {}
    out = {}
    for m, b in bads.items():
        if b and not b.startswith("raised") and compare(flushed, spreads, gots[m], ref) is None:
            out[m], bads[m] = "CPU gives it too with subnormals flushed: " + b, None
    return out


def _aot_eager(fn, spec, inputs, grad, backend="aot_eager"):
    """fn compiled by backend="aot_eager" (or `backend`), run on CPU:
    PyTorch's tracing without torchtpu."""
    import torch
    torch._dynamo.reset()
    out = run(torch.compile(fn, backend=backend, dynamic=False), spec, inputs, "cpu", grad)
    torch._dynamo.reset()
    return out


def pytorch_reference(fn, spec, inputs, grad):
    """(backend name, its answer on CPU) to tell PyTorch's wrong answers
    from ours: aot_eager's; where aot_eager raises, that of
    aot_eager_default_partitioner, AOTAutograd with torchtpu's backend's
    partition (default_partition, input mutations kept in the graph).
    aot_eager's min-cut partitioner recomputes in the backward from an input
    the epilogue has since written, and autograd refuses it (static 310:32:
    x0.mul_(x3), no output reading x0: "one of the variables needed for
    gradient computation has been modified by an inplace operation"), where
    the default partition runs and gives tpu's NaN (the write's zero tangent
    times x3's inf)."""
    ae = _aot_eager(fn, spec, inputs, grad)
    if not isinstance(ae, tuple):
        return "aot_eager", ae
    return "aot_eager_default_partitioner", _aot_eager(fn, spec, inputs, grad, "aot_eager_default_partitioner")


def _raises_in_aot_eager(fn, spec, inputs, grad):
    return isinstance(_aot_eager(fn, spec, inputs, grad), tuple)


def check(spec):
    """{"id", "kind": pass|wrong|error|invalid|pytorch|subnormal, "detail": {mode: message}}."""
    import torch
    import torchtpu  # noqa: F401
    inputs = make_inputs(spec)
    fn, fn64 = build(spec, torch.float32), build(spec, torch.float64)
    detail, pytorch, sub = {}, {}, {}
    for grad in (False, True) if spec.get("grad") else (False,):
        suffix = "-grad" if grad else ""
        want = run(fn, spec, inputs, "cpu", grad)
        if isinstance(want, tuple):
            if not grad:
                return {"id": spec["id"], "kind": "invalid", "detail": {"cpu": f"{want[1]}: {want[2]}"}}
            continue  # PyTorch's autograd refuses this program (an in-place write it cannot differentiate)
        spreads = _spread(want, [run(fn, spec, _perturbed(inputs, k), "cpu", grad) for k in range(2)])
        spreads = with_moment_spread(spreads, want, spec, inputs, grad)
        ref = run(fn64, spec, [t.double() if t.is_floating_point() else t for t in inputs], "cpu", grad)
        for mode in ("strict", "defer_and_fuse"):
            with torch.tpu.eager_mode(mode):
                got = run(fn, spec, inputs, "tpu", grad)
                torch.tpu.synchronize()
            m = ("strict" if mode == "strict" else "defer") + suffix
            bad = {m: compare(want, spreads, got, ref)}
            sub.update(subnormal(bad, {m: got}, fn, spec, inputs, grad, spreads, ref))
            if bad[m]:
                detail[m] = bad[m]
        torch._dynamo.reset()
        cf = torch.compile(fn, backend="tpu", dynamic=False)
        gots = {mode: run(cf, spec, inputs, "tpu", grad) for mode in ("compile", "replay", "fused")}
        bads = {mode: compare(want, spreads, got, ref) for mode, got in gots.items()}
        torch._dynamo.reset()
        if any(b and b.startswith("raised") for b in bads.values()) and _raises_in_aot_eager(fn, spec, inputs, grad):
            # PyTorch's own limit: the same function compiled on CPU by aot_eager raises too
            bads = {m: b for m, b in bads.items() if not (b and b.startswith("raised"))}
        if any(b and not b.startswith("raised") for b in bads.values()):
            # PyTorch's own wrong answer when aot_eager on CPU gives tpu's too (static 129:18: AOTAutograd
            # differentiates an in-place addcdiv_ no output reads, a zero tangent times inf is NaN)
            name, ae = pytorch_reference(fn, spec, inputs, grad)
            if not isinstance(ae, tuple) and compare(want, spreads, ae, ref):
                for m, b in bads.items():
                    if b and not isinstance(gots[m], tuple) and compare(ae, spreads, gots[m]) is None:
                        pytorch[m + suffix] = f"{name} on CPU gives it too: " + b
                        bads[m] = None
        sub.update({m + suffix: b for m, b in subnormal(bads, gots, fn, spec, inputs, grad, spreads, ref).items()})
        detail.update({m + suffix: b for m, b in bads.items() if b})
    kind = "pass"
    if detail:
        kind = "wrong" if any(not m.startswith("raised") for m in detail.values()) else "error"
    elif pytorch:
        kind, detail = "pytorch", pytorch
    elif sub:
        kind, detail = "subnormal", sub
    return {"id": spec["id"], "kind": kind, "detail": detail}
