"""One call spec on one device: build the arguments, call, bring the outcome to CPU."""
import torch

from . import values as V


class _Obj:
    pass


def build_arg(a, device):
    if isinstance(a, dict):
        k = a.get("k")
        if k == "T":
            return V.build(a, device)
        if k == "S":
            return V.decode_scalar(a["v"])
        if k == "W":
            return {"str": "abc", "list": [1, 2], "obj": _Obj()}[a["v"]]
        if k == "N":
            return None
        if k == "D":
            return V.dt(a["v"])
        if k == "L":
            return list(a["v"])
        if k == "LIST":
            return [build_arg(x, device) for x in a["v"]]
        if k == "TUP":
            return tuple(build_arg(x, device) for x in a["v"])
        if k == "SL":
            return slice(*a["v"])
        if k == "DATA":
            v = a["v"]
            return [V.decode_scalar(x) for x in v] if isinstance(v, list) else V.decode_scalar(v)
        return {kk: build_arg(vv, device) for kk, vv in a.items()}
    if isinstance(a, list):
        return [build_arg(x, device) for x in a]
    return V.decode_scalar(a)


def _call(spec, args, kwargs):
    fn = spec["fn"]
    if fn == "getitem":
        return args[0][args[1]]
    mod, name = fn.split(".", 1)
    if mod == "Tensor":
        return getattr(args[0], name)(*args[1:], **kwargs)
    return getattr(torch, name)(*args, **kwargs)


def to_host(x):
    """Outcome tree on CPU: tensors as ("T", tensor, device type, strides)."""
    if isinstance(x, torch.Tensor):
        dev = x.device.type
        strides = tuple(x.stride()) if x.layout == torch.strided else None
        return ("T", x.detach().cpu() if dev != "cpu" else x.detach().clone(), dev, strides)
    if isinstance(x, (tuple, list)):
        return ("L", [to_host(v) for v in x])
    if isinstance(x, torch.Size):
        return ("V", tuple(x))
    if isinstance(x, (bool, int, float, complex)) or x is None:
        return ("V", x)
    return ("V", type(x).__name__)


# CPU kernels that give wrong values for an expanded (stride-0) input: the
# reference is CPU's result on a contiguous copy of such an input (median and
# nanmedian along a dim return values not in the input, NaN for floats:
# `x[:1].expand(100).median(0)`; the copy gives the true median).
CPU_STRIDE0_BUGS = ("torch.median", "torch.nanmedian", "Tensor.median", "Tensor.nanmedian")


def _expanded(a):
    return isinstance(a, torch.Tensor) and a.layout == torch.strided and 0 in a.stride() and a.numel() > 1


def run(spec, device):
    """Returns ("ok", outcome, host args) or ("raise", exception type name, message)."""
    try:
        args = [build_arg(a, device) for a in spec["args"]]
        if device == "cpu" and spec["fn"] in CPU_STRIDE0_BUGS:
            args = [a.contiguous() if _expanded(a) else a for a in args]
        kwargs = {k: build_arg(v, device) for k, v in spec["kwargs"].items()}
        if spec.get("sort0") and isinstance(args[0], torch.Tensor):
            args[0] = args[0].sort().values
        if spec.get("devkw"):
            kwargs["device"] = device
        res = _call(spec, args, kwargs)
        out = {"result": to_host(res)}
        if spec["form"] == "out":
            out["out"] = to_host(kwargs["out"])
        if spec["form"] == "inplace":
            out["self"] = to_host(args[0])
            out["same"] = res is args[0]
        return "ok", out, args
    except Exception as e:  # every exception type is the outcome to compare
        msg = str(e).strip().splitlines()
        return "raise", type(e).__name__, (msg[0] if msg else "")[:300]
