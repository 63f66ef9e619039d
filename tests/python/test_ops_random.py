"""Random ops on "tpu": statistics, ranges, reproducibility under seeds,
dropout scaling and the generator state round trip. Streams are not
expected to equal PyTorch's CPU ones."""
import pytest
import torch
import torch.nn.functional as F

import torchtpu  # noqa: F401

N = 10000


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.float16, torch.float64])
def test_uniform(dtype):
    x = torch.empty(N, device="tpu", dtype=dtype).uniform_(-2, 3).cpu().double()
    assert x.min() >= -2 and x.max() < 3
    assert abs(x.mean() - 0.5) < 0.1
    assert abs(x.std() - 5 / 12 ** 0.5) < 0.1
    u = torch.rand(N, device="tpu", dtype=dtype).cpu()
    assert u.dtype == dtype and u.min() >= 0 and u.max() < 1


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.float64])
def test_normal(dtype):
    x = torch.randn(N, device="tpu", dtype=dtype).cpu().double()
    assert abs(x.mean()) < 0.05 and abs(x.std() - 1) < 0.05
    y = torch.empty(N, device="tpu", dtype=dtype).normal_(3, 0.5).cpu().double()
    assert abs(y.mean() - 3) < 0.05 and abs(y.std() - 0.5) < 0.05
    with pytest.raises(RuntimeError, match="normal expects std >= 0.0"):
        torch.empty(3, device="tpu").normal_(0, -1)


def test_normal_tensor_mean():
    mean = torch.tensor([0.0, 100.0], device="tpu")
    z = torch.normal(mean.expand(N, 2).contiguous(), 1.0).cpu()
    assert abs(z[:, 0].mean()) < 0.1 and abs(z[:, 1].mean() - 100) < 0.1


@pytest.mark.parametrize("dtype", [torch.int64, torch.int32, torch.float32])
def test_randint_random(dtype):
    x = torch.randint(3, 9, (N,), device="tpu", dtype=dtype).cpu()
    assert x.dtype == dtype and x.min() == 3 and x.max() == 8
    assert abs(x.double().mean() - 5.5) < 0.1
    y = torch.empty(N, device="tpu", dtype=dtype).random_(5).cpu()
    assert y.min() == 0 and y.max() == 4
    z = torch.empty(N, device="tpu", dtype=dtype).random_().cpu()
    assert z.min() >= 0 and z.double().std() > 0
    with pytest.raises(RuntimeError, match="random_ expects 'from' to be less than 'to'"):
        torch.empty(3, device="tpu", dtype=dtype).random_(5, 5)


def test_bernoulli_exponential():
    p = torch.full((N,), 0.3, device="tpu")
    b = torch.bernoulli(p).cpu()
    assert set(b.unique().tolist()) <= {0.0, 1.0} and abs(b.mean() - 0.3) < 0.03
    b2 = torch.empty(N, device="tpu").bernoulli_(0.8).cpu()
    assert abs(b2.mean() - 0.8) < 0.03
    b3 = torch.empty(N, device="tpu", dtype=torch.bool).bernoulli_(p).cpu()
    assert b3.dtype == torch.bool and abs(b3.double().mean() - 0.3) < 0.03
    e = torch.empty(N, device="tpu").exponential_(2.0).cpu()
    assert e.min() >= 0 and abs(e.mean() - 0.5) < 0.05


def test_randperm():
    p = torch.randperm(100, device="tpu").cpu()
    assert p.dtype == torch.int64 and torch.equal(p.sort().values, torch.arange(100))
    assert not torch.equal(p, torch.arange(100))
    assert torch.randperm(0, device="tpu").shape == (0,)


def test_seed_reproducibility():
    torch.manual_seed(123)
    a = torch.rand(50, device="tpu").cpu()
    b = torch.randn(50, device="tpu").cpu()
    torch.manual_seed(123)
    assert torch.equal(torch.rand(50, device="tpu").cpu(), a)
    assert torch.equal(torch.randn(50, device="tpu").cpu(), b)
    torch.manual_seed(124)
    assert not torch.equal(torch.rand(50, device="tpu").cpu(), a)
    # Successive draws differ.
    assert not torch.equal(torch.rand(50, device="tpu").cpu(), torch.rand(50, device="tpu").cpu())


def test_rng_state_round_trip():
    torch.manual_seed(7)
    torch.rand(3, device="tpu")
    s = torch.tpu.get_rng_state()
    a = torch.randn(20, device="tpu").cpu()
    torch.tpu.set_rng_state(s)
    assert torch.equal(torch.randn(20, device="tpu").cpu(), a)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_dropout(dtype):
    x = (torch.rand(N) + 0.5).to(dtype)
    xt = x.to("tpu").requires_grad_()
    y = F.dropout(xt, 0.25, training=True)
    g = torch.randn(N).to(dtype)
    y.backward(g.to("tpu"))
    yc, gc = y.detach().cpu(), xt.grad.cpu()
    kept = yc != 0
    assert abs(kept.double().mean() - 0.75) < 0.03
    torch.testing.assert_close(yc[kept], (x[kept].float() / 0.75).to(dtype))
    torch.testing.assert_close(gc[kept], (g[kept].float() / 0.75).to(dtype))
    assert (gc[~kept] == 0).all()
    # Eval mode and p = 0 leave the input unchanged.
    assert torch.equal(F.dropout(x.to("tpu"), 0.5, training=False).cpu(), x)
    out, mask = torch.native_dropout(x.to("tpu"), 0.5, False)
    assert torch.equal(out.cpu(), x) and mask.cpu().all()
    assert (F.dropout(x.to("tpu"), 1.0, training=True).cpu() == 0).all()


def test_empty_and_errors():
    assert torch.rand(0, 3, device="tpu").shape == (0, 3)
    with pytest.raises(RuntimeError, match="floating point"):
        torch.empty(3, device="tpu", dtype=torch.int64).uniform_()
