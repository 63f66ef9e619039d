"""tensor.pin_memory() / is_pinned() and DataLoader(pin_memory=True) with
tpu the accelerator. PyTorch asks the backend's C++ hooks
(PrivateUse1HooksInterface::getPinnedMemoryAllocator) for pinned memory, and
a backend registered from Python cannot provide them, so the two ops behind
the calls, aten::_pin_memory and aten::is_pinned, get CPU kernels here.

What "pinned" means here: a page-aligned host copy (an anonymous mapping, as
cudaHostAlloc hands out pages) that is_pinned() recognizes for as long as
the memory lives. It is not page-locked: the PJRT transfer (the CPU plugin's,
or an accelerator's staging copy) reads any host memory, so locking would buy
nothing and cost RLIMIT_MEMLOCK. `.to("tpu", non_blocking=True)` of it
gives the same values as a blocking copy."""
import bisect
import mmap
import threading
import weakref

import torch

_lock = threading.Lock()
_starts = []  # sorted start addresses of live pinned blocks
_ends = {}  # start -> end


def _forget(start):
    with _lock:
        i = bisect.bisect_left(_starts, start)
        if i < len(_starts) and _starts[i] == start:
            del _starts[i]
            del _ends[start]


def _pinned_address(ptr):
    with _lock:
        i = bisect.bisect_right(_starts, ptr) - 1
        return i >= 0 and ptr < _ends[_starts[i]]


def _is_pinned(self, device=None):
    if self.numel() == 0 and self.untyped_storage().nbytes() == 0:
        return False
    return _pinned_address(self.untyped_storage().data_ptr())


def _pin_memory(self, device=None):
    if device is not None and torch.device(device).type not in ("tpu", "privateuseone"):
        raise RuntimeError(f"pin_memory: pinned memory for device {torch.device(device)} is not "
                           "available with torchtpu (the accelerator is tpu)")
    size, stride = self.shape, self.stride()
    span = 1 + sum((n - 1) * s for n, s in zip(size, stride)) if all(n > 0 for n in size) else 0
    nbytes = span * self.element_size()
    block = mmap.mmap(-1, max(nbytes, 1))
    raw = torch.frombuffer(block, dtype=torch.uint8)  # the storage keeps `block` alive
    start = raw.untyped_storage().data_ptr()
    with _lock:
        bisect.insort(_starts, start)
        _ends[start] = start + max(nbytes, 1)
    weakref.finalize(block, _forget, start)
    del block
    out = raw[:nbytes].view(self.dtype).as_strided(size, stride)
    out.copy_(self)
    return out


_lib = None


def install():
    global _lib
    _lib = torch.library.Library("aten", "IMPL")
    _lib.impl("_pin_memory", _pin_memory, "CPU")
    _lib.impl("is_pinned", _is_pinned, "CPU")
