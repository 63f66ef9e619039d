"""Registration of device "tpu" with PyTorch: rename PrivateUse1, install the
device module `torch.tpu`, the kernels, and printing."""

import torch

from . import _C, _accelerator, _backward, _precision, _autocast, _device, _dlpack, _fast_paths, _compiler_hooks, _kernels, _matmul, _pinned, _printing, _shallow_copy, _storage


def register():
    torch.utils.backend_registration._setup_privateuseone_for_python_backend(
        rename="tpu", backend_module=_device.module(), hook=_device.Hooks(), device_guard=_device.Guard()
    )
    _C.setup(torch._C._acc.create_empty_tensor, _device.DTYPES, torch.Tensor)
    _kernels.register_all()
    _autocast.register()
    _printing.install()
    _storage.install()
    _accelerator.install()
    _pinned.install()
    _dlpack.install()
    _shallow_copy.install()
    _fast_paths.install()
    _matmul.install()
    _precision.install()
    _backward.install()
    _compiler_hooks.install()
    _register_distributed()


def _register_distributed():
    """c10d backend "tpu_dist" (torch.distributed is already imported by torch)."""
    import torch.distributed

    if torch.distributed.is_available():
        import sys

        from . import distributed
        from .distributed import _mesh_compat

        distributed.register()
        _mesh_compat.install()
        # torch.tpu.distributed is this package: `import torch.tpu.distributed`
        # and `python -m torch.tpu.distributed` (runpy finds the package in
        # sys.modules and runs its __main__.py) both resolve to it.
        torch.tpu.distributed = distributed
        sys.modules.setdefault("torch.tpu.distributed", distributed)
