"""`param.data = tensor` between "cpu" and "tpu", which `nn.Module.to` relies on
to keep Parameter objects and tied weights.

PyTorch asks `aten::_has_compatible_shallow_copy_type` before `set_data` and
before `Module._apply` chooses between moving a Parameter in place and making a
new one. Its default (TensorImpl::has_compatible_shallow_copy_type) treats CPU,
CUDA, MPS, HIP, XPU, HPU and MTIA dense tensors as interchangeable but not
PrivateUse1, so without this kernel `model.to("tpu")` made a new Parameter per
module slot: tied weights came apart and an optimizer built before the move
kept the CPU tensors. PyTorch's comment on that function names this operator as
the hook a PrivateUse1 backend overrides. Our tensors are plain TensorImpls
whose device buffer hangs on the storage (`UntypedStorage._tt`), which a
shallow copy shares, so a strided tensor on "tpu" and one on "cpu" (or another
dense backend) are compatible in the same sense as CPU and CUDA are."""
import torch

_DENSE_DEVICES = frozenset(("cpu", "cuda", "mps", "hip", "xpu", "hpu", "mtia", "tpu"))
_lib = None


def _dense(t):
    return t.layout == torch.strided and not t.is_quantized and t.device.type in _DENSE_DEVICES


def _has_compatible_shallow_copy_type(self, src):
    if _dense(self) and _dense(src):
        return True
    return torch._C._dispatch_keys(self) == torch._C._dispatch_keys(src)


def install():
    global _lib
    _lib = torch.library.Library("aten", "IMPL")
    _lib.impl("_has_compatible_shallow_copy_type", _has_compatible_shallow_copy_type, "PrivateUse1")
