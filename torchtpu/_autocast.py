"""torch.autocast(device_type="tpu"): kernels for the AutocastPrivateUse1
dispatch key, which PyTorch leaves empty for out-of-tree devices. The
policy is CUDA's (PyTorch's autocast op reference): matmul/conv-like ops
run in the autocast dtype, ops that need range or precision in float32,
multi-input ops at the widest input type; every other op falls through
unchanged. The policy (which op takes which class) is the core's table
(csrc/ops/autocast_policy.c, _C.autocast_policy()). Glue only: each kernel
casts its floating tpu arguments and calls the op again below the autocast
key."""
import torch

from . import _C

_AUTOCAST = torch._C.DispatchKey.AutocastPrivateUse1
_EXCLUDE = torch._C.DispatchKeySet(_AUTOCAST)
_lib = None
_fallthrough_lib = None


def _eligible(t):
    return isinstance(t, torch.Tensor) and t.is_floating_point() and t.dtype != torch.float64 and t.device.type == "tpu"


def _cast(v, dtype):
    if _eligible(v):
        return v.to(dtype) if v.dtype != dtype else v
    if isinstance(v, (list, tuple)) and any(_eligible(x) for x in v):
        return type(v)(_cast(x, dtype) for x in v)
    return v


def _widest(args, kwargs):
    widest = None
    for v in list(args) + list(kwargs.values()):
        for t in (v if isinstance(v, (list, tuple)) else (v,)):
            if _eligible(t):
                widest = t.dtype if widest is None else torch.promote_types(widest, t.dtype)
    return widest


def _kernel(op, policy):
    if policy not in ("lower", "fp32", "promote"):
        raise RuntimeError(f"autocast: the core's policy names an unknown class {policy!r} for {op}")

    def kernel(*args, **kwargs):
        if policy == "lower":
            dtype = torch.get_autocast_dtype("tpu")
        elif policy == "fp32":
            dtype = torch.float32
        else:
            dtype = _widest(args, kwargs)
        with torch._C._ExcludeDispatchKeyGuard(_EXCLUDE):
            if dtype is None:
                return op(*args, **kwargs)
            return op(*(_cast(a, dtype) for a in args), **{k: _cast(v, dtype) for k, v in kwargs.items()})

    return kernel


def _overload(name):
    packet, _, overload = name.partition(".")
    try:
        return getattr(getattr(torch.ops.aten, packet), overload or "default")
    except AttributeError:  # not in this PyTorch
        return None


def register():
    """Installs the kernels; bfloat16 is the default autocast dtype, as on TPUs."""
    global _lib, _fallthrough_lib
    torch.set_autocast_dtype("tpu", torch.bfloat16)
    _fallthrough_lib = torch.library.Library("_", "IMPL")
    try:
        _fallthrough_lib.fallback(torch.library.fallthrough_kernel, dispatch_key="AutocastPrivateUse1")
    except RuntimeError:  # a PyTorch that registers it itself
        pass
    _lib = torch.library.Library("aten", "IMPL")
    for name, policy in _C.autocast_policy():
        op = _overload(name)
        # PyTorch's own kernel, where a later version has one, wins
        if op is not None and not torch._C._dispatch_has_kernel_for_dispatch_key(op.name(), "AutocastPrivateUse1"):
            _lib.impl(name, _kernel(op, policy), "AutocastPrivateUse1")
