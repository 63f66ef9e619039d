"""DLPack for "tpu" tensors. A capsule hands the consumer a pointer to the
tensor's memory; a tpu tensor's memory is a PJRT device buffer no consumer
can address (its data_ptr is a reserved, inaccessible host range), so there
is no zero-copy export. What the DLPack protocol allows instead:
- `__dlpack_device__()` is (kDLExtDev, index), what PyTorch gives every
  PrivateUse1 device (its code tests the name "privateuse1", so a renamed
  backend fell through to "Unknown device type tpu for Dlpack").
- `__dlpack__(dl_device=(kDLCPU, 0))`, copy None or True: the capsule of a
  CPU copy (the protocol's cross-device export, e.g. numpy.from_dlpack(t,
  device="cpu")); copy=False, or no dl_device, raises BufferError (the
  protocol's type for "cannot export") saying what to do.
- `torch.from_dlpack(tpu_tensor)` therefore raises that BufferError."""
import torch
from torch.utils.dlpack import DLDeviceType

_base_dlpack = torch.Tensor.__dlpack__
_base_dlpack_device = torch.Tensor.__dlpack_device__


def _dlpack(self, *, stream=-1, max_version=None, dl_device=None, copy=None):
    if self.device.type != "tpu":
        return _base_dlpack(self, stream=stream, max_version=max_version, dl_device=dl_device, copy=copy)
    if self.requires_grad or self.is_conj():  # PyTorch's own refusals first, with its messages
        return _base_dlpack(self, stream=stream, max_version=max_version, dl_device=dl_device, copy=copy)
    to_cpu = dl_device is not None and int(dl_device[0]) == int(DLDeviceType.kDLCPU)
    if to_cpu and copy is not False:
        return self.cpu().__dlpack__(max_version=max_version)
    why = "copy=False was requested" if to_cpu else "no CPU dl_device was requested"
    raise BufferError(
        f"Can't export a tpu tensor through DLPack without a copy ({why}): its memory is a device buffer that other "
        "libraries cannot address. Use tensor.cpu() first, or a consumer's device='cpu' (dl_device=(kDLCPU, 0))."
    )


def _dlpack_device(self):
    if self.device.type != "tpu":
        return _base_dlpack_device(self)
    return (DLDeviceType.kDLExtDev, self.device.index if self.device.index is not None else 0)


def install():
    torch.Tensor.__dlpack__ = _dlpack
    torch.Tensor.__dlpack_device__ = _dlpack_device
