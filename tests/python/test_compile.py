"""torch.compile(model, backend="tpu") (torchtpu/_compile.py): Dynamo's
forward and backward graphs run as fused deferred regions; results and
training match eager, and steps after the first compile nothing."""
import copy

import pytest
import torch
import torch.nn.functional as F

import models


def test_backend_is_listed():
    assert "tpu" in torch._dynamo.list_backends()


@pytest.mark.parametrize("kind", ["mlp", "cnn", "transformer"])
def test_training_matches_eager(kind):
    torch._dynamo.reset()
    torch.manual_seed(0)
    base = models.make(kind)
    x, y = models.batch(kind)
    losses = {}
    for compiled in (False, True):
        m = copy.deepcopy(base).to("tpu")
        f = torch.compile(m, backend="tpu") if compiled else m
        opt = torch.optim.AdamW(m.parameters(), lr=1e-2)
        losses[compiled] = []
        for step in range(6):
            if compiled and step == 3:  # warm: Dynamo, AOTAutograd and every executable done
                execs = torch.tpu.cache_stats()["executables"]
            opt.zero_grad()
            loss = models.loss_fn(kind, f(x.to("tpu")), y.to("tpu"))
            loss.backward()
            opt.step()
            losses[compiled].append(loss.item())
    assert torch.tpu.cache_stats()["executables"] == execs
    for a, b in zip(losses[True], losses[False]):
        assert abs(a - b) <= 1e-4 * abs(b) + 1e-6, (losses[True], losses[False])


def test_graph_break_on_a_host_value():
    torch._dynamo.reset()

    def f(x):
        y = x.sin()
        if y.sum().item() > 0:  # a data-dependent Python branch: Dynamo breaks the graph here
            return y * 2
        return y - 1

    x = torch.randn(16, device="tpu")
    torch.testing.assert_close(torch.compile(f, backend="tpu")(x).cpu(), f(x).cpu())


def test_inside_defer_and_fuse_and_outputs_stay_correct():
    torch._dynamo.reset()
    g = torch.compile(lambda a, b: F.gelu(a @ b) + 1, backend="tpu")
    a, b = torch.randn(4, 8, device="tpu"), torch.randn(8, 3, device="tpu")
    want = (F.gelu(a.cpu() @ b.cpu()) + 1)
    with torch.tpu.eager_mode("defer_and_fuse"):
        out = g(a, b)
        a.mul_(0)  # a later in-place write must not change the pending result
    torch.testing.assert_close(out.cpu(), want, rtol=1e-5, atol=1e-5)
