"""torch_tpu: torchtpu's implementation of the integration modules that
PyTorch's inductor (torch/_inductor/codegen/pallas.py) and Helion's Pallas
launcher import for a "tpu" device:

- torch_tpu._internal.pallas: `tpu_torch_pallas` (inductor's generated code);
- torch_tpu._internal.pallas.pallas: `JaxCallable`, `jax_placeholder`, ... (Helion);
- torch_tpu._internal.utils.hardware: `get_tpu_device_name` (Helion).

All are backed by torch.tpu.pallas.jax_op's path: StableHLO spliced into our
programs, Pallas in interpret mode on a non-TPU plugin.

This is NOT TorchTPU (Google's backend, whose wheel is also named torch_tpu):
it is a small stand-in, shipped with torchtpu, that lets code generated for
device "tpu" run on torchtpu's engine. It must never be installed beside
TorchTPU's own wheel (both own the top-level name `torch_tpu`).

Importing it imports torchtpu (the device) and never JAX.
"""
from importlib import metadata as _metadata

import torchtpu  # noqa: F401  (the "tpu" device; torch.tpu)

__all__ = []

# Helion's autotune cache keys on torch_tpu.__version__: name the runtime it really is.
try:
    __version__ = "torchtpu-" + _metadata.version("torchtpu")
except _metadata.PackageNotFoundError:  # a source tree on PYTHONPATH
    __version__ = "torchtpu-unknown"
