"""Fake (shape-only) kernels that torch.compile's tracing runs on tpu tensors
where PyTorch's own Meta kernel refuses what the core lowers.

- aten::_grouped_mm: PyTorch's meta (torch/_meta_registrations.py,
  _meta_grouped_mm_common) follows CUDA's kernel and accepts bfloat16 only;
  the core lowers float32, bfloat16 and float16 with any strides
  (csrc/ops/grouped_mm.c), so transformers' MoE layers, which call it on tpu
  for every dtype, trace. The rule answers for tpu tensors only (FakeTensorMode
  asks it before the Meta kernel): on CPU and CUDA PyTorch's meta runs as
  before. The result is contiguous, as the core's is; the shape rule is
  PyTorch's (_create_grouped_mm_output_tensor)."""
import torch

_LOWERED = (torch.float32, torch.bfloat16, torch.float16)


def _grouped_mm_shape(a, b, offs):
    if a.dim() == 2 and b.dim() == 2:
        return [offs.size(0), a.size(0), b.size(1)]
    if a.dim() == 2:
        torch._check(offs.size(0) == b.size(0), lambda: "matrix batch sizes have to match")
        return [a.size(0), b.size(-1)]
    if b.dim() == 2:
        torch._check(offs.size(0) == a.size(0), lambda: "matrix batch sizes have to match")
        return [a.size(1), b.size(1)]
    torch._check(a.size(0) == b.size(0), lambda: "batched dimension has to match")
    return [a.size(0), a.size(1), b.size(-1)]


def _grouped_mm_args(self, mat2, offs=None, bias=None, out_dtype=None):
    return self, mat2, offs, bias, out_dtype


def _grouped_mm(fake_mode, func, *args, **kwargs):
    from torch._subclasses.fake_tensor import FakeTensor, in_kernel_invocation_manager

    a, b, offs, bias, out_dtype = _grouped_mm_args(*args, **kwargs)  # the schema's names
    if a.device.type != "tpu" or a.dtype not in _LOWERED:
        return NotImplemented  # PyTorch's meta: its own checks and messages
    torch._check(a.dtype == b.dtype, lambda: f"_grouped_mm: expected mat_a and mat_b to have the same dtype, "
                                             f"but got: {a.dtype} != {b.dtype}")
    torch._check(a.dim() in (2, 3) and b.dim() in (2, 3),
                 lambda: f"Multiplicands must be 2D or 3D but got mat_a.dim()={a.dim()} and mat_b.dim()={b.dim()}")
    torch._check(a.size(-1) == b.size(-2), lambda: "contraction dimension of mat_a and mat_b must match")
    needs_offs = a.dim() == 2 or b.dim() == 2
    torch._check((offs is not None) == needs_offs, lambda: "Have to provide offsets if there is a 2d matrix, "
                                                           "or no offset if both matrices are 3d")
    if offs is not None:
        torch._check(offs.dim() == 1, lambda: f"offs has to be 1D, but got offs.dim()={offs.dim()}")
        torch._check(offs.dtype == torch.int32, lambda: f"Offsets have to be int32, but got {offs.dtype}")
    torch._check(bias is None, lambda: "Bias not supported yet")
    torch._check(out_dtype is None or out_dtype == a.dtype,
                 lambda: "Grouped gemm output dtype must match `mat_a` dtype")
    size = _grouped_mm_shape(a, b, offs)
    with in_kernel_invocation_manager(fake_mode):
        r = torch.empty(size, dtype=a.dtype, device="meta")
    return FakeTensor(fake_mode, r, a.device)


def install():
    from torch._subclasses import fake_impls

    op = torch.ops.aten._grouped_mm.default
    if any(getattr(impl, "_torchtpu", False) for _, impl in fake_impls.op_implementations_checks):
        return
    _grouped_mm._torchtpu = True
    fake_impls.register_op_impl(lambda func: func is op)(_grouped_mm)
