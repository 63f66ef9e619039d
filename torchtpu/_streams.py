"""Streams and events for device "tpu", with torch.cuda's names. There is one
stream, the default one: ops run on the device in launch order, so stream
waits are already satisfied and every stream is that one. An event is
recorded by waiting for all work launched before it (synchronize) and
reading the host clock then: elapsed_time is the wall time between the two
points at which the device had finished the work before each record. The
classes subclass torch.Stream / torch.Event, whose C++ side has no tpu
implementation (synchronize and elapsed_time raise there), so the methods
are ours."""
import contextlib
import time

import torch


def _sync():
    from ._device import synchronize

    synchronize()


def _tpu_device(device):
    from ._device import _check_device

    _check_device(device)
    return torch.device("tpu", 0)


class Stream(torch.Stream):
    """The device's one stream (stream_id 0)."""

    def __new__(cls, device=None, priority=0, **kwargs):
        _tpu_device(device)
        return super().__new__(cls, device="tpu:0", priority=priority)

    def __init__(self, device=None, priority=0, **kwargs):
        pass

    def synchronize(self):
        _sync()

    def query(self):
        """True once all work launched on the device has finished."""
        _sync()
        return True

    def wait_stream(self, stream):
        pass  # one stream: work already runs in launch order

    def wait_event(self, event):
        pass

    def record_event(self, event=None):
        event = Event() if event is None else event
        event.record(self)
        return event

    def __eq__(self, other):
        return isinstance(other, torch.Stream) and other.device_type == self.device_type

    def __hash__(self):
        return hash(("tpu", 0, 0))


class Event(torch.Event):
    def __new__(cls, device=None, *, enable_timing=False, blocking=False, interprocess=False):
        _tpu_device(device)
        if interprocess:
            raise RuntimeError("tpu events cannot be shared between processes (interprocess=True)")
        self = super().__new__(cls, "tpu:0", enable_timing=enable_timing, blocking=blocking)
        return self

    def __init__(self, device=None, *, enable_timing=False, blocking=False, interprocess=False):
        self._tt_timing = enable_timing
        self._tt_time = None

    def record(self, stream=None):
        """Marks the point after all work launched so far (waits for it)."""
        _sync()
        self._tt_time = time.perf_counter_ns()

    def wait(self, stream=None):
        pass  # the one stream already runs after the recorded work

    def query(self):
        return True  # recording waited for the work

    def synchronize(self):
        _sync()

    def elapsed_time(self, end_event):
        """Milliseconds from this event's record to end_event's, as torch.cuda.Event."""
        for e in (self, end_event):
            if not getattr(e, "_tt_timing", False):
                raise ValueError("Both events must be created with argument 'enable_timing=True'.")
            if e._tt_time is None:
                raise ValueError("Both events must be recorded before calculating elapsed time.")
        return (end_event._tt_time - self._tt_time) / 1e6


_default = None


def current_stream(device=None):
    global _default
    _tpu_device(device)
    if _default is None:
        _default = Stream()
    return _default


default_stream = current_stream


def set_stream(stream):
    if stream is not None and stream.device_type != current_stream().device_type:
        raise RuntimeError("set_stream: not a tpu stream")


@contextlib.contextmanager
def stream(s):
    """`with torch.tpu.stream(s):` -- work still runs on the one stream."""
    yield s


class StreamContext(contextlib.AbstractContextManager):
    def __init__(self, stream):
        self.stream = stream

    def __enter__(self):
        return self.stream

    def __exit__(self, *exc):
        return False
