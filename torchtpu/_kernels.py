"""Kernel registration for device "tpu". Every op the C core lowers gets a
trampoline that passes its arguments, in schema order, to `_C.call`. The few
kernels written here only move data between host and device or ask PyTorch's
Meta kernels for view metadata; none computes anything."""
import functools
import keyword
import warnings

import torch

from . import _C, _device, _fallback

_lib = None
_fallback_lib = None
_META = torch._C.DispatchKeySet(torch._C.DispatchKey.Meta)
_CPU = torch._C.DispatchKeySet(torch._C.DispatchKey.CPU)
_registered = []


def _schema_of(name):
    packet, _, overload = name.partition(".")
    try:
        return getattr(getattr(torch.ops.aten, packet), overload or "default")._schema
    except AttributeError:
        return None


def _trampoline(op_id, schema, size_id=None):
    """A kernel taking the schema's arguments and calling the core with all of
    them, positionally, defaults filled in. An op whose output shape depends on
    the data has a size companion in its row (size_id): it runs first, its
    small result is downloaded and passed to the op as a last list of ints."""
    args = schema.arguments
    names = [f"a{i}" for i in range(len(args))]
    env = {"_call": _C.call, "torch": torch}
    params, kwonly = [], []
    for i, a in enumerate(args):
        if a.has_default_value():
            env[f"d{i}"] = a.default_value
            default = f"=d{i}"
        else:
            default = "=None" if a.kwarg_only or any(b.has_default_value() for b in args[:i]) else ""
        if a.kwarg_only:
            if keyword.iskeyword(a.name):
                return None
            names[i] = a.name
            kwonly.append(f"{a.name}{default}")
        else:
            params.append(f"{names[i]}{default}")
    sig = ", ".join(params + (["*"] + kwonly if kwonly else []))
    returns_list = len(schema.returns) == 1 and str(schema.returns[0].type).startswith("List")
    body = f"r = _call({op_id}, ({', '.join(names)}{',' if names else ''}))"
    if size_id is not None:
        env["_host_ints"] = _host_ints
        body = (f"n = _host_ints(_call({size_id}, ({', '.join(names)},)))\n        "
                f"r = _call({op_id}, ({', '.join(names)}, n))")
    # a refusal (NotImplementedError) yields to the error CPU's checks of
    # dims raise first, which the Meta kernel repeats (TensorIterator's
    # shape and cast checks before a refusal are the core's:
    # csrc/api/iterator_first.h)
    env["_checks_first"] = _checks_first
    env["_op"] = getattr(getattr(torch.ops.aten, schema.name.split("::")[-1]), schema.overload_name or "default")
    pos = [n for n, a in zip(names, args) if not a.kwarg_only]
    kw = [f"{n}={n}" for n, a in zip(names, args) if a.kwarg_only]
    body = (f"try:\n        {body}\n    except NotImplementedError as e:\n        "
            f"_checks_first(_op, ({', '.join(pos)}{',' if pos else ''}), dict({', '.join(kw)}), e)\n        raise")
    if not schema.returns:
        body += "\n    return None"
    elif returns_list:
        body += "\n    return [r] if isinstance(r, torch.Tensor) else list(r)"
    else:
        body += "\n    return r"
    src = f"def kernel({sig}):\n    {body}\n"
    # Named as a file of ours, which Dynamo's skip list holds
    # (_compiler_hooks.py): a kernel that runs while a compiled function runs
    # eagerly around a graph break is then plain Python, not a frame Dynamo
    # traces (it graph-broke at _C.call, recompiled per shape and guarded
    # every op call of a skipped frame).
    exec(compile(src, f"{__file__}:{schema.name}", "exec"), env)
    return env["kernel"]


def _dtype_refusal(refusal):
    """Whether a NotImplementedError is a refusal of a dtype: a kernel's
    dispatch refusal ('"cummin_cpu" not implemented for ...') or ours
    ('... not supported on TPU yet'), the errors CPU's earlier checks replace."""
    text = str(refusal)
    return "not implemented for '" in text or "not supported on TPU" in text


def _checks_first(op, args, kwargs, refusal):
    """CPU checks an op's dims (its meta function, or the first lines of its
    kernel) before its kernel dispatches on the dtype: where the Meta kernel
    raises an IndexError for these arguments (a dim out of range, an empty
    dim to reduce), that error is CPU's first one and replaces the core's
    refusal of a dtype (cummin(complex, dim=3) is an IndexError on CPU, not
    the complex refusal). Only a kernel's dispatch refusal ('"cummin_cpu"
    not implemented for ...') or one of ours ('... not supported on TPU yet')
    yields; Meta kernels' other errors are often their own dtype checks,
    worded and ordered unlike CPU's, so only IndexError is taken."""
    if not _dtype_refusal(refusal):
        return
    try:
        op(*_meta_like(args), **_meta_like(kwargs))
    except IndexError as e:
        raise e from None
    except Exception:  # noqa: BLE001 - no Meta kernel, or another error: the refusal stands
        pass


def _is_pointwise(op):
    """PyTorch's Tag.pointwise, functional forms: their results take
    TensorIterator's layout in the core (csrc/ops/result_layout.h); the
    other ops that follow their inputs' layout say so in their rows."""
    tags = op.tags
    return torch.Tag.pointwise in tags and torch.Tag.inplace_view not in tags and not op._schema.name.endswith("_")


def _is_inplace_binary(op):
    """self.op_(other): TensorIterator's shape and cast checks precede a
    refusal of a dtype; the core makes them (api/iterator_first.h)."""
    args = op._schema.arguments
    return op._schema.name.endswith("_") and len(args) >= 2 and args[1].name == "other"


def _is_inplace_pointwise(op):
    """Any other in-place pointwise op (lerp_, addcdiv_, addcmul_): its
    shape checks over every tensor operand precede a refusal of a dtype
    (the core's, api/iterator_first.h)."""
    return op._schema.name.endswith("_") and torch.Tag.pointwise in op.tags and not _is_inplace_binary(op)


def _restride(t, size, stride):
    """A result the core stored in CPU's layout: its strides, same storage
    (metadata only: not a view, as CPU's result is not)."""
    return torch.ops.aten.as_strided.default.redispatch(_META, t, size, stride, 0)


def _host_ints(t):
    return [int(v) for v in t.cpu().reshape(-1).tolist()]


def _meta_view(op):
    """A view op computed by PyTorch's Meta kernel: same storage, new sizes/strides."""

    def kernel(*args, **kwargs):
        return op.redispatch(_META, *args, **kwargs)

    return kernel


def _as_strided(self, size, stride, storage_offset=None):
    """as_strided by PyTorch's Meta kernel, after the core's bounds check
    against the core storage (its message names the storage's size)."""
    offset = self.storage_offset() if storage_offset is None else storage_offset
    _C.check_strided(self, size, stride, offset)
    return torch.ops.aten.as_strided.default.redispatch(_META, self, size, stride, storage_offset)


def _as_strided_(self, size, stride, storage_offset=None):
    """In-place view ops (squeeze_, transpose_, ...) reach here: new metadata
    from the Meta kernel, installed on self without touching the storage."""
    view = _as_strided(self, size, stride, storage_offset)
    self.data = view
    return self


def _empty(size, dtype=None, layout=None, device=None, pin_memory=None, memory_format=None):
    _device._check_device(device)
    _device._lazy_init()
    dtype = dtype or torch.get_default_dtype()
    if memory_format is None or memory_format == torch.contiguous_format:
        return _C.empty(tuple(size), dtype)
    stride, _ = _C.resize_layout(size, memory_format, dtype.itemsize, 0, False)  # channels_last's strides
    return _empty_strided(size, stride, dtype)


def _empty_strided(size, stride, dtype=None, layout=None, device=None, pin_memory=None):
    _device._check_device(device)
    _device._lazy_init()
    dtype = dtype or torch.get_default_dtype()
    itemsize = dtype.itemsize
    numel = _C.storage_nbytes(size, stride, itemsize, 0) // itemsize  # CPU's overflow check and message
    flat = _C.empty((numel,), dtype)
    return torch.ops.aten.as_strided.default.redispatch(_META, flat, size, stride, 0)


def _on_tpu(t):
    return t.device.type == "tpu"


def _warn_discard_imag(src, dtype):
    # CPU's copy_ warns (once) when a complex -> real copy drops the imaginary part.
    if src.is_complex() and not dtype.is_complex:
        warnings.warn("Casting complex values to real discards the imaginary part", UserWarning, stacklevel=3)


def _copy_(self, src, non_blocking=False):
    _warn_discard_imag(src, self.dtype)
    if _on_tpu(self) and _on_tpu(src):
        return _C.call(_COPY_ID, (self, src, non_blocking))
    if _on_tpu(self):  # host -> device
        if src.dim() == 0 and self.dim() != 0:
            return _C.call(_COPY_ID, (self, src, non_blocking))
        # the bytes must be the values: resolve lazy conj/neg bits first
        host = src.resolve_conj().resolve_neg().to(dtype=self.dtype).expand(self.shape).contiguous()
        return _C.upload(self, host)
    # device -> host
    host = torch.empty(src.shape, dtype=self.dtype if self.dtype in _device.DTYPES else src.dtype)
    _C.download(src, host)
    return self.copy_(host.expand(self.shape) if host.shape != self.shape else host)


def _to_copy(self, dtype=None, layout=None, device=None, pin_memory=None, non_blocking=False, memory_format=None):
    """A copy in the layout the core gives copies (preserve_format keeps a
    dense input's strides; channels_last permutes); on the device the core
    lays out the result itself."""
    to_host = device is not None and torch.device(device).type != "tpu"
    if not to_host:
        _device._check_device(device)
        if _on_tpu(self):
            if dtype is not None:
                _warn_discard_imag(self, dtype)
            return _C.call(_TO_COPY_ID, (self, dtype, layout, device, pin_memory, non_blocking, memory_format))
    # across devices: the destination in the core's copy strides, then the transfer
    stride = _C.copy_strides(self.shape, self.stride(), memory_format)
    dt, where = dtype or self.dtype, device if to_host else "tpu"
    out = torch.empty(self.shape, dtype=dt, device=where) if stride is None else \
        torch.empty_strided(self.shape, stride, dtype=dt, device=where)
    return _copy_(out, self)


def _local_scalar_dense(self):
    host = torch.empty((), dtype=self.dtype)
    _C.download(self, host)
    return host.item()


def _equal(self, other):
    """aten::equal returns a Python bool: the core computes it as a bool[] tensor."""
    return bool(_C.call(_IDS["equal"], (self, other)).cpu())


def _resize_(self, size, memory_format=None):
    """Grows the storage in place (old contents kept) when needed, then
    installs the metadata the core computed (CPU's checks, the format's
    strides)."""
    stride, need = _C.resize_layout(size, memory_format, self.element_size(), self.storage_offset())
    _C.grow_storage(self, need)
    return _as_strided_(self, list(size), stride, self.storage_offset())


def _set_storage(self, source, storage_offset=0, size=None, stride=()):
    """Tensor.set_(storage, offset, size, stride): the core checks the
    arguments as CPU does and says how many bytes the view reaches; the
    storage (and its core storage, the torch storage's `_tt`) grows first
    when that is past its end, as CPU's set_ resizes it; then PyTorch's CPU
    kernel installs the storage and metadata (nothing is left for it to
    resize; the Meta kernel refuses storages that, like ours, PyTorch's
    allocator cannot resize)."""
    if size is None:  # set_(storage): the whole storage as a 1-D tensor
        size = (source.nbytes() // self.element_size(),)
    _, need = _C.set_layout(size, stride, self.element_size(), storage_offset)
    if need > source.nbytes() and hasattr(source, "_tt"):
        _C.grow_storage(source, need)
    torch.ops.aten.set_.source_Storage_storage_offset.redispatch(_CPU, self, source, storage_offset, size, stride)
    return self


def _set_tensor(self, source):
    if self is source:
        return self
    return _set_storage(self, source.untyped_storage(), source.storage_offset(), source.shape, source.stride())


def _set_empty(self):
    """Tensor.set_(): a new empty storage."""
    return _set_storage(self, _empty((0,), self.dtype).untyped_storage(), 0, (0,), (1,))


def _record_stream(self, stream):
    """Nothing to do: one in-order queue, and PJRT keeps a buffer alive while
    work launched on it runs (torchtpu/_streams.py)."""
    if stream.device.type != self.device.type:
        raise RuntimeError(f"record_stream: a {stream.device.type} stream for a {self.device.type} tensor")


def _fused_sdp_choice(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, *, scale=None, enable_gqa=False):
    """scaled_dot_product_attention asks the device which fused kernel to run;
    there is none here, so it takes the composite math path (matmul, softmax)."""
    return int(torch.nn.attention.SDPBackend.MATH.value)


def _tensors(args):
    """The tensors among an op's arguments (lists of tensors included)."""
    out = []
    for a in args:
        if isinstance(a, torch.Tensor):
            out.append(a)
        elif isinstance(a, (list, tuple)):
            out.extend(t for t in a if isinstance(t, torch.Tensor))
    return out


def _meta_like(x):
    if isinstance(x, torch.Tensor):
        return torch.empty_strided(x.size(), x.stride(), dtype=x.dtype, device="meta")
    if isinstance(x, (list, tuple)):
        return type(x)(_meta_like(v) for v in x)
    return x


def _out_rule_name(name, zero_dim, args):
    """The overload whose out= rule applies: the core's table may name
    another where an argument is a 0-dim tensor (zero_dim, from
    _C.out_rule_if_0dim: lerp.Tensor_out with a 0-dim weight takes
    lerp.Scalar_out's canCast rule)."""
    if zero_dim is not None:
        i, other = zero_dim
        if len(args) > i and isinstance(args[i], torch.Tensor) and args[i].dim() == 0:
            return other
    return name


def _argument(functional, args, kwargs, arg):
    """The value of the functional's argument named `arg` in this call."""
    for i, a in enumerate(functional._schema.arguments):
        if a.name == arg:
            return args[i] if i < len(args) else kwargs.get(arg, a.default_value)
    raise KeyError(arg)


def _check_out_dtypes_first(functional, args, kwargs, outs, name, dtype_arg=None, with_arg=None):
    """CPU checks out's dtype before its kernel runs: the result dtypes come
    from PyTorch's meta kernel, so a refused out= raises before the
    functional op is queued (whose deferred device checks, e.g. an index out
    of range, would otherwise be raised at a later, unrelated
    synchronization point). Where the meta kernel raises, or does not exist,
    the core says whether CPU checks out's dtype first all the same (amax's
    and all's meta functions, before the dims), else the check after the
    functional op decides; where its dtype is not CPU's, the core names the
    argument whose result_type with the input is (ops/out_rules.h). An
    explicit dtype= is checked against out's (the core's check) after the
    meta kernel's dim checks, as CPU's meta functions wrap the dims first
    (cumprod(x, 3, dtype=float32, out=uint8) is the IndexError, fuzz 455:110)."""
    first = next((a for a in args if isinstance(a, torch.Tensor)), None)
    in_dtype, in_numel = (None, -1) if first is None else (first.dtype, first.numel())
    if dtype_arg is not None:  # the checks CPU's meta makes before the dims
        _C.check_out_dtype_arg(name, dtype_arg, outs[0].dtype, in_dtype, 0)
    try:
        meta = functional(*_meta_like(args), **_meta_like(kwargs))
    except IndexError:  # a dim out of range: the real call raises it
        for k, o in enumerate(outs):  # unless CPU checks out's dtype first (each of cummax's outs)
            if isinstance(o, torch.Tensor):
                _C.check_out_dtype(name, k if len(outs) > 1 else 0, None, o.dtype, in_dtype, in_numel)
        return
    except Exception:  # noqa: BLE001 - the real call raises its own error
        if dtype_arg is not None:
            _C.check_out_dtype_arg(name, dtype_arg, outs[0].dtype, in_dtype, 1)
        if isinstance(outs[0], torch.Tensor):
            _C.check_out_dtype(name, 0, None, outs[0].dtype, in_dtype, in_numel)
            batch2 = _batch2_result(functional, name, args, kwargs)
            if batch2 is not None:
                _C.check_out_dtype(name, 0, batch2, outs[0].dtype, in_dtype, in_numel)
            operands = _operands_type(args)
            if operands == torch.complex32:
                _C.check_out_complex32(name, 0, outs[0].dtype, 1)
            elif operands is not None:  # a binary op's iterator: its cast check before its kernel's refusal
                _C.check_out_operands(name, operands, outs[0].dtype)
        return
    if dtype_arg is not None:
        _C.check_out_dtype_arg(name, dtype_arg, outs[0].dtype, in_dtype, 1)
    metas = (meta,) if len(outs) == 1 else meta
    for k, (o, m) in enumerate(zip(outs, metas)):
        if isinstance(m, torch.Tensor) and isinstance(o, torch.Tensor):
            dtype = m.dtype if with_arg is None else torch.result_type(first, _argument(functional, args, kwargs, with_arg))
            if dtype == torch.complex32:  # no core dtype (float16 beside a complex number): its own rule (fuzz 492:194)
                _C.check_out_complex32(name, k if len(outs) > 1 else 0, o.dtype)
                continue
            _C.check_out_dtype(name, k if len(outs) > 1 else 0, dtype, o.dtype, in_dtype, in_numel)


def _batch2_result(functional, name, args, kwargs):
    """bmm.out/baddbmm.out whose batches differ in dtype: PyTorch's meta
    kernel refuses them, but CPU's meta function sets its result up with
    batch2's options once the sizes pass (baddbmm: and self's dtype is
    batch1's) and checks out's dtype there, before its kernel finds batch1
    of another type (fuzz 573:118: bmm(bool, int8, out=bool) is 'Expected
    out tensor to have dtype signed char, but got bool instead', not the
    Bool refusal). batch2's dtype where that holds (the meta kernel passes
    with every tensor in it), else None."""
    if name not in ("bmm.out", "baddbmm.out"):
        return None
    tensors = [a for a in args if isinstance(a, torch.Tensor)]
    if len(tensors) != len(args) or len(tensors) != (2 if name == "bmm.out" else 3):
        return None
    dtype = tensors[-1].dtype
    if len({t.dtype for t in tensors[:-1]}) != 1 or tensors[0].dtype == dtype:
        return None
    try:
        functional(*[m.to(dtype) for m in _meta_like(args)], **_meta_like(kwargs))
    except Exception:  # noqa: BLE001 - a size error, or baddbmm's beta/alpha checks: the call raises its own
        return None
    return dtype


def _operands_type(args):
    """result_type(self, other) of a call whose first two arguments are
    tensors that broadcast, or a tensor and a number, else None: where PyTorch's
    meta kernel refuses complex operands (floor_divide, logaddexp2), CPU's
    iterator has computed this type and checked its cast into out first
    (fuzz 486:946: floor_divide(bool, -1.81-1.96j, out=int32) is 'result
    type ComplexFloat can't be cast to the desired output type Int'); the
    core says for which overloads (api/out_write.h)."""
    if len(args) < 2 or not any(isinstance(a, torch.Tensor) for a in args[:2]):
        return None  # a number self too (fuzz 508:324: floor_divide(-0.21+1.83j, int64, out=int64))
    if not all(isinstance(a, (torch.Tensor, bool, int, float, complex)) for a in args[:2]):
        return None
    if all(isinstance(a, torch.Tensor) for a in args[:2]):
        try:
            torch.broadcast_shapes(args[0].shape, args[1].shape)
        except RuntimeError:  # the size error comes first
            return None
    return torch.result_type(args[0], args[1])


def _out_input(functional, name, args, kwargs, out):
    """A reduction whose CPU iterator reads its input in out's type (any/all
    into a uint8 out: 0.5 and 256 are false there; std/var into another
    floating type: bfloat16 -3.4e38 is -inf in a float16 out) gets its input
    converted as CPU converts it (_tt_iterator_cast). The core says which
    overloads, when, and its one-element exceptions (ops/out_rules.h); the
    result's size comes from PyTorch's meta kernel."""
    x = args[0] if args else None
    if not isinstance(x, torch.Tensor) or not isinstance(out, torch.Tensor) or x.dtype == out.dtype:
        return args
    try:
        res_numel = functional(*_meta_like(args), **_meta_like(kwargs)).numel()
    except Exception:  # noqa: BLE001 - the real call raises its own error
        return args
    dtype = _C.out_input_dtype(name, x.dtype, x.numel(), res_numel, out.dtype)
    return args if dtype is None else (_C.call(_IDS["_tt_iterator_cast"], (x, dtype)),) + tuple(args[1:])


def _out_into(name, functional, args, kwargs, out):
    """The out= overload computed into out's dtype by the core op its out=
    rule names (ops/out_rules.h: CPU's kernel runs part of the op in out's
    type), or None (the functional op then runs). That op takes the
    functional's arguments, in its schema's order, and out's dtype last."""
    x = args[0] if args else None
    if not isinstance(x, torch.Tensor) or not isinstance(out, torch.Tensor):
        return None
    op = _C.out_into(name, x.dtype, out.dtype, torch.get_default_dtype())
    if op is None:
        return None
    _warn_discard_imag(x, out.dtype)  # a complex input's real parts, converted by CPU's iterator
    rest = [args[i] if i < len(args) else kwargs.get(a.name, a.default_value)
            for i, a in enumerate(functional._schema.arguments) if i > 0]
    return _C.call(_IDS[op], (x, *rest, out.dtype))


def _float_or_complex(dtype):
    return dtype.is_floating_point or dtype.is_complex


def _out_variant(functional, out_names=("out",), name="", dtype_from_out=False, input_from_out=False):
    """`op.out(..., out=t)`: the functional op, then its result written into
    `out`. What CPU checks and decides first (out's device, the dtype rule,
    overlap with an input, resize_output's rule and warning) is the core's
    (_C.check_out_write); out is then resized in place (its storage grows, as
    on CPU, so views of it see the write) and the result copied in. Overloads
    with several outs name each (`output=, indices=`). An op with a `dtype=`
    argument left None computes in out's dtype (CPU's reductions); one
    without (any/all, std/var) may read its input in out's type (_out_input)."""

    into = _C.out_into(name) is not None  # resolved once: the other out= kernels never look
    zero_dim = _C.out_rule_if_0dim(name)
    # the argument whose result_type with the input is CPU's result dtype, per rule (looked up once)
    with_args = {r: _C.out_result_with(r) for r in (name,) + ((zero_dim[1],) if zero_dim is not None else ())}

    def kernel(*args, **kwargs):
        rule = _out_rule_name(name, zero_dim, args)
        outs = [kwargs.pop(n) for n in out_names]
        dtype_arg = kwargs.get("dtype") if len(outs) == 1 else None  # an explicit one: checked against out's
        if len(outs) == 1 and dtype_arg is None:
            # reductions compute in out's type (CPU's infer_dtype_from_optional); the core's
            # table says which (1), and which only for a floating or complex input and out
            # (2, mean: an integral input raises, an integral out is the cast rule's error)
            if dtype_from_out == 1 or (dtype_from_out == 2 and _float_or_complex(args[0].dtype)
                                       and _float_or_complex(outs[0].dtype)):
                kwargs["dtype"] = outs[0].dtype
        _check_out_dtypes_first(functional, args, kwargs, outs, rule, dtype_arg, with_args[rule])
        fargs = _out_input(functional, rule, args, kwargs, outs[0]) if input_from_out else args
        result = _out_into(rule, functional, fargs, kwargs, outs[0]) if into else None
        if result is None:
            result = functional(*fargs, **kwargs)
        results = (result,) if len(outs) == 1 else result
        for o, r, resize in zip(outs, results, _C.check_out_write(rule, outs, results, _tensors(args))):
            _write_out(o, r, resize)
        return outs[0] if len(outs) == 1 else outs

    return kernel


def _arange_out(*args, out):
    """arange.out / arange.start_out (window functions build their grid this
    way): the functional arange in out's dtype (length and values from the
    core), written into out with CPU's resize rule and warning."""
    r = torch.ops.aten.arange.start_step(*([0] if len(args) == 1 else []), *args, dtype=out.dtype, device=out.device)
    if out.numel() != r.numel() and out.numel() > 0:
        warnings.warn(f"The number of elements in the out tensor of shape {list(out.shape)} is {out.numel()} which does "
                      f"not match the computed number of elements {r.numel()}. Note that this may occur as a result of "
                      f"rounding error. The out tensor will be resized to a tensor of shape ({r.numel()},).",
                      UserWarning, stacklevel=2)
    _write_out(out, r, out.shape != r.shape)
    return out


def _space_out(fn):
    """linspace.out / logspace.out: CPU resizes out to [steps] (silently)
    when its numel differs, and fills an out of another shape with the same
    numel in its row-major order; the core writes a 1-D out of steps."""

    def kernel(start, end, steps, *rest, out):
        if steps >= 0 and out.numel() != steps:
            out.resize_((steps,))
        if steps < 0 or out.dim() == 1:
            return fn(start, end, steps, *rest, out=out)
        flat = fn(start, end, steps, *rest, out=out.new_empty((steps,)))
        out.copy_(flat.view(out.shape))
        return out

    return kernel


def _eye_out(fn):
    """eye.out / eye.m_out: CPU resizes out to [n, m] (silently, restrided
    row-major when the shape changes) before it writes; the core writes an out
    of that shape."""

    def kernel(n, *m, out):
        shape = (n, m[0] if m else n)
        if min(shape) >= 0 and tuple(out.shape) != shape:
            out.resize_(shape)
        return fn(n, *m, out=out)

    return kernel


def _cat_out(generic):
    """cat.out: CPU checks that the inputs' result type casts into out's,
    then copies each input into its slice of out, converting from the
    input's own dtype (an int32 -2147483648 cat with float16 tensors into a
    float64 out stays exact; through the float16 result type it was -inf:
    fuzz 178:1063). Inputs of another dtype are converted to out's first
    where that cast is allowed; the out= path does the rest (its checks
    and errors, the resize)."""

    def kernel(tensors, dim=0, *, out):
        dtypes = [t.dtype for t in tensors if isinstance(t, torch.Tensor)]
        if dtypes and len(dtypes) == len(tensors) and any(d != out.dtype for d in dtypes):
            common = functools.reduce(torch.promote_types, dtypes)
            if torch.can_cast(common, out.dtype):
                tensors = [t if t.dtype == out.dtype else t.to(out.dtype) for t in tensors]
            elif _cat_dims_pass(tensors, dim):  # CPU's meta: the cast check before the shapes' (fuzz 437:1181)
                _C.check_out_dtype("cat.out", 0, common, out.dtype, None, -1)
        return generic(tensors, dim, out=out)

    return kernel


def _cat_dims_pass(tensors, dim):
    """Whether cat's checks that CPU makes before out's dtype pass: no 0-dim
    tensor, and dim within the first tensor that is not a legacy-skipped
    1-D empty one (legacy_cat_wrap_dim)."""
    if any(t.dim() == 0 for t in tensors):
        return False
    ref = next((t for t in tensors if not (t.dim() == 1 and t.numel() == 0)), None)
    return ref is None or -ref.dim() <= dim < ref.dim()


def _write_out(out, result, resize):
    if resize:
        out.resize_(result.shape)
    out.copy_(result)


def _signature(schema):
    return tuple((a.name, str(a.type)) for a in schema.arguments if not a.is_out)


# Indexing: boolean and byte masks become long indices (their nonzero count
# read on the host, as in PyTorch), and `x[mask] = v` runs masked_fill, in the
# core (csrc/api/index_masks.h); CPU index tensors are accepted, as on CUDA,
# and moved to the device here.
_IDS = {}


def _device_indices(self, indices):
    return [i.to(self.device) if i is not None and not _on_tpu(i) else i for i in indices]


def _index(self, indices):
    return _C.call(_IDS["index.Tensor"], (self, _device_indices(self, indices)))


def _index_put_impl_(self, indices, values, accumulate=False, unsafe=False):
    return _C.call(_IDS["_index_put_impl_"], (self, _device_indices(self, indices), values, accumulate, unsafe))


def _index_put(self, indices, values, accumulate=False):
    return _C.call(_IDS["index_put"], (self, _device_indices(self, indices), values, accumulate))


def _masked_select(self, mask):
    self, mask = torch.broadcast_tensors(self, mask)
    if self.dim() == 0:  # a 0-dim mask selects from a 1-element vector, as on CPU
        self, mask = self.reshape(1), mask.reshape(1)
    return _index(self, [mask])


def _host_lengths(op, lengths):
    """CTC's length tensors as the int list the lowering takes: the output's shape depends on their values,
    so, as for CPU and CUDA (ctc_loss_tensor), they are read on the host."""
    if lengths.is_floating_point() or lengths.is_complex() or lengths.dtype == torch.bool:
        raise RuntimeError(f"{op}: input_lengths and target_lengths must be of an integral dtype, got {lengths.dtype}")
    return _host_ints(lengths)


def _ctc_loss_tensor(log_probs, targets, input_lengths, target_lengths, blank=0, zero_infinity=False):
    return torch.ops.aten._ctc_loss.default(log_probs, targets, _host_lengths("ctc_loss", input_lengths),
                                            _host_lengths("ctc_loss", target_lengths), blank, zero_infinity)


def _ctc_loss_backward_tensor(grad, log_probs, targets, input_lengths, target_lengths, neg_log_likelihood,
                              log_alpha, blank, zero_infinity=False):
    return torch.ops.aten._ctc_loss_backward.default(
        grad, log_probs, targets, _host_lengths("ctc_loss_backward", input_lengths),
        _host_lengths("ctc_loss_backward", target_lengths), neg_log_likelihood, log_alpha, blank, zero_infinity)


_COPY_ID = _TO_COPY_ID = None


_RESIZING_OUT = {"linspace.out": _space_out, "logspace.out": _space_out,
                 "eye.out": _eye_out, "eye.m_out": _eye_out}


def register_all():
    global _lib, _COPY_ID, _TO_COPY_ID
    _lib = torch.library.Library("aten", "IMPL")
    names = _C.op_names()
    ids = {n: i for i, n in enumerate(names)}
    _COPY_ID, _TO_COPY_ID = ids["copy_"], ids["_to_copy"]
    special = {
        "empty.memory_format": _empty,
        "empty_strided": _empty_strided,
        "copy_": _copy_,
        "_to_copy": _to_copy,
        "_local_scalar_dense": _local_scalar_dense,
        "resize_": _resize_,
        "as_strided_": _as_strided_,
        "_fused_sdp_choice": _fused_sdp_choice,
        "record_stream": _record_stream,
        "set_.source_Storage_storage_offset": _set_storage,
        "set_.source_Storage": _set_storage,
        "set_.source_Tensor": _set_tensor,
        "set_": _set_empty,
    }
    _IDS.update(ids)
    special.update({"index.Tensor": _index, "_index_put_impl_": _index_put_impl_,
                    "index_put": _index_put, "masked_select": _masked_select, "equal": _equal,
                    "arange.out": _arange_out, "arange.start_out": _arange_out})
    special["as_strided"] = _as_strided
    # conj_physical is composite (real: self, complex: _conj_physical), so its
    # out= overload has no lowered functional to pair with: CPU's unary op
    # with its same-dtype rule (ops/out_rules.c)
    special["conj_physical.out"] = _out_variant(torch.ops.aten.conj_physical.default, ("out",), "conj_physical.out")
    special["cat.out"] = _cat_out(_out_variant(torch.ops.aten.cat.default, ("out",), "cat.out"))
    if "_ctc_loss" in ids:
        special.update({"_ctc_loss.Tensor": _ctc_loss_tensor, "_ctc_loss_backward.Tensor": _ctc_loss_backward_tensor})
    for view in ("view", "_reshape_alias", "unfold", "alias", "view_as_real", "view_as_complex"):
        special[view] = _meta_view(getattr(torch.ops.aten, view).default)
    for name, fn in special.items():
        _lib.impl(name, fn, "PrivateUse1")
        _registered.append(name)
    pointwise, inplace_binary, inplace_pointwise = [], [], []
    for name, op_id in ids.items():
        if name.startswith("_tt_") or name in special:
            continue
        schema = _schema_of(name)
        if schema is None:
            continue
        fn = _trampoline(op_id, schema, _C.op_size_companion(op_id))
        if fn is None:
            continue
        if name in _RESIZING_OUT:
            fn = _RESIZING_OUT[name](fn)
        packet, _, overload = name.partition(".")
        aten_op = getattr(getattr(torch.ops.aten, packet), overload or "default")
        if _is_pointwise(aten_op):
            pointwise.append(op_id)
        if _is_inplace_binary(aten_op):
            inplace_binary.append(op_id)
        elif _is_inplace_pointwise(aten_op):
            inplace_pointwise.append(op_id)
        _lib.impl(name, fn, "PrivateUse1")
        _registered.append(name)
    _C.set_layout_ops(pointwise, _restride)
    _C.set_inplace_iterator_ops(inplace_binary, inplace_pointwise)
    # `.out` overloads of the ops we lower: same arguments (names and types) plus out=.
    by_packet = {}
    for name in _registered:
        packet, _, overload = name.partition(".")
        by_packet.setdefault(packet, []).append(overload or "default")
    for packet, overloads in by_packet.items():
        pk = getattr(torch.ops.aten, packet, None)
        if pk is None:
            continue
        sigs = {_signature(getattr(pk, o)._schema): o for o in overloads}
        for o in pk.overloads():
            out_schema = getattr(pk, o)._schema
            out_name = f"{packet}.{o}"
            if out_name in _registered or not any(a.is_out for a in out_schema.arguments):
                continue
            functional = sigs.get(_signature(out_schema))
            if functional is None:
                continue
            out_names = tuple(a.name for a in out_schema.arguments if a.is_out)
            # reductions computing in out's dtype (CPU's infer_dtype_from_optional): the core's table says which
            dtype_from_out = _C.out_dtype_from_out(out_name)
            kernel = _out_variant(getattr(pk, functional), out_names, out_name, dtype_from_out,
                                  _C.out_input_from_out(out_name))
            _lib.impl(out_name, kernel, "PrivateUse1")
            _registered.append(out_name)
    global _fallback_lib
    _fallback_lib = torch.library.Library("_", "IMPL")
    # Ops with no lowering: the CPU fallback if it is on, else an error saying how to turn it on.
    _fallback_lib.fallback(_fallback.run, "PrivateUse1", with_keyset=False)
    for key in ("SparsePrivateUse1", "SparseCsrPrivateUse1", "QuantizedPrivateUse1"):
        _fallback_lib.fallback(_fallback.unsupported_input, key, with_keyset=False)


def registered_ops():
    """Names of the ATen ops with a "tpu" kernel."""
    return list(_registered)
