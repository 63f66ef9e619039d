"""torch_tpu._internal.utils.hardware: torchtpu's answer to Helion's
`get_tpu_device_name()` (the chip Pallas kernels are tiled for). Part of the
torch_tpu stand-in (see torch_tpu/__init__.py); never installed beside
TorchTPU's own wheel."""
import torch

import torchtpu  # noqa: F401  (torch.tpu)

# What a non-TPU plugin reports: the chip Helion's interpret mode assumes too
# (its _ensure_cpu_tpu_info default), so kernels are tiled the same way.
_NON_TPU_KIND = "TPU7x"


def get_tpu_device_name():
    """The PJRT device kind on a TPU plugin ("TPU v5 lite", "TPU7x", ...);
    on any other plugin "TPU7x", the target Pallas kernels are tiled for
    while they run in interpret mode."""
    info = torch.tpu.runtime_info()
    if info.get("platform_name", "").lower() == "tpu":
        return info.get("device_kind", _NON_TPU_KIND)
    return _NON_TPU_KIND
