"""The op catalogue: for each family, how to draw one call.

A generator takes a Draw and returns (fn, args, kwargs, opts): fn is "torch.X"
(a function), "Tensor.X" (a method called on args[0]) or "getitem"; opts holds
"out" (the op takes out=), "inplace" (the Tensor.X_ name), "strides" (PyTorch
defines the result's strides for dense non-overlapping inputs), "acc" (terms
accumulated per output element, for the summation error bound), "devkw"
(a factory: device= is added).
"""
from . import values as V

UNARY_FLOAT = ("abs", "neg", "sign", "sqrt", "exp", "log", "sin", "cos", "tanh", "sigmoid", "floor", "ceil",
               "round", "trunc", "reciprocal", "rsqrt", "expm1", "log1p", "erf", "square", "frac", "exp2",
               "sinh", "atan", "log2", "angle", "sgn", "relu", "positive", "conj_physical", "nan_to_num",
               "deg2rad", "erfinv", "asinh", "acos")
UNARY_PRED = ("isnan", "isinf", "isfinite", "signbit", "logical_not", "isposinf", "isneginf", "isreal")
UNARY_BITS = ("bitwise_not",)
BINARY = ("add", "sub", "mul", "div", "remainder", "fmod", "pow", "maximum", "minimum", "fmax", "fmin",
          "atan2", "hypot", "copysign", "floor_divide", "xlogy", "nextafter", "true_divide")
COMPARE = ("eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or", "logical_xor")
BITWISE = ("bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_left_shift", "bitwise_right_shift")
REDUCE = ("sum", "prod", "mean", "amax", "amin", "nansum", "all", "any", "std", "var", "logsumexp",
          "count_nonzero", "max", "min", "argmax", "argmin", "median", "nanmean")
CUMUL = ("cumsum", "cumprod", "cummax", "cummin", "logcumsumexp")


def _first(d, pool=V.SUPPORTED):
    return d.tensor(dtype=d.dtype(pool))


def g_unary(d):
    name = d.choice(UNARY_FLOAT + UNARY_PRED + UNARY_BITS)
    x = _first(d)
    kw = {}
    if name == "round" and d.p(0.3):
        kw["decimals"] = d.choice((1, -1, 2))
    return "torch." + name, [x], kw, {"out": name not in UNARY_PRED[4:], "inplace": name + "_", "strides": True}


def _second(d, x):
    k = d.r.random()
    if k < 0.55:
        return d.other(x["shape"], d.dtype() if d.p(0.4) else x["dtype"])
    if k < 0.92:
        return d.scalar()
    return d.wrong()


def g_binary(d):
    name = d.choice(BINARY + COMPARE + BITWISE)
    pool = V.SUPPORTED
    if name in BITWISE:
        pool = ("bool",) + V.INTS if d.p(0.85) else V.SUPPORTED
    x = _first(d, pool)
    y = _second(d, x)
    args, kw = [x, y], {}
    if d.p(0.08):  # scalar first: torch.add(2, t) is a TypeError on both, pow(2, t) works
        args = [y, x] if y["k"] == "S" else args
    if name in ("add", "sub") and d.p(0.25):
        kw["alpha"] = d.scalar(d.choice(("int", "float", "bool")))["v"]
    if name == "div" and d.p(0.4):
        kw["rounding_mode"] = d.choice(("floor", "trunc"))
    return "torch." + name, args, kw, {"out": True, "inplace": name + "_", "strides": True}


def g_reduce(d):
    name = d.choice(REDUCE)
    x = _first(d)
    nd = len(x["shape"])
    args, kw = [x], {}
    if name in ("max", "min", "median") and d.p(0.5):
        args.append(d.dim(nd))
        if d.p(0.5):
            kw["keepdim"] = d.p(0.5)
    elif name in ("argmax", "argmin"):
        dm = d.dim(nd, allow_none=True)
        if dm is not None:
            kw["dim"] = dm
            kw["keepdim"] = d.p(0.3)
    elif name in ("logsumexp",):
        args.append(d.dim(nd))
    elif name not in ("max", "min", "median"):
        if d.p(0.6):
            dm = d.dim(nd)
            kw["dim"] = [dm, dm] if d.p(0.05) else ([dm] if d.p(0.3) else dm)
            if name != "count_nonzero":
                kw["keepdim"] = d.p(0.4)
    if name in ("sum", "prod", "mean", "nansum", "nanmean") and d.p(0.2):
        kw["dtype"] = {"k": "D", "v": d.dtype()}
    if name in ("std", "var") and d.p(0.4):
        kw["correction"] = d.choice((0, 1, 2))
    n = 1
    for s in x["shape"]:
        n *= s
    return "torch." + name, args, kw, {"out": name not in ("count_nonzero", "nanmean", "median"),
                                        "acc": max(n, 1)}


def g_matmul(d):
    name = d.choice(("mm", "matmul", "bmm", "mv", "dot", "addmm", "outer", "baddbmm", "vdot", "inner"))
    dtype = d.dtype(V.SUPPORTED)
    dt2 = dtype if d.p(0.9) else d.dtype()
    m, k, n, b = d.choice((0, 1, 3, 8)), d.choice((0, 1, 5, 16)), d.choice((1, 2, 7)), d.choice((1, 2))
    bad = d.p(0.07)
    kk = k + 1 if bad else k
    T = d.tensor
    if name == "mm":
        args = [T([m, k], dtype), T([kk, n], dt2)]
    elif name == "matmul":
        shapes = d.choice((([m, k], [kk, n]), ([k], [kk]), ([b, m, k], [kk, n]), ([k], [b, kk, n]), ([m, k], [kk])))
        args = [T(shapes[0], dtype), T(shapes[1], dt2)]
    elif name in ("bmm", "baddbmm"):
        args = [T([b, m, k], dtype), T([b, kk, n], dt2)]
        if name == "baddbmm":
            args = [T([b, m, n], dtype)] + args
    elif name == "mv":
        args = [T([m, k], dtype), T([kk], dt2)]
    elif name in ("dot", "vdot", "inner"):
        args = [T([k], dtype), T([kk], dt2)]
    elif name == "addmm":
        args = [T(d.choice(([m, n], [n], [])), dtype), T([m, k], dtype), T([kk, n], dt2)]
    else:
        args = [T([m], dtype), T([n], dt2)]
    kw = {}
    if name in ("addmm", "baddbmm") and d.p(0.4):
        kw["beta"], kw["alpha"] = d.choice((0, 1, 0.5)), d.choice((1, 2, -0.5))
    return "torch." + name, args, kw, {"out": True, "acc": max(k, 1)}


def g_index(d):
    name = d.choice(("index_select", "gather", "scatter", "scatter_add", "take", "masked_select", "getitem",
                     "index_add", "nonzero", "index_fill", "take_along_dim", "index_put"))
    x = _first(d)
    shape, nd = x["shape"], len(x["shape"])
    dim = d.dim(nd)
    size = shape[dim] if -len(shape) <= dim < len(shape) and shape else 1
    hi = size if d.p(0.93) else -size - 1  # negative hi: some indices out of range
    idx_dt = "int64" if d.p(0.9) else d.choice(("int32", "int16", "float32", "bool", "uint8"))
    opts = {"out": True}
    if name == "index_select":
        args, kw = [x, dim, d.tensor([d.choice((0, 1, 4))], idx_dt, fill="index", view=None, hi=hi)], {}
    elif name in ("gather", "take_along_dim"):
        ishape = [min(s, 2) for s in shape]
        args, kw = [x, d.tensor(ishape, idx_dt, fill="index", view=None, hi=hi), dim], {}
        if name == "take_along_dim":
            args[2] = dim if nd else None
    elif name in ("scatter", "scatter_add", "index_add"):
        ishape = [min(s, 2) for s in shape]
        if name == "index_add":
            ishape = list(shape)
            inrange = -nd <= dim < nd  # d.dim draws an out-of-range dim now and then: both must raise
            if inrange:
                ishape[dim] = min(shape[dim], 2)
            idx = d.tensor([ishape[dim] if inrange else 1], idx_dt, fill="index", view=None, hi=hi)
            args = [x, dim, idx, d.tensor(ishape, x["dtype"] if d.p(0.9) else d.dtype(), view=None)]
        else:
            args = [x, dim, d.tensor(ishape, idx_dt, fill="index", view=None, hi=hi),
                    d.tensor(ishape, x["dtype"] if d.p(0.9) else d.dtype(), view=None) if d.p(0.8) else d.scalar()]
        kw = {}
        if name == "scatter" and d.p(0.3):
            kw["reduce"] = d.choice(("add", "multiply"))
        opts["inplace"] = name + "_"
        if name != "scatter" or args[3]["k"] == "T":
            opts["nondet"] = name == "scatter"  # duplicate indices: which write wins is unspecified
    elif name == "take":
        n = 1
        for s in shape:
            n *= s
        args, kw = [x, d.tensor(d.choice(([3], [2, 2], [])), idx_dt, fill="index", view=None,
                                hi=n if d.p(0.93) else -n - 1)], {}
    elif name == "masked_select":
        args, kw = [x, d.tensor(shape if d.p(0.8) else d.shape(), "bool", fill="mask")], {}
    elif name == "nonzero":
        args, kw = [x], {}
        if d.p(0.3):
            kw["as_tuple"] = True
            opts["out"] = False
    elif name == "index_fill":
        args, kw = [x, dim, d.tensor([2], idx_dt, fill="index", view=None, hi=hi), d.scalar()], {}
        opts = {"inplace": "index_fill_"}
    elif name == "index_put":
        idx = d.tensor([3], idx_dt, fill="index", view=None, hi=shape[0] if shape else 1)
        vals = d.tensor(d.choice(([], [3] + list(shape[1:]))), x["dtype"] if d.p(0.9) else d.dtype(), view=None)
        args, kw = [x, {"k": "TUP", "v": [idx]}, vals], {"accumulate": d.p(0.4)}
        opts = {"inplace": "index_put_", "nondet": not kw["accumulate"]}
    else:  # getitem with an index tensor, a mask, a slice or an int
        k = d.r.random()
        if k < 0.4:
            key = d.tensor([d.choice((0, 2, 3))], idx_dt, fill="index", view=None, hi=shape[0] if shape else 1)
        elif k < 0.6:
            key = d.tensor(shape, "bool", fill="mask")
        elif k < 0.8:
            key = {"k": "SL", "v": [d.choice((None, 0, 1, -2)), d.choice((None, 3, -1)), d.choice((None, 1, 2))]}
        else:
            key = d.choice((0, -1, 5, None))
        return "getitem", [x, key], {}, {}
    return "torch." + name, args, kw, opts


def g_shape(d):
    name = d.choice(("cat", "stack", "reshape", "flatten", "permute", "transpose", "squeeze", "unsqueeze", "flip",
                     "roll", "narrow", "repeat", "expand", "split", "chunk", "movedim", "tril", "triu", "clone",
                     "contiguous", "t", "hstack", "view", "diag", "diagonal", "unbind", "tile", "repeat_interleave"))
    x = _first(d)
    shape, nd = x["shape"], len(x["shape"])
    numel = 1
    for s in shape:
        numel *= s
    kw, opts = {}, {}
    if name in ("cat", "stack", "hstack"):
        ts = [x] + [d.tensor(shape if d.p(0.8) else d.shape(), x["dtype"] if d.p(0.8) else d.dtype())
                    for _ in range(d.choice((0, 1, 2)))]
        args = [{"k": "LIST", "v": ts}]
        if name != "hstack":
            args.append(d.dim(nd + (name == "stack")))
        opts["out"] = True
    elif name in ("reshape", "view"):
        tgt = d.choice(([numel], [-1], [1, -1] if numel else [0, -1], [numel, 1], [numel + 1], list(reversed(shape))))
        return "Tensor." + name, [x, {"k": "L", "v": tgt}], {}, {}
    elif name == "flatten":
        args = [x]
    elif name == "permute":
        perm = list(range(nd))
        d.r.shuffle(perm)
        return "Tensor.permute", [x, {"k": "L", "v": perm}], {}, {}
    elif name in ("transpose", "movedim"):
        args = [x, d.dim(nd), d.dim(nd)]
    elif name in ("squeeze", "unsqueeze"):
        args = [x, d.dim(nd + (name == "unsqueeze"))]
    elif name == "flip":
        args = [x, {"k": "L", "v": [d.dim(nd)]}]
    elif name == "roll":
        args = [x, d.choice((1, -2, 7))]
        if d.p(0.5):
            args.append(d.dim(nd))
    elif name == "narrow":
        dm = d.dim(nd)
        args = [x, dm, d.choice((0, 1)), d.choice((0, 1, 2))]
    elif name in ("repeat", "tile"):
        reps = [d.choice((1, 2, 0)) for _ in range(max(nd, 1) + d.choice((0, 1)))]
        return "Tensor." + name, [x, {"k": "L", "v": reps}], {}, {}
    elif name == "expand":
        tgt = [2] + [s if d.p(0.8) else -1 for s in shape]
        return "Tensor.expand", [x, {"k": "L", "v": tgt}], {}, {}
    elif name in ("split", "chunk"):
        args = [x, d.choice((1, 2, 3))]
        if nd:
            args.append(d.dim(nd))
    elif name in ("tril", "triu"):
        args = [x, d.choice((0, 1, -1))]
        opts = {"out": True, "inplace": name + "_"}
    elif name in ("clone", "contiguous", "t"):
        return ("Tensor." if name != "clone" else "torch.") + name, [x], {}, {"strides": name == "clone"}
    elif name == "diag":
        args = [x, d.choice((0, 1, -1))]
        opts["out"] = True
    elif name == "diagonal":
        args = [x, d.choice((0, 1, -1))]
    elif name == "unbind":
        args = [x, d.dim(nd)]
    else:  # repeat_interleave
        args = [x, d.choice((0, 1, 3))]
        if nd and d.p(0.5):
            args.append(d.dim(nd))
    return "torch." + name, args, kw, opts


def g_sort(d):
    name = d.choice(("sort", "argsort", "topk", "kthvalue", "msort", "unique", "searchsorted"))
    x = _first(d)
    shape, nd = x["shape"], len(x["shape"])
    kw, opts = {}, {"out": name not in ("argsort", "unique")}
    if name in ("sort", "argsort"):
        args = [x]
        if d.p(0.6):
            kw["dim"] = d.dim(nd)
        kw["descending"] = d.p(0.4)
        if d.p(0.5):
            kw["stable"] = True
        else:
            opts["ties"] = True  # unstable sort: indices of equal keys may differ
    elif name in ("topk", "kthvalue"):
        dm = d.dim(nd)
        size = shape[dm] if shape and -nd <= dm < nd else 1
        k = d.choice((1, size, size + 1, 0)) if name == "topk" else d.choice((1, max(size, 1), size + 1))
        args = [x, k, dm]
        if name == "topk" and d.p(0.4):
            kw["largest"] = d.p(0.5)
        opts["ties"] = True
    elif name == "msort":
        args = [x]
        opts["ties"] = True
    elif name == "unique":
        args = [x]
        kw = {"sorted": True, "return_counts": d.p(0.5)}
        if d.p(0.3) and nd:
            kw["dim"] = d.dim(nd)
    else:
        sorted_t = d.tensor([5], x["dtype"], fill="normal", view=None)
        return "torch.searchsorted", [sorted_t, x], {"right": d.p(0.5)}, {"out": True, "sort0": True}
    return "torch." + name, args, kw, opts


def g_cumul(d):
    name = d.choice(CUMUL)
    x = _first(d)
    nd = len(x["shape"])
    kw = {}
    if name in ("cumsum", "cumprod") and d.p(0.2):
        kw["dtype"] = {"k": "D", "v": d.dtype()}
    size = x["shape"][0] if x["shape"] else 1
    return "torch." + name, [x, d.dim(nd)], kw, {"out": True, "inplace": name + "_" if name in ("cumsum", "cumprod")
                                                    else None, "acc": max(size, 1), "ties": name in ("cummax", "cummin")}


def g_select(d):
    name = d.choice(("where", "masked_fill", "clamp", "clamp_min", "clamp_max", "lerp", "addcmul", "addcdiv"))
    x = _first(d)
    shape = x["shape"]
    opts = {"out": name != "masked_fill", "inplace": name + "_" if name != "where" else None, "strides": True}
    if name == "where":
        cond = d.tensor(shape if d.p(0.8) else d.shape(), "bool" if d.p(0.9) else d.dtype(), fill="mask")
        y = _second(d, x)
        args = [cond, x, y] if d.p(0.8) else [cond, y, x]
        return "torch.where", args, {}, opts
    if name == "masked_fill":
        mask = d.tensor(shape if d.p(0.85) else d.shape(), "bool" if d.p(0.9) else "uint8", fill="mask")
        v = d.scalar() if d.p(0.7) else d.tensor([], d.dtype(), view=None)
        return "torch.masked_fill", [x, mask, v], {}, opts
    if name in ("clamp", "clamp_min", "clamp_max"):
        def bound():
            return d.scalar(d.choice(("int", "float", "special", "big"))) if d.p(0.7) else d.other(shape, x["dtype"])
        if name == "clamp":
            lo = bound() if d.p(0.8) else {"k": "N"}
            hi = bound() if d.p(0.8) else {"k": "N"}
            return "torch.clamp", [x, lo, hi], {}, opts
        return "torch." + name, [x, bound()], {}, opts
    if name == "lerp":
        return "torch.lerp", [x, d.other(shape, x["dtype"]), d.scalar("float") if d.p(0.6) else
                              d.other(shape, x["dtype"])], {}, opts
    kw = {"value": d.scalar(d.choice(("int", "float")))["v"]} if d.p(0.5) else {}
    return "torch." + name, [x, d.other(shape, x["dtype"]), d.other(shape, x["dtype"])], kw, opts


def g_cast(d):
    x = _first(d)
    tgt = d.dtype(V.SUPPORTED, refused=0.1)
    k = d.r.random()
    if k < 0.6:
        return "Tensor.to", [x, {"k": "D", "v": tgt}], {}, {"strides": True}
    if k < 0.8:
        meth = d.choice(("float", "double", "half", "bfloat16", "int", "long", "short", "bool", "byte", "char"))
        return "Tensor." + meth, [x], {}, {"strides": True}
    if k < 0.9:
        return "Tensor.copy_", [d.tensor(d.choice((x["shape"], [])), tgt, view=None), x], {}, {}
    return "Tensor.item", [d.tensor(d.choice(([], [1], [2])), x["dtype"], view=None)], {}, {}


def g_factory(d):
    name = d.choice(("zeros", "ones", "full", "arange", "linspace", "eye", "empty", "zeros_like", "full_like",
                     "ones_like", "tensor", "logspace", "empty_like"))
    kw, opts = {}, {"devkw": True}
    dtk = d.p(0.7)
    if dtk:
        kw["dtype"] = {"k": "D", "v": d.dtype(refused=0.05)}
    shape = {"k": "L", "v": d.shape()}
    if name in ("zeros", "ones", "empty"):
        args = [shape]
        opts["novalues"] = name == "empty"
    elif name == "full":
        args = [shape, d.scalar()]
    elif name == "arange":
        args = [d.scalar(d.choice(("int", "float")))] if d.p(0.3) else [
            d.scalar(d.choice(("int", "float"))), d.scalar(d.choice(("int", "float", "special")))]
        if len(args) == 2 and d.p(0.5):
            args.append(d.scalar(d.choice(("int", "float"))))
    elif name in ("linspace", "logspace"):
        args = [d.scalar(d.choice(("int", "float", "special"))), d.scalar(d.choice(("int", "float", "special"))),
                d.choice((0, 1, 2, 7))]
    elif name == "eye":
        args = [d.choice((0, 1, 3))] + ([d.choice((2, 4))] if d.p(0.5) else [])
    elif name in ("zeros_like", "ones_like", "full_like", "empty_like"):
        args = [_first(d)]
        if name == "full_like":
            args.append(d.scalar())
        opts["novalues"] = name == "empty_like"
        opts["devkw"] = d.p(0.3)
        opts["strides"] = True
    else:
        k = d.r.random()
        data = [d.scalar()["v"] for _ in range(d.choice((0, 1, 3)))] if k < 0.7 else d.scalar()["v"]
        args = [{"k": "DATA", "v": data}]
    if name in ("zeros", "ones", "full", "empty", "eye", "arange", "linspace", "logspace") and d.p(0.1):
        kw["out"] = {"k": "T", "shape": [0], "dtype": d.dtype(), "fill": "normal", "seed": 1, "view": None, "dev": "same"}
        opts["devkw"] = False
    return "torch." + name, args, kw, opts


FAMILIES = (  # (generator, weight)
    (g_unary, 14), (g_binary, 24), (g_reduce, 12), (g_matmul, 6), (g_index, 10), (g_shape, 10), (g_sort, 5),
    (g_cumul, 4), (g_select, 8), (g_cast, 5), (g_factory, 5),
)
