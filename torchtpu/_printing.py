"""Printing a "tpu" tensor formats a host copy, as PyTorch does for XLA."""
import torch
import torch._tensor_str as _ts

_orig = _ts._tensor_str


def _tensor_str(self, indent):
    if self.device.type == "tpu":
        self = self.cpu()
    return _orig(self, indent)


def install():
    _ts._tensor_str = _tensor_str
