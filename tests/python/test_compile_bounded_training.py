"""Bounded dynamism for training graphs (torchtpu/_bounded.py): AOTAutograd's
forward and backward graphs of a step with symbolic sizes run padded to
their bucket, one plan per graph per bucket, and the loss and every
parameter's gradient equal CPU eager's for every length. The inputs narrow
tensors laid out at the bound whose tail is huge, so a missing mask (a
weight gradient summed over padded rows, a mean dividing by the bound)
shows as a wrong value. What makes these graphs boundable: sizes the
forward saves for the backward (s0, 4*s0) are outputs made on the host,
inputs it saves are returned as given (views of them replayed), a size used
as a value (a mean's backward divides by its count) is the real size at
run time, and the backward ops that sum over rows (layer norm's and
softmax's backward) read zeros in the padding."""
import copy
import gc

import pytest
import torch
import torch.nn as nn

from torchtpu import _compile

TOL = {"rtol": 1e-5, "atol": 1e-5}
_old = set()


@pytest.fixture(autouse=True)
def fresh():
    torch._dynamo.reset()
    torch.tpu.set_dynamic_buckets(None)
    _old.update(id(g) for g in gc.get_objects() if type(g) is _compile._Graph)
    yield
    torch._dynamo.reset()


def _graphs():
    seen = {}
    for g in gc.get_objects():
        if type(g) is _compile._Graph and id(g) not in _old and g.sizes:
            seen.setdefault(id(g.gm), g)
    return list(seen.values())


def _poisoned(shape, dim, n, bound, seed):
    """(tpu tensor of `shape` with length n along dim, narrowing one laid out
    at `bound` there whose tail is huge; its CPU copy)."""
    full_shape = list(shape)
    full_shape[dim] = bound
    full = torch.randn(full_shape, generator=torch.Generator().manual_seed(seed + n))
    full.narrow(dim, n, bound - n).fill_(3e4)
    return full.to("tpu").narrow(dim, 0, n), full.narrow(dim, 0, n).clone()


def _step(model, x):
    y = model(x)
    loss = y.float().pow(2).mean() + y.float().amax(-1).sum() / 100
    loss.backward()
    return loss


def _train_sweep(model, shape, dim, lengths, compile_kw, mark=None):
    """Compiled steps on tpu vs eager steps on CPU, gradient by gradient;
    returns the plan captures the sweep made."""
    ref = copy.deepcopy(model)
    dev = model.to("tpu")
    step = torch.compile(_step, backend="tpu", **compile_kw)
    before = torch.tpu.plan_stats()["captures"]
    for n in lengths:
        bound = 1 << (n - 1).bit_length()
        x, xc = _poisoned(shape, dim, n, bound, seed=3)
        if mark is not None:
            torch._dynamo.mark_dynamic(x, mark)
        dev.zero_grad()
        ref.zero_grad()
        got = step(dev, x)
        want = _step(ref, xc)
        torch.testing.assert_close(got.cpu(), want, **TOL)
        for (name, p), q in zip(dev.named_parameters(), ref.parameters()):
            torch.testing.assert_close(p.grad.cpu(), q.grad, **TOL, msg=lambda m: f"{name} at length {n}: {m}")
    return torch.tpu.plan_stats()["captures"] - before


LENGTHS = [5, 6, 7, 9, 12, 13, 16, 17, 30, 6]  # buckets 8, 16, 32


def _mlp():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(16, 32), nn.GELU(), nn.LayerNorm(32), nn.Linear(32, 4))


def _block():
    torch.manual_seed(0)
    return nn.TransformerEncoderLayer(32, 2, 64, dropout=0.0, batch_first=True)


def test_mlp_training_with_a_symbolic_batch_runs_one_plan_per_bucket():
    captures = _train_sweep(_mlp(), (0, 16), 0, LENGTHS, {"dynamic": True})
    gs = _graphs()
    assert len(gs) == 2 and all(g.bounding is not None for g in gs), [g.unbounded for g in gs]
    assert captures <= 2 * 3, captures  # forward and backward, three buckets (was one plan per length)


def test_transformer_training_with_a_symbolic_sequence_runs_one_plan_per_bucket():
    captures = _train_sweep(_block(), (1, 0, 32), 1, LENGTHS, {"dynamic": True})
    gs = _graphs()
    assert len(gs) == 2 and all(g.bounding is not None for g in gs), [g.unbounded for g in gs]
    assert captures <= 2 * 3, captures


@pytest.mark.parametrize("kw,mark", [({"dynamic": True}, None), ({}, 1)], ids=["dynamic", "mark_dynamic"])
def test_transformer_training_with_a_batch_of_two_runs_one_plan_per_bucket(kw, mark):
    # the activations the forward saves for the backward are [2*s, d] (the
    # linears' inputs): saved split as [2, s, d] (_bounded.split_saved), so the
    # padding lies at the end of s and both graphs run padded
    captures = _train_sweep(_block(), (2, 0, 32), 1, [5, 6, 9, 12, 6], kw, mark=mark)
    gs = _graphs()
    assert len(gs) == 2 and all(g.bounding is not None for g in gs), [g.unbounded for g in gs]
    assert captures <= 2 * 2, captures


def test_training_with_buckets_off_keeps_plans_per_size_and_is_right():
    torch.tpu.set_dynamic_buckets(False)
    try:
        captures = _train_sweep(_block(), (2, 0, 32), 1, [5, 6, 9, 6], {"dynamic": True})
    finally:
        torch.tpu.set_dynamic_buckets(None)
    assert captures == 2 * 3, captures
