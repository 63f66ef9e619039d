"""The CPU fallback's host round trip for ops with no TPU lowering. The core
decides whether an op may fall back, counts it, and writes the errors
(csrc/api/fallback.h); this file only copies arguments to the host, calls
PyTorch's CPU kernel, and copies results and mutated arguments back.

Aliasing is kept: all tpu arguments over one device storage are mirrored by
one host buffer, so host views alias as the device views do, a mutation is
written back through the device storage (every view of it sees it), and a
result that views an argument comes back as a view of that argument."""
import warnings

import torch
from torch.utils._pytree import tree_map

from . import _C, _device

_UNSUPPORTED = {
    torch.sparse_coo: "sparse COO layout",
    torch.sparse_csr: "sparse CSR layout",
    torch.sparse_csc: "sparse CSC layout",
    torch.sparse_bsr: "sparse BSR layout",
    torch.sparse_bsc: "sparse BSC layout",
}
_UNSUPPORTED.update({d: f"quantized dtype {d}" for d in (torch.quint8, torch.qint8, torch.qint32, torch.quint4x2)})


def op_name(op):
    return f"{op._schema.name}.{op._overloadname}"


def unsupported_input(op, *args, **kwargs):
    """Kernel for the sparse and quantized "tpu" dispatch keys: always an error
    naming the layout or dtype (from a tensor, or a layout= / dtype= argument)."""
    what = "this tensor layout"
    for x in reversed(_leaves((args, kwargs))):  # the first match wins
        if isinstance(x, torch.Tensor):
            x = x.dtype if x.is_quantized else x.layout
        if isinstance(x, (torch.layout, torch.dtype)) and x in _UNSUPPORTED:
            what = _UNSUPPORTED[x]
    _C.fallback_unsupported(op_name(op), what)


def _leaves(tree):
    found = []
    tree_map(found.append, tree)
    return found


def _tensors(tree):
    return [x for x in _leaves(tree) if isinstance(x, torch.Tensor)]


def _on_tpu(x):
    return isinstance(x, torch.Tensor) and x.device.type == "tpu"


class _Mirror:
    """One host buffer covering the elements that the arguments over one
    device storage (and dtype) reach: offsets [lo, hi)."""

    def __init__(self, tensors):
        spans = [(t.storage_offset(), t.storage_offset() + 1 + sum((s - 1) * st for s, st in zip(t.shape, t.stride())))
                 for t in tensors if t.numel()]
        self.lo = min(a for a, _ in spans)
        self.device = tensors[0].as_strided((max(b for _, b in spans) - self.lo,), (1,), self.lo)
        self.host = self.device.cpu()
        self.dirty = False

    def host_view(self, t):
        return self.host.as_strided(t.shape, t.stride(), t.storage_offset() - self.lo)

    def device_view(self, r):
        """The device view matching host tensor r, or None when r is not a view of this buffer."""
        if r.dtype != self.host.dtype or r.untyped_storage().data_ptr() != self.host.untyped_storage().data_ptr():
            return None
        return self.device.as_strided(r.shape, r.stride(), r.storage_offset() + self.lo)


def _meta(t):
    return t.shape, t.stride(), t.storage_offset(), t.untyped_storage().data_ptr()


def _key(t):
    return id(t.untyped_storage()._tt), t.dtype


def _written(schema, args, kwargs):
    """The argument values the schema marks as mutated (`Tensor(a!)`), with their alias sets."""
    out, pos = [], 0
    for a in schema.arguments:
        if a.kwarg_only or pos >= len(args):
            if a.name not in kwargs:
                continue
            value = kwargs[a.name]
        else:
            value = args[pos]
            pos += 1
        if a.alias_info is not None and a.alias_info.is_write:
            out.append((frozenset(a.alias_info.before_set), value))
    return out


def run(op, *args, **kwargs):
    """The PrivateUse1 fallback: the op on the host if the fallback is on, else the core's error."""
    name = op_name(op)
    if _C.fallback_enter(name):  # raises NotImplementedError when the fallback is off
        warnings.warn(
            f"operator '{name}' has no TPU lowering; running it on the CPU (TORCH_TPU_CPU_FALLBACK). "
            "Its inputs are copied to the host and its results back, which is slow.",
            stacklevel=2,
        )
    groups = {}
    for t in _tensors((args, kwargs)):
        if _on_tpu(t) and t.numel():
            groups.setdefault(_key(t), []).append(t)
    mirrors = {k: _Mirror(ts) for k, ts in groups.items()}
    before = {}

    def to_host(x):
        if _on_tpu(x):
            h = mirrors[_key(x)].host_view(x) if x.numel() else torch.empty_strided(x.shape, x.stride(), dtype=x.dtype)
            before[id(h)] = _meta(h)
            return h
        if isinstance(x, torch.device) and x.type == "tpu":
            return torch.device("cpu")
        return x

    host_args, host_kwargs = tree_map(to_host, (args, kwargs))
    result = op(*host_args, **host_kwargs)

    written = _written(op._schema, args, kwargs)
    host_written = _written(op._schema, host_args, host_kwargs)
    for (_, dev), (_, host) in zip(written, host_written):
        for d, h in zip(_tensors(dev), _tensors(host)):
            if _on_tpu(d) and d.numel():
                mirrors[_key(d)].dirty = True
    for m in mirrors.values():
        if m.dirty:
            m.device.copy_(m.host)
    for (_, dev), (_, host) in zip(written, host_written):
        for d, h in zip(_tensors(dev), _tensors(host)):
            if _on_tpu(d) and before[id(h)] != _meta(h):
                d.resize_(h.shape)  # resized by the op (an out= of another shape)
                d.copy_(h)

    by_alias = {alias: dev for alias, dev in written}
    returns = op._schema.returns

    def to_device(r, i):
        info = returns[i].alias_info if i < len(returns) else None
        alias = frozenset(info.before_set) if info is not None and info.is_write else None
        if alias in by_alias:
            return by_alias[alias]  # an in-place or out= op returns its argument itself
        return tree_map(lambda x: _back(name, x, mirrors) if isinstance(x, torch.Tensor) else x, r)

    if len(returns) > 1 and isinstance(result, (tuple, list)):
        return type(result)(to_device(r, i) for i, r in enumerate(result))
    return to_device(result, 0)


def _back(name, r, mirrors):
    if r.is_quantized or r.layout in _UNSUPPORTED:
        _C.fallback_unsupported(name, "its result's " + _UNSUPPORTED[r.dtype if r.is_quantized else r.layout])
    if r.dtype not in _device.DTYPES:
        _C.fallback_unsupported(name, f"its result's dtype {r.dtype}")
    for m in mirrors.values():
        v = m.device_view(r) if r.numel() else None
        if v is not None:
            return v
    return r.to("tpu")
