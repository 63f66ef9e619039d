"""Eager modes: Strict, Debug and DeferAndFuse give the same results; the
deferred region keeps liveness, write order and pending-value semantics; the
repeated-ops heuristic closes regions at repeat boundaries."""
import copy
import pytest
import torch

import models

MODES = ["strict", "debug", "defer_and_fuse"]


@pytest.fixture(autouse=True)
def _restore_mode():
    yield
    torch.tpu.set_eager_mode("strict")


def train_losses(mode, steps=8):
    torch.manual_seed(0)
    base = models.make("transformer")
    model = copy.deepcopy(base).to("tpu")
    opt = torch.optim.AdamW(model.parameters(), lr=1e-2)
    x, y = models.batch("transformer")
    x, y = x.to("tpu"), y.to("tpu")
    losses = []
    with torch.tpu.eager_mode(mode):
        for _ in range(steps):
            opt.zero_grad()
            loss = models.loss_fn("transformer", model(x), y)
            loss.backward()
            opt.step()
            losses.append(loss.item())
    return losses


def test_same_losses_in_all_modes():
    ref = train_losses("strict")
    for mode in ("debug", "defer_and_fuse"):
        got = train_losses(mode)
        for a, b in zip(ref, got):
            assert abs(a - b) <= 1e-5 * abs(a) + 1e-6, (mode, ref, got)


def test_dead_intermediates_are_not_outputs():
    x = torch.randn(16).to("tpu")
    torch.tpu.set_eager_mode("defer_and_fuse")
    a = x * 2
    b = a + 1
    c = b.tanh()
    del a, b
    before = torch.tpu.region_stats()["flushes"]
    got = c.cpu()
    stats = torch.tpu.region_stats()
    assert stats["flushes"] == before + 1
    assert stats["last_ops"] == 3 and stats["last_outputs"] == 1
    torch.testing.assert_close(got, (x.cpu() * 2 + 1).tanh())


def test_side_effects_keep_program_order():
    x0 = torch.randn(5)
    x = x0.to("tpu")
    torch.tpu.set_eager_mode("defer_and_fuse")
    x.add_(1)
    y = x * 2
    x.mul_(3)
    x[1:3] = -7.0
    z = x + y
    ref = x0 + 1
    ry = ref * 2
    ref = ref * 3
    ref[1:3] = -7.0
    torch.testing.assert_close(z.cpu(), ref + ry)
    torch.testing.assert_close(y.cpu(), ry)
    torch.testing.assert_close(x.cpu(), ref)


def test_pending_value_modified_in_place_and_aliases():
    x0 = torch.randn(4, 3)
    x = x0.to("tpu")
    torch.tpu.set_eager_mode("defer_and_fuse")
    y = x * 2            # pending
    v = y[:, 1]          # a view of a pending storage
    w = y.clone()        # reads y before the write
    v.fill_(5.0)         # write through the view into the pending base
    y.add_(1)
    ref_y = x0 * 2
    ref_w = ref_y.clone()
    ref_y[:, 1] = 5.0
    ref_y += 1
    torch.testing.assert_close(w.cpu(), ref_w)
    torch.testing.assert_close(y.cpu(), ref_y)
    torch.testing.assert_close(v.cpu(), ref_y[:, 1])


def test_error_in_deferred_op_rolls_back():
    x = torch.randn(3).to("tpu")
    torch.tpu.set_eager_mode("defer_and_fuse")
    y = x + 1
    with pytest.raises(RuntimeError, match="must match the size"):
        y + torch.ones(4, device="tpu")
    torch.testing.assert_close(y.cpu(), x.cpu() + 1)


def test_repeated_blocks_reuse_one_executable():
    x = torch.randn(8).to("tpu")
    torch.tpu.set_eager_mode("defer_and_fuse")
    cuts0 = torch.tpu.region_stats()["repeat_cuts"]
    for _ in range(3):  # warm: the first repeats build their executables
        x = (x * 0.5 + 0.25).tanh()
    misses0 = torch.tpu.cache_stats()["misses"]
    for _ in range(40):
        x = (x * 0.5 + 0.25).tanh()
    x.cpu()
    stats = torch.tpu.region_stats()
    assert stats["repeat_cuts"] - cuts0 >= 30
    assert torch.tpu.cache_stats()["misses"] - misses0 <= 3


def test_defer_lowers_peak_memory():
    x = torch.randn(64, 64).to("tpu")

    def chain(t):  # no repeated op sequence: one region in DeferAndFuse
        for f in (torch.sin, torch.cos, torch.tanh, torch.sigmoid, torch.exp, torch.abs):
            t = f(t) + t
        return t.sum()

    peaks = {}
    for mode in ("strict", "defer_and_fuse"):
        torch.tpu.synchronize()
        torch.tpu.reset_peak_memory_stats()
        base = torch.tpu.memory_allocated()
        with torch.tpu.eager_mode(mode):
            chain(x).item()
        peaks[mode] = torch.tpu.max_memory_allocated() - base
    assert peaks["strict"] >= 2 * x.numel() * 4  # a running value and a temporary
    assert peaks["defer_and_fuse"] < peaks["strict"]


@pytest.mark.parametrize("kind", ["cnn", "transformer"])
def test_training_loop_stops_compiling_after_an_unrelated_repeat(kind):
    """A period learned from an earlier workload must not cut each step of a
    training loop at shifting places: after warm-up, steps compile nothing."""
    torch.manual_seed(0)
    model = models.make(kind).to("tpu")
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    x, y = (t.to("tpu") for t in models.batch(kind))
    with torch.tpu.eager_mode("defer_and_fuse"):
        a = torch.ones(4, device="tpu")
        for _ in range(12):  # period 3
            a = a + 1
            a = a * 1
            a = a - 1
        torch.tpu.synchronize()
        misses = []
        for _ in range(8):
            opt.zero_grad()
            loss = models.loss_fn(kind, model(x), y)
            loss.backward()
            opt.step()
            loss.item()
            misses.append(torch.tpu.cache_stats()["misses"])
    assert misses[-1] == misses[2], misses


def test_materialization_restarts_the_repeat_history():
    """Ops before a materialization do not pair with ops after it: A B C A B | sync | C must not count as a
    repeat of A B C (the cut would depend on what ran before, not on the loop being traced)."""
    x = torch.ones(4, device="tpu")
    with torch.tpu.eager_mode("defer_and_fuse"):
        x = ((x + 1) * 2 - 1 + 1) * 2
        x.cpu()
        cuts = torch.tpu.region_stats()["repeat_cuts"]
        x = x - 1
        x.cpu()
        assert torch.tpu.region_stats()["repeat_cuts"] == cuts


@pytest.fixture
def chunk_ops():
    """Sets DeferAndFuse's chunk size for one test and restores the default."""
    from torchtpu import _C
    old = _C._get_defer_chunk_ops()
    yield _C._set_defer_chunk_ops
    _C._set_defer_chunk_ops(old)


def test_chunks_start_at_n_ops_and_double(chunk_ops):
    chunk_ops(2)
    x = torch.randn(8).to("tpu")
    fns = (torch.sin, torch.cos, torch.tanh, torch.exp, torch.abs, torch.neg, torch.sigmoid, torch.sqrt,
           torch.log1p, torch.atan)  # 10 different ops: no repeat
    with torch.tpu.eager_mode("defer_and_fuse"):
        torch.tpu.synchronize()
        s0 = torch.tpu.region_stats()
        y = x
        for f in fns:
            y = f(y)
        s1 = torch.tpu.region_stats()
        got = y.cpu()
    assert s1["chunk_cuts"] - s0["chunk_cuts"] == 2  # after ops 2 and 2+4; ops 7-10 (< 8) wait for .cpu()
    assert s1["flushes"] - s0["flushes"] == 2
    want = x.cpu()
    for f in fns:
        want = f(want)
    torch.testing.assert_close(got, want)


def test_chunked_training_matches_strict_and_stops_compiling(chunk_ops):
    ref = train_losses("strict", steps=6)
    chunk_ops(3)  # cuts inside forward, backward and the optimizer
    misses = []
    torch.manual_seed(0)
    model = models.make("transformer").to("tpu")
    opt = torch.optim.AdamW(model.parameters(), lr=1e-2)
    x, y = (t.to("tpu") for t in models.batch("transformer"))
    got = []
    with torch.tpu.eager_mode("defer_and_fuse"):
        for _ in range(6):
            opt.zero_grad()
            loss = models.loss_fn("transformer", model(x), y)
            loss.backward()
            opt.step()
            got.append(loss.item())
            misses.append(torch.tpu.cache_stats()["misses"])
    assert torch.tpu.region_stats()["chunk_cuts"] > 0
    for a, b in zip(ref, got):
        assert abs(a - b) <= 1e-5 * abs(a) + 1e-6, (ref, got)
    assert misses[-1] == misses[2], misses  # the cuts fall at the same places every step
