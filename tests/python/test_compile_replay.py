"""torch.compile(backend="tpu") captures each graph once into one executable
(csrc/exec/plan.h) and replays it from C: compiled inference and training
match eager; replays lower, fingerprint and record nothing; a mismatched
argument raises; random ops draw fresh numbers per call; graphs that cannot
be captured fall back to op-by-op deferred work with eager's results; two
threads replay one plan; the plan's program comes from tier 3 in a second
process."""
import copy
import os
import subprocess
import sys
import threading
import warnings

import pytest
import torch
import torch.nn.functional as F

import models
from torchtpu import _C

TOL = {"rtol": 1e-5, "atol": 1e-5}


def _params(m):
    return [p.detach().cpu() for p in m.parameters()]


@pytest.mark.parametrize("kind", ["mlp", "cnn", "transformer"])
def test_inference_matches_eager_and_replays_without_per_op_work(kind):
    torch._dynamo.reset()
    torch.manual_seed(0)
    m = models.make(kind).eval().to("tpu")
    f = torch.compile(m, backend="tpu")
    batches = [models.batch(kind, seed=s)[0].to("tpu") for s in range(4)]
    with torch.no_grad():
        f(batches[0])  # Dynamo, the capture and the compile
        before = torch.tpu.plan_stats()
        ops, requests = torch.tpu.region_stats()["ops"], torch.tpu.cache_stats()["requests"]
        got = [f(x) for x in batches]
        after = torch.tpu.plan_stats()
        # replays record no op, key no program
        assert torch.tpu.region_stats()["ops"] == ops
        assert torch.tpu.cache_stats()["requests"] == requests
        want = [m(x) for x in batches]
    assert after["replays"] - before["replays"] == len(batches), (before, after)
    assert after["capture_failures"] == before["capture_failures"]
    for g, w in zip(got, want):
        torch.testing.assert_close(g.cpu(), w.cpu(), **TOL)


@pytest.mark.parametrize("kind", ["mlp", "cnn", "transformer"])
def test_training_matches_eager_with_the_optimizer_outside_the_graph(kind):
    torch._dynamo.reset()
    torch.manual_seed(0)
    base = models.make(kind)
    runs = {}
    for compiled in (False, True):
        m = copy.deepcopy(base).to("tpu")
        f = torch.compile(m, backend="tpu") if compiled else m
        # SGD: Adam's normalization turns the rounding noise of a gradient that
        # is zero in exact arithmetic (a conv bias before BatchNorm) into lr-sized steps
        opt = torch.optim.SGD(m.parameters(), lr=0.05, momentum=0.9)
        losses = []
        stats = torch.tpu.plan_stats()
        for step in range(5):
            x, y = models.batch(kind, seed=step)
            opt.zero_grad()
            loss = models.loss_fn(kind, f(x.to("tpu")), y.to("tpu"))
            loss.backward()
            opt.step()
            losses.append(loss.item())
        runs[compiled] = (losses, _params(m), torch.tpu.plan_stats(), stats)
    losses, params, after, before = runs[True]
    # a forward and a backward graph, captured at step 0 and replayed at every later step
    assert after["captures"] - before["captures"] == 2, (before, after)
    assert after["replays"] - before["replays"] == 2 * 4, (before, after)
    assert after["capture_failures"] == before["capture_failures"]
    torch.testing.assert_close(torch.tensor(losses), torch.tensor(runs[False][0]), **TOL)
    for a, b in zip(params, runs[False][1]):
        torch.testing.assert_close(a, b, **TOL)


def _ten_ops(a, b):
    x = a * b + 1
    x = torch.sin(x) * a
    x = x - b.exp()
    x = torch.tanh(x) + x.abs()
    return x.sum(0) / 3


def test_ten_op_graph_replays_from_one_call():
    torch._dynamo.reset()
    f = torch.compile(_ten_ops, backend="tpu")
    a, b = torch.randn(16, 16), torch.randn(16, 16)
    at, bt = a.to("tpu"), b.to("tpu")
    f(at, bt)
    flushes, ops = torch.tpu.region_stats()["flushes"], torch.tpu.region_stats()["ops"]
    replays = torch.tpu.plan_stats()["replays"]
    outs = [f(at, bt) for _ in range(5)]
    assert torch.tpu.plan_stats()["replays"] == replays + 5
    assert torch.tpu.region_stats()["flushes"] == flushes and torch.tpu.region_stats()["ops"] == ops
    for o in outs:
        torch.testing.assert_close(o.cpu(), _ten_ops(a, b), **TOL)


def _capture(fn, args):
    _C.plan_capture_begin(True)
    try:
        outs = fn(*args)
    except BaseException:
        _C.plan_capture_abort()
        raise
    plan, why = _C.plan_capture_end(args, outs, "test graph")
    assert plan is not None, why
    return plan, outs


def test_a_mismatched_argument_raises_naming_it_and_both_signatures():
    a, b = torch.randn(4, 8), torch.randn(4, 8)
    plan, outs = _capture(lambda x, y: [(x * y).sin(), x + 1], [a.to("tpu"), b.to("tpu")])
    torch.testing.assert_close(outs[0].cpu(), (a * b).sin())
    # a replay on new values computes them
    c, d = torch.randn(4, 8), torch.randn(4, 8)
    got = _C.plan_run(plan, [c.to("tpu"), d.to("tpu")])
    torch.testing.assert_close(got[0].cpu(), (c * d).sin())
    torch.testing.assert_close(got[1].cpu(), c + 1)
    wrong = {
        "stride": torch.randn(8, 4).to("tpu").t(),
        "dtype": torch.randn(4, 8).double().to("tpu"),
        "shape": torch.randn(5, 8).to("tpu"),
        "offset": torch.randn(5, 8).to("tpu")[1:],
    }
    for what, bad in wrong.items():
        with pytest.raises(RuntimeError) as e:
            _C.plan_run(plan, [bad, d.to("tpu")])
        msg = str(e.value)
        assert "argument 0 does not match" in msg and "got " in msg and "compiled for float32[4, 8] strides (8, 1)" in msg, (what, msg)
    # the same storage for both arguments, where the capture had two
    x = torch.randn(4, 8).to("tpu")
    with pytest.raises(RuntimeError, match="argument 1 does not match.*sharing argument 0's storage"):
        _C.plan_run(plan, [x, x])
    with pytest.raises(RuntimeError, match="called with 1 arguments, compiled for 2"):
        _C.plan_run(plan, [x])
    with pytest.raises(RuntimeError, match="argument 1 is not a tpu tensor"):
        _C.plan_run(plan, [x, torch.randn(4, 8)])


def test_views_at_new_offsets_are_captured_once_each_and_replayed():
    """Dynamo does not guard on a storage offset: f(big[i]) for each i is one
    Dynamo graph whose calls differ in the offset of their argument."""
    torch._dynamo.reset()
    f = torch.compile(lambda r: (r * 2).sin() + r, backend="tpu")
    big = torch.randn(12, 16)
    bt = big.to("tpu")
    before = torch.tpu.plan_stats()
    for _ in range(3):
        for i in range(4):
            torch.testing.assert_close(f(bt[i]).cpu(), (big[i] * 2).sin() + big[i], **TOL)
    after = torch.tpu.plan_stats()
    assert after["captures"] - before["captures"] == 4 and after["replays"] - before["replays"] == 8, (before, after)
    for i in range(4, 12):  # past MAX_PLANS signatures: op by op, still right
        torch.testing.assert_close(f(bt[i]).cpu(), (big[i] * 2).sin() + big[i], **TOL)


def test_outputs_that_view_results_and_arguments():
    a = torch.randn(4, 6)
    plan, outs = _capture(lambda x: [x * 2, (x * 2).t(), x[1:], x.view(6, 4)], [a.to("tpu")])
    c = torch.randn(4, 6)
    ct = c.to("tpu")
    got = _C.plan_run(plan, [ct])
    for g, w in zip(got, [c * 2, (c * 2).t(), c[1:], c.view(6, 4)]):
        assert g.shape == w.shape and g.stride() == w.stride()
        torch.testing.assert_close(g.cpu(), w)
    assert got[3].untyped_storage().data_ptr() == ct.untyped_storage().data_ptr()  # still a view of the argument


def test_output_views_are_eagers_views_with_and_without_autograd():
    """plan_run makes an output view below autograd's kernel where that
    kernel adds nothing (bindings/plan.c direct_view_ok): the view still has
    eager's base, shared version counter and no_grad creation mode; a view
    of an argument that requires grad under grad mode gets its backward, and
    under a forward-AD level its tangent, as eager's x.t() does."""
    import torch.autograd.forward_ad as fwAD

    from torchtpu import _compile

    _compile._set_view_fns()
    a = torch.randn(4, 6)
    def f(x):
        y = x * 2
        return [y, y.t(), x.t()]

    plan, _ = _capture(f, [a.to("tpu")])
    c = torch.randn(4, 6)
    ct = c.to("tpu")
    got = _C.plan_run(plan, [ct])
    assert got[1]._base is got[0] and got[2]._base is ct
    v = got[1]._version
    got[0].add_(1)
    assert got[1]._version == v + 1
    torch.testing.assert_close(got[1].cpu(), (c * 2 + 1).t())

    leaf = c.to("tpu").requires_grad_()
    got = _C.plan_run(plan, [leaf])
    assert got[2].grad_fn is not None and got[1].grad_fn is None
    (got[2] * torch.arange(24.0).reshape(6, 4).to("tpu")).sum().backward()
    torch.testing.assert_close(leaf.grad.cpu(), torch.arange(24.0).reshape(6, 4).t())

    with torch.no_grad():
        got = _C.plan_run(plan, [leaf])
        eager = leaf.t()
    assert got[2].grad_fn is None and got[2]._base is leaf
    for view in (eager, got[2]):
        with pytest.raises(RuntimeError, match="view was created in no_grad mode"):
            view.mul_(2)

    tangent = torch.randn(4, 6)
    with fwAD.dual_level():
        dual = fwAD.make_dual(ct, tangent.to("tpu"))
        got = _C.plan_run(plan, [dual])
        t = fwAD.unpack_dual(got[2]).tangent
        assert t is not None
        torch.testing.assert_close(t.cpu(), tangent.t())


def test_dropout_draws_fresh_numbers_every_call_as_eager():
    torch._dynamo.reset()
    f = torch.compile(lambda x: F.dropout(x, 0.5, training=True) + 0, backend="tpu")
    x = torch.ones(64, 64, device="tpu")
    f(x)
    replays = torch.tpu.plan_stats()["replays"]
    torch.manual_seed(3)
    first = [f(x).cpu() for _ in range(3)]
    assert torch.tpu.plan_stats()["replays"] == replays + 3
    for o in first:
        assert set(o.unique().tolist()) <= {0.0, 2.0} and 0.3 < (o == 0).float().mean() < 0.7
    assert not torch.equal(first[0], first[1]) and not torch.equal(first[1], first[2])
    torch.manual_seed(3)  # the same seed draws the same numbers again, as eager
    again = [f(x).cpu() for _ in range(3)]
    for a, b in zip(first, again):
        assert torch.equal(a, b)


def test_training_with_dropout_differs_across_steps_and_matches_eager_draws():
    torch._dynamo.reset()
    torch.manual_seed(0)
    base = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Dropout(0.5), torch.nn.Linear(32, 4))
    x = torch.randn(8, 16).to("tpu")
    m = copy.deepcopy(base).to("tpu")
    f = torch.compile(m, backend="tpu")
    outs = []
    for _ in range(3):
        out = f(x)
        out.sum().backward()
        outs.append(out.detach().cpu())
    assert not torch.equal(outs[1], outs[2])  # two replays, two masks
    assert all(p.grad is not None and torch.isfinite(p.grad.cpu()).all() for p in m.parameters())


_lib = torch.library.Library("tt_compile_replay", "DEF")
_lib.define("halve(Tensor x) -> Tensor")
_lib.impl("halve", lambda x: x * 0.5, "CPU")
torch.library.register_fake("tt_compile_replay::halve", lambda x: torch.empty_like(x), lib=_lib)


def test_a_graph_with_a_cpu_fallback_op_falls_back_and_gives_eagers_results():
    torch._dynamo.reset()

    def g(x):
        return torch.ops.tt_compile_replay.halve(x.sin()) * 2 + 1

    f = torch.compile(g, backend="tpu", options={"cpu_fallback": True})
    before = torch.tpu.plan_stats()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for s in range(3):
            x = torch.randn(3, 4, generator=torch.Generator().manual_seed(s))
            torch.testing.assert_close(f(x.to("tpu")).cpu(), g(x))
    after = torch.tpu.plan_stats()
    assert after["capture_failures"] == before["capture_failures"] + 1
    assert after["replays"] == before["replays"]
    torch.tpu.reset_fallback_counts()


def test_a_graph_with_a_data_dependent_shape_falls_back():
    torch._dynamo.reset()

    def g(x):
        return x[x > 0].sum() * 2 + x.cos().sum()

    before = torch.tpu.plan_stats()
    with torch._dynamo.config.patch(capture_dynamic_output_shape_ops=True):
        f = torch.compile(g, backend="tpu")
        for s in range(3):
            x = torch.randn(20, generator=torch.Generator().manual_seed(s))
            torch.testing.assert_close(f(x.to("tpu")).cpu(), g(x), **TOL)
    after = torch.tpu.plan_stats()
    assert after["capture_failures"] > before["capture_failures"] and after["replays"] == before["replays"]


def test_a_cpu_scalar_argument_is_not_baked_into_a_plan():
    torch._dynamo.reset()
    f = torch.compile(lambda x, s: x * s + 1, backend="tpu")
    x = torch.randn(5)
    before = torch.tpu.plan_stats()
    for v in (2.0, 3.0, -1.5):
        s = torch.tensor(v)  # a 0-dim CPU tensor: Dynamo does not guard on its value
        torch.testing.assert_close(f(x.to("tpu"), s).cpu(), x * s + 1)
    # moved to the device at each call, it is an argument of the plan: one
    # capture, two replays, each with its own value
    after = torch.tpu.plan_stats()
    assert after["capture_failures"] == before["capture_failures"]
    assert after["captures"] - before["captures"] == 1 and after["replays"] - before["replays"] == 2


def test_two_threads_replay_one_compiled_function():
    torch._dynamo.reset()
    f = torch.compile(_ten_ops, backend="tpu")
    f(torch.randn(16, 16, device="tpu"), torch.randn(16, 16, device="tpu"))
    errors = []
    # Dynamo's global-state guard includes at::get_num_threads(), which is per
    # OS thread once something has set it (a DataLoader's pin-memory thread
    # sets 1): the threads run with the main thread's value, or each would
    # recompile the function once.
    n_threads = torch.get_num_threads()

    def work(seed):
        try:
            torch.set_num_threads(n_threads)
            g = torch.Generator().manual_seed(seed)
            for _ in range(15):
                a, b = torch.randn(16, 16, generator=g), torch.randn(16, 16, generator=g)
                torch.testing.assert_close(f(a.to("tpu"), b.to("tpu")).cpu(), _ten_ops(a, b), **TOL)
        except BaseException as e:  # reported below
            errors.append(e)

    replays = torch.tpu.plan_stats()["replays"]
    threads = [threading.Thread(target=work, args=(s,)) for s in (1, 2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    assert torch.tpu.plan_stats()["replays"] == replays + 30


_TIER3 = """
import torch, torchtpu
f = torch.compile(lambda a, b: (torch.tanh(a @ b) * 3).sum(1), backend="tpu")
a, b = torch.randn(8, 8).to("tpu"), torch.randn(8, 8).to("tpu")
f(a, b).cpu()
s, p = torch.tpu.cache_stats(), torch.tpu.plan_stats()
print("STATS", s["misses"], s["tier3_hits"], p["captures"])
"""


def test_a_second_process_loads_the_plans_program_from_tier3(tmp_path):
    env = dict(os.environ, TORCH_TPU_TIER3_COMPILATION_CACHE_ROOT=str(tmp_path / "tier3"), TF_CPP_MIN_LOG_LEVEL="2")
    runs = []
    for _ in range(2):
        p = subprocess.run([sys.executable, "-c", _TIER3], env=env, capture_output=True, text=True, timeout=300)
        assert p.returncode == 0, p.stderr[-3000:]
        line = [ln for ln in p.stdout.splitlines() if ln.startswith("STATS")][-1]
        runs.append([int(v) for v in line.split()[1:]])
    (miss1, hits1, cap1), (miss2, hits2, cap2) = runs
    assert cap1 == cap2 == 1
    assert miss1 >= 1 and hits1 == 0
    assert miss2 == 0 and hits2 >= 1, runs
