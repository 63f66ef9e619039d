"""torch_tpu: torchtpu's implementation of the integration module that
PyTorch's inductor (torch/_inductor/codegen/pallas.py) and Helion import for
a "tpu" device: `torch_tpu._internal.pallas.tpu_torch_pallas`.

This is NOT TorchTPU (Google's backend, whose wheel is also named torch_tpu):
it is a small stand-in, shipped with torchtpu, that lets code generated for
device "tpu" run on torchtpu's engine. It must never be installed beside
TorchTPU's own wheel (both own the top-level name `torch_tpu`).

Importing it imports torchtpu (the device) and never JAX.
"""
import torchtpu  # noqa: F401  (the "tpu" device; torch.tpu)

__all__ = []
