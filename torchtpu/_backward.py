"""torch.autograd.backward and torch.autograd.grad, wrapped once for tpu.

PyTorch's autograd engine runs the nodes of a non-CPU device on a worker
thread of its own, one per device, and the calling thread waits for it:
two thread hand-offs per backward call (a no-op tpu backward took 110-150
us against 75 on the caller's thread, on a loaded 2-core machine), for
nothing here (tpu ops are asynchronous already: the worker would only
record or launch them). So a backward started from a tpu tensor
runs on the calling thread (autograd's multithreading off for the call, as
`torch.autograd.set_multithreading_enabled(False)` does; the thread's own
setting is put back after). A backward from a CPU tensor (that may still
reach tpu nodes) keeps PyTorch's threads, and carries this thread's
torch.tpu.precision block to them (torchtpu/_precision.py)."""
import functools

import torch

from . import _C


def _first_tensor(x):
    if isinstance(x, torch.Tensor):
        return x
    if isinstance(x, (list, tuple)) and x and isinstance(x[0], torch.Tensor):
        return x[0]
    return None


def _wrap(fn, first_arg):
    @functools.wraps(fn)
    def run(*args, **kwargs):
        # Dynamo tracing a call sees PyTorch's own function (no graph break here).
        if torch.compiler.is_compiling():
            return fn(*args, **kwargs)
        t = _first_tensor(args[0] if args else kwargs.get(first_arg))
        here = t is not None and t.device.type == "tpu" and torch._C._is_multithreading_enabled()
        if here:
            torch._C._set_multithreading_enabled(False)
        pushed = _C._push_backward_precision()
        try:
            return fn(*args, **kwargs)
        finally:
            if pushed:
                _C._pop_backward_precision()
            if here:
                torch._C._set_multithreading_enabled(True)

    run._tt_backward_wrapped = True
    return run


def install():
    for name, first in (("backward", "tensors"), ("grad", "outputs")):
        fn = getattr(torch.autograd, name)
        if not getattr(fn, "_tt_backward_wrapped", False):
            setattr(torch.autograd, name, _wrap(fn, first))
