"""torch.matmul on tpu tensors whose second operand repeats along a batch
dim (stride 0): grouped-query attention's keys and values, expanded from
fewer heads. PyTorch's matmul folds the batch dims into one by reshape,
which cannot view a stride-0 dim beside another batch dim, so it copies the
repeated operand whole (a clone per call: with eager buckets, a clone that
must be contiguous, so a program per new KV length). Here the repeat folds
into the first operand's rows instead, the way grouped-query kernels do:
a [B, H, M, K] @ b [B, H, K, N] with b's H dim of stride 0 (or b
[B, 1, K, N], multi-query attention's) is bmm(a as [B, H*M, K], b[:, 0] as
[B, K, N]) viewed as [B, H, M, N], with no copy of b. The same products (XLA's dot may group their sums
differently for the other shape, within the last bits).

Only when no gradient is needed (autograd would need the composite's
graph) and the shapes are exactly that; everything else runs PyTorch's own
matmul (its CompositeImplicitAutograd kernel, as without this)."""
import torch

_lib = None
_op = torch.ops.aten.matmul.default
_COMPOSITE = torch._C.DispatchKey.CompositeImplicitAutograd  # PyTorch's C++ matmul, not a Python decomposition
_PYTHON_DISPATCHER = torch._C.DispatchKey.PythonDispatcher


def _folds(a, b):
    if a.dim() != 4 or b.dim() != 4 or a.shape[0] != b.shape[0] or a.shape[1] < 2 or a.dtype != b.dtype:
        return False
    # b's head dim repeats: expanded (stride 0), or of size 1 (multi-query attention, falcon:
    # matmul broadcasts it, and with a batch dim beside it copies it as it does an expanded one)
    if (b.shape[1] != 1 and (b.shape[1] != a.shape[1] or b.stride(1) != 0)) or a.stride(1) == 0:
        return False
    if torch.is_grad_enabled() and (a.requires_grad or b.requires_grad):
        return False
    return a.device == b.device


def _matmul(a, b):
    if isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor) and _folds(a, b):
        bs, h, m, k = a.shape
        n = b.shape[3]
        out = torch.bmm(a.reshape(bs, h * m, k), b.select(1, 0))
        return out.view(bs, h, m, n)
    if torch._C._dispatch_tls_is_dispatch_key_included(_PYTHON_DISPATCHER):
        # tracing (AOTAutograd, make_fx): what the dispatcher would have run, the
        # Python decomposition where PyTorch has one (it keeps symbolic sizes unguarded)
        return _op.decompose(a, b)
    return _op._op_dk(_COMPOSITE, a, b)


def install():
    global _lib
    _lib = torch.library.Library("aten", "IMPL")
    _lib.impl("matmul", _matmul, "AutogradPrivateUse1")
