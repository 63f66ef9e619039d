"""A seeded, deterministic stream of call specs (JSON-able dicts)."""
import random

from . import catalogue as C
from . import draw as D
from . import values as V

TUPLE_OUT = {"torch.sort", "torch.topk", "torch.kthvalue", "torch.cummax", "torch.cummin", "torch.max",
             "torch.min", "torch.median"}


def _out_spec(d, args):
    first = next((a for a in args if isinstance(a, dict) and a.get("k") == "T"), None)
    dtype = first["dtype"] if first and d.p(0.6) else d.dtype()
    shape = [0] if d.p(0.6) else (first["shape"] if first and d.p(0.6) else d.shape())
    return {"k": "T", "shape": shape, "dtype": dtype, "fill": "normal", "seed": d.r.randrange(1 << 30),
            "view": None, "dev": "same"}


def make_call(seed, i):
    rng = random.Random(f"{seed}-{i}")
    d = D.Draw(rng)
    gens = [g for g, w in C.FAMILIES for _ in range(w)]
    gen = d.choice(gens)
    fn, args, kw, opts = gen(d)
    form = "fn"
    if opts.get("out") and fn.startswith("torch.") and "out" not in kw and d.p(0.12):
        if fn in TUPLE_OUT:
            if len(args) > 1 or fn not in ("torch.max", "torch.min", "torch.median"):
                o2 = _out_spec(d, args)
                o2["dtype"] = "int64" if d.p(0.9) else d.dtype()
                kw["out"] = {"k": "TUP", "v": [_out_spec(d, args), o2]}
                form = "out"
        else:
            kw["out"] = _out_spec(d, args)
            form = "out"
    elif opts.get("inplace") and isinstance(args[0], dict) and args[0].get("k") == "T" and d.p(0.12):
        fn = "Tensor." + opts["inplace"]
        form = "inplace"
    if "out" in kw:
        form = "out"
    spec = {"id": f"{seed}:{i}", "fn": fn, "args": args, "kwargs": kw, "form": form}
    spec.update({k: v for k, v in opts.items() if k not in ("out", "inplace") and v})
    spec.update(d.flags)
    return spec


def first_dtype(spec):
    """The dtype of the first tensor argument (for the known-differences table)."""
    def walk(x):
        if isinstance(x, dict):
            if x.get("k") == "T":
                return x["dtype"]
            if x.get("k") == "D":
                return x["v"]
            for v in x.get("v", []) if isinstance(x.get("v"), list) else []:
                r = walk(v)
                if r:
                    return r
        return None
    for a in spec["args"]:
        r = walk(a)
        if r:
            return r
    for a in spec["kwargs"].values():
        r = walk(a)
        if r:
            return r
    return "-"


def calls(seed, n, start=0):
    return [make_call(seed, i) for i in range(start, start + n)]


assert len(V.SUPPORTED) == 12
