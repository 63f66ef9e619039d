"""Compiled graphs called one after another before a sync run as one program
(csrc/exec/plan_defer.h): a compiled training step's forward, autograd's seed
gradient, backward and optimizer step are recorded into the open region as
calls of their programs and launched once, at the loss's .item() or when the
step repeats. Results are those of each graph launched on its own (fusion
off), index errors still raise at the next sync, random ops still draw fresh
numbers, and a graph called alone between syncs (inference) keeps launching
on its own."""
import copy
import os
import subprocess
import sys

import pytest
import torch
import torch.nn.functional as F
from torch import nn

import models
from torchtpu import _C

HERE = os.path.dirname(os.path.abspath(__file__))
TOL = {"rtol": 1e-5, "atol": 1e-5}


@pytest.fixture
def fusion():
    """Sets fusion for graphs captured in the test (fresh Dynamo caches)."""
    torch.ones(1, device="tpu")
    old = _C.plan_set_fusion(True)

    def set_to(on):
        torch._dynamo.reset()
        _C.plan_set_fusion(on)

    yield set_to
    torch._dynamo.reset()
    _C.plan_set_fusion(old)


def _train(kind, steps, sync_every_step=True, adamw=False):
    torch.manual_seed(0)
    model = models.make(kind).to("tpu")
    # SGD with momentum: Adam's normalization turns the rounding noise of a
    # gradient that is zero in exact arithmetic (a conv bias before
    # BatchNorm) into lr-sized steps (test_compile_step.py)
    opt = (torch.optim.AdamW(model.parameters(), lr=1e-3) if adamw
           else torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9))
    x, y = (t.to("tpu") for t in models.batch(kind))

    @torch.compile(backend="tpu")
    def step():
        opt.zero_grad()
        loss = models.loss_fn(kind, model(x), y)
        loss.backward()
        opt.step()
        return loss

    losses, per_step = [], []
    for i in range(steps):
        p0, f0 = torch.tpu.plan_stats(), torch.tpu.region_stats()["flushes"]
        loss = step()
        losses.append(loss.item() if sync_every_step else loss)
        p1, f1 = torch.tpu.plan_stats(), torch.tpu.region_stats()["flushes"]
        per_step.append((p1["replays"] - p0["replays"], p1["deferred"] - p0["deferred"], f1 - f0))
    losses = [float(v) for v in losses]
    return losses, [p.detach().cpu() for p in model.parameters()], per_step


@pytest.mark.parametrize("kind,adamw", [("mlp", True), ("mlp", False), ("cnn", False), ("transformer", False)])
def test_a_compiled_training_step_runs_as_one_program_with_the_same_results(fusion, kind, adamw):
    fusion(False)
    want_losses, want_params, alone = _train(kind, 5, adamw=adamw)
    fusion(True)
    losses, params, fused = _train(kind, 5, adamw=adamw)
    # one program instead of four: XLA fuses across the graphs' edges, so
    # the last bits of an update may round differently
    torch.testing.assert_close(torch.tensor(losses), torch.tensor(want_losses), **TOL)
    for a, b in zip(params, want_params):
        torch.testing.assert_close(a, b, **TOL)
    # unfused: every replay launched on its own (step 0 captures, step 1's
    # replays launch alone and learn that work follows them)
    assert all(d == 0 for _, d, _ in alone[1:])
    # fused from step 2 on: forward, backward and optimizer step deferred,
    # and the whole step (with autograd's seed) is one region run at .item()
    for replays, deferred, flushes in fused[2:]:
        assert replays == 3 and deferred == 3 and flushes == 1, fused


def test_steps_without_a_sync_pipeline_and_match(fusion):
    fusion(False)
    want_losses, want_params, _ = _train("mlp", 6, sync_every_step=False)
    fusion(True)
    losses, params, fused = _train("mlp", 6, sync_every_step=False)
    torch.testing.assert_close(torch.tensor(losses), torch.tensor(want_losses), **TOL)
    for a, b in zip(params, want_params):
        torch.testing.assert_close(a, b, **TOL)
    # the next step's forward closes the previous step's region (one launch per step)
    assert [d for _, d, _ in fused[2:]] == [3, 3, 3, 3]
    assert all(f == 1 for _, _, f in fused[3:]), fused


def test_a_graph_alone_between_syncs_launches_on_its_own(fusion):
    fusion(True)
    torch.manual_seed(0)
    m = models.make("mlp").eval().to("tpu")
    f = torch.compile(m, backend="tpu")
    xs = [models.batch("mlp", seed=s)[0].to("tpu") for s in range(5)]
    with torch.no_grad():
        f(xs[0]).cpu()
        before = torch.tpu.plan_stats()
        got = [f(x).cpu() for x in xs]
        # called again and again without a sync: still nothing to fuse with
        more = [f(x) for x in xs]
        after = torch.tpu.plan_stats()
        want = [m(x).cpu() for x in xs]
    assert after["replays"] - before["replays"] == 10 and after["deferred"] == before["deferred"]
    for g, w in zip(got + [t.cpu() for t in more], want + want):
        torch.testing.assert_close(g, w, rtol=1e-5, atol=1e-5)


def test_eager_work_after_a_graph_joins_its_program(fusion):
    """A graph followed by eager ops before the sync (a generate loop's argmax):
    from its second replay on, graph and ops are one program."""
    fusion(True)
    torch.manual_seed(0)
    m = models.make("mlp").eval().to("tpu")
    f = torch.compile(m, backend="tpu")
    x = models.batch("mlp")[0].to("tpu")
    with torch.no_grad():
        got = []
        for _ in range(4):
            p0, f0 = torch.tpu.plan_stats()["deferred"], torch.tpu.region_stats()["flushes"]
            out = (f(x) * 2).argmax(-1)
            got.append(out.cpu())
            flushes = torch.tpu.region_stats()["flushes"] - f0
        assert torch.tpu.plan_stats()["deferred"] - p0 == 1 and flushes == 1
        want = (m(x) * 2).argmax(-1).cpu()
    for g in got:
        assert torch.equal(g, want)


def test_an_index_error_in_a_fused_step_raises_at_the_sync(fusion):
    fusion(True)
    torch.manual_seed(0)
    emb = nn.Embedding(10, 4).to("tpu")
    opt = torch.optim.SGD(emb.parameters(), lr=0.1)

    @torch.compile(backend="tpu")
    def step(idx):
        opt.zero_grad()
        loss = emb(idx).square().sum()
        loss.backward()
        opt.step()
        return loss

    good = torch.tensor([1, 2, 3], device="tpu")
    for _ in range(4):
        step(good).item()
    assert torch.tpu.plan_stats()["deferred"] > 0
    bad = torch.tensor([1, 12, 3], device="tpu")
    with pytest.raises(IndexError, match="index out of range"):
        step(bad).item()
    torch.tpu.synchronize()
    step(good).item()  # usable after the error


def test_random_ops_draw_fresh_numbers_as_unfused(fusion):
    def run():
        torch.manual_seed(0)
        torch.tpu.manual_seed(0)
        m = nn.Sequential(nn.Linear(16, 32), nn.Dropout(0.5), nn.Linear(32, 4)).to("tpu")
        opt = torch.optim.SGD(m.parameters(), lr=0.1)
        x = torch.randn(8, 16).to("tpu")

        @torch.compile(backend="tpu")
        def step():
            opt.zero_grad()
            loss = m(x).square().mean()
            loss.backward()
            opt.step()
            return loss

        return [step().item() for _ in range(6)]

    fusion(False)
    want = run()
    fusion(True)
    got = run()
    assert got == want
    assert len(set(got)) == len(got)  # a fresh dropout mask every step


def test_the_environment_turns_it_off():
    code = ("import sys, torch; sys.path.insert(0, %r); import models\n"
            "m = models.make('mlp').to('tpu'); opt = torch.optim.SGD(m.parameters(), lr=0.1)\n"
            "x, y = (t.to('tpu') for t in models.batch('mlp'))\n"
            "@torch.compile(backend='tpu')\n"
            "def step():\n"
            "    opt.zero_grad(); loss = models.loss_fn('mlp', m(x), y); loss.backward(); opt.step(); return loss\n"
            "for _ in range(4): step().item()\n"
            "print(torch.tpu.plan_stats()['deferred'])\n" % HERE)
    env = {k: v for k, v in os.environ.items()}
    env["TORCH_TPU_FUSE_COMPILED_CALLS"] = "0"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().splitlines()[-1] == "0"


def test_a_fused_program_that_fails_to_compile_turns_fusion_off(fusion):
    """The fused step's compile fails (injected): that step raises, naming the
    fusion, and its updates are lost (the parameters keep their values);
    compiled graphs launch on their own from then on and train on."""
    def run(fault):
        torch.manual_seed(0)
        model = nn.Sequential(nn.Linear(12, 7), nn.Tanh(), nn.Linear(7, 3)).to("tpu")  # programs no other test has
        opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
        x, y = torch.randn(5, 12).to("tpu"), torch.randn(5, 3).to("tpu")

        @torch.compile(backend="tpu")
        def step():
            opt.zero_grad()
            loss = (model(x) - y).square().mean()
            loss.backward()
            opt.step()
            return loss

        losses = [step().item() for _ in range(2)]  # capture, then each graph alone
        if fault:
            _C.plan_set_compile_fault("a fused compiled step")
            try:
                with pytest.raises(RuntimeError, match="ran fused into one program, which failed"):
                    step().item()
            finally:
                _C.plan_set_compile_fault(None)
            assert not _C.plan_set_fusion(False)  # turned off by the failure (the fixture restores it)
        d0 = torch.tpu.plan_stats()["deferred"]
        losses += [step().item() for _ in range(3)]
        return losses, torch.tpu.plan_stats()["deferred"] - d0

    fusion(False)
    want, _ = run(False)
    fusion(True)
    got, deferred = run(True)
    assert deferred == 0
    # the failed step changed nothing: the steps after it are the unfused run's steps 2, 3, 4
    torch.testing.assert_close(torch.tensor(got), torch.tensor(want), **TOL)


def test_a_graph_whose_fused_programs_keep_changing_stops_fusing(fusion):
    """Eager work on a new shape after the graph at every call (a generate
    loop): each fused region would be a new program to compile, so after a
    few such misses the graph launches on its own again."""
    fusion(True)
    torch.manual_seed(0)
    m = nn.Sequential(nn.Linear(9, 5), nn.ReLU(), nn.Linear(5, 2)).eval().to("tpu")  # programs no other test has
    f = torch.compile(m, backend="tpu")
    x = torch.randn(3, 9).to("tpu")
    d0 = torch.tpu.plan_stats()["deferred"]
    with torch.no_grad():
        for k in range(1, 25):
            got = (f(x).sum() + torch.arange(k, device="tpu", dtype=torch.float32)).cpu()
            want = (m(x).sum() + torch.arange(k, device="tpu", dtype=torch.float32)).cpu()
            torch.testing.assert_close(got, want, **TOL)
    deferred = torch.tpu.plan_stats()["deferred"] - d0
    assert 1 <= deferred <= 8, deferred
