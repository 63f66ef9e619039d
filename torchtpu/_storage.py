"""`torch.UntypedStorage(n, device="tpu")`: PyTorch builds device storages
with the allocator registered for the device type, and a Python backend
cannot register one (PyTorch's C++ API), so it would call a null allocator.
Storages on "tpu" are made here from an empty uint8 tensor instead: its
storage carries a core storage (`_tt`) like every other tpu storage, so
`.copy_`, `.clone()`, `copy.deepcopy(tensor)` and `Tensor.set_(storage)` work.

`UntypedStorage.resize_(n)` on a tpu storage resizes its core storage in place
(PyTorch's C++ asks PrivateUse1 hooks a Python backend cannot register): the
prefix stays, growth reads as zeros, and 0 frees the device buffer -- FSDP2
frees and re-allocates unsharded parameters this way; every tensor viewing
the storage sees the change, as on CUDA."""
import torch

_base_new = torch.UntypedStorage.__new__
_base_write_file = torch.UntypedStorage._write_file
_base_set_from_file = torch.UntypedStorage._set_from_file
_base_resize = torch.UntypedStorage.resize_


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


def _write_file(self, f, is_real_file, save_size, element_size):
    """The legacy torch.save format and pickle (a storage pickles as a legacy
    torch.save stream) write a storage's bytes with this method; PyTorch's
    C++ reads a device storage through a raw pointer view of its data, which
    has no core storage here. The bytes are read through a CPU copy instead."""
    if self.device.type == "tpu":
        self = self.cpu()
    return _base_write_file(self, f, is_real_file, save_size, element_size)


def _set_from_file(self, f, offset, is_real_file, element_size):
    """The legacy torch.load format's reader of a storage's bytes (the other
    half of _write_file): read into a CPU storage, then copied up."""
    if self.device.type != "tpu":
        return _base_set_from_file(self, f, offset, is_real_file, element_size)
    host = _base_new(torch.UntypedStorage, self.nbytes())
    _base_set_from_file(host, f, offset, is_real_file, element_size)
    self.copy_(host)
    return self


def _resize_(self, size):
    if self.device.type != "tpu":
        return _base_resize(self, size)
    size = int(size)
    if size < 0:
        raise RuntimeError(f"UntypedStorage.resize_: size {size} is negative")
    if not hasattr(self, "_tt"):
        raise RuntimeError("UntypedStorage.resize_: this tpu storage has no device buffer behind it "
                           "(made outside torchtpu)")
    from . import _C

    _C.resize_storage(self, size)
    return self


def install():
    torch.UntypedStorage.__new__ = _untyped_storage_new
    torch.UntypedStorage._write_file = _write_file
    torch.UntypedStorage._set_from_file = _set_from_file
    torch.UntypedStorage.resize_ = _resize_
