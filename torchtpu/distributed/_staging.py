"""The host path: tpu tensors staged through host memory over torch's gloo.

Data movement (broadcast, gathers, scatter, all-to-all, send/recv) stages the
bytes: the host tensor is a uint8 view of the same rows (dim 0 and split sizes
unchanged), so every dtype moves exactly, complex gather included (gloo lacks).

Reductions, dtype rules (every dtype device tpu supports):
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


def _byte_shape(t):
    """(rows, bytes per row): dim 0 kept, so all-to-all split sizes still hold."""
    rows = t.shape[0] if t.dim() else 1
    return [rows, (t.numel() // rows if rows else 1) * t.element_size()]


def to_host(t, copy=True, as_bytes=False):
    """A contiguous host tensor for `t`: its values (copy) or uninitialized;
    as_bytes: a uint8 view of its rows (data movement)."""
    if as_bytes:
        if not copy:
            return torch.empty(_byte_shape(t), dtype=torch.uint8)
        h = t.to("cpu").contiguous()
        rows, _ = _byte_shape(t)
        return h.reshape(rows, -1 if rows else 1).view(torch.uint8)
    hd = host_dtype(t.dtype)
    if not copy:
        return torch.empty(t.shape, dtype=hd)
    h = t.to("cpu")
    if h.dtype != hd:
        h = h.to(hd)
    return h.contiguous()


def to_device(dst, h):
    """Writes the host result into the tpu tensor in place (views included)."""
    if h.dtype == torch.uint8 and dst.dtype != torch.uint8:
        h = h.view(dst.dtype)  # bytes staged for data movement
    elif h.dtype != dst.dtype:
        h = h.to(dst.dtype)  # a widened reduction
    dst.copy_(h.reshape(dst.shape))
