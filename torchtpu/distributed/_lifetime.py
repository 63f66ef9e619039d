"""Tensors given to gloo, held here so that gloo's threads never release
the last C++ reference but one of a tensor that has a Python object.

Why (the hang this prevents): PyTorch keeps a tensor's Python object alive
while C++ holds references besides the Python object's own, and releases it
when the count falls back to one (c10/util/intrusive_ptr.h, "PyObject
preservation"): that decref needs the GIL, on whatever thread drops the
reference. gloo's worker thread drops its reference to a finished collective
(and with it the collective's tensors) while holding its work queue's mutex.
A Python ProcessGroup subclass (ours) issues its next collective through
pybind's trampoline, which holds the GIL while gloo enqueues, i.e. while it
waits for that mutex: each thread waits for the other until gloo's timeout.
Every tpu collective's staged host tensors and CPU tensors passed through the
group (`dist.all_reduce(torch.ones(2))`, the object collectives' buffers) hit
it, about one run in three of the distributed tests.

The rule here: gloo receives CPU tensors as fresh aliases (`detach()`: same
storage, a TensorImpl only we and gloo reference) and staged host tensors
(ours alone); after the call that issued them, `keep` adds one more C++
reference (a ScriptList), so gloo's release is never the one that brings the
count down to the Python object's. `prune` (at every collective) drops an
entry once its tensors' count is 2 (their Python object and our list: gloo
has let go); the decref then runs here, with the GIL.
"""
import threading

import torch

_lock = threading.Lock()
_held = []  # (tensors, ScriptList of the same tensors: the C++ references)


def keep(tensors):
    """Holds `tensors` (issued to gloo already) until gloo lets go of them."""
    if tensors:
        tensors = list(tensors)
        entry = (tensors, torch._C.ScriptList(tensors))
        with _lock:
            _held.append(entry)


def _released(entry):
    return all(t._use_count() <= 2 for t in entry[0])


def prune():
    """Drops the entries gloo no longer references (a finished collective's
    are dropped at the next one)."""
    global _held
    with _lock:
        if not _held:
            return
        old, _held = _held, [e for e in _held if not _released(e)]
    del old  # the released tensors go here, outside the lock


def held():
    """How many tensors are held (tests)."""
    with _lock:
        return sum(len(e[0]) for e in _held)


def alias_host_tensors(x, aliases):
    """`x` (nested lists/tuples/dicts of arguments) with every CPU tensor
    replaced by an alias, appended to `aliases` (`keep` them after the call)."""
    if isinstance(x, torch.Tensor):
        if x.device.type != "cpu":
            return x
        a = x.detach()
        aliases.append(a)
        return a
    if isinstance(x, list):
        return [alias_host_tensors(v, aliases) for v in x]
    if isinstance(x, tuple):
        return tuple(alias_host_tensors(v, aliases) for v in x)
    if isinstance(x, dict):
        return {k: alias_host_tensors(v, aliases) for k, v in x.items()}
    return x
