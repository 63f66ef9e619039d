"""torch.accelerator, torch.Event and torch.Stream for device "tpu".

PyTorch 2.13 routes torch.accelerator.synchronize / current_stream /
memory_* and the methods of torch.Event / torch.Stream through C++
interfaces (DeviceGuardImplInterface, DeviceAllocator) that a backend
registered from Python cannot implement: the Python guard class exposes only
type_(), and no allocator can be registered (memory_* hit an INTERNAL ASSERT
"Allocator for tpu is not a DeviceAllocator"). So, while tpu is the current
accelerator, those torch.accelerator functions are replaced by ones calling
torch.tpu's, and torch.Event / torch.Stream by subclasses whose construction
for a tpu device gives torch.tpu.Event / torch.tpu.Stream (any other device
gets PyTorch's own object; isinstance against them keeps working for both)."""
import functools

import torch

from . import _memory, _streams

_ORIGINAL_EVENT = torch.Event
_ORIGINAL_STREAM = torch.Stream


def _is_tpu_device(device):
    if device is None:
        acc = torch.accelerator.current_accelerator()
        return acc is not None and acc.type == "tpu"
    if isinstance(device, int):
        return _is_tpu_device(None)
    return torch.device(device).type == "tpu"


_is_tpu = False  # tpu was found the accelerator


def _tpu_accelerator():
    # The accelerator is the device type PyTorch was built for or the one
    # registered as PrivateUse1 (tpu, once and for good): once tpu, always.
    # Dynamo's compiled code asks through current_stream at every call.
    global _is_tpu
    if not _is_tpu:
        acc = torch._C._accelerator_getAccelerator()
        _is_tpu = acc is not None and acc.type == "tpu"
    return _is_tpu


def _device_arg(device_index):
    """torch.accelerator's device argument, checked against tpu:0."""
    from ._device import _check_device

    if isinstance(device_index, str) and ":" not in device_index and device_index != "tpu":
        raise ValueError(f"{device_index} doesn't match the current accelerator tpu.")
    _check_device(device_index)
    return device_index


def _synchronize(device_index=None, /):
    from ._device import synchronize

    synchronize(_device_arg(device_index))


def _current_stream(device_index=None, /):
    # Dynamo's compiled code asks this at every call of a compiled function:
    # the one stream once made, without checking an argument known good.
    s = _streams._default
    if s is not None and (device_index is None or (type(device_index) is torch.device and device_index.type == "tpu"
                                                   and device_index.index in (None, 0))):
        return s
    return _streams.current_stream(_device_arg(device_index))


def _set_stream(stream, /):
    _streams.set_stream(stream)


def _memory_fn(name):
    fn = getattr(_memory, name)

    def call(device_index=None, /):
        return fn(_device_arg(device_index))

    return call


def _get_memory_info(device_index=None, /):
    return _memory.mem_get_info(_device_arg(device_index))


def _empty_cache():
    _memory.empty_cache()


def _dispatch(original, ours):
    """original while the accelerator is not tpu, else ours."""

    @functools.wraps(original)
    def call(*args, **kwargs):
        return (ours if _tpu_accelerator() else original)(*args, **kwargs)

    call._tt_original = original
    return call


_REPLACED = {
    "synchronize": _synchronize,
    "current_stream": _current_stream,
    "set_stream": _set_stream,
    "empty_cache": _empty_cache,
    "get_memory_info": _get_memory_info,
    **{n: _memory_fn(n) for n in ("memory_stats", "memory_allocated", "max_memory_allocated", "memory_reserved",
                                  "max_memory_reserved", "reset_peak_memory_stats", "reset_accumulated_memory_stats")},
}


class _AnyEvent(type):
    def __instancecheck__(cls, obj):
        return isinstance(obj, _ORIGINAL_EVENT)

    def __subclasscheck__(cls, sub):
        return issubclass(sub, _ORIGINAL_EVENT)


class _AnyStream(type):
    def __instancecheck__(cls, obj):
        return isinstance(obj, _ORIGINAL_STREAM)

    def __subclasscheck__(cls, sub):
        return issubclass(sub, _ORIGINAL_STREAM)


class Event(_ORIGINAL_EVENT, metaclass=_AnyEvent):
    __doc__ = _ORIGINAL_EVENT.__doc__

    def __new__(cls, *args, **kwargs):
        if cls is not Event:  # a user's subclass of torch.Event: PyTorch's object of that class
            return super().__new__(cls, *args, **kwargs)
        if _is_tpu_device(args[0] if args else kwargs.get("device")):
            return _streams.Event(*args, **kwargs)
        return _ORIGINAL_EVENT(*args, **kwargs)


class Stream(_ORIGINAL_STREAM, metaclass=_AnyStream):
    __doc__ = _ORIGINAL_STREAM.__doc__

    def __new__(cls, *args, **kwargs):
        if cls is not Stream:
            return super().__new__(cls, *args, **kwargs)
        if "stream_id" not in kwargs and _is_tpu_device(args[0] if args else kwargs.get("device")):
            return _streams.Stream(*args, **kwargs)
        return _ORIGINAL_STREAM(*args, **kwargs)


for _cls in (Event, Stream):
    _cls.__module__ = "torch"


def install():
    import torch.accelerator.memory as acc_memory

    for name, ours in _REPLACED.items():
        for mod in (torch.accelerator, acc_memory):
            original = getattr(mod, name, None)
            if original is not None and not hasattr(original, "_tt_original"):
                setattr(mod, name, _dispatch(original, ours))
    torch.Event = Event
    torch.Stream = Stream
