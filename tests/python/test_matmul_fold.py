"""torch.matmul with a second operand repeated along a batch dim (stride 0,
grouped-query attention's expanded keys and values): torchtpu/_matmul.py
folds the repeat into the first operand's rows instead of copying it. Every
case compares with CPU (values, shape, strides); cases outside the fold
(gradients needed, other shapes) run PyTorch's own matmul."""
import pytest
import torch

import torchtpu  # noqa: F401
from torchtpu import _matmul


def _gqa(dtype, m=3, k=8, n=5, heads=4, batch=2, seed=0):
    g = torch.Generator().manual_seed(seed)
    a = torch.randn(batch, heads, m, k, generator=g).to(dtype)
    b = torch.randn(batch, 1, k, n, generator=g).to(dtype)
    return a, b


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.float64])
def test_folded_matmul_matches_cpu(dtype):
    a, b = _gqa(dtype)
    want = a @ b.expand(2, 4, 8, 5)
    at, bt = a.to("tpu"), b.to("tpu").expand(2, 4, 8, 5)
    assert _matmul._folds(at, bt)
    got = at @ bt
    assert got.shape == want.shape and got.stride() == want.stride() and got.dtype == want.dtype
    torch.testing.assert_close(got.cpu(), want)


def test_keys_transposed_and_values_like_attention():
    g = torch.Generator().manual_seed(1)
    q, k, v = torch.randn(2, 4, 1, 8, generator=g), torch.randn(2, 1, 7, 8, generator=g), torch.randn(2, 1, 7, 8, generator=g)
    def attend(q, k, v):
        k, v = k.expand(2, 4, 7, 8), v.expand(2, 4, 7, 8)
        return torch.softmax(q @ k.transpose(-1, -2), -1) @ v
    torch.testing.assert_close(attend(q.to("tpu"), k.to("tpu"), v.to("tpu")).cpu(), attend(q, k, v))


def test_gradients_take_pytorchs_matmul():
    a, b = _gqa(torch.float32)
    grads = []
    for dev in ("cpu", "tpu"):
        at = a.detach().to(dev).requires_grad_()
        bt = b.detach().to(dev).requires_grad_()
        (at @ bt.expand(2, 4, 8, 5)).square().sum().backward()
        grads.append((at.grad.cpu(), bt.grad.cpu()))
    torch.testing.assert_close(grads[1][0], grads[0][0])
    torch.testing.assert_close(grads[1][1], grads[0][1])
    with torch.no_grad():
        assert _matmul._folds(a.to("tpu").requires_grad_(), b.to("tpu").expand(2, 4, 8, 5))


@pytest.mark.parametrize("case", ["2d", "vector", "broadcast batch", "first repeated", "3d"])
def test_other_shapes_are_pytorchs(case):
    g = torch.Generator().manual_seed(2)
    a, b = {
        "2d": (torch.randn(3, 4, generator=g), torch.randn(4, 5, generator=g)),
        "vector": (torch.randn(2, 3, 4, generator=g), torch.randn(4, generator=g)),
        "broadcast batch": (torch.randn(2, 1, 3, 4, generator=g), torch.randn(1, 5, 4, 2, generator=g)),
        "first repeated": (torch.randn(2, 1, 3, 4, generator=g).expand(2, 5, 3, 4), torch.randn(2, 5, 4, 2, generator=g)),
        "3d": (torch.randn(3, 2, 4, generator=g), torch.randn(1, 4, 5, generator=g).expand(3, 4, 5)),
    }[case]
    got = a.to("tpu") @ b.to("tpu")
    want = a @ b
    assert got.shape == want.shape
    torch.testing.assert_close(got.cpu(), want)


def test_errors_are_pytorchs():
    a, b = _gqa(torch.float32)
    with pytest.raises(RuntimeError) as cpu:
        a @ b.double().expand(2, 4, 8, 5)
    with pytest.raises(RuntimeError) as tpu:
        a.to("tpu") @ b.double().to("tpu").expand(2, 4, 8, 5)
    assert type(tpu.value) is type(cpu.value)


def test_compiled_matches_eager():
    a, b = _gqa(torch.float32)

    def f(a, b):
        return (a @ b.expand(2, 4, 8, 5)).relu()

    torch._dynamo.reset()
    got = torch.compile(f, backend="tpu")(a.to("tpu"), b.to("tpu"))
    torch.testing.assert_close(got.cpu(), f(a, b))
