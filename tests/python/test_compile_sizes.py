"""Compiled graphs with symbolic sizes (torch.compile(dynamic=True),
mark_dynamic, automatic dynamic shapes): Dynamo passes each size's value as
an integer argument and the graph's ops are traced with it. With buckets
off (torch.tpu.set_dynamic_buckets(False)), and for graphs that cannot run
padded (tests/python/test_compile_bounded.py has the padded ones), the
backend keeps one plan per value of the integer arguments
(torchtpu/_compile.py, _Graph._split): every length is captured once and
replayed after (never another length's plan), inference and training match
eager, and past MAX_SIZE_KEYS values a graph's new sizes run op by op with
eager's results."""
import pytest
import torch

from torchtpu import _compile

TOL = {"rtol": 1e-5, "atol": 1e-5}


class Block(torch.nn.Module):
    def __init__(self, d=32, heads=4):
        super().__init__()
        self.heads = heads
        self.ln = torch.nn.LayerNorm(d)
        self.qkv = torch.nn.Linear(d, 3 * d)
        self.out = torch.nn.Linear(d, d)
        self.ff = torch.nn.Sequential(torch.nn.Linear(d, 2 * d), torch.nn.GELU(), torch.nn.Linear(2 * d, d))

    def forward(self, x):
        b, n, d = x.shape
        q, k, v = self.qkv(self.ln(x)).view(b, n, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        a = torch.softmax(q @ k.transpose(-1, -2) / (d // self.heads) ** 0.5, -1) @ v
        x = x + self.out(a.transpose(1, 2).reshape(b, n, d))
        return x + self.ff(x).mean(1, keepdim=True)  # a mean over the symbolic dim too


@pytest.fixture
def per_size():
    torch.tpu.set_dynamic_buckets(False)
    yield
    torch.tpu.set_dynamic_buckets(None)


def _pair(train):
    torch.manual_seed(0)
    ref = Block().train(train)
    dev = Block().train(train)
    dev.load_state_dict(ref.state_dict())
    return ref, dev.to("tpu")


def _x(n):
    return torch.randn(2, n, 32, generator=torch.Generator().manual_seed(n))


def test_each_length_is_captured_once_and_replayed(per_size):
    torch._dynamo.reset()
    ref, dev = _pair(False)
    f = torch.compile(dev, backend="tpu", dynamic=True)
    lengths = [5, 9, 17, 9, 33, 5, 17, 64, 33]
    before = torch.tpu.plan_stats()
    with torch.no_grad():
        for n in lengths:
            torch.testing.assert_close(f(_x(n).to("tpu")).cpu(), ref(_x(n)), **TOL)
    after = torch.tpu.plan_stats()
    distinct = len(set(lengths))
    assert after["capture_failures"] == before["capture_failures"]
    assert after["captures"] - before["captures"] == distinct, (before, after)
    assert after["replays"] - before["replays"] == len(lengths) - distinct


def test_training_with_symbolic_lengths_matches_eager():
    torch._dynamo.reset()
    ref, dev = _pair(True)
    f = torch.compile(dev, backend="tpu", dynamic=True)
    before = torch.tpu.plan_stats()
    for n in (6, 11, 6, 20, 11):
        y = f(_x(n).to("tpu"))
        y.square().mean().backward()
        yr = ref(_x(n))
        yr.square().mean().backward()
        torch.testing.assert_close(y.detach().cpu(), yr.detach(), **TOL)
        for p, q in zip(dev.parameters(), ref.parameters()):
            torch.testing.assert_close(p.grad.cpu(), q.grad, **TOL)
    after = torch.tpu.plan_stats()
    assert after["captures"] - before["captures"] == 6  # forward and backward of 3 lengths
    assert after["replays"] - before["replays"] == 4    # both graphs of the 2 repeated ones


def test_sizes_past_the_limit_run_op_by_op(monkeypatch, per_size):
    torch._dynamo.reset()
    monkeypatch.setattr(_compile, "MAX_SIZE_KEYS", 2)
    ref, dev = _pair(False)
    f = torch.compile(dev, backend="tpu", dynamic=True)
    before = torch.tpu.plan_stats()
    with torch.no_grad():
        for n in (5, 8, 13, 21, 5):
            torch.testing.assert_close(f(_x(n).to("tpu")).cpu(), ref(_x(n)), **TOL)
    after = torch.tpu.plan_stats()
    assert after["captures"] - before["captures"] == 2  # 5 and 8; 13 and 21 ran op by op
    assert after["replays"] - before["replays"] == 1    # the second 5


@pytest.mark.parametrize("mark", ["mark_dynamic", "automatic"])
def test_marked_and_automatic_dynamic_sizes(mark):
    torch._dynamo.reset()
    ref, dev = _pair(False)
    f = torch.compile(dev, backend="tpu")
    before = torch.tpu.plan_stats()
    with torch.no_grad():
        for n in (7, 12, 7, 25, 12):
            x = _x(n).to("tpu")
            if mark == "mark_dynamic":
                torch._dynamo.mark_dynamic(x, 1)
            torch.testing.assert_close(f(x).cpu(), ref(_x(n)), **TOL)
    after = torch.tpu.plan_stats()
    assert after["capture_failures"] == before["capture_failures"]  # the symbolic graph got plans
    assert after["replays"] - before["replays"] >= 1                # a repeated length replayed
