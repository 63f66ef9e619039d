"""The host path: tpu tensors staged through host memory over torch's gloo.

Dtype rules (every dtype device tpu supports):
- bool, uint8, int8, int32, int64, float16, bfloat16, float32, float64,
  complex64, complex128: gloo has them; the staged tensor keeps its dtype, so
  values and errors are gloo's own (AVG on integers, BAND on floats, MIN/MAX/
  PRODUCT on complex raise as on CPU).
- int16: gloo lacks it; staged as int32 and cast back. Exact for every op:
  movement trivially, SUM/PRODUCT because int32 arithmetic wraps modulo 2**32
  and 2**16 divides it, MIN/MAX/BAND/BOR/BXOR because sign extension commutes
  with them. (Viewing int16 as bytes would not be exact for reductions.)
"""
import torch

_WIDEN = {torch.int16: torch.int32}


def host_dtype(dtype):
    return _WIDEN.get(dtype, dtype)


def is_staged(t):
    return isinstance(t, torch.Tensor) and t.device.type == "tpu"


def to_host(t, copy=True):
    """A contiguous host tensor for `t`: its values (copy) or uninitialized."""
    hd = host_dtype(t.dtype)
    if not copy:
        return torch.empty(t.shape, dtype=hd)
    h = t.to("cpu")
    if h.dtype != hd:
        h = h.to(hd)
    return h.contiguous()


def to_device(dst, h):
    """Writes the host result into the tpu tensor in place (views included)."""
    if h.dtype != dst.dtype:
        h = h.to(dst.dtype)
    dst.copy_(h)
