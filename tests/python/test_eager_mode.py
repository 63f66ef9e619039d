"""Eager modes: selection (environment, setter, context manager) and debug
mode's bounds checks, which raise at the op as PyTorch's CPU kernels do."""
import os
import subprocess
import sys

import pytest
import torch
import torch.nn.functional as F

from conftest import to_tpu


def test_default_is_strict_and_setter_switches():
    assert torch.tpu.get_eager_mode() == "strict"
    torch.tpu.set_eager_mode("debug")
    try:
        assert torch.tpu.get_eager_mode() == "debug"
    finally:
        torch.tpu.set_eager_mode("strict")
    assert torch.tpu.get_eager_mode() == "strict"


def test_an_error_read_when_entering_a_mode_leaves_the_mode_as_it_was():
    """The switch into a mode reads earlier launches' device errors (after switching); raised by
    __enter__, the block does not run and the mode stayed switched (a later test then found
    DeferAndFuse). Whether the error is read at the entry or inside the block, the mode after it is
    the one before."""
    import time
    x = torch.arange(5.0, device="tpu")
    x[torch.tensor([7], device="tpu")]  # raises asynchronously
    time.sleep(0.3)  # its launch done: the entry's switch reads it
    with pytest.raises(IndexError, match="index 7 is out of bounds for dimension 0 with size 5"):
        with torch.tpu.eager_mode("defer_and_fuse"):
            torch.tpu.synchronize()
    assert torch.tpu.get_eager_mode() == "strict"


def test_context_manager_restores_on_error():
    with pytest.raises(KeyError):
        with torch.tpu.eager_mode("debug"):
            assert torch.tpu.get_eager_mode() == "debug"
            raise KeyError("inside")
    assert torch.tpu.get_eager_mode() == "strict"


def test_defer_and_fuse_is_selectable():
    with torch.tpu.eager_mode("defer_and_fuse"):
        assert torch.tpu.get_eager_mode() == "defer_and_fuse"
    assert torch.tpu.get_eager_mode() == "strict"
    with pytest.raises(ValueError, match="unknown eager mode"):
        torch.tpu.set_eager_mode("fast")


def _run(code, **env):
    e = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2", **env)
    return subprocess.run([sys.executable, "-c", code], env=e, capture_output=True, text=True, timeout=120)


def test_environment_selects_mode():
    code = (
        "import torch\n"
        "print(torch.tpu.get_eager_mode())\n"
        "try:\n"
        "    torch.arange(5, device='tpu')[torch.tensor([9], device='tpu')]\n"
        "except IndexError as e:\n"
        "    print('IndexError', e)\n"
    )
    r = _run(code, TORCH_TPU_LAUNCH_BLOCKING="1")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0] == "debug"
    assert lines[1].startswith("IndexError index 9 is out of bounds for dimension 0 with size 5")
    r = _run("import torch\ntorch.zeros(1, device='tpu')\nprint(torch.tpu.get_eager_mode())\n", TORCH_TPU_DEFER_AND_FUSE="1")
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "defer_and_fuse"


def _cases():
    x = torch.arange(20.0).reshape(4, 5)
    v = torch.arange(5.0)
    i = lambda *vals: torch.tensor(vals)
    emb = torch.randn(5, 3)
    return {
        "index_select": (lambda t, idx: torch.index_select(t, 0, idx), x, i(1, 7, 2), i(3, 0, 0)),
        "index_select_negative": (lambda t, idx: torch.index_select(t, 0, idx), v, i(-1), i(0)),
        "gather": (lambda t, idx: torch.gather(t, 1, idx), x, torch.tensor([[0, 9], [1, 1], [2, 0], [4, 3]]), torch.tensor([[0, 4], [1, 1], [2, 0], [4, 3]])),
        "gather_negative": (lambda t, idx: torch.gather(t, 0, idx), v, i(-2), i(3)),
        "scatter_": (lambda t, idx: t.clone().scatter_(0, idx, torch.ones(2, device=t.device)), v, i(1, 5), i(1, 4)),
        "scatter_add_": (lambda t, idx: t.clone().scatter_add_(0, idx, torch.ones(2, device=t.device)), v, i(6, 0), i(3, 0)),
        "embedding": (lambda t, idx: F.embedding(idx, t), emb, torch.tensor([[0, 1], [5, 2]]), torch.tensor([[0, 1], [4, 2]])),
        "index": (lambda t, idx: t[idx], v, i(1, 7), i(1, -5)),
        "index_dim1": (lambda t, idx: t[:, idx], x, i(2, 5), i(2, 4)),
        "index_two_tensors": (lambda t, idx: t[idx, idx], x, i(0, 4), i(0, 3)),
        "index_put_": (lambda t, idx: t.clone().index_put_((idx,), torch.tensor(1.0, device=t.device)), v, i(9), i(-1)),
        "index_put_accumulate": (lambda t, idx: t.clone().index_put_((idx,), torch.tensor(1.0, device=t.device), accumulate=True), v, i(2, -6), i(2, 2)),
        "setitem": (lambda t, idx: t.clone().__setitem__(idx, 3.0), v, i(5), i(4)),
        "index_add_": (lambda t, idx: t.clone().index_add_(0, idx, torch.ones(2, device=t.device)), v, i(0, 5), i(0, 0)),
        "nll_loss": (lambda t, idx: F.nll_loss(t, idx), x.log_softmax(1), i(1, 5, 0, 2), i(1, 4, 0, 2)),
        "cross_entropy_ignore_index": (lambda t, idx: F.cross_entropy(t, idx), x, i(1, -100, -3, 2), i(1, -100, 3, 2)),
    }


CASES = _cases()


def _error_of(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - compared below
        return e
    return None


@pytest.mark.parametrize("name", sorted(CASES))
def test_debug_out_of_range_raises_at_the_op(name):
    fn, t, bad, good = CASES[name]
    cpu_err = _error_of(lambda: fn(t, bad))
    assert cpu_err is not None, "the case must be an error on CPU"
    tt, tbad, tgood = to_tpu(t), to_tpu(bad), to_tpu(good)
    with torch.tpu.eager_mode("debug"):
        with pytest.raises(type(cpu_err)) as info:
            fn(tt, tbad)
        # PyTorch's message first, then the op, the index and the size.
        assert str(info.value).startswith(str(cpu_err).split("\n")[0]), (str(info.value), str(cpu_err))
        assert "aten::" in str(info.value) and "debug mode" in str(info.value)
        # In-range indices (negatives where PyTorch allows them) pass and agree with CPU.
        res = fn(tt, tgood)
    expected = fn(t, good)
    if expected is not None:
        torch.testing.assert_close(res.cpu(), expected)


def test_debug_failed_write_leaves_target_unchanged():
    v = torch.arange(5.0, device="tpu")
    with torch.tpu.eager_mode("debug"):
        with pytest.raises(IndexError):
            v.index_put_((torch.tensor([1, 8], device="tpu"),), torch.tensor(-1.0, device="tpu"))
    torch.testing.assert_close(v.cpu(), torch.arange(5.0))


def test_debug_first_bad_index_is_reported():
    v = torch.arange(5.0, device="tpu")
    with torch.tpu.eager_mode("debug"):
        with pytest.raises(IndexError, match="index 11 is out of bounds for dimension 0 with size 5"):
            v[torch.tensor([[0, 1], [11, 12]], device="tpu")]


def test_debug_training_step_matches_strict():
    from models import batch, loss_fn, make

    torch.manual_seed(0)
    model = make("transformer").to("tpu")
    x, y = to_tpu(batch("transformer"))
    strict = loss_fn("transformer", model(x), y)
    with torch.tpu.eager_mode("debug"):
        debug = loss_fn("transformer", model(x), y)
        debug.backward()
    torch.testing.assert_close(debug.cpu(), strict.cpu())


# Strict and DeferAndFuse: the same checks run inside the op's program and
# raise at the next synchronization point (CUDA's device-side assert).
ASYNC_MODES = ["strict", "defer_and_fuse"]


def _check_async(err, cpu_err):
    assert type(err) is type(cpu_err), (err, cpu_err)
    assert str(err).startswith(str(cpu_err).split("\n")[0]), (str(err), str(cpu_err))
    assert "aten::" in str(err) and "asynchronously" in str(err)


@pytest.mark.parametrize("mode", ASYNC_MODES)
@pytest.mark.parametrize("name", sorted(CASES))
def test_async_out_of_range_raises_at_synchronize(name, mode):
    fn, t, bad, good = CASES[name]
    cpu_err = _error_of(lambda: fn(t, bad))
    tt, tbad, tgood = to_tpu(t), to_tpu(bad), to_tpu(good)
    with torch.tpu.eager_mode(mode):
        fn(tt, tbad)  # no wait here: nothing raises at the op
        err = _error_of(torch.tpu.synchronize)
        _check_async(err, cpu_err)
        torch.tpu.synchronize()  # raised once
        res = fn(tt, tgood)
        expected = fn(t, good)
        if expected is not None:
            torch.testing.assert_close(res.cpu(), expected)


@pytest.mark.parametrize("mode", ASYNC_MODES)
@pytest.mark.parametrize("read", ["cpu", "item", "print"])
def test_async_out_of_range_raises_at_a_read(mode, read):
    v = torch.arange(5.0, device="tpu")
    with torch.tpu.eager_mode(mode):
        r = torch.index_select(v, 0, torch.tensor([1, 7], device="tpu")).sum()
        with pytest.raises(IndexError, match=r"^index out of range in self \(aten::index_select: index 7, dimension 0 with size 5; raised asynchronously"):
            {"cpu": r.cpu, "item": r.item, "print": lambda: str(r)}[read]()
        # State stays sane: later programs run and read normally.
        assert (v * 2).sum().item() == 20.0
        torch.tpu.synchronize()


@pytest.mark.parametrize("mode", ASYNC_MODES)
def test_async_error_of_an_earlier_op_names_that_op(mode):
    v = torch.arange(5.0, device="tpu")
    with torch.tpu.eager_mode(mode):
        v[torch.tensor([9], device="tpu")] = 1.0  # index_put_: dropped, flagged
        w = v + 1
        with pytest.raises(IndexError, match="index 9 is out of bounds for dimension 0 with size 5 \\(aten::_index_put_impl_"):
            w.cpu()
        # The write was dropped (the clamped computation's result); v is usable.
        torch.testing.assert_close(v.cpu(), torch.arange(5.0))


def test_async_only_first_error_raised_then_cleared():
    v = torch.arange(5.0, device="tpu")
    torch.gather(v, 0, torch.tensor([8], device="tpu"))
    torch.index_select(v, 0, torch.tensor([6], device="tpu"))
    with pytest.raises(RuntimeError, match="index 8 is out of bounds") as info:
        torch.tpu.synchronize()
    assert type(info.value) is RuntimeError  # gather's error, not index_select's IndexError
    torch.tpu.synchronize()
    assert v.sum().item() == 10.0


def test_async_in_range_ops_train_without_errors():
    emb = torch.nn.Embedding(10, 4).to("tpu")
    idx = torch.tensor([[0, 9], [3, 3]], device="tpu")
    for _ in range(3):
        emb(idx).sum().backward()
    torch.tpu.synchronize()
    assert emb.weight.grad.cpu()[3].sum().item() == 24.0  # 2 uses x 4 features x 3 steps


def test_eager_mode_entered_by_hand_stays_until_exit_even_when_collected():
    import gc

    assert torch.tpu.get_eager_mode() == "strict"
    ctx = torch.tpu.eager_mode("defer_and_fuse")
    ctx.__enter__()
    del ctx
    gc.collect()
    try:
        assert torch.tpu.get_eager_mode() == "defer_and_fuse"
    finally:
        torch.tpu.set_eager_mode("strict")


def test_eager_mode_as_a_decorator_and_nested_in_itself():
    ctx = torch.tpu.eager_mode("debug")

    @torch.tpu.eager_mode("defer_and_fuse")
    def inner():
        assert torch.tpu.get_eager_mode() == "defer_and_fuse"
        with ctx:
            assert torch.tpu.get_eager_mode() == "debug"
        assert torch.tpu.get_eager_mode() == "defer_and_fuse"

    with ctx:
        inner()
        assert torch.tpu.get_eager_mode() == "debug"
    assert torch.tpu.get_eager_mode() == "strict"
