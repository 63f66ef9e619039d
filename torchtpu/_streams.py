"""Streams and events for device "tpu", with torch.cuda's names.

There is one queue per device: the core launches work in program order, and
PJRT runs each launch after the producers of its inputs; a write makes a new
buffer (a buffer still read is never reused), and a buffer dropped while in
use stays alive until that use is done. So every stream is that one queue
(all Streams compare equal), `wait_stream`/`wait_event` are already satisfied
by launch order, and `Tensor.record_stream` has nothing to do.

An Event is a real mark in that order (the core's in-flight ring,
csrc/api/events.h): `record` closes the open region (deferred work is
launched) and waits for nothing; `query` says, without waiting, whether the
work launched before the mark has finished; `synchronize` waits for that
work only, not for what was launched after. Timing: the plugin reports no
device timestamps, so an event made with enable_timing=True waits at record
for the work before it and reads the host clock then: `elapsed_time` is the
wall time between the two points at which the device had finished the work
before each record (an upper bound on the device time in between, as
torch.cuda's is for a queue that was idle). The classes subclass
torch.Stream / torch.Event, whose C++ side has no tpu implementation, so the
methods are ours."""
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
        """True once all work launched on the device has finished (without waiting)."""
        from . import _C

        return _C.event_query(_C.event_record())

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
        self._tt_mark = None  # None until recorded

    def record(self, stream=None):
        """Marks the point after all work launched so far (waits only when timing)."""
        from . import _C

        self._tt_mark = _C.event_record()
        if self._tt_timing:
            _C.event_synchronize(self._tt_mark)
            self._tt_time = time.perf_counter_ns()

    def wait(self, stream=None):
        pass  # the one queue already runs later work after the recorded work

    def query(self):
        """True once the work before the record has finished (True if never recorded, as CUDA)."""
        from . import _C

        return True if self._tt_mark is None else _C.event_query(self._tt_mark)

    def synchronize(self):
        """Waits for the work launched before the record (not for later work)."""
        from . import _C

        if self._tt_mark is not None:
            _C.event_synchronize(self._tt_mark)

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
