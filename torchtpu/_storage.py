"""`torch.UntypedStorage(n, device="tpu")`: PyTorch builds device storages
with the allocator registered for the device type, and a Python backend
cannot register one (PyTorch's C++ API), so it would call a null allocator.
Storages on "tpu" are made here from an empty uint8 tensor instead: its
storage carries a core storage (`_tt`) like every other tpu storage, so
`.copy_`, `.clone()`, `copy.deepcopy(tensor)` and `Tensor.set_(storage)` work."""
import torch

_base_new = torch.UntypedStorage.__new__


def _is_tpu(device):
    if device is None:
        return False
    if isinstance(device, int):  # a bare index means the current accelerator, as on CUDA
        return False
    return torch.device(device).type == "tpu"


def _untyped_storage_new(cls, *args, device=None, **kwargs):
    if cls is not torch.UntypedStorage or kwargs or not _is_tpu(device) or len(args) > 1:
        if device is not None:
            kwargs["device"] = device
        return _base_new(cls, *args, **kwargs)
    # Same argument forms as CPU: (), (nbytes), (sequence of byte values).
    host = _base_new(cls, *args) if args and not isinstance(args[0], int) else None
    nbytes = host.nbytes() if host is not None else (args[0] if args else 0)
    if nbytes < 0:
        return _base_new(cls, nbytes)  # CPU's error for a negative size
    storage = torch.empty(nbytes, dtype=torch.uint8, device="tpu").untyped_storage()
    if host is not None:
        storage.copy_(host)
    return storage


def install():
    torch.UntypedStorage.__new__ = _untyped_storage_new
