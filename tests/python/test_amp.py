"""torch.amp on tpu: GradScaler's two ops (_amp_foreach_non_finite_check_and_unscale_,
_amp_update_scale_) against CPU's; torch.tpu.device as torch.load and
activation checkpointing use it."""
import io

import pytest
import torch


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.float16, torch.float64])
@pytest.mark.parametrize("bad", [None, float("inf"), float("nan")])
def test_unscale_matches_cpu(dtype, bad):
    g = torch.Generator().manual_seed(0)
    grads = [torch.randn(5, 7, generator=g).to(dtype), torch.randn(3, generator=g).to(dtype)]
    if bad is not None:
        grads[1][2] = bad
    out = []
    for dev in ("cpu", "tpu"):
        gs = [t.clone().to(dev) for t in grads]
        found = torch.zeros(1, device=dev)
        torch._amp_foreach_non_finite_check_and_unscale_(gs, found, torch.full((1,), 0.125, device=dev))
        out.append((gs, found))
    (gc, fc), (gt, ft) = out
    assert ft.item() == fc.item() == (0.0 if bad is None else 1.0)
    for a, b in zip(gt, gc):
        torch.testing.assert_close(a.cpu(), b, equal_nan=True, rtol=0, atol=0)


def test_unscale_keeps_a_found_inf():
    found = torch.ones(1, device="tpu")
    torch._amp_foreach_non_finite_check_and_unscale_([torch.ones(3, device="tpu")], found, torch.ones(1, device="tpu"))
    assert found.item() == 1.0


@pytest.mark.parametrize("found,tracker,scale", [(0.0, 0, 4.0), (0.0, 1, 4.0), (1.0, 1, 4.0), (0.0, 1, 3e38)])
def test_update_scale_matches_cpu(found, tracker, scale):
    res = []
    for dev in ("cpu", "tpu"):
        s = torch.tensor([scale], device=dev)
        t = torch.tensor([tracker], dtype=torch.int32, device=dev)
        r = torch._amp_update_scale_(s, t, torch.tensor([found], device=dev), 2.0, 0.5, 2)
        assert r is s
        res.append((s.cpu(), t.cpu()))
    assert torch.equal(res[0][0], res[1][0]) and torch.equal(res[0][1], res[1][1])


def test_grad_scaler_training_matches_cpu():
    """Five steps with GradScaler (one of them overflowing): same scale,
    same skipped step, same parameters as on CPU."""
    results = []
    for dev in ("cpu", "tpu"):
        torch.manual_seed(0)
        m = torch.nn.Sequential(torch.nn.Linear(6, 8), torch.nn.Tanh(), torch.nn.Linear(8, 2)).to(dev)
        opt = torch.optim.SGD(m.parameters(), lr=0.1, momentum=0.9)
        scaler = torch.amp.GradScaler(dev, init_scale=2.0 ** 10, growth_interval=2)
        x = torch.randn(4, 6).to(dev)
        scales = []
        for step in range(5):
            opt.zero_grad()
            loss = m(x).square().mean() * (float("inf") if step == 2 else 1.0)
            scaler.scale(loss).backward()
            scaler.step(opt)
            scaler.update()
            scales.append(scaler.get_scale())
        results.append((scales, [p.detach().cpu() for p in m.parameters()]))
    assert results[0][0] == results[1][0]
    for a, b in zip(results[1][1], results[0][1]):
        torch.testing.assert_close(a, b)


def test_save_load_on_tpu():
    t = torch.arange(6.0, device="tpu")
    buf = io.BytesIO()
    torch.save({"w": t}, buf)
    buf.seek(0)
    got = torch.load(buf)["w"]
    assert got.device.type == "tpu" and torch.equal(got.cpu(), t.cpu())
    with torch.tpu.device(0):
        pass
    with pytest.raises(RuntimeError):
        torch.tpu.device(1)


def test_activation_checkpointing():
    torch.manual_seed(0)
    m = torch.nn.Sequential(torch.nn.Linear(8, 8), torch.nn.ReLU(), torch.nn.Linear(8, 2))
    x = torch.randn(4, 8)
    grads = []
    for dev in ("cpu", "tpu"):
        mm = m.to(dev)
        mm.zero_grad()
        torch.utils.checkpoint.checkpoint(mm, x.to(dev), use_reentrant=False).sum().backward()
        grads.append([p.grad.to("cpu", copy=True) for p in mm.parameters()])  # m.to() moves p.grad in place next
    for a, b in zip(grads[1], grads[0]):
        torch.testing.assert_close(a, b)
