"""Shared helpers: run the same code on "tpu" and on CPU and compare with
PyTorch's default tolerances (torch.testing.assert_close)."""
import os

# Hermetic: the suite never reads or writes the user's persistent compile cache
# (tier 3 is on by default in ~/.cache/torchtpu/compile). Set before torchtpu
# starts its engine; subprocesses inherit it; tests that want tier 3 name a
# tmp directory of their own.
os.environ["TORCH_TPU_TIER3_COMPILATION_CACHE_ROOT"] = "off"

import pytest
import torch

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

DTYPES_FLOAT = [torch.float32, torch.bfloat16, torch.float16]
DTYPES_ALL = [torch.float32, torch.bfloat16, torch.float16, torch.int32, torch.int64, torch.bool]


def to_tpu(x):
    if isinstance(x, torch.Tensor):
        y = x.detach().to("tpu")
        return y.requires_grad_(x.requires_grad) if x.is_floating_point() else y
    if isinstance(x, (list, tuple)):
        return type(x)(to_tpu(v) for v in x)
    if isinstance(x, dict):
        return {k: to_tpu(v) for k, v in x.items()}
    return x


def to_cpu(x):
    if isinstance(x, torch.Tensor):
        return x.detach().cpu()
    if isinstance(x, (list, tuple)):
        return type(x)(to_cpu(v) for v in x)
    return x


def compare(fn, *args, grad=False, atol=None, rtol=None, **kwargs):
    """fn(*args) on CPU and on "tpu": same values (and gradients of floating
    inputs when grad=True) within PyTorch's default tolerances."""
    cpu_args = [a.detach().clone().requires_grad_(grad and a.is_floating_point()) if isinstance(a, torch.Tensor) else a for a in args]
    tpu_args = [to_tpu(a) for a in cpu_args]
    expected = fn(*cpu_args, **kwargs)
    actual = fn(*tpu_args, **kwargs)
    tol = {} if atol is None else {"atol": atol, "rtol": rtol}
    torch.testing.assert_close(to_cpu(actual), to_cpu(expected), equal_nan=True, **tol)
    if grad:
        outs_c = expected if isinstance(expected, (tuple, list)) else [expected]
        outs_t = actual if isinstance(actual, (tuple, list)) else [actual]
        gen = torch.Generator().manual_seed(0)
        loss_c, loss_t = 0, 0
        for oc, ot in zip(outs_c, outs_t):
            if isinstance(oc, torch.Tensor) and oc.requires_grad:
                w = torch.randn(oc.shape, generator=gen, dtype=oc.dtype)
                loss_c = loss_c + (oc * w).sum()
                loss_t = loss_t + (ot * w.to("tpu")).sum()
        loss_c.backward()
        loss_t.backward()
        for ac, at in zip(cpu_args, tpu_args):
            if isinstance(ac, torch.Tensor) and ac.requires_grad:
                assert at.grad is not None, "no gradient on tpu"
                torch.testing.assert_close(at.grad.cpu(), ac.grad, equal_nan=True, **tol)
    return actual


def make(shape, dtype, seed=0):
    """A fixed random CPU tensor of any of the tested dtypes."""
    g = torch.Generator().manual_seed(seed)
    if dtype == torch.bool:
        return torch.rand(shape, generator=g) > 0.5
    if dtype.is_floating_point:
        return torch.randn(shape, generator=g).to(dtype)
    return torch.randint(-5, 6, shape, generator=g).to(dtype)


def compare_grad(fn, *args):
    """Forward values equal to CPU's; then gradients of every floating input
    through backward(w) with a fixed random w (no reduction op needed on the
    device). With no floating input there is no backward to compare."""
    cpu = [a.detach().clone().requires_grad_(a.is_floating_point()) if isinstance(a, torch.Tensor) else a for a in args]
    tpu = [to_tpu(a) for a in cpu]
    oc, ot = fn(*cpu), fn(*tpu)
    torch.testing.assert_close(ot.detach().cpu(), oc.detach())
    if not any(isinstance(a, torch.Tensor) and a.requires_grad for a in cpu):
        return
    assert oc.requires_grad and ot.requires_grad, "output is not differentiable"
    w = torch.randn(oc.shape, generator=torch.Generator().manual_seed(1)).to(oc.dtype)
    oc.backward(w)
    ot.backward(w.to("tpu"))
    for ac, at in zip(cpu, tpu):
        if isinstance(ac, torch.Tensor) and ac.requires_grad:
            assert at.grad is not None, "no gradient on tpu"
            torch.testing.assert_close(at.grad.cpu(), ac.grad)


@pytest.fixture(autouse=True)
def _seed():
    torch.manual_seed(0)
