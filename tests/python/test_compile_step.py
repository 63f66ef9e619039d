"""A whole training step compiled with torch.compile(backend="tpu"): forward,
loss, backward and optimizer.step() in one function. Dynamo's graphs are the
forward (with the loss), the backward and the optimizer step; each replays as
one captured program, with the parameters' and the optimizer state's buffers
donated and updated in place. The step matches eager training on the CPU;
old references and views of updated tensors see the new values. Each step
runs those three graphs and autograd's initial gradient (made outside any
graph) -- from the third step on as one program (test_compile_fusion.py)."""
import copy

import pytest
import torch
from torch import nn

import models
from torchtpu import _C

TOL = {"rtol": 1e-5, "atol": 1e-5}
STEPS = 4


def cnn():
    # The models.cnn with bias=False on the convolution BatchNorm follows (as
    # CNNs are written): that bias's gradient is exactly zero in exact
    # arithmetic, float noise (1e-8) in practice, and Adam scales any
    # gradient to about lr whatever its size: CPU's own float32 and float64
    # AdamW runs differ by 1.6e-3 on it after 5 steps, as ours does from CPU
    # (bench note: the "zero-grad noise" of the AdamW CNN is this, not a bug).
    m = models.cnn()
    m[0] = nn.Conv2d(3, 8, 3, padding=1, bias=False)
    return m


def make(kind):
    return cnn() if kind == "cnn" else models.make(kind)


def optimizer(name, params, foreach=None):
    if name == "sgd":
        return torch.optim.SGD(params, lr=0.05, momentum=0.9, foreach=foreach)
    if name == "adam":
        return torch.optim.Adam(params, lr=1e-3, foreach=foreach)
    # eps: see cnn(); with the default 1e-8 a weight whose gradient is float
    # noise moves by about lr either way on CPU as here
    return torch.optim.AdamW(params, lr=1e-3, eps=1e-5 if name == "adamw" else 1e-8, foreach=foreach)


def train(kind, opt_name, device, compiled, foreach=None, steps=STEPS, base=None):
    m = copy.deepcopy(base).to(device)
    opt = optimizer(opt_name, m.parameters(), foreach)

    def step(x, y):
        opt.zero_grad()
        loss = models.loss_fn(kind, m(x), y)
        loss.backward()
        opt.step()
        return loss

    f = torch.compile(step, backend="tpu") if compiled else step
    losses, programs = [], []
    for s in range(steps):
        x, y = models.batch(kind, seed=s)
        p0, r0 = torch.tpu.plan_stats(), torch.tpu.region_stats()["flushes"]
        loss = f(x.to(device), y.to(device))
        losses.append(loss.item())
        p1, r1 = torch.tpu.plan_stats(), torch.tpu.region_stats()["flushes"]
        programs.append((p1["replays"] - p0["replays"], r1 - r0, p1["capture_failures"] - p0["capture_failures"]))
    return m, opt, losses, programs


def check_matches(kind, opt_name, foreach=None):
    torch._dynamo.reset()
    torch.manual_seed(0)
    base = make(kind)
    cm, _, closs, _ = train(kind, opt_name, "cpu", False, foreach, base=base)
    tm, _, tloss, programs = train(kind, opt_name, "tpu", True, foreach, base=base)
    torch.testing.assert_close(torch.tensor(tloss), torch.tensor(closs), **TOL)
    for (n, c), t in zip(cm.named_parameters(), tm.parameters()):
        torch.testing.assert_close(t.detach().cpu(), c.detach(), **TOL, msg=lambda m: f"{n}: {m}")
    return programs


@pytest.mark.parametrize("opt_name", ["sgd", "adamw"])
@pytest.mark.parametrize("kind", ["mlp", "cnn", "transformer"])
def test_compiled_step_matches_cpu_training(kind, opt_name):
    programs = check_matches(kind, opt_name)
    # after the first steps (Dynamo, captures; SGD's momentum buffers are made
    # in the first step, a graph of their own): three plans replayed (forward,
    # backward, optimizer), one eager program (the backward's initial
    # gradient), nothing refused
    assert programs[-1] == (3, 1, 0), programs
    assert all(p[2] == 0 for p in programs), programs


@pytest.mark.parametrize("foreach", [False, True])
@pytest.mark.parametrize("opt_name", ["sgd", "adam", "adamw_default_eps"])
def test_optimizers_foreach_or_not_run_as_three_plans(opt_name, foreach):
    programs = check_matches("mlp", opt_name, foreach)
    assert programs[-1] == (3, 1, 0) and programs[-2] == (3, 1, 0), programs


def test_donated_parameters_and_state_are_updated_in_place_and_seen_through_old_references():
    torch._dynamo.reset()
    torch.manual_seed(0)
    m = models.mlp().to("tpu")
    opt = torch.optim.AdamW(m.parameters(), lr=1e-2)
    weight = m[0].weight  # an old reference
    row = weight[3]  # a view of a donated storage
    col = weight.t()[:, 5]
    bias_alias = m[2].bias.detach()  # shares the storage

    @torch.compile(backend="tpu")
    def step(x, y):
        opt.zero_grad()
        loss = models.loss_fn("mlp", m(x), y)
        loss.backward()
        opt.step()
        return loss

    x, y = models.batch("mlp")
    x, y = x.to("tpu"), y.to("tpu")
    for _ in range(2):  # Dynamo and the captures
        step(x, y)
    state = opt.state[weight]
    tracked = [weight, m[2].bias, state["exp_avg"], state["exp_avg_sq"], state["step"]]
    addrs = [_C.plan_device_address(t) for t in tracked]
    before = [t.detach().cpu().clone() for t in tracked]
    p0 = torch.tpu.plan_stats()
    for _ in range(3):
        step(x, y)
    assert torch.tpu.plan_stats()["replays"] - p0["replays"] == 9
    after = [t.detach().cpu() for t in tracked]
    for b, a in zip(before, after):
        assert not torch.equal(a, b)  # updated...
    # ... in place: the same device buffers, donated to each step's program
    assert [_C.plan_device_address(t) for t in tracked] == addrs
    assert torch.equal(state["step"].cpu(), torch.tensor(5.0))
    assert state["step"].device.type == "tpu"  # capturable on tpu, as on cuda
    # old references and views see the new values, as on the CPU
    assert weight is m[0].weight
    torch.testing.assert_close(row.cpu(), m[0].weight.detach().cpu()[3], rtol=0, atol=0)
    torch.testing.assert_close(col.cpu(), m[0].weight.detach().cpu()[5], rtol=0, atol=0)  # weight.t()[:, 5]
    torch.testing.assert_close(bias_alias.cpu(), m[2].bias.detach().cpu(), rtol=0, atol=0)
    # a view taken now and one taken before still agree after another step
    fresh = m[0].weight[3]
    step(x, y)
    torch.testing.assert_close(row.cpu(), fresh.cpu(), rtol=0, atol=0)


def test_mutated_inputs_are_written_back_in_the_graph_and_donated():
    # a graph writing its inputs (here under no_grad, as an optimizer does):
    # the writes are inside the one program, and the buffers keep their place
    torch._dynamo.reset()
    p = torch.randn(64, device="tpu")
    buf = torch.zeros(64, device="tpu")
    view = p[8:16]

    @torch.compile(backend="tpu")
    def update(p, buf, g):
        with torch.no_grad():
            buf.mul_(0.9).add_(g)
            p.add_(buf, alpha=-0.1)

    g = torch.ones(64, device="tpu")
    pc, bc, gc = p.cpu(), buf.cpu(), g.cpu()
    update(p, buf, g)
    addrs = (_C.plan_device_address(p), _C.plan_device_address(buf))
    f0, r0 = torch.tpu.region_stats()["flushes"], torch.tpu.plan_stats()["replays"]
    for _ in range(3):
        update(p, buf, g)
    assert torch.tpu.region_stats()["flushes"] == f0  # no eager copy_ epilogue
    assert torch.tpu.plan_stats()["replays"] - r0 == 3
    assert (_C.plan_device_address(p), _C.plan_device_address(buf)) == addrs
    for _ in range(4):
        bc.mul_(0.9).add_(gc)
        pc.add_(bc, alpha=-0.1)
    torch.testing.assert_close(p.cpu(), pc, **TOL)
    torch.testing.assert_close(buf.cpu(), bc, **TOL)
    torch.testing.assert_close(view.cpu(), pc[8:16], **TOL)
